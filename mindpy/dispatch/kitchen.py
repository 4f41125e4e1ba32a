"""What the runner saw in the kitchen at one step, turned into the dispatcher's view (a DispatchState).

    view = KitchenView(step=3, inventories={"andy": {"apple": 5}, "jill": {}},
                       doing={"jill": '!smeltItem("beef", 1)'}, orders=(OpenOrder(0, "cooked_beef", 9),))
    state = dispatch_state(view)
    state.busy_agents()          # {"jill": '!smeltItem("beef", 1)'}
    [s.text() for s in state.stations]   # ['farm: free; ...', 'pasture: free; ...', 'furnace: in use; ...', ...]

A station is in use while a busy cook's command works at it (the command's name says which); the serving chest
shows what was put in it and not yet taken out by the checker. `people` are the persons cooking beside the cooks
(their inventories, read like the cooks'), shown to the dispatcher and never commanded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .state import AgentState, ChestState, DispatchState, OpenOrder, PersonState, StationState

# The station each kitchen command works at (hand crafts are shown at the table too: the cook walks there).
COMMAND_STATIONS = {"collectBlocks": "farm", "attack": "pasture", "smeltItem": "furnace",
                    "craftRecipe": "crafting_table"}
KITCHEN_STATIONS = ("farm", "pasture", "furnace", "crafting_table")
SERVING_CHEST_NAME = "serving_chest"


def command_name(command: str) -> str:
    """'!smeltItem("beef", 1)' -> 'smeltItem'."""
    return command.strip().lstrip("!").split("(", 1)[0].strip()


def station_of(command: str) -> str | None:
    """The station a command works at, or None (giving, serving...)."""
    return COMMAND_STATIONS.get(command_name(command))


@dataclass(frozen=True)
class KitchenView:
    """One step's reading of the kitchen: every cook's inventory (in the cooks' order), the commands still
    running (by cook), the open orders, the serving chest, the last step's execution errors and the inventories
    of the people cooking beside the cooks."""

    step: int
    inventories: Mapping[str, Mapping[str, int]]
    doing: Mapping[str, str] = field(default_factory=dict)
    orders: Sequence[OpenOrder] = ()
    serving_chest: Mapping[str, int] = field(default_factory=dict)
    feedback: Sequence[str] = ()
    people: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        strangers = sorted(set(self.doing) - set(self.inventories))
        if strangers:
            raise ValueError(f"commands are running for {', '.join(strangers)}, who are not among the cooks "
                             f"{', '.join(self.inventories)}; give every cook an inventory entry")


def dispatch_state(view: KitchenView) -> DispatchState:
    """The dispatcher's view of `view`: cooks free or busy with their running command, stations in use, the
    serving chest and the open orders."""
    agents = tuple(AgentState(name, busy=name in view.doing, doing=view.doing.get(name, ""),
                              inventory=dict(items)) for name, items in view.inventories.items())
    in_use = {station_of(command) for command in view.doing.values()}
    stations = tuple(StationState(name, busy=name in in_use) for name in KITCHEN_STATIONS)
    chest = ChestState(SERVING_CHEST_NAME, dict(view.serving_chest), serving=True)
    people = tuple(PersonState(name, dict(items)) for name, items in view.people.items())
    return DispatchState(view.step, agents, stations, (chest,), tuple(view.orders), tuple(view.feedback), people)
