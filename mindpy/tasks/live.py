"""What the task code reads from a live world through the agents' bots: inventories and many blocks at once."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Iterable, Sequence

from ..bridge import Bot
from ..bridge.runtime import call_js, runtime

WORLD_JS = Path(__file__).resolve().parent / "js" / "world.js"
_module = None
_lock = threading.Lock()


def _js():
    global _module
    with _lock:
        if _module is None:
            _module = runtime().require(WORLD_JS)
        return _module


def block_names(bot: Bot, positions: Sequence[tuple[int, int, int]]) -> list[str | None]:
    """The block name at each position as `bot` sees it (None where its chunk is not loaded), in one call."""
    if not positions:
        return []
    payload = json.dumps([list(p) for p in positions])
    return json.loads(call_js(lambda: _js().blockNamesJson(bot.js, payload), f"bot {bot.name} reading blocks"))


def block_map(bot: Bot, positions: Iterable[tuple[int, int, int]]) -> dict[tuple[int, int, int], str | None]:
    """{(x, y, z): block name or None} for the positions, read in one call."""
    positions = list(positions)
    return dict(zip(positions, block_names(bot, positions)))


def inventories(bots: Sequence[Bot]) -> list[dict[str, int]]:
    """Item name -> count for each bot, in the bots' order."""
    return [bot.inventory() for bot in bots]


def entity_counts(bot: Bot, kinds: Iterable[str], x: float, z: float, radius: float) -> dict[str, int]:
    """How many entities of each kind `bot` sees within `radius` blocks (horizontally) of (x, z)."""
    payload = json.dumps(sorted(set(kinds)))
    return json.loads(call_js(lambda: _js().entityCountsJson(bot.js, payload, x, z, radius),
                              f"bot {bot.name} counting entities"))
