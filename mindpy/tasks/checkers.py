"""Live task checkers: is the task done, and what does it score right now.

    checker = checker_for(task)
    result = checker.check(bots)          # CheckResult(score, done, detail); bots are the agents in task order

Scoring (REFERENCE "Tasks"):
- techtree and cooking: an agent scores 1 when its inventory holds every target item in the required amount;
  the task's score is the best agent's (max over agents).
- Hell's Kitchen (cooking, one target per agent): agent i must hold its own dish; the score is 1 when every agent
  holds its dish at the same check (MINDcraft's validator: each agent writes its own status to a progress file
  shared by the agent processes, overwritten on every check, and the task is done when all read true).
- Human players of the task (its `usernames`) count as agents do for crafting and cooking items: what they hold is
  read from the server (`human_inventories`, given by the episode) and added after the agents' inventories.
- construction: matches / (matches + mismatches) over the blueprint's cells, skipping cells where the blueprint
  and the world both have air (Blueprint.compare). Blocks the reading bot has not loaded count as air.
- coblock: the site box must hold exactly the structure G; the score is the fraction of G built minus the extra
  blocks (mindpy.tasks.families.coblock.checker).

A family's checker comes from its family (`Family.checker`); the classes here are those several families share.

`TaskMonitor` runs a checker on the agents' update tick and ends the episode once: on success, on timeout (the
current score stands), at the round limit in round mode (`out_of_rounds`, likewise), on error, when an agent
ends the task (`end_by_agent`, CoBlock's end_task), or when the run's model budget is spent (`end_by_budget`),
calling every `on_end(score, reason)` callback.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..models.budget import BUDGET_END_REASON
from .blueprint import Blueprint, GetBlock
from .family import family_of
from .schema import Task, unplayable_reason

Inventory = Mapping[str, int]
OnEnd = Callable[[float, str], Any]  # (score, end reason); what it returns is ignored
HumanInventories = Callable[[], Sequence[Inventory]]  # the human players' inventories, last read

SUCCESS, TIMEOUT, ERROR = "success", "timeout", "error"
ENDED = "ended"  # an agent ended the task before it was complete (CoBlock's end_task)
ROUND_LIMIT = "round_limit"  # round mode: the last round was played and the task is not complete
BUDGET = BUDGET_END_REASON  # the run's model budget was spent before the task was complete
CHECK_INTERVAL = 0.3  # seconds: the agents' update tick


@dataclass(frozen=True)
class CheckResult:
    """One check of a task's progress: its score so far and whether the task is complete."""

    score: float
    done: bool  # the task is complete: the episode can end with success
    detail: str = ""


def holds(inventory: Inventory, targets: Mapping[str, int]) -> bool:
    """Does this inventory hold every target item in at least the required amount?"""
    return all(inventory.get(item, 0) >= count for item, count in targets.items())


def missing(inventory: Inventory, targets: Mapping[str, int]) -> dict[str, int]:
    """Target item -> how many more this inventory needs."""
    return {item: count - inventory.get(item, 0) for item, count in targets.items() if inventory.get(item, 0) < count}


class ItemChecker:
    """Crafting and cooking: 1 when one agent holds all the targets."""

    def __init__(self, task: Task, human_inventories: HumanInventories | None = None):
        self.task = task
        self.targets = task.targets()
        self.human_inventories = human_inventories

    def check_inventories(self, inventories: Sequence[Inventory]) -> CheckResult:
        for index, inventory in enumerate(inventories):
            if holds(inventory, self.targets):
                return CheckResult(1.0, True, f"agent {index} holds {self.targets}")
        closest = min((missing(inv, self.targets) for inv in inventories), key=lambda m: sum(m.values()),
                      default=dict(self.targets))
        return CheckResult(0.0, False, f"still missing {closest}")

    def check(self, bots: Sequence) -> CheckResult:
        return self.check_inventories(_everyones_inventories(bots, self.human_inventories))


class HellsKitchenChecker:
    """Hell's Kitchen: done when every agent holds its own dish (a dish in a partner's hands does not count)."""

    def __init__(self, task: Task):
        self.task = task
        self.shares = {index: task.targets_for(index) for index in task.agent_indices}

    def check_inventories(self, inventories: Sequence[Inventory]) -> CheckResult:
        left = {index: share for index, share in self.shares.items()
                if share and not (index < len(inventories) and holds(inventories[index], share))}
        if not left:
            return CheckResult(1.0, True, "every agent holds its dish")
        return CheckResult(0.0, False, "dishes not yet in their agent's hands: " + ", ".join(
            f"agent {index}: {share}" for index, share in left.items()))

    def check(self, bots: Sequence) -> CheckResult:
        from ..world.bulk import inventories

        return self.check_inventories(inventories(bots))


def _everyones_inventories(bots: Sequence, human_inventories: HumanInventories | None) -> list[Inventory]:
    """The agents' inventories, then the human players'."""
    from ..world.bulk import inventories

    return inventories(bots) + list(human_inventories() if human_inventories else ())


class ConstructionChecker:
    """Construction: the fraction of the blueprint's cells that are right (Blueprint.compare)."""

    def __init__(self, blueprint: Blueprint):
        self.blueprint = blueprint
        self.positions = [(cell.x, cell.y, cell.z) for cell in blueprint.cells()]

    def check_blocks(self, get_block: GetBlock) -> CheckResult:
        comparison = self.blueprint.compare(get_block)
        return CheckResult(comparison.score, comparison.complete,
                           f"{len(comparison.matches)} blocks right, {len(comparison.mismatches)} wrong")

    def check(self, bots: Sequence) -> CheckResult:
        """Reads every cell through the first bot, in one bridge call."""
        from ..world.bulk import block_map

        blocks = block_map(bots[0], self.positions)
        return self.check_blocks(lambda x, y, z: blocks.get((x, y, z)))


