"""Round mode: agents play in lockstep, one turn each per round, for at most a number of rounds.

    scheduler = RoundScheduler(agents, RoundOptions(limit=30), bus=runner.bus, should_stop=finished.is_set,
                               before_round=[recorder.record_round], after_round=[check_the_task])
    scheduler.run()      # returns when the limit is reached or should_stop() says so (or .start() / .join())

Each round: every agent first reads what it heard since its last turn (`Agent.deliver_held`), then all agents take
their turns at the same time (`Agent.take_turn`, see mindpy.agent.turns for what a turn allows), and the round ends
when every turn has ended and every message sent in it has reached its recipient. A message sent in round r is
therefore read at the start of round r + 1, by every agent alike, as in the CoBlock paper ("we move to the next
round after actions from both agents are executed"). The `before_round` callbacks run as a round starts (a round
counts as used once it starts), the `after_round` ones once it has ended (checking the task, reviewing the
structure).

Nothing here knows a task family: it drives any agents built with `Agent.drive_by_turns`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..agent.turns import TurnReport, TurnRules, turn_prompt
from ..errors import ConfigError

log = logging.getLogger(__name__)

SETTLE_S = 10.0  # how long the messages of a round may take to arrive before the next round starts anyway
STOP_GRACE_S = 10.0  # once told to stop, how long the turns under way may take to end before the scheduler returns
AfterRound = Callable[[int, dict[str, TurnReport]], Any]


@dataclass(frozen=True)
class RoundOptions:
    """The rules of round mode: how many rounds, and what a turn allows."""

    limit: int = 30
    message_is_action: bool = True  # a message uses up the turn (the paper's rule); else messages are free
    most_calls: int = 4             # model calls per turn at most

    def __post_init__(self) -> None:
        if not isinstance(self.limit, int) or self.limit < 1:
            raise ConfigError(f"the round limit must be a whole number of at least 1, got {self.limit!r}")
        if not isinstance(self.most_calls, int) or self.most_calls < 1:
            raise ConfigError(f"model calls per turn must be at least 1, got {self.most_calls!r}")

    @property
    def turn_rules(self) -> TurnRules:
        return TurnRules(message_is_action=self.message_is_action, most_calls=self.most_calls)


class TurnTaker(Protocol):
    """What the scheduler needs of an agent (mindpy.agent.agent.Agent)."""

    name: str

    def deliver_held(self) -> int: ...
    def take_turn(self, prompt: str, rules: TurnRules = ...) -> TurnReport: ...


@dataclass
class RoundTally:
    """What the agents did over the rounds played."""

    rounds: int = 0
    actions: dict[str, int] = field(default_factory=dict)   # agent -> turns used on an action
    messages: dict[str, int] = field(default_factory=dict)  # agent -> messages sent
    passes: dict[str, int] = field(default_factory=dict)    # agent -> turns in which it did nothing

    def add(self, reports: dict[str, TurnReport]) -> None:
        self.rounds += 1
        for name, report in reports.items():
            self.actions[name] = self.actions.get(name, 0) + (report.action is not None)
            self.messages[name] = self.messages.get(name, 0) + report.messages
            self.passes[name] = self.passes.get(name, 0) + report.passed

    def as_dict(self) -> dict:
        return {"rounds": self.rounds, "actions": dict(self.actions), "messages": dict(self.messages),
                "passes": dict(self.passes)}


class RoundScheduler:
    """Plays rounds until the limit or until told to stop (see the module's docstring)."""

    def __init__(self, agents: Sequence[TurnTaker], options: RoundOptions, *, bus: Any = None,
                 should_stop: Callable[[], bool] = lambda: False, after_round: Sequence[AfterRound] = (),
                 before_round: Sequence[Callable[[int], Any]] = ()):
        """`bus`: the agents' message bus (its `wait_settled` ends a round). The turn's prompt does not repeat the
        agent's goal: its prompt's state shows it already ($SELF_PROMPT)."""
        self.agents = list(agents)
        self.options = options
        self.bus = bus
        self.should_stop = should_stop
        self.after_round = list(after_round)
        self.before_round = list(before_round)  # (round number): a round is counted as used once it starts
        self.tally = RoundTally()
        self._thread: threading.Thread | None = None

    def run(self) -> RoundTally:
        """Play rounds 1, 2, ... up to the limit, stopping early when `should_stop()` becomes true."""
        for number in range(1, self.options.limit + 1):
            if self.should_stop():
                break
            for start in self.before_round:
                start(number)
            reports = self.play_round(number)
            self.tally.add(reports)
            for callback in self.after_round:
                try:
                    callback(number, reports)
                except Exception:  # a broken counter or review must not stop the game
                    log.exception("after round %d: a callback failed", number)
        return self.tally

    def start(self, then: Callable[[], Any] = lambda: None) -> None:
        """`run()` on a thread of its own, then `then()`; `join` waits for it."""
        def play() -> None:
            self.run()
            then()
        self._thread = threading.Thread(target=play, name="rounds", daemon=True)
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the rounds started with `start` to end (at most `timeout` seconds)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def play_round(self, number: int) -> dict[str, TurnReport]:
        """One round: read what was heard, take every turn at once, wait for the messages to arrive."""
        for agent in self.agents:
            agent.deliver_held()
        reports: dict[str, TurnReport] = {}
        threads = [threading.Thread(target=self._turn, args=(agent, number, reports), daemon=True,
                                    name=f"turn-{number}-{agent.name}") for agent in self.agents]
        for thread in threads:
            thread.start()
        stop_by = None
        for thread in threads:
            while thread.is_alive():  # a turn ends by itself (model and action time limits); once told to stop,
                thread.join(0.2)      # the turns under way get a grace period to end
                if stop_by is None and self.should_stop():
                    stop_by = time.monotonic() + STOP_GRACE_S
                if stop_by is not None and time.monotonic() > stop_by:
                    break
        if self.bus is not None and hasattr(self.bus, "wait_settled") and not self.bus.wait_settled(SETTLE_S):
            log.warning("round %d: some messages had not arrived after %.0f s", number, SETTLE_S)
        return reports

    def _turn(self, agent: TurnTaker, number: int, reports: dict[str, TurnReport]) -> None:
        prompt = turn_prompt(number, self.options.limit, self.options.turn_rules)
        try:
            reports[agent.name] = agent.take_turn(prompt, self.options.turn_rules)
        except Exception:  # one agent's broken turn is a lost turn, not a lost game
            log.exception("round %d: the turn of %s failed", number, agent.name)
            reports[agent.name] = TurnReport()


__all__ = ["RoundOptions", "RoundScheduler", "RoundTally", "SETTLE_S"]
