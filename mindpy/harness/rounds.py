"""Round mode: agents play in lockstep, one turn each per round, for at most a number of rounds.

    scheduler = RoundScheduler(agents, RoundOptions(limit=30), bus=runner.bus, should_stop=finished.is_set,
                               before_round=[recorder.record_round], after_round=[check_the_task])
    scheduler.run()      # returns when the limit is reached or should_stop() says so (or .start() / .join())

A round gives every agent one turn (`Agent.take_turn`, see mindpy.agent.turns for what a turn allows); the next
round starts once every turn has ended and every message sent in it has reached its recipient ("we move to the
next round after actions from both agents are executed", the CoBlock paper's section 2.1). The turns of a round
are taken in one of two ways:
- sequential (`RoundOptions.sequential`, the CoBlock paper's way): one after another, in the agents' order; each
  agent first reads what it heard since its last turn (`Agent.deliver_held`), so the second agent of a round
  reads what the first said in it. The paper's own round-2 example has an agent answer, within the round, a
  message sent in it, and its released code asks the agents in turn, each after the previous one's action ran.
- simultaneous: every agent reads what it heard, then all take their turns at once; a message sent in round r
  is read at the start of round r + 1, by every agent alike.
The `before_round` callbacks run as a round starts (a round counts as used once it starts), the `after_round`
ones once it has ended (counting the turns, checking the task, reviewing the structure).

`RoundRequest` is what a run asks for (`--rounds N`, `--realtime`, `--free-messages`, `--simultaneous-turns`);
each task family resolves it to its play's RoundOptions, or None for real time (`for_family`): a family whose
paper plays in rounds (Family.round_limit) plays them unless asked for real time.

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
    sequential: bool = False        # a round's turns one after another (the CoBlock paper's), else all at once

    def __post_init__(self) -> None:
        if not isinstance(self.limit, int) or self.limit < 1:
            raise ConfigError(f"the round limit must be a whole number of at least 1, got {self.limit!r}")
        if not isinstance(self.most_calls, int) or self.most_calls < 1:
            raise ConfigError(f"model calls per turn must be at least 1, got {self.most_calls!r}")

    @property
    def turn_rules(self) -> TurnRules:
        return TurnRules(message_is_action=self.message_is_action, most_calls=self.most_calls)

    def record(self) -> dict[str, Any]:
        """What result.json and summary.json say of these rules."""
        return {"limit": self.limit, "message_is_action": self.message_is_action, "sequential": self.sequential}


REALTIME = "realtime"  # the record of play without rounds


@dataclass(frozen=True)
class RoundRequest:
    """What a run asked of round mode; `for_family` says what one family's play makes of it."""

    limit: int | None = None     # --rounds N (None: the family's paper's limit, if it plays in rounds)
    realtime: bool = False       # --realtime: no rounds, even for a family whose paper plays them
    free_messages: bool = False  # --free-messages: a message does not use up the turn
    simultaneous: bool = False   # --simultaneous-turns: a round's turns all at once, for every family

    def __post_init__(self) -> None:
        if self.realtime and (self.limit is not None or self.free_messages or self.simultaneous):
            raise ConfigError("--realtime plays without rounds: leave out --rounds, --free-messages and "
                              "--simultaneous-turns")
        if self.limit is not None and (not isinstance(self.limit, int) or self.limit < 1):
            raise ConfigError(f"the round limit must be a whole number of at least 1, got {self.limit!r}")

    def for_family(self, family: Any) -> RoundOptions | None:
        """The rounds `family`'s episodes play (None: real time). A family whose paper plays in rounds
        (`round_limit`) plays them by default, its turns sequential where the paper's are (`sequential_turns`)."""
        limit = self.limit if self.limit is not None else getattr(family, "round_limit", None)
        if self.realtime or limit is None:
            return None
        sequential = bool(getattr(family, "sequential_turns", False)) and not self.simultaneous
        return RoundOptions(limit=int(limit), message_is_action=not self.free_messages, sequential=sequential)

    def unhonoured(self, family: Any) -> str | None:
        """Why `family`'s play cannot honour this request (a switch of rounds for a play in real time), or None."""
        if self.for_family(family) is None and (self.free_messages or self.simultaneous):
            flag = "--free-messages" if self.free_messages else "--simultaneous-turns"
            return (f"{flag} is a rule of round mode, and {family.name} tasks play in real time: give --rounds N "
                    f"as well")
        return None

    def record(self, families: Any = ()) -> Any:
        """What summary.json says of the rounds the episodes of `families` played: their rules, REALTIME, or
        MIXED when the families play differently."""
        from ..tasks.records import MIXED

        played = [self.for_family(f) for f in families] or [self.for_family(None)]
        records = [REALTIME if options is None else options.record() for options in played]
        return records[0] if all(r == records[0] for r in records) else MIXED


