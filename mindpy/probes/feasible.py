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
from ..recipes import recipe_book
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
_CHECK_LEVEL = re.compile(r"^Level (\d+) ")
_CHECK_PLACE = re.compile(r"^Place ([a-z0-9_]+) at coordinates ")


def can_craft(item: str, times: int, inv: dict[str, int]) -> bool:
    """Whether `times` crafts of `item` need nothing beyond `inv` (a crafting table is taken as at hand)."""
    book = recipe_book()
    recipes = book.recipes(item)
    per_craft = recipes[0].count if recipes else 1
    return book.plan(item, times * per_craft, inv, table_available=True).complete


def possible(command: tuple[str, list], actor: str, team: dict[str, dict[str, int]]) -> bool:
    """Whether `actor` can carry out the command in this state (only gives and crafts are judged)."""
    name, args = command
    inv = team[actor]
    if name == "givePlayer":
        to, item, count = args[0], args[1], int(args[2])
        return to in team and to != actor and inv.get(item, 0) >= count
    if name == "craftRecipe":
        return can_craft(args[0], int(args[1]), inv)
    return True


def check_needs(text: str) -> set[tuple[int, str]]:
    """(level, block) of every block a blueprint check, in !checkBlueprint's words, still asks to place."""
    needs, level = set(), 0
    for line in text.splitlines():
        head = _CHECK_LEVEL.match(line)
        if head:
            level = int(head.group(1))
        place = _CHECK_PLACE.match(line.strip())
        if place:
            needs.add((level, place.group(1)))
    return needs


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


def can_do(option: str, actor: str, team: dict[str, dict[str, int]], check: set[tuple[int, str]]) -> bool:
    """Whether `actor` could carry out what `option` says in this state (True for anything it cannot judge);
    `check`: (level, block) still to place, by the blueprint check shown."""
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
        return all(inv.get(b, 0) > 0 and (level, b) in check for b in names)
    level_only = _LEVEL.match(option)
    if level_only and check:
        return any(level == int(level_only.group(1)) and inv.get(block, 0) > 0 for level, block in check)
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
    check = check_needs(state.split(_CHECK_MARK, 1)[1]) if _CHECK_MARK in state else set()
    kept = [i for i, option in enumerate(options) if can_do(option, actor, team, check)]
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
