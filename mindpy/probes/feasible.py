"""The `feasible` answerer: a scripted baseline for coordination probes that knows what the acting agent can carry
out in the state a probe shows, and nothing of its partners or of the team's plan.

    mindpy probe run tasks/probes_coordqa.jsonl --model feasible      # or feasible:7 (a seed of its own)

It reads the prompt as `probe run` writes it: every agent's INVENTORY block, the blueprint check when one is
shown, the question and the lettered options. The actor is the agent the question is about ("You are andy.",
"jill acts next.", "Which level will jill place blocks on next?"). An option is ruled out when the actor could not
carry it out: a command it cannot (a give of more than it holds, a craft it lacks materials for), blocks of a level
it does not hold or that level does not need. It answers uniformly among the options left (all of them when the
question names no actor, or none is left). On probes whose wrong options the actor can all carry out it scores
what random guessing does; where it scores more, a feasibility check answers questions meant to need reasoning.
"""

from __future__ import annotations

import json
import random
import re

from ..models.base import ChatModel, Usage
from ..models.tokens import count_messages, count_tokens
from ..oracle.construction import Fix, parse_check
from .answers import letter

API = "feasible"
_INVENTORY = re.compile(r"INVENTORY of (\w+)\n((?:- .*\n?)+)")
_ITEM = re.compile(r"^- (\w+): (\d+)$", re.M)
_OPTION = re.compile(r"^([A-Z])\. (.*)$", re.M)
_ACTOR = (re.compile(r"\bYou are (\w+)\."), re.compile(r"^(\w+) acts next\.", re.M),
          re.compile(r"\bWhich level will (\w+) place blocks on next\?"))
_COMMAND = re.compile(r"^!(\w+)\((.*)\)$")
_BLOCKS = re.compile(r"^the (.+) blocks of level (\d+)$")
_LEVEL = re.compile(r"^level (\d+)$")
_CHECK_MARK = "(!checkBlueprint):\n"


def inventories(text: str) -> dict[str, dict[str, int]]:
    """Every agent's INVENTORY block in `text`, read back ("- (nothing)" reads as empty)."""
    return {name: {item: int(n) for item, n in _ITEM.findall(body)} for name, body in _INVENTORY.findall(text)}


def actor_of(question: str) -> str | None:
    """The agent whose act a question asks about, None when it names none."""
    for pattern in _ACTOR:
        found = pattern.search(question)
        if found:
            return found.group(1)
    return None


def can_do(option: str, actor: str, team: dict[str, dict[str, int]], check: list[Fix]) -> bool:
    """Whether `actor` could carry out what `option` says in this state (True for anything it cannot judge)."""
    from .build import possible  # build imports the families' questions, which import this package

    inv = team.get(actor, {})
    command = _COMMAND.match(option)
    if command:
        try:
            args = json.loads(f"[{command.group(2)}]")
        except json.JSONDecodeError:
            return True
        return possible((command.group(1), args), actor, team) if actor in team else True
    blocks = _BLOCKS.match(option)
    if blocks and check:
        level, names = int(blocks.group(2)), blocks.group(1).split(", ")
        return all(inv.get(b, 0) > 0 and any(f.level == level and f.block == b for f in check) for b in names)
    level_only = _LEVEL.match(option)
    if level_only and check:
        return any(f.level == int(level_only.group(1)) and inv.get(f.block, 0) > 0 for f in check)
    return True


def feasible_options(prompt: str) -> tuple[list[str], list[int]]:
    """(the options, the indexes of those the question's actor could carry out) of a prompt as `probe run` writes
    it; every index when the question names no actor or rules every option out."""
    head, _, tail = prompt.partition("\n\nAvailable answers:\n")
    options = [text for _, text in _OPTION.findall(tail.split("\n\n", 1)[0])]
    state, _, question = head.rpartition("\n\n")
    actor = actor_of(question)
    everything = list(range(len(options)))
    if actor is None:
        return options, everything
    team = inventories(state)
    check = parse_check(state.split(_CHECK_MARK, 1)[1]) if _CHECK_MARK in state else None
    kept = [i for i, option in enumerate(options) if can_do(option, actor, team, check or [])]
    return options, kept or everything


class FeasibleModel(ChatModel):
    """Answers a probe uniformly among the options its actor could carry out (see the module doc)."""

    api = API

    def __init__(self, seed: int = 0):
        super().__init__(f"{API}:{seed}")
        self.rng = random.Random(seed)

    @classmethod
    def from_spec(cls, spec) -> FeasibleModel:
        _, _, seed_text = str(spec.model or "").strip().partition(":")  # "feasible" or "feasible:SEED"
        return cls(int(seed_text) if re.fullmatch(r"-?\d+", seed_text) else 0)

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        prompt = str(messages[-1].get("content", "")) if messages else ""
        options, kept = feasible_options(prompt)
        text = f"Answer: {letter(self.rng.choice(kept))}" if options else "Answer: A"
        return text, Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(text),
                           estimated=True)
