"""World queries: what the bot sees, as plain data and as text for the model.

Each query is one call to the JS side (js/queries.js); formatting happens here.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..bridge import Bot, js_module
from ..bridge.runtime import call_js

QUERIES_JS = Path(__file__).resolve().parent / "js" / "queries.js"


def _query(bot: Bot, name: str, *args):
    return json.loads(call_js(lambda: getattr(js_module(QUERIES_JS), name)(bot.js, *args), f"query {name}"))


def block_at(bot: Bot, x: int, y: int, z: int) -> dict | None:
    """{name, properties} of the block at (x, y, z), or None where the world is not loaded."""
    return _query(bot, "blockAtJson", x, y, z)


def stats(bot: Bot) -> dict:
    """{position, gamemode, health, hunger, biome, weather, timeOfDay, dimension, heldItem, nearbyPlayers}."""
    return _query(bot, "statsJson")


def inventory(bot: Bot) -> dict:
    """{items: {name: count}, equipment: {slot: name or None}, heldItem, freeSlots}."""
    return _query(bot, "inventoryJson")


def nearby_blocks(bot: Bot, search_range: int = 16) -> list[dict]:
    """Distinct block types within `search_range`, nearest first: [{name, distance}] (at most 40)."""
    return _query(bot, "nearbyBlocksJson", search_range)


def entities(bot: Bot, search_range: int = 16) -> list[dict]:
    """Entities within `search_range`, nearest first: [{id, name, username, type, distance, item}]."""
    return _query(bot, "entitiesJson", search_range)


def snapshot(bot: Bot, search_range: int = 16) -> dict:
    """{stats, inventory, nearbyBlocks, entities} in one call: what `stats`, `inventory`, `nearby_blocks` and
    `entities` return, read at the same moment."""
    return _query(bot, "snapshotJson", search_range)


def craftable(bot: Bot) -> list[str]:
    """Names of the items the bot could craft now (using a crafting table nearby or in its inventory)."""
    return _query(bot, "craftableJson")


def _time_label(ticks: int) -> str:
    if ticks < 6000:
        return "Morning"
    if ticks < 12000:
        return "Afternoon"
    return "Night"


def stats_text(bot: Bot) -> str:
    """The STATS section for the model: position, health, hunger, biome, weather, time, held item, players."""
    return format_stats(stats(bot))


def format_stats(s: dict) -> str:
    """The STATS section from `stats`' data."""
    p = s["position"]
    lines = [
        "STATS",
        f"- Position: x: {p['x']}, y: {p['y']}, z: {p['z']}",
        f"- Gamemode: {s['gamemode']}",
        f"- Health: {round(s['health'])} / 20",
        f"- Hunger: {round(s['hunger'])} / 20",
        f"- Biome: {s['biome']}",
        f"- Weather: {s['weather'].capitalize()}",
        f"- Time: {_time_label(s['timeOfDay'])}",
        f"- Holding: {s['heldItem'] or 'nothing'}",
        f"- Other players nearby: {', '.join(s['nearbyPlayers']) or 'none'}",
    ]
    return "\n".join(lines)


def inventory_text(bot: Bot) -> str:
    """The INVENTORY section for the model: item counts, worn equipment and free slots."""
    return format_inventory(inventory(bot))


def format_inventory(inv: dict) -> str:
    """The INVENTORY section from `inventory`'s data."""
    lines = ["INVENTORY"]
    lines += [f"- {name}: {count}" for name, count in sorted(inv["items"].items())] or ["- nothing"]
    worn = {k: v for k, v in inv["equipment"].items() if v}
    if worn:
        lines.append("WEARING: " + ", ".join(f"{slot}: {name}" for slot, name in worn.items()))
    lines.append(f"- free slots: {inv['freeSlots']}")
    return "\n".join(lines)


def nearby_blocks_text(bot: Bot, search_range: int = 16) -> str:
    """The NEARBY_BLOCKS section for the model: block types with their distances."""
    return format_nearby_blocks(nearby_blocks(bot, search_range))


def format_nearby_blocks(blocks: list[dict]) -> str:
    """The NEARBY_BLOCKS section from `nearby_blocks`' data."""
    if not blocks:
        return "NEARBY_BLOCKS: none"
    return "NEARBY_BLOCKS\n" + "\n".join(f"- {b['name']} ({b['distance']} blocks away)" for b in blocks)


def entities_text(bot: Bot, search_range: int = 16) -> str:
    """The NEARBY_ENTITIES section for the model: players, dropped items and mobs with their distances."""
    return format_entities(entities(bot, search_range))


def format_entities(found: list[dict]) -> str:
    """The NEARBY_ENTITIES section from `entities`' data."""
    if not found:
        return "NEARBY_ENTITIES: none"
    lines = []
    for e in found:
        if e["username"]:
            lines.append(f"- player: {e['username']} ({e['distance']} blocks away)")
        elif e["item"]:
            lines.append(f"- dropped item: {e['item']['count']} {e['item']['name']} ({e['distance']} blocks away)")
        else:
            lines.append(f"- {e['name']} (id {e['id']}, {e['distance']} blocks away)")
    return "NEARBY_ENTITIES\n" + "\n".join(lines)


def craftable_text(bot: Bot) -> str:
    """The CRAFTABLE_ITEMS line for the model: comma-separated names, or 'none'."""
    names = craftable(bot)
    return "CRAFTABLE_ITEMS: " + (", ".join(names) if names else "none")
