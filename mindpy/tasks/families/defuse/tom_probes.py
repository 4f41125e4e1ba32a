"""Theory-of-mind probes during a defuse game: after an agent's action, side questions at the paper's three levels
about the fact the action concerned, with the knowledge tracker's answers as ground truth.

    probes = probes_after(game, agent=0, rng=random.Random(7))   # [] when the action concerned no fact
    [(p.level, p.answer) for p in probes]   # per level a pair: one question whose truth is yes, one no
    read_yes_no("Answer: no, Bravo was in room 2")   # False; None when the reply says neither
    score = ProbeScore()
    score.add(probes[0], "Yes.")
    score.summary()   # {"introspection": {"asked": 1, "answered": 1, "correct": 1, "yes": 1, "accuracy": 1.0,
                      #                    "yes_share": 1.0}, "first_order": {...}, "second_order": {...}}

The fact an action concerned (DefuseGame.concerned): a move, the contents of the room entered; an inspection, the
bomb's sequence; a cutter, the bomb's state. A wait, a message or a refused action concerns none. As in the paper
(section 5.3) each question asks whether someone is aware of the action's consequence: introspection "do you know
F?", first order "does T know F?", second order "is T aware that you know F?", put to any agent about any
teammate T. The answers are forced yes/no, so the set is balanced: per level and action, one question whose true
answer is yes and one whose answer is no, each drawn with `rng` among the agent/teammate pairs of that answer (the
acting agent asked first when it has one), or no question at that level when one of the answers has no pair. A
constant answer (always yes, always no) then scores exactly 50% on every level. Ground truth is the tracker's
state right after the action. Accuracy counts an answer that is neither yes nor no as wrong; `yes` counts the
questions whose true answer is yes (`yes_share` is what always answering yes scores).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .game import DefuseGame
from .knowledge import LEVELS, Probe

PROBE_MARK = "A question about the game (it does not use your turn):"  # how a model can tell a probe from a turn
ANSWER_HINT = "Answer with yes or no."
_LABELLED = re.compile(r"\b(?:answer|final answer)\s*(?:is)?\s*[:=-]?\s*\**\s*(yes|no|true|false)\b", re.IGNORECASE)
_WORD = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)


def probes_after(game: DefuseGame, agent: int, rng: random.Random) -> list[Probe]:
    """The balanced questions about the fact `agent`'s last action concerned (see the module doc): per level a
    yes-question and a no-question, or none; [] when the action concerned no fact or the team has no teammate."""
    fact = game.concerned.get(agent)
    everyone = range(game.agent_count)
    if fact is None or game.agent_count < 2:
        return []
    names = [game.name(a) for a in everyone]
    probes: list[Probe] = []
    for level in LEVELS:
        targets = (lambda asked: [None]) if level == "introspection" else \
            (lambda asked: [t for t in everyone if t != asked])
        candidates = [game.knowledge.probe(level, asked, fact, target, names=names)
                      for asked in everyone for target in targets(asked)]
        probes += _one_of_each(candidates, agent, rng)
    return probes


def _one_of_each(candidates: list[Probe], actor: int, rng: random.Random) -> list[Probe]:
    """A question whose truth is yes and one whose truth is no (the actor's own when it has one), or []."""
    pair = []
    for truth in (True, False):
        group = [p for p in candidates if p.answer is truth]
        if not group:
            return []
        own = [p for p in group if p.agent == actor]
        pair.append(rng.choice(own or group))
    return pair


def probe_prompt(context: str, probe: Probe) -> str:
    """The user message that asks `probe` after the agent's current observation (or belief and observation)."""
    return f"{context}\n\n{PROBE_MARK} {probe.question} {ANSWER_HINT}"


def read_yes_no(reply: str) -> bool | None:
    """True for yes, False for no: an "Answer: ..." label first, else the first yes/no/true/false word; None when
    the reply has none."""
    match = _LABELLED.search(reply) or _WORD.search(reply)
    if match is None:
        return None
    return match.group(1).lower() in ("yes", "true")


@dataclass
class LevelScore:
    """The questions of one level: asked, answered yes or no, answered right, and how many were true."""

    asked: int = 0
    answered: int = 0
    correct: int = 0
    true: int = 0

    def add(self, answer: bool, said: bool | None) -> None:
        self.asked += 1
        self.true += answer
        self.answered += said is not None
        self.correct += said is answer

    def summary(self) -> dict:
        asked = self.asked or 1
        return {"asked": self.asked, "answered": self.answered, "correct": self.correct, "yes": self.true,
                "accuracy": round(self.correct / asked, 4) if self.asked else None,
                "yes_share": round(self.true / asked, 4) if self.asked else None}


@dataclass
class ProbeScore:
    """Accuracy per level over the probes of an episode (or several: `merge`)."""

    levels: dict[str, LevelScore] = field(default_factory=lambda: {level: LevelScore() for level in LEVELS})

    def add(self, probe: Probe, reply: str) -> bool | None:
        """Score the reply to `probe`; returns what it was read as."""
        said = read_yes_no(reply)
        self.levels[probe.level].add(probe.answer, said)
        return said

    def summary(self) -> dict[str, dict]:
        return {level: score.summary() for level, score in self.levels.items()}

    @classmethod
    def merge(cls, summaries: Iterable[Mapping[str, Mapping]]) -> ProbeScore:
        """The score of several episodes from their summaries (result.json's `tom_probes`)."""
        total = cls()
        for summary in summaries:
            for level, counts in summary.items():
                if level not in total.levels:
                    continue
                score = total.levels[level]
                score.asked += int(counts.get("asked", 0))
                score.answered += int(counts.get("answered", 0))
                score.correct += int(counts.get("correct", 0))
                score.true += int(counts.get("yes", 0))
        return total
