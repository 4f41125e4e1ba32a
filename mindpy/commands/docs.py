"""The command list as the model reads it: in the prompt ($COMMAND_DOCS) and as the answer to !help.

Two forms: `short` (the prompt's) gives one line per command: its call with the parameters' names, quotes on the
ones that take text and the ranges that prevent mistakes, then a short purpose; `full` gives each command's
description, parameters (type, range, meaning) and an example. Both start with how to write a command. Blocked
commands are left out of both.

Which commands the prompt offers depends on the situation (`Situation`: is coding on, which task, is there a
blueprint), by the rule table `OFFERED` below; the others stay reachable through !help, which lists every
command the agent may use, and `!help("name")` gives one command in full.

    situation = Situation.of(agent.context)            # free play, coding off: no !newAction, no blueprints
    command_docs(registry, blocked, "short", situation=situation)
    help_text(registry, blocked, "craftRecipe")        # the full entry of one command
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..tasks.family import Family, family_named, is_family
from . import coblock
from .blocking import available
from .params import BOOL, Choice, Domain, NameType, Param, StringType
from .registry import Command, CommandRegistry

FORMS = ("full", "short")

RULES = (
    "Write a command in your reply as !name, or as !name(arg1, arg2, ...) when it takes arguments: numbers as "
    'they are, true or false, and text in double quotes, e.g. !craftRecipe("oak_planks", 4). '
    "Only the first command in a reply is run and anything written after it is ignored, so use at most one "
    "command per reply, and do not put it in a code block."
)
SHORT_RULES = (
    'Write !name or !name(args), text in double quotes: !craftRecipe("oak_planks", 4). One command per reply, not in '
    'a code block. !help lists all your commands; !help("name") explains one.'
)
HELP_LINE = '!help or !help("name"): List all your commands, or explain one in full.'

# Purposes shorter than the command's first sentence, or with the one fact that prevents a common mistake.
SHORT_PURPOSE = {
    "stats": "Your position, health, hunger, weather, time and who is nearby.",
    "craftRecipe": "Craft an item; num counts uses of the recipe, not items (1 log makes 4 planks).",
    "getCraftingPlan": "The raw materials, what you lack and each crafting step for an item.",
    "smeltItem": "Smelt or cook items in a furnace, with fuel from your inventory.",
    "placeHere": "Place one block where you stand (a torch, a crafting table), not for building.",
    "newAction": "Write and run code for what no command does; describe it step by step.",
    "skills": "List the skills you saved from code that worked.",
    "stfu": "Stop chatting and your goal; the running action goes on.",
    "goal": "Set yourself a goal and keep working on it until it is done.",
    "startConversation": "Start talking with another bot (not a human).",
    "useOn": "Use an item or your hand on the nearest block or creature of a kind (shears on a sheep).",
    "activate": "Use the nearest block of a kind: a door, a button, a lever.",
    "breakBlock": "Break the block at a position; it is lost for good.",
    "moveAway": "Walk about that many blocks away from where you stand.",
    "searchForEntity": "Find the nearest creature of a kind and walk to it.",
    "setMode": "Turn a mode (automatic behaviour) on or off; !modes lists them.",
    "stay": "Stand still, modes off too, for that many seconds (-1: until told otherwise).",
    "lookAtPlayer": "Face a player (or look where they look) and be told what you see.",
    "lookAtPosition": "Look at a position and be told what you see.",
}
# Calls written out where the generic form would mislead.
SHORT_CALL = {"stay": "!stay(seconds)"}


# ---- which commands the prompt offers -------------------------------------------------------------------------
@dataclass(frozen=True)
class Situation:
    """What decides which commands the prompt offers."""

    coding: bool = False          # the agent may write code (!newAction)
    task: str | None = None       # the task's type (its family: mindpy.tasks.family); None: free play
    blueprint: bool = False       # the task has a blueprint to build
    vision: bool = False          # the agent's looks come back with what it sees (allow_vision)

    @classmethod
    def of(cls, context: Any) -> Situation:
        """The situation of an agent's command context (an AgentContext; any object with `task` and `controls`).
        Coding is on when the agent (the context's controls) has a code writer; vision when the context has one."""
        task = getattr(context, "task", None)
        return cls(coding=getattr(getattr(context, "controls", None), "coder", None) is not None,
                   task=getattr(task, "type", None) if task is not None else None,
                   blueprint=getattr(task, "blueprint", None) is not None,
                   vision=getattr(context, "vision", None) is not None)


def coding(s: Situation) -> bool:
    """The agent may write code."""
    return s.coding


def _family(s: Situation) -> Family | None:
    """The family of the situation's task (None: free play, or a type no family has)."""
    return family_named(s.task) if s.task is not None and is_family(s.task) else None


def building(s: Situation) -> bool:
    """A task whose family builds a structure, or any task with a blueprint."""
    family = _family(s)
    return s.blueprint or (family is not None and family.builds)


def in_coblock(s: Situation) -> bool:
    """A task whose family takes the coblock commands."""
    family = _family(s)
    return family is not None and "coblock" in family.command_sets


def in_defuse(s: Situation) -> bool:
    """A task whose family takes the defuse commands."""
    family = _family(s)
    return family is not None and "defuse" in family.command_sets


def free_play(s: Situation) -> bool:
    """No task."""
    return s.task is None


def seeing(s: Situation) -> bool:
    """The agent has vision: a look tells it what it sees."""
    return s.vision


def on_request(s: Situation) -> bool:
    """Never in the prompt: !help lists the command."""
    return False


@dataclass(frozen=True)
class Offer:
    """A row of the rule table: these commands are in the prompt when `when` holds."""

    names: tuple[str, ...]
    when: Callable[[Situation], bool]
    why: str


BLUEPRINT = ("checkBlueprintLevel", "checkBlueprint", "getBlueprint", "getBlueprintLevel")
OFFERED = (
    Offer(("newAction", "skills"), coding, "code runs only when the settings allow it"),
    Offer(BLUEPRINT, building, "there is nothing to check without a blueprint"),
    Offer(coblock.NAMES, in_coblock, "they act on a coblock structure only"),
    Offer(("inspectBomb", "applyTool", "goToRoom", "broadcast"), in_defuse, "they act on a defuse game only"),
    Offer(("attackPlayer", "goToBed", "rememberHere", "goToRememberedPlace", "savedPlaces"), free_play,
          "a task is played in one place and in one go"),
    Offer(("stfu", "endGoal", "modes", "setMode"), free_play,
          "a task's agent keeps its task goal, its chat and the modes the task set"),
    Offer(("lookAtPlayer", "lookAtPosition"), seeing, "without vision a look tells the agent nothing"),
    Offer(("showVillagerTrades", "tradeWithVillager", "restart", "clearChat"),
          on_request, "rarely useful: !help lists them"),
)
_RULE = {name: offer.when for offer in OFFERED for name in offer.names}


def offered(command: Command, situation: Situation | None) -> bool:
    """Whether the prompt offers `command` in `situation` (every command when the situation is unknown)."""
    rule = _RULE.get(command.name)
    return situation is None or rule is None or rule(situation)


# ---- rendering ---------------------------------------------------------------------------------------------------
def _first_sentence(text: str) -> str:
    for end in (". ", ": "):
        if end in text:
            return text.split(end, 1)[0] + "."
    return text


def _param_line(param: Param) -> str:
    kind = param.type.show()
    if param.domain is not None:
        kind += f", {param.domain.describe()}"
    return f"    {param.name} ({kind}): {param.description}"


def full_entry(command: Command) -> str:
    """One command in full: description, parameters with type, range and meaning, and an example."""
    lines = [f"!{command.name}: {command.description}"]
    if command.params:
        lines.append("  Params:")
        lines.extend(_param_line(p) for p in command.params)
        lines.append(f"  Example: {command.example()}")
    return "\n".join(lines)


def render_full(commands: Iterable[Command]) -> str:
    """The long docs: queries then actions, each with its description, parameters and example."""
    commands = list(commands)
    out = ["COMMANDS", RULES]
    for title, kind in (("Queries (they look and answer at once):", "query"), ("Actions:", "action")):
        group = [c for c in commands if c.kind == kind]
        if not group:
            continue
        out.append("")
        out.append(title)
        out.extend(full_entry(command) for command in group)
    return "\n".join(out)


def _short_range(domain: Domain) -> str:
    """A range as few characters as say it; "" when it prevents no mistake (world-border wide, or from 0)."""
    lo, hi = domain.lo, domain.hi
    if lo is not None and hi is not None:
        if hi - lo > 100_000:
            return ""
        top = hi if domain.closed else hi - 1
        return f" {lo:g}-{top:g}" if lo >= 0 else f" {lo:g}..{top:g}"
    if lo == -1:
        return " (-1: all)"
    if lo is not None and lo > 0:
        return f">={lo:g}"
    return ""


def short_param(param: Param) -> str:
    """A parameter in a one-line signature: "name" for text, "a"|"b" for a few choices, num>=1 with a range."""
    if isinstance(param.type, Choice) and len(param.type.options) <= 3:
        return "|".join(f'"{o}"' for o in param.type.options)
    if param.type is BOOL:
        return f"{param.name} true|false"
    if isinstance(param.type, (StringType, NameType, Choice)):
        return f'"{param.name}"'  # names of items, blocks and creatures are written as text too
    return param.name + (_short_range(param.domain) if param.domain is not None else "")


def short_line(command: Command) -> str:
    """`!givePlayer("player_name", "item_name", num>=1): Walk to a player and hand over items.`"""
    if command.name == "help":
        return HELP_LINE
    call = SHORT_CALL.get(command.name) or (
        f"!{command.name}(" + ", ".join(short_param(p) for p in command.params) + ")" if command.params
        else f"!{command.name}")
    return f"{call}: {SHORT_PURPOSE.get(command.name) or _first_sentence(command.description)}"


def render_short(commands: Iterable[Command]) -> str:
    """The compact docs: one line per command with its call and purpose."""
    return "\n".join(["COMMANDS", SHORT_RULES, *(short_line(c) for c in commands)])


def command_docs(registry: CommandRegistry, blocked: Iterable[str] = (), form: str = "full",
                 only_bound: bool = False, situation: Situation | None = None) -> str:
    """The docs of the commands left after blocking (with only_bound, those that have a function) that the
    prompt offers in `situation` (all of them when it is None)."""
    if form not in FORMS:
        raise ValueError(f"docs form must be 'full' or 'short', not {form!r}")
    commands = [c for c in available(registry, blocked) if (c.bound or not only_bound) and offered(c, situation)]
    return render_full(commands) if form == "full" else render_short(commands)


# ---- !help ---------------------------------------------------------------------------------------------------------
def help_text(registry: CommandRegistry, blocked: Iterable[str] = (), topic: str | None = None,
              only_bound: bool = False) -> str:
    """The answer to !help: every command the agent may use, one line each; with a topic, that command in full."""
    blocked = frozenset(blocked)
    if not topic:
        commands = [c for c in available(registry, blocked) if c.bound or not only_bound or c.name == "help"]
        return render_short(commands)
    command = registry.get(topic)
    if command is None:
        names = [c.name for c in available(registry, blocked)]
        import difflib

        close = difflib.get_close_matches(topic.lstrip("!"), names, n=1, cutoff=0.6)
        hint = f' Did you mean !help("{close[0]}")?' if close else " !help lists the commands."
        return f"There is no command !{topic.lstrip('!')}.{hint}"
    if command.name in blocked:
        return f"Command !{command.name} is blocked for you: you cannot use it."
    if command.name == "help":
        return HELP_LINE
    return full_entry(command)


def command_table(registry: CommandRegistry) -> str:
    """A plain table for `mindpy commands`: name and parameters, kind, description."""
    rows = [(c.signature(), c.kind + ("" if c.bound else ", unbound"), c.description) for c in registry]
    width = min(max(len(r[0]) for r in rows), 60)
    lines = []
    for signature, kind, description in rows:
        if len(signature) > width:
            lines.append(signature)
            lines.append(f"{'':{width}}  [{kind}] {description}")
        else:
            lines.append(f"{signature:{width}}  [{kind}] {description}")
    return "\n".join(lines)
