"""An offline stand-in for the Minecraft wiki, answering `!searchWiki` from minecraft-data.

The bots run without internet, so the extract is built from the game data we ship: what a block drops and
which tool it needs, how an item is crafted or smelted, what food restores, an entity's kind and size.

    WikiLookup("1.21.1").search("furnace")   # -> "furnace (block and item) ..."
"""

from __future__ import annotations

import difflib
from functools import lru_cache

from ..mcdata import minecraft_data, smelting_table
from ..recipes import recipe_book

EXTRACT_LIMIT = 900


def _normalise(query: str) -> str:
    return query.strip().lower().replace(" ", "_").replace("-", "_").strip("'\"")


@lru_cache(maxsize=1)
def _smelting() -> dict[str, list[str]]:
    """output item -> the input items, from the server's smelting table (furnace recipes)."""
    try:
        table = smelting_table()
    except (OSError, ValueError):
        return {}
    found: dict[str, list[str]] = {}
    # plain ingredients first: raw_iron before deepslate_iron_ore
    for ingredient, entry in sorted(table.get("recipes", {}).items(), key=lambda kv: ("_ore" in kv[0], kv[0])):
        found.setdefault(entry.get("output"), []).append(ingredient)
    return found


class WikiLookup:
    """Answers wiki searches for one game version with a short extract built from minecraft-data."""

    def __init__(self, version: str):
        self.data = minecraft_data(version)
        self.book = recipe_book(version)
        self._uses_cache: dict[str, list[str]] | None = None  # built on first use by _uses()

    def names(self) -> list[str]:
        return sorted(set(self.data.items_by_name) | set(self.data.blocks_by_name) | set(self.data.entities_by_name))

    def search(self, query: str) -> str:
        name = _normalise(query)
        if not name:
            return "Give !searchWiki something to look up, e.g. !searchWiki(\"furnace\")."
        known = self.names()
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
            if not close:
                partial = [n for n in known if name in n][:8]
                hint = f" Pages with that in their name: {', '.join(partial)}." if partial else ""
                return f"No wiki page for '{query}'.{hint}"
            name = close[0]
        parts = [f"{name}:"]
        parts += self._block(name) + self._item(name) + self._entity(name)
        text = " ".join(parts)
        return text if len(text) <= EXTRACT_LIMIT else text[:EXTRACT_LIMIT - 3] + "..."

    # ---- sections --------------------------------------------------------------------------------------
    def _block(self, name: str) -> list[str]:
        block = self.data.blocks_by_name.get(name)
        if not block:
            return []
        out = [f"A block (hardness {block.get('hardness')})."]
        tools = sorted({self.data.items_by_id[int(i)]["name"] for i in (block.get("harvestTools") or {})
                        if int(i) in self.data.items_by_id})
        if tools:
            out.append(f"It drops itself only when mined with: {', '.join(tools)}.")
        loot = self.data.block_loot.get(name)
        if loot and loot.get("drops"):
            drops = sorted({d["item"] for d in loot["drops"] if d.get("item")})
            out.append(f"Drops: {', '.join(drops)}.")
        return out

    def _item(self, name: str) -> list[str]:
        item = self.data.items_by_name.get(name)
        if not item:
            return []
        out = [f"Stacks to {item.get('stackSize', 64)}."]
        food = self.data.foods_by_name.get(name)
        if food:
            out.append(f"Food: restores {food.get('foodPoints')} hunger and {food.get('saturation')} saturation.")
        plain_first = [r for r in self.book._candidates(name, frozenset(), {}) if r is not None]
        for recipe in plain_first[:2]:
            ingredients = ", ".join(f"{count} {ing}" for ing, count in recipe.ingredients)
            table = "on a crafting table" if recipe.needs_table else "in the inventory grid"
            out.append(f"Crafted {table} from {ingredients}, making {recipe.count}.")
        sources = _smelting().get(name)
        if sources:
            out.append(f"Made by smelting {' or '.join(sources[:3])} in a furnace.")
        uses = self._uses().get(name, [])
        if uses:
            out.append(f"Used to craft: {', '.join(uses[:10])}.")
        return out

    def _uses(self) -> dict[str, list[str]]:
        """ingredient -> the items crafted from it (forward recipes only); computed once per instance."""
        if self._uses_cache is None:
            uses: dict[str, set[str]] = {}
            for item in self.data.items_by_name:
                for recipe in self.book.forward_recipes(item):
                    for ingredient in recipe.ingredient_names():
                        uses.setdefault(ingredient, set()).add(item)
            self._uses_cache = {k: sorted(v) for k, v in uses.items()}
        return self._uses_cache

    def _entity(self, name: str) -> list[str]:
        entity = self.data.entities_by_name.get(name)
        if not entity:
            return []
        out = [f"An entity ({entity.get('category') or entity.get('type')}), {entity.get('height')} blocks tall."]
        loot = self.data.entity_loot.get(name)
        if loot and loot.get("drops"):
            drops = sorted({d["item"] for d in loot["drops"] if d.get("item")})
            out.append(f"Drops when killed: {', '.join(drops)}.")
        return out


@lru_cache(maxsize=4)
def wiki(version: str) -> WikiLookup:
    """The shared WikiLookup for a game version (built once; a few versions are kept)."""
    return WikiLookup(version)
