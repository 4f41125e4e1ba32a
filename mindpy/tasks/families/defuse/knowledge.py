"""Who knows what in a defuse game: the ground truth for the paper's theory-of-mind probes.

    tracker = KnowledgeTracker(agents=3)
    tracker.observe(0, [room_contents(3), bomb_state(2)], round_no=1)   # Alpha sees room 3 and its bomb
    tracker.change([room_contents(3), bomb_state(2)], present=[1], round_no=2)   # Bravo cuts it; Alpha was away
    tracker.knows(0, bomb_state(2))              # introspection / first order: False, Alpha's belief is stale
    tracker.aware_that_knows(0, 1, bomb_state(2))  # second order, "is Alpha aware that Bravo knows ...?": False

Facts (after Li et al., 2023, appendix C): a room's current contents, a bomb's current state and remaining
sequence, and a bomb's (full) sequence. Every fact has a version, raised each time it changes (a phase cut in a
room changes that room's contents and that bomb's state; a sequence never changes). An agent knows a fact when
the version it last learned is the current one; an old version is a false belief.

How an agent learns a version, and who can tell that it did (the paper's annotation standards: present and
observing, visited since, told by a message):
- observing (being in the room when the fact changes, or entering it later): teammates' rooms are in every
  observation, so every agent can tell;
- inspecting, or a cutter's feedback: private, only the agent itself can tell ("agents remain oblivious to each
  other's actions and outcomes unless communicated");
- a message: what the sender knew when it sent it reaches every recipient (a stale version passes on a false
  belief); the sender and the recipients can tell.

Questions: introspection ("do I know F?") and first order ("does T know F?") are both `knows(agent, F)`; second
order ("is T aware that I know F?") is `aware_that_knows(T, me, F)`: I know F, and T could tell how I learned it.
`probe(level, agent, fact, target)` puts one of them as the paper's question text, with its answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .layout import AGENT_NAMES

Fact = tuple[str, int]   # (kind: room, bomb or sequence; room or bomb number)


def room_contents(room: int) -> Fact:
    """The current contents of a room (its bombs and their states)."""
    return "room", room


def bomb_state(bomb: int) -> Fact:
    """A bomb's current state and remaining sequence."""
    return "bomb", bomb


def bomb_sequence(bomb: int) -> Fact:
    """A bomb's whole phase sequence (it never changes)."""
    return "sequence", bomb


def describe(fact: Fact) -> str:
    """'the contents of room 3' and the like, for questions."""
    kind, number = fact
    return {"room": f"the current contents of room {number}",
            "bomb": f"the state and remaining sequence of bomb {number}",
            "sequence": f"the sequence of bomb {number}"}[kind]


LEVELS = ("introspection", "first_order", "second_order")


@dataclass(frozen=True)
class Probe:
    """A theory-of-mind question put to `agent`, in the paper's words, and its true answer."""

    level: str
    agent: int
    target: int | None
    fact: Fact
    question: str
    answer: bool


@dataclass(frozen=True)
class Learning:
    """How an agent last learned a fact: the version, the round, how, and who could tell."""

    version: int
    round_no: int
    how: str                    # observed, inspected, told
    witnesses: frozenset[int]   # agents who can tell that it learned this version


