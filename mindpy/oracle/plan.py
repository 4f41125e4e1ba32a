"""A family's plan for the scripted player: the decisions that differ between kinds of task.

The player (player.py) keeps the protocol every family shares: paying what it owes, answering partners, asking
for what it lacks, going quiet when done. What to make, who makes it and how, what to say first and when the work
is done are the plan's. A family names its plan in `oracle_entry` ("module:Class", mindpy.tasks.family); a goal
of no known family gets `OraclePlan` itself, which makes nothing and follows the lead.

    plan = plan_for("crafting")(player)     # CraftingPlan, bound to one player
    plan.work(view, goal)                   # (next move, items lacking)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..tasks.family import UnknownFamily, families, family_named, load_entry
from . import cooking
from .cooking import Move
from .dialogue import item_list, quote
from .goals import TaskGoal
from .prompt import PromptView

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # the player makes its plans: names for types only
    from .player import Memory, Player


class OraclePlan:
    """The decisions of one family's goals, for one player. These defaults are those of a goal the player cannot
    read: it leads when its name sorts first, makes nothing, gives nothing unasked."""

    verb = "make the"  # "I'll make the cake": what the lead says it does with the target

    def __init__(self, player: Player):
        self.player = player

    @property
    def mem(self) -> Memory:
        """The player's memory: a plan keeps its state there, where a dropped reply can undo it."""
        return self.player.mem

    # ----- a game of the family's own -----
    @classmethod
    def claims(cls, system: str) -> bool:
        """Is a prompt with this system text one of the family's own games, which the plan answers whole
        (`answer`), not read by the player?"""
        return False

    def answer(self, system: str, message: str) -> str:
        """The reply to the newest message of a prompt the plan claims."""
        raise NotImplementedError(f"{type(self).__name__} claims no prompt")

    # ----- the turn -----
    def own_turn(self, view: PromptView, goal: TaskGoal) -> str | None:
        """The whole reply, for a family that plays a protocol of its own; None: the player's shared one."""
        return None

    def observe(self, view: PromptView) -> None:
        """Take in what the last command answered, before deciding (a blueprint check)."""

    def work(self, view: PromptView, goal: TaskGoal) -> tuple[Move | None, dict[str, int]]:
        """My next command, or what I lack from the others."""
        return None, {}

    def lack_now(self, view: PromptView, goal: TaskGoal) -> dict[str, int]:
        """What I lack for my part right now, to ask for in my first words."""
        return {}

    # ----- roles -----
    def leads(self, view: PromptView, goal: TaskGoal) -> bool:
        """Do I make (or build) something myself, rather than hand my items to the lead?"""
        return view.name == self.player.lead(view)

    def made_of(self, target: str) -> set[str]:
        """Items that can go into one target (the target too)."""
        return cooking.ingredients(target) | {target}

    def relevant(self, goal: TaskGoal) -> set[str]:
        """Items that can go into the goal's targets."""
        out: set[str] = set()
        for target in goal.targets:
            out |= self.made_of(target)
        return out

    def keep(self, view: PromptView, goal: TaskGoal, item: str) -> int:
        """How many of `item` I need myself."""
        if view.name == self.player.lead(view) and item in self.relevant(goal):
            return 10 ** 6
        return 0

    # ----- being done -----
    def done(self, view: PromptView, goal: TaskGoal) -> bool:
        if not goal.targets:
            return False
        mine = all(view.has(t) >= n for t, n in goal.targets.items())
        if self.leads(view, goal):
            return mine
        return self.mem.team_done

    def finish_text(self, view: PromptView, goal: TaskGoal) -> str:
        """What I say when the task is done (the player adds !endGoal where it is allowed)."""
        if self.leads(view, goal):
            return f"I have the {goal.target_text} now: the task is done!"
        return "Great, the task is done!"

    def idles_when_stalled(self, view: PromptView, goal: TaskGoal) -> bool:
        """With nothing to do and nothing to ask for: go quiet (True) or wait for the others' items (False)?"""
        return not self.leads(view, goal)

    # ----- talk -----
    def gift(self, view: PromptView, goal: TaskGoal) -> str:
        """Hand over, unasked, what a partner needs more than I do ("" when nothing)."""
        return ""

    def opening(self, view: PromptView, goal: TaskGoal, partner: str) -> str:
        """My first words to a partner who spoke to me."""
        lead, what = self.player.lead(view), goal.target_text
        if not what:
            return f"I couldn't work out what our goal asks us to make, {partner}. If you need something I hold, ask."
        if view.name == lead:
            return f"I'll {self.verb} {what}, {partner}. Please give me everything you have for it."
        self.mem.told_lead = True
        return f"You make the {what}, {lead}; I have nothing more for it."

    def request_text(self, view: PromptView, goal: TaskGoal, lack: dict[str, int]) -> str:
        """Asking a partner for what I lack."""
        what = goal.target_text or "task"
        return f"I need {item_list(lack)} for the {what}. Can you give {'it' if len(lack) == 1 else 'them'} to me?"


class ItemsPlan(OraclePlan):
    """A team that makes items (MineCollab's crafting and cooking): whoever does not lead gives the lead, unasked,
    everything that can go into the targets."""

    def gift(self, view: PromptView, goal: TaskGoal) -> str:
        receiver = self.player.lead(view)
        if receiver == view.name:
            return ""
        wanted = {item: view.has(item) for item in self.relevant(goal)}
        return self.hand_over(view, goal, receiver, wanted, goal.target_text or "task", lambda: "")

    def hand_over(self, view: PromptView, goal: TaskGoal, receiver: str, wanted: dict[str, int], what: str,
                  note: Callable[[], str]) -> str:
        """Give `receiver` the first of `wanted` I can spare, for `what`, with `note` said beside it."""
        for item in sorted(wanted):
            spare = min(view.has(item) - self.keep(view, goal, item), wanted[item])
            if spare > 0:
                self.mem.introduced.add(receiver)
                said = note()
                return (f"{'Here are' if spare > 1 else 'Here is'} {spare} {item} for the {what}, {receiver}. "
                        f"{said + ' ' if said else ''}!givePlayer({quote(receiver)}, {quote(item)}, {spare})")
        return ""


def plan_for(kind: str) -> type[OraclePlan]:
    """The plan of the family a goal's kind names (its `oracle_entry`); OraclePlan when there is none."""
    try:
        entry = family_named(kind).oracle_entry
    except UnknownFamily:
        return OraclePlan
    if entry is None:
        return OraclePlan
    plan = load_entry(entry)
    if not (isinstance(plan, type) and issubclass(plan, OraclePlan)):
        raise TypeError(f"the {kind} family's oracle_entry {entry!r} is not an OraclePlan")
    return plan


def claiming_plan(system: str) -> type[OraclePlan] | None:
    """The plan of the family whose own game a prompt with this system text is (`claims`), or None. A family
    whose plan does not load is reported once and passed over: it must not stop the oracle playing the others."""
    for family in families():
        if family.oracle_entry is not None and family.name not in _UNLOADABLE:
            try:
                plan = plan_for(family.name)
            except (ConfigError, TypeError) as exc:
                _UNLOADABLE.add(family.name)
                log.warning("the %s family's oracle plan: %s", family.name, exc)
                continue
            if plan.claims(system):
                return plan
    return None


_UNLOADABLE: set[str] = set()  # families whose oracle plan failed to load (reported once)
