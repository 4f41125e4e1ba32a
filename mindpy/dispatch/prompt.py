"""The dispatcher's prompt, in MindAgent's section order: recipes, instructions and rules, inference knowledge,
a one-shot demonstration with another dish, the current state, the last step's execution feedback, the history.

    options = DispatcherOptions(demo="few_step", history_steps=3)
    prompt = build_prompt(["bread", "cookie"], state, options, command_docs=dispatch_command_docs(registry))
    prompt.system     # the sections that stay the same from step to step (a provider can cache them)
    prompt.user       # current state, feedback and history
    prompt.text       # both, with a "## <title>" heading per section

Options switch the paper's ablations: no inference knowledge, a demonstration cut to its first steps
(`few_step`), no feedback, and a demonstration with fewer cooks than the team (`demo_agents=2`, its Table 8; by
default the demonstration has as many cooks as the team, as its main runs); `history_steps` is the fixed horizon
of past steps shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..commands import CommandRegistry
from ..tasks.families.orders.book import DISHES
from .decision import HistoryEntry
from .state import AgentState, ChestState, DispatchState, OpenOrder, render
from .steps import dish_commands

RECIPES = "Recipes"
INSTRUCTIONS = "Instructions and rules"
KNOWLEDGE = "Inference knowledge"
DEMO = "Demonstration"
STATE = "Current state"
FEEDBACK = "Execution feedback"
HISTORY = "History"
SECTION_ORDER = (RECIPES, INSTRUCTIONS, KNOWLEDGE, DEMO, STATE, FEEDBACK, HISTORY)
FIXED_SECTIONS = (RECIPES, INSTRUCTIONS, KNOWLEDGE, DEMO)  # the same every step: the system part

DEMO_FORMS = ("full", "few_step")
FEW_STEPS = 2  # the paper's ablation keeps a two-step demonstration
DEMO_AGENTS = ("alex", "sam", "kim", "lee", "max", "ada")  # the demonstration's cooks, as many as it shows
# The commands a dispatcher uses in the kitchen (all of mindpy.commands).
DISPATCH_COMMANDS = ("collectBlocks", "attack", "smeltItem", "craftRecipe", "putInChest", "takeFromChest",
                     "givePlayer", "goToPlayer")

KNOWLEDGE_LINES = (
    "Work on the open order with the earliest deadline first; an order not served by its deadline step fails.",
    "Keep every step of one dish with one cook, so its ingredients stay in one inventory; otherwise hand them "
    "over with !givePlayer first.",
    "Furnace steps take 3 steps and pasture steps 2: start them early, and keep other cooks on other dishes "
    "meanwhile.",
    "A cook is busy until its command is done; a command given to a busy cook is lost.",
    "Ingredients the world lacks (gold, cocoa beans, bowls, eggs, milk) are already in the cooks' inventories.",
    "A dish counts only once it is put in the serving chest with !putInChest.",
    "If the feedback says a command failed, give a corrected command instead of repeating it.",
)


@dataclass(frozen=True)
class DispatcherOptions:
    """Which prompt sections the dispatcher gets, and how much history."""

    inference_knowledge: bool = True
    demo: str = "full"             # "full": the whole demonstration; "few_step": its first FEW_STEPS steps
    feedback: bool = True
    history_steps: int = 5
    demo_agents: int | None = None  # cooks in the demonstration; None: as many as the team (the paper's)

    def __post_init__(self) -> None:
        if self.demo_agents is not None and not 1 <= self.demo_agents <= len(DEMO_AGENTS):
            raise ValueError(f"demo_agents must be from 1 to {len(DEMO_AGENTS)} (None: the team's size), "
                             f"got {self.demo_agents}")
        if self.demo not in DEMO_FORMS:
            raise ValueError(f"demo must be one of {', '.join(DEMO_FORMS)}, got {self.demo!r}")
        if self.history_steps < 0:
            raise ValueError(f"history_steps must be 0 or more, got {self.history_steps}")


@dataclass(frozen=True)
class DispatchPrompt:
    """The prompt's two parts: the sections that stay the same (system) and those of this step (user)."""

    system: str
    user: str

    @property
    def text(self) -> str:
        return f"{self.system}\n\n{self.user}"


