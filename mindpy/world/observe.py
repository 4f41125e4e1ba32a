"""What the modes see around a bot each update tick, in one call, and the two reflexes they apply to it."""

from __future__ import annotations

import json
from pathlib import Path

from ..bridge import Bot, js_function, js_module
from ..bridge.runtime import call_js

OBSERVE_JS = Path(__file__).resolve().parent / "js" / "observe.js"


def observe(bot: Bot) -> dict:
    """Health, food, hazards (water, lava, fire, falling blocks), the nearest hostile, huntable animal, dropped
    item and player, darkness and torches, as plain data (js/observe.js lists the fields)."""
    observe_json = js_function(OBSERVE_JS, "observeJson")  # called 3.3 times a second per agent: one round trip
    return json.loads(call_js(lambda: observe_json(bot.js), "observing"))


def set_jump(bot: Bot, on: bool) -> None:
    """Hold or release jump (the modes keep a bot afloat in water this way)."""
    call_js(lambda: js_module(OBSERVE_JS).setJump(bot.js, on), "jumping")


def look_at_entity(bot: Bot, entity_id: int) -> None:
    """Turn the bot's head towards the entity `entity_id` (at its eye height)."""
    call_js(lambda: js_module(OBSERVE_JS).lookAtEntity(bot.js, entity_id), "looking")
