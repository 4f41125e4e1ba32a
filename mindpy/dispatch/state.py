"""What the dispatcher sees at one step of an orders episode: the cooks, the stations, the chests, the open
orders and what went wrong last step, and its text for the prompt (MindAgent's "current state" section).

    state = DispatchState(
        step=4,
        agents=(AgentState("andy", inventory={"wheat": 3}), AgentState("jill", busy=True, doing="smelting beef")),
        stations=(StationState("furnace", busy=True, contents={"beef": 1}),),
        chests=(ChestState("serving", serving=True),),
        orders=(OpenOrder(0, "bread", deadline=9),),
        feedback=("jill: the furnace has no fuel; put coal in it first",),
        people=(PersonState("Steve", inventory={"golden_apple": 1}),),
    )
    state.free_agents()      # ("andy",)
    render(state)            # "Step 4.\nAgents:\n- andy: free; holds 3 wheat\n..."

`people` are the persons who cook beside the cooks (a task's reserved player slots, as MindAgent's human study):
the dispatcher sees what they hold but does not command them. The runner fills the state each step from the
world; nothing here touches a server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


def _counts(items: Mapping[str, int]) -> str:
    """'3 wheat, 1 bowl', or 'nothing'."""
    shown = [f"{n} {name}" for name, n in sorted(items.items()) if n > 0]
    return ", ".join(shown) if shown else "nothing"


@dataclass(frozen=True)
class AgentState:
    """A cook: free for a new command, or busy with one (`doing` says what)."""

    name: str
    busy: bool = False
    doing: str = ""
    inventory: Mapping[str, int] = field(default_factory=dict)

    def text(self) -> str:
        status = f"busy ({self.doing})" if self.busy and self.doing else "busy" if self.busy else "free"
        return f"{self.name}: {status}; holds {_counts(self.inventory)}"


@dataclass(frozen=True)
class PersonState:
    """A person cooking beside the cooks: shown so the dispatcher can plan around them, never commanded (what they
    put in the serving chest serves orders as a cook's dish does)."""

    name: str
    inventory: Mapping[str, int] = field(default_factory=dict)

    def text(self) -> str:
        return f"{self.name}: a person playing freely (you cannot command them); holds {_counts(self.inventory)}"


@dataclass(frozen=True)
class StationState:
    """A station (farm, pasture, furnace, crafting_table): in use or not, and what it holds."""

    name: str
    busy: bool = False
    contents: Mapping[str, int] = field(default_factory=dict)

    def text(self) -> str:
        return f"{self.name}: {'in use' if self.busy else 'free'}; holds {_counts(self.contents)}"


@dataclass(frozen=True)
class ChestState:
    """A chest; dishes put in the serving chest complete orders."""

    name: str
    contents: Mapping[str, int] = field(default_factory=dict)
    serving: bool = False

    def text(self) -> str:
        kind = " (serving chest: put finished dishes here)" if self.serving else ""
        return f"{self.name}{kind}: holds {_counts(self.contents)}"


@dataclass(frozen=True)
class OpenOrder:
    """An order still to serve: completable until the step before `deadline`."""

    id: int
    dish: str
    deadline: int


@dataclass(frozen=True)
class DispatchState:
    """Everything the dispatcher is shown at one step."""

    step: int
    agents: tuple[AgentState, ...]
    stations: tuple[StationState, ...] = ()
    chests: tuple[ChestState, ...] = ()
    orders: tuple[OpenOrder, ...] = ()
    feedback: tuple[str, ...] = ()  # last step's execution errors and suggestions, one line each
    people: tuple[PersonState, ...] = ()  # persons cooking beside the cooks, not commanded

    def __post_init__(self) -> None:
        if self.step < 0:
            raise ValueError(f"the step number must be 0 or more, got {self.step}")
        if not self.agents:
            raise ValueError("a dispatch state needs at least one agent")
        names = [a.name.lower() for a in self.agents] + [p.name.lower() for p in self.people]  # any case in replies
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"agent and person names must be unique; repeated: {', '.join(twice)}")

    def agent(self, name: str) -> AgentState:
        """The agent called `name` (KeyError when there is none)."""
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(f"no agent {name!r} in the state; agents: {', '.join(a.name for a in self.agents)}")

    def free_agents(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.agents if not a.busy)

    def busy_agents(self) -> dict[str, str]:
        """{name: what it is doing} of the busy agents."""
        return {a.name: a.doing for a in self.agents if a.busy}


def render(state: DispatchState) -> str:
    """The state as the prompt's "current state" text."""
    lines = [f"Step {state.step}.", "Agents:"]
    lines += [f"- {a.text()}" for a in state.agents]
    if state.people:
        lines.append("People cooking beside the agents (not commanded by you):")
        lines += [f"- {p.text()}" for p in state.people]
    if state.stations:
        lines.append("Stations:")
        lines += [f"- {s.text()}" for s in state.stations]
    if state.chests:
        lines.append("Chests:")
        lines += [f"- {c.text()}" for c in state.chests]
    lines.append("Open orders (serve each before its deadline step):")
    orders = sorted(state.orders, key=lambda o: (o.deadline, o.id))
    lines += [f"- order {o.id}: {o.dish}, deadline step {o.deadline} ({o.deadline - state.step} steps left)"
              for o in orders] or ["- none"]
    return "\n".join(lines)