def dispatch_command_docs(registry: CommandRegistry, names: Iterable[str] = DISPATCH_COMMANDS) -> str:
    """One line per command: its signature, description and an example."""
    lines = []
    for name in names:
        command = registry.get(name)
        if command is None:
            raise ValueError(f"unknown command {name!r} for the dispatcher; see `mindpy commands`")
        lines.append(f"{command.signature()}: {command.description} Example: {command.example()}")
    return "\n".join(lines)


def _section(title: str, body: str) -> str:
    return f"## {title}\n{body.strip()}"


def recipes_text(dishes: Sequence[str]) -> str:
    """Each dish with its numbered steps and the inputs dealt to the cooks."""
    unknown = [d for d in dishes if d not in DISHES]
    if not dishes or unknown:
        raise ValueError(f"the dispatcher needs dishes from mindpy.tasks.families.orders.book.DISHES; unknown: "
                         f"{unknown or 'none given'}")
    out = []
    for dish in dishes:
        out.append(f"{dish}:")
        out += [f"  {i}. {line}" for i, line in enumerate(DISHES[dish].recipe(), 1)]
        given = DISHES[dish].given
        if given:
            out.append("  given: " + ", ".join(f"{n} {item}" for item, n in given.items()))
    return "\n".join(out)


def people_text(people: Sequence[str]) -> str:
    """The rule about the people cooking beside the cooks ("" without any): seen, served from, never commanded."""
    if not people:
        return ""
    who = f"{', '.join(people)} {'play' if len(people) > 1 else 'plays'}"
    return (f"{who} beside the cooks as {'people' if len(people) > 1 else 'a person'}, free to cook what they like: "
            "you cannot command them, but a dish they put in the serving chest serves an order like a cook's, and "
            "a cook may hand them items with !givePlayer.")


def instructions_text(agent_names: Sequence[str], command_docs: str, people: Sequence[str] = ()) -> str:
    """The rules: who is commanded (and who plays beside them uncommanded), the line format, and the accepted
    commands with their docs."""
    return "\n".join(line for line in (
        f"You dispatch the cooks {', '.join(agent_names)} in a Minecraft kitchen. Orders for dishes arrive over "
        "time; an order is served when its dish is put in the serving chest before the order's deadline step.",
        people_text(people),
        "Each step, give every FREE cook at most one command, one line per cook, written as",
        "name: !command(args)",
        "Never give a command to a busy cook, nor two commands to one cook, nor one to a name not listed above. "
        "Only these commands are accepted:",
        command_docs.strip(),
        "Read the execution feedback: it says which commands failed and why.",
    ) if line)


def demo_dish(dishes: Sequence[str]) -> str:
    """A dish that is not among `dishes`, for the demonstration: short (the fewest steps, two at least) and of
    the largest workload among those (the first listed on a tie)."""
    others = [d for d in DISHES.values() if d.name not in dishes]
    if not others:
        raise ValueError("every dish is in the level: no other dish is left for the demonstration")
    return min(others, key=lambda d: (len(d.steps) < 2, len(d.steps), -d.workload)).name


