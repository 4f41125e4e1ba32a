"""Theory-of-mind probes during a defuse game: after an agent's action, side questions at the paper's three levels
about the fact the action concerned, with the knowledge tracker's answers as ground truth.

    probes = probes_after(game, agent=0, rng=random.Random(7))   # [] when the action concerned no fact
    [p.level for p in probes]             # ["introspection", "first_order", "second_order"], about one teammate
    read_yes_no("Answer: no, Bravo was in room 2")   # False; None when the reply says neither
    score = ProbeScore()
    score.add(probes[0], "Yes.")
    score.summary()   # {"introspection": {"asked": 1, "answered": 1, "correct": 1, "yes": 1, "accuracy": 1.0,
                      #                    "yes_share": 1.0}, "first_order": {...}, "second_order": {...}}

The fact an action concerned (DefuseGame.concerned): a move, the contents of the room entered; an inspection, the
bomb's sequence; a cutter, the bomb's state. A wait, a message or a refused action concerns none. The teammate of
the two orders is drawn with `rng` (seed it for repeatable runs). Ground truth is the tracker's state right after
the action. Accuracy counts an answer that is neither yes nor no as wrong. `yes` counts the questions whose true
answer is yes: always answering yes scores `yes_share`, always no 1 - `yes_share`, so a model's accuracy can be
told from a bias towards one word.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .game import DefuseGame
from .knowledge import LEVELS, Probe

PROBE_MARK = "A question about the game (it does not use your turn):"  # how a model can tell a probe from a turn
ANSWER_HINT = "Answer with yes or no."
_LABELLED = re.compile(r"\b(?:answer|final answer)\s*(?:is)?\s*[:=-]?\s*\**\s*(yes|no|true|false)\b", re.IGNORECASE)
_WORD = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)


def probes_after(game: DefuseGame, agent: int, rng: random.Random) -> list[Probe]:
    """The three questions about the fact `agent`'s last action concerned, asked of `agent` (the orders about one
    random teammate); [] when the action concerned no fact or the team has no teammate."""
    fact = game.concerned.get(agent)
    mates = [a for a in range(game.agent_count) if a != agent]
    if fact is None or not mates:
        return []
    target = rng.choice(mates)
    names = [game.name(a) for a in range(game.agent_count)]
    return [game.knowledge.probe(level, agent, fact, None if level == "introspection" else target, names=names)
            for level in LEVELS]


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


def probes_summary(rows: list[dict]) -> dict | None:
    """Defuse episodes played with --tom-probes: the theory-of-mind probes' accuracy per level over all of them
    (mindpy.tasks.families.defuse.tom_probes), read from each episode's result.json; None when none asked any."""
    summaries = []
    for r in rows:
        try:
            summary = json.loads((Path(r["run_dir"]) / "result.json").read_text()).get("tom_probes")
        except (OSError, ValueError, TypeError):
            continue
        if isinstance(summary, dict):
            summaries.append(summary)
    if not summaries:
        return None
    return {"episodes": len(summaries), **ProbeScore.merge(summaries).summary()}
