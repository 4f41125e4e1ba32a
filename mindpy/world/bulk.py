"""Reading much of a live world at once through bots, for task set-up checks and checkers: many blocks in one
call, the inventories of several bots, entity counts around a point, the players online and another player's
inventory (as the server reports it)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..bridge import Bot, js_module
from ..bridge.runtime import call_js

BULK_JS = Path(__file__).resolve().parent / "js" / "bulk.js"


def block_names(bot: Bot, positions: Sequence[tuple[int, int, int]]) -> list[str | None]:
    """The block name at each position as `bot` sees it (None where its chunk is not loaded), in one call."""
    if not positions:
        return []
    payload = json.dumps([list(p) for p in positions])
    return json.loads(call_js(lambda: js_module(BULK_JS).blockNamesJson(bot.js, payload),
                              f"bot {bot.name} reading blocks"))


def block_map(bot: Bot, positions: Iterable[tuple[int, int, int]]) -> dict[tuple[int, int, int], str | None]:
    """{(x, y, z): block name or None} for the positions, read in one call."""
    positions = list(positions)
    return dict(zip(positions, block_names(bot, positions), strict=True))  # one name per position


def inventories(bots: Sequence[Bot]) -> list[dict[str, int]]:
    """Item name -> count for each bot, in the bots' order."""
    return [bot.inventory() for bot in bots]


def entity_counts(bot: Bot, kinds: Iterable[str], x: float, z: float, radius: float) -> dict[str, int]:
    """How many entities of each kind `bot` sees within `radius` blocks (horizontally) of (x, z)."""
    payload = json.dumps(sorted(set(kinds)))
    return json.loads(call_js(lambda: js_module(BULK_JS).entityCountsJson(bot.js, payload, x, z, radius),
                              f"bot {bot.name} counting entities"))


def player_names(bot: Bot) -> list[str]:
    """The players in `bot`'s player list (itself included)."""
    return json.loads(call_js(lambda: js_module(BULK_JS).playerNamesJson(bot.js), f"bot {bot.name} listing players"))


def player_inventory(bot: Bot, name: str, timeout: float = 5.0) -> dict[str, int] | None:
    """Item name -> count in another player's inventory, read with `/data get entity NAME Inventory` through
    `bot` (an operator); None when the server refused or did not answer within `timeout` seconds."""
    raw = call_js(lambda: js_module(BULK_JS).playerInventoryJson(bot.js, name, int(timeout * 1000),
                                                                timeout=timeout + 10),
                  f"bot {bot.name} reading {name}'s inventory", timeout=timeout + 10)
    return json.loads(raw)
