"""Helpers shared by the task generators: seeded randomness and splitting items between agents."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence


def rng_for(*parts: object) -> random.Random:
    """A Random seeded from the parts' text (stable across runs and machines, unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def stable_fraction(*parts: object) -> float:
    """A number in [0, 1) fixed by the parts' text: for dividing things into splits without any seed."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_units(resources: Mapping[str, int], agents: int, rng: random.Random) -> list[dict[str, int]]:
    """Deal every unit of `resources` to `agents` inventories: units are shuffled, then dealt in turn from a random
    agent. When there are at least as many units as agents, every agent holds something the others need, so with
    exact amounts no agent can finish alone."""
    units = [name for name in sorted(resources) for _ in range(resources[name])]
    rng.shuffle(units)
    start = rng.randrange(agents)
    inventories: list[dict[str, int]] = [{} for _ in range(agents)]
    for i, name in enumerate(units):
        inv = inventories[(start + i) % agents]
        inv[name] = inv.get(name, 0) + 1
    return [dict(sorted(inv.items())) for inv in inventories]


def split_by_kind(materials: Mapping[str, int], agents: int) -> list[dict[str, int]]:
    """Give each kind of material wholly to one agent, largest first to whoever holds least so far (ties to the
    lower index): every agent needs the others' kinds when there are at least as many kinds as agents."""
    inventories: list[dict[str, int]] = [{} for _ in range(agents)]
    totals = [0] * agents
    for name, count in sorted(materials.items(), key=lambda kv: (-kv[1], kv[0])):
        i = min(range(agents), key=lambda a: (totals[a], a))
        inventories[i][name] = count
        totals[i] += count
    return [dict(sorted(inv.items())) for inv in inventories]


def article(name: str) -> str:
    """'an' before a vowel, else 'a'."""
    return "an" if name[:1] in "aeiou" else "a"


def join_words(words: Sequence[str]) -> str:
    """The words as English: 'a, b and c'."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def agent_choices(spec: str | Sequence[int] | None, default: Sequence[int]) -> tuple[int, ...]:
    """'2-5' or '1,3' or [2, 3] -> (2, 3, 4, 5) / (1, 3) / (2, 3); each from 1 to 5."""
    if spec is None:
        values = list(default)
    elif isinstance(spec, str):
        values = []
        for part in spec.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = part.split("-", 1)
                values += list(range(int(lo), int(hi) + 1))
            elif part:
                values.append(int(part))
    else:
        values = list(spec)
    if not values or any(v < 1 or v > 5 for v in values):
        raise ValueError(f"agent counts must be between 1 and 5, got {spec!r}")
    return tuple(sorted(set(values)))