def resolve_rounds(rounds: RoundOptions | RoundRequest | None, family: Any) -> RoundOptions | None:
    """The rounds an episode of `family` plays: RoundOptions given are played as they are; a RoundRequest (None:
    the default request) is resolved for the family. ConfigError when the family cannot honour the request."""
    if isinstance(rounds, RoundOptions):
        return rounds
    request = rounds if rounds is not None else RoundRequest()
    problem = request.unhonoured(family)
    if problem:
        raise ConfigError(problem)
    return request.for_family(family)


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
                 before_round: Sequence[Callable[[int], Any]] = (), between_turns: Sequence[Callable[[], Any]] = ()):
        """`bus`: the agents' message bus (its `wait_settled` ends a round). The turn's prompt does not repeat the
        agent's goal: its prompt's state shows it already ($SELF_PROMPT)."""
        self.agents = list(agents)
        self.options = options
        self.bus = bus
        self.should_stop = should_stop
        self.after_round = list(after_round)
        self.before_round = list(before_round)  # (round number): a round is counted as used once it starts
        self.between_turns = list(between_turns)  # sequential turns: run after each turn (checking the task)
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
        """One round: sequential, each agent in turn reads what it heard and takes its turn, its messages arriving
        before the next one's; else every agent reads what it heard and all take their turns at once."""
        reports: dict[str, TurnReport] = {}
        if self.options.sequential:
            for agent in self.agents:
                if self.should_stop():  # the task was done by an earlier turn of the round
                    break
                agent.deliver_held()
                self._take_turns([agent], number, reports)
                self._settle(number)
                for check in self.between_turns:
                    try:
                        check()
                    except Exception:  # a broken check must not stop the game
                        log.exception("round %d: a check between turns failed", number)
            return reports
        for agent in self.agents:
            agent.deliver_held()
        self._take_turns(self.agents, number, reports)
        self._settle(number)
        return reports

    def _take_turns(self, agents: Sequence[TurnTaker], number: int, reports: dict[str, TurnReport]) -> None:
        """The turns of `agents`, at once, until each has ended (or, once told to stop, a grace period passed)."""
        threads = [threading.Thread(target=self._turn, args=(agent, number, reports), daemon=True,
                                    name=f"turn-{number}-{agent.name}") for agent in agents]
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

    def _settle(self, number: int) -> None:
        """Wait for the messages sent so far to reach their recipients."""
        if self.bus is not None and hasattr(self.bus, "wait_settled") and not self.bus.wait_settled(SETTLE_S):
            log.warning("round %d: some messages had not arrived after %.0f s", number, SETTLE_S)

    def _turn(self, agent: TurnTaker, number: int, reports: dict[str, TurnReport]) -> None:
        prompt = turn_prompt(number, self.options.limit, self.options.turn_rules)
        try:
            reports[agent.name] = agent.take_turn(prompt, self.options.turn_rules)
        except Exception:  # one agent's broken turn is a lost turn, not a lost game
            log.exception("round %d: the turn of %s failed", number, agent.name)
            reports[agent.name] = TurnReport()


__all__ = ["REALTIME", "RoundOptions", "RoundRequest", "RoundScheduler", "RoundTally", "SETTLE_S", "resolve_rounds"]
