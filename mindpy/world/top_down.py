"""A top-down view of the world around a point, as a bot has loaded it: the top block of every column and the
entities there (the dashboard's map). One bridge call each; the scan reads chunk sections' block-state ids
(js/top_down.js) and skips sections of air, so a 97x97 square costs a few milliseconds of the bots' Node thread."""

from __future__ import annotations

import json
from pathlib import Path

from ..bridge import Bot, js_module
from ..bridge.runtime import call_js

TOP_DOWN_JS = Path(__file__).resolve().parent / "js" / "top_down.js"


def top_blocks(bot: Bot, x: float, z: float, radius: int) -> dict:
    """{"x0", "z0", "size", "names", "cells", "heights"}: the (2 radius + 1)^2 columns centred on (x, z), row by
    row (z outer, x inner); `cells` index `names` (-1: chunk not loaded, -2: only air), `heights` give the top
    block's y (None where there is none)."""
    return json.loads(call_js(lambda: js_module(TOP_DOWN_JS).topDownJson(bot.js, x, z, radius),
                              f"bot {bot.name} reading the map"))


def markers(bot: Bot, x: float, z: float, radius: float) -> list[dict]:
    """The entities `bot` sees within `radius` blocks (x and z) of (x, z), itself included: [{name, kind, x, z}]
    with kind "player", "mob", "object"... as mineflayer types them."""
    return json.loads(call_js(lambda: js_module(TOP_DOWN_JS).markersJson(bot.js, x, z, radius),
                              f"bot {bot.name} listing entities for the map"))