def demo_text(dishes: Sequence[str], form: str, cooks: int = 2) -> str:
    """`cooks` cooks serving as many orders of another dish, an order every 2 steps: at each step where a cook is
    given a command, the state and the dispatcher's reply."""
    if not 1 <= cooks <= len(DEMO_AGENTS):
        raise ValueError(f"the demonstration has 1 to {len(DEMO_AGENTS)} cooks, got {cooks}")
    names = DEMO_AGENTS[:cooks]
    dish = DISHES[demo_dish(dishes)]
    commands = dish_commands(dish.name)
    busy_for = [s.busy for s in dish.steps] + [1]  # serving takes a step
    lifetime = 3 * len(commands) + dish.workload
    arrivals = {name: (i * 2, OpenOrder(i, dish.name, i * 2 + lifetime)) for i, name in enumerate(names)}
    inventories: dict[str, dict[str, int]] = {name: dict(dish.given) for name in names}
    progress = {name: 0 for name in names}     # each cook makes the order that arrives for it
    busy_until = {name: 0 for name in names}
    plural = "s" if len(names) > 1 else ""
    blocks = [f"Another dish, {dish.name}, for {len(names)} cook{plural} ({', '.join(names)}); an order every 2 "
              "steps:"]
    served: dict[str, int] = {}
    pending: dict[str, tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]] = {}
    for step in range(2 * len(names) * sum(busy_for)):
        for name in [n for n in pending if busy_until[n] <= step]:  # a command's effect shows once it is done
            _apply(inventories[name], *pending.pop(name))
        if all(p == len(commands) for p in progress.values()):
            break
        orders = tuple(order for name, (created, order) in arrivals.items()
                       if created <= step and progress[name] < len(commands))
        state = DispatchState(step, tuple(AgentState(n, busy=busy_until[n] > step,
                                                     doing="cooking" if busy_until[n] > step else "",
                                                     inventory=dict(inventories[n])) for n in names),
                              chests=(ChestState("serving", dict(served), serving=True),), orders=orders)
        lines = []
        for name in state.free_agents():
            index = progress[name]
            if index == len(commands) or arrivals[name][0] > step:
                continue
            lines.append(f"{name}: {commands[index]}")
            if index < len(dish.steps):
                pending[name] = (dish.steps[index].inputs, (dish.steps[index].output,))
            else:
                pending[name] = (((dish.name, 1),), ())
                served[dish.name] = served.get(dish.name, 0) + 1
            progress[name] += 1
            busy_until[name] = step + busy_for[index]
        if lines:
            blocks.append(f"### {STATE}\n{render(state)}\n### Reply\n" + "\n".join(lines))
    shown = blocks if form == "full" else blocks[:1 + FEW_STEPS]
    return "\n\n".join(shown)


def _apply(inventory: dict[str, int], used: Iterable[tuple[str, int]], made: Iterable[tuple[str, int]]) -> None:
    for item, n in used:
        inventory[item] = inventory.get(item, 0) - n
        if inventory[item] <= 0:
            del inventory[item]
    for item, n in made:
        inventory[item] = inventory.get(item, 0) + n


def feedback_text(state: DispatchState, problems: Sequence[str]) -> str:
    """The runner's execution errors and suggestions, then the problems of the last reply."""
    lines = [f"- {line}" for line in (*state.feedback, *problems)]
    return "\n".join(lines) if lines else "none: every command of the last step was accepted and ran."


def history_text(history: Sequence[HistoryEntry], steps: int) -> str:
    """The last `steps` steps, oldest first."""
    recent = list(history)[-steps:] if steps else []
    return "\n".join(entry.text() for entry in recent) if recent else "no steps yet."


def build_prompt(dishes: Sequence[str], state: DispatchState, options: DispatcherOptions, command_docs: str,
                 history: Sequence[HistoryEntry] = (), problems: Sequence[str] = ()) -> DispatchPrompt:
    """The prompt for one step. `problems` are those found in the previous reply; the state carries the
    execution feedback of the last step."""
    sections: Mapping[str, str | None] = {
        RECIPES: recipes_text(dishes),
        INSTRUCTIONS: instructions_text([a.name for a in state.agents], command_docs, [p.name for p in state.people]),
        KNOWLEDGE: "\n".join(f"- {line}" for line in KNOWLEDGE_LINES) if options.inference_knowledge else None,
        DEMO: demo_text(dishes, options.demo, options.demo_agents or min(len(state.agents), len(DEMO_AGENTS))),
        STATE: render(state),
        FEEDBACK: feedback_text(state, problems) if options.feedback else None,
        HISTORY: history_text(history, options.history_steps) if options.history_steps else None,
    }
    parts = [(title, _section(title, body)) for title, body in sections.items() if body is not None]
    fixed = [text for title, text in parts if title in FIXED_SECTIONS]
    per_step = [text for title, text in parts if title not in FIXED_SECTIONS]
    return DispatchPrompt("\n\n".join(fixed), "\n\n".join(per_step))