@dataclass
class KnowledgeTracker:
    """Versions of facts, and each agent's last learning of each fact."""

    agents: int
    versions: dict[Fact, int] = field(default_factory=dict)
    learned: dict[tuple[int, Fact], Learning] = field(default_factory=dict)
    history: dict[Fact, list[str]] = field(default_factory=dict)   # readable log, per fact

    def __post_init__(self) -> None:
        if self.agents < 1:
            raise ValueError(f"agents must be at least 1, got {self.agents}")

    # ----- events -----
    def change(self, facts: Iterable[Fact], present: Iterable[int], round_no: int) -> None:
        """The facts change; the agents present see the change."""
        facts, present = list(facts), list(present)
        for fact in facts:
            self.versions[fact] = self.version(fact) + 1
            self._log(fact, f"round {round_no}: changed to version {self.versions[fact]}, present {sorted(present)}")
        for agent in present:
            self.observe(agent, facts, round_no)

    def observe(self, agent: int, facts: Iterable[Fact], round_no: int) -> None:
        """The agent sees the facts where it stands: everyone can tell (locations are public)."""
        self._learn(agent, facts, round_no, "observed", frozenset(range(self.agents)))

    def learn_privately(self, agent: int, facts: Iterable[Fact], round_no: int) -> None:
        """The agent learns the facts by its own action's feedback (inspecting, cutting): only it can tell."""
        self._learn(agent, facts, round_no, "inspected", frozenset({agent}))

    def snapshot(self, agent: int, facts: Iterable[Fact]) -> dict[Fact, int]:
        """The versions the agent holds of the facts it has learned: what a message it sends now carries."""
        out = {}
        for fact in facts:
            learning = self.learned.get((agent, fact))
            if learning is not None:
                out[fact] = learning.version
        return out

    def tell(self, sender: int, recipients: Iterable[int], told: dict[Fact, int], round_no: int) -> None:
        """A message from `sender` arrives: each recipient holds the told version unless it knew a newer one."""
        recipients = [r for r in recipients if r != sender]
        witnesses = frozenset({sender, *recipients})
        for fact, version in told.items():
            self._log(fact, f"round {round_no}: agent {sender} told {recipients} version {version}")
            for agent in recipients:
                mine = self.learned.get((agent, fact))
                if mine is None or mine.version <= version:
                    self.learned[(agent, fact)] = Learning(version, round_no, "told", witnesses)
            # the sender's own learning is now visible to everyone it told
            own = self.learned.get((sender, fact))
            if own is not None and own.version == version:
                self.learned[(sender, fact)] = Learning(own.version, own.round_no, own.how, own.witnesses | witnesses)

    # ----- questions -----
    def version(self, fact: Fact) -> int:
        return self.versions.get(fact, 0)

    def knows(self, agent: int, fact: Fact) -> bool:
        """Introspection ("do I know F?") and first order ("does T know F?"): its last learning is current."""
        learning = self.learned.get((agent, fact))
        return learning is not None and learning.version == self.version(fact)

    def aware_that_knows(self, target: int, agent: int, fact: Fact) -> bool:
        """Second order, "is `target` aware that `agent` knows F?": `agent` knows F and `target` could tell how."""
        if not self.knows(agent, fact):
            return False
        return target in self.learned[(agent, fact)].witnesses

    def probe(self, level: str, agent: int, fact: Fact, target: int | None = None,
              names: Sequence[str] = AGENT_NAMES) -> Probe:
        """The question of `level` put to `agent` about `fact` (and teammate `target` for the two ToM orders)."""
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
        if level == "introspection":
            return Probe(level, agent, None, fact, f"Do you know {describe(fact)}?", self.knows(agent, fact))
        if target is None or not 0 <= target < self.agents or target == agent:
            raise ValueError(f"a {level} question needs a teammate as target (0..{self.agents - 1}, not {agent}), "
                             f"got {target!r}")
        who = f"player {names[target]}"
        if level == "first_order":
            return Probe(level, agent, target, fact, f"Does {who} know {describe(fact)}?", self.knows(target, fact))
        return Probe(level, agent, target, fact,
                     f"Based on the observation and previous history, is {who} aware of the fact that you know "
                     f"{describe(fact)}?", self.aware_that_knows(target, agent, fact))

    def _learn(self, agent: int, facts: Iterable[Fact], round_no: int, how: str, witnesses: frozenset[int]) -> None:
        for fact in facts:
            self.learned[(agent, fact)] = Learning(self.version(fact), round_no, how, witnesses)
            self._log(fact, f"round {round_no}: agent {agent} {how} version {self.version(fact)}")

    def _log(self, fact: Fact, line: str) -> None:
        self.history.setdefault(fact, []).append(line)