class Checker(Protocol):
    """What scores a task: `check(bots)` reads the world through the agents' bots."""

    def check(self, bots: Sequence) -> CheckResult: ...


def checker_for(task: Task, human_inventories: HumanInventories | None = None) -> Checker:
    """The checker that scores this task, as its family scores it (items held, the human players' too when
    `human_inventories` reads them; Hell's Kitchen's targets; a blueprint's match; the CoBlock structure)."""
    refusal = unplayable_reason(task)
    if refusal:
        raise ValueError(f"Task '{task.id}': {refusal}")
    return family_of(task).checker(task, human_inventories)


def score_text(score: float) -> str:
    """1.0 -> '1', 0.25 -> '0.25' (as MINDcraft prints it)."""
    return str(int(score)) if float(score).is_integer() else f"{score:.4g}"


def end_line(score: float) -> str:
    """The line added to each agent's history when the episode ends."""
    return f"Task ended with score : {score_text(score)}"


class TaskMonitor:
    """Checks a task on the agents' tick and ends the episode exactly once. Create it when the episode starts
    (after the world set-up): the task's timeout counts from then.

        monitor = TaskMonitor(task, bots, on_end=[recorder.on_end])
        monitor.tick()            # from each agent's update loop; checks at most every `interval` seconds
        monitor.fail("crashed")   # an error ended the episode
        monitor.end_by_agent("andy")  # an agent ended the task (CoBlock's end_task)
        monitor.end_by_budget()   # the model budget is spent (end reason "budget" unless the task is done)
    """

    def __init__(self, task: Task, bots: Sequence, on_end: Sequence[OnEnd] = (), checker: Checker | None = None,
                 interval: float = CHECK_INTERVAL, clock: Callable[[], float] = time.monotonic):
        self.task = task
        self.bots = list(bots)
        self.checker = checker or checker_for(task)
        self.callbacks = list(on_end)
        self.interval = interval
        self.clock = clock
        self.started_at = clock()
        self.last_check_at: float | None = None
        self.last_result = CheckResult(0.0, False, "not checked yet")
        self.ended = False
        self.reason: str | None = None
        self.error: str | None = None
        self.ended_by: str | None = None  # the agent that ended the task, if one did
        self._lock = threading.Lock()

    @property
    def score(self) -> float:
        return self.last_result.score

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started_at

    def on_end(self, callback: OnEnd) -> OnEnd:
        self.callbacks.append(callback)
        return callback

    def tick(self) -> CheckResult:
        """Check (unless checked less than `interval` ago) and end the episode on success or timeout."""
        with self._lock:
            if self.ended:
                return self.last_result
            now = self.clock()
            if self.last_check_at is None or now - self.last_check_at >= self.interval:
                self.last_check_at = now
                self.last_result = self.checker.check(self.bots)
            if self.last_result.done:
                self._end(SUCCESS)
            elif now - self.started_at >= self.task.timeout:
                self.last_result = self.checker.check(self.bots)  # the score at the moment time ran out
                self._end(SUCCESS if self.last_result.done else TIMEOUT)
            return self.last_result

    def check_now(self) -> CheckResult:
        """`tick`, checking even if the last check was less than `interval` ago (round mode: after each round, so
        that a task completed in round r never starts round r + 1)."""
        with self._lock:
            self.last_check_at = None
        return self.tick()

    def fail(self, message: str) -> None:
        """End the episode because of an error; the last checked score stands."""
        with self._lock:
            if not self.ended:
                self.error = message
                self._end(ERROR)

    def out_of_rounds(self) -> CheckResult:
        """Round mode: the last round has been played. Check once more and end the episode, with SUCCESS when the
        task is complete, else ROUND_LIMIT with the score of this check (as a time limit would)."""
        return self._check_and_end(ROUND_LIMIT)

    def end_by_budget(self) -> CheckResult:
        """The run's model budget is spent: no agent can think any more. Check once more and end the episode, with
        SUCCESS when the task is complete, else BUDGET with the score of this check (cut off, not failed). An error
        of the check itself reaches the caller and leaves the episode running."""
        return self._check_and_end(BUDGET)

    def end_by_agent(self, name: str) -> CheckResult:
        """Agent `name` ended the task: check once more and end the episode, with SUCCESS when the task is
        complete, else ENDED with the score of this check. Once the episode has ended, nothing changes. An error
        of the check itself reaches the caller and leaves the episode running."""
        return self._check_and_end(ENDED, ended_by=name)

    def _check_and_end(self, otherwise: str, ended_by: str | None = None) -> CheckResult:
        """Check once more and end the episode: SUCCESS when the task is complete, else `otherwise`, with the score
        of this check. Once the episode has ended, nothing changes; an error of the check reaches the caller and
        leaves the episode running."""
        with self._lock:
            if self.ended:
                return self.last_result
            self.last_check_at = self.clock()
            self.last_result = self.checker.check(self.bots)
            if ended_by is not None:
                self.ended_by = ended_by
            self._end(SUCCESS if self.last_result.done else otherwise)
            return self.last_result

    def _end(self, reason: str) -> None:
        self.ended = True
        self.reason = reason
        for callback in self.callbacks:
            callback(self.last_result.score, reason)
