"""The spaces of mindpy's environments: what an agent sees each step and what it may send.

An action is text: a reply in MINDcraft's command language (`!craftRecipe("stick", 1)`, or words with a command,
or words alone), at most ACTION_LENGTH characters of printable ASCII and newlines. An observation is a
`spaces.Dict`:

    text            the prompt's changing part as a model would read it (goal, messages, last output, stats,
                    inventory, current action), as Text
    position        x, y, z (Box, float64)
    health, food    0-20 (Box, float32)
    inventory       how many of each item the agent holds, by the version's item ids (Box, int32)
    nearby_blocks   the distance to the nearest block of each kind within NEARBY_RANGE, by block id; -1: none
                    (Box, float32)
    entities        the players, creatures and dropped items near it, as the !entities query says them (Text)
    messages        what it heard since its last step, one "sender: message" a line (Text)

Text outside the character set (accents, emoji) is shown as "?" and cut to the space's length.
"""

from __future__ import annotations

import functools
import string
from typing import Any

import numpy as np
from gymnasium import spaces

from ..mcdata import minecraft_data

CHARSET = frozenset(string.printable[:-5] + "\n")  # printable ASCII: letters, digits, punctuation, space; newline
ACTION_LENGTH = 512
TEXT_LENGTH = 8192
LIST_LENGTH = 2048  # entities and messages
NEARBY_RANGE = 16
MOST_HELD = 64 * 46  # every slot of the inventory full of one item
FAR = 1e7  # coordinates: far beyond any world border


def clip_text(text: Any, length: int) -> str:
    """`text` within a Text space of CHARSET and `length`: other characters as "?", cut to the length."""
    shown = "".join(c if c in CHARSET else ("\n" if c in "\r\u2028\u2029" else "?") for c in str(text))
    return shown if len(shown) <= length else shown[:length - 3] + "..."


def action_space() -> spaces.Text:
    """One agent's action: a reply in the command language."""
    return spaces.Text(ACTION_LENGTH, min_length=0, charset=CHARSET)


@functools.lru_cache(maxsize=4)
def vocabulary(version: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(item names, block names) of `version`, in id order: the indices of `inventory` and `nearby_blocks`."""
    data = minecraft_data(version)
    items = tuple(item["name"] for item in sorted(data.items, key=lambda item: item["id"]))
    blocks = tuple(block["name"] for block in sorted(data.blocks, key=lambda block: block["id"]))
    return items, blocks


def observation_space(version: str) -> spaces.Dict:
    """One agent's observation for Minecraft `version` (see the module's docstring)."""
    items, blocks = vocabulary(version)
    return spaces.Dict({
        "text": spaces.Text(TEXT_LENGTH, min_length=0, charset=CHARSET),
        "position": spaces.Box(-FAR, FAR, shape=(3,), dtype=np.float64),
        "health": spaces.Box(0.0, 20.0, shape=(), dtype=np.float32),
        "food": spaces.Box(0.0, 20.0, shape=(), dtype=np.float32),
        "inventory": spaces.Box(0, MOST_HELD, shape=(len(items),), dtype=np.int32),
        "nearby_blocks": spaces.Box(-1.0, NEARBY_RANGE * 2.0, shape=(len(blocks),), dtype=np.float32),
        "entities": spaces.Text(LIST_LENGTH, min_length=0, charset=CHARSET),
        "messages": spaces.Text(LIST_LENGTH, min_length=0, charset=CHARSET),
    })


def inventory_vector(counts: dict[str, int], version: str) -> np.ndarray:
    """The `inventory` entry from item counts by name (names the version lacks are left out)."""
    items, _ = vocabulary(version)
    index = _index(items)
    vector = np.zeros(len(items), dtype=np.int32)
    for name, count in counts.items():
        if name in index:
            vector[index[name]] = min(int(count), MOST_HELD)
    return vector


def blocks_vector(nearby: list[dict], version: str) -> np.ndarray:
    """The `nearby_blocks` entry from the nearby-blocks query ([{name, distance}])."""
    _, blocks = vocabulary(version)
    index = _index(blocks)
    vector = np.full(len(blocks), -1.0, dtype=np.float32)
    for block in nearby:
        if block["name"] in index:
            vector[index[block["name"]]] = min(float(block["distance"]), NEARBY_RANGE * 2.0)
    return vector


@functools.lru_cache(maxsize=8)
def _index(names: tuple[str, ...]) -> dict[str, int]:
    return {name: i for i, name in enumerate(names)}
