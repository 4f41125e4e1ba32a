"""minecraft-data, read in Python straight from the pinned npm package (no Node round trips).

    data = minecraft_data("1.21.1")
    data.items_by_name["oak_planks"]["id"], data.recipes_for("stick")
"""

from __future__ import annotations

import json
from functools import cache, cached_property
from pathlib import Path

from . import DEFAULT_MINECRAFT_VERSION
from .errors import SetupError, UnsupportedVersion
from .nodejs import FIX_HINT, node_modules_dir

SMELTING_TABLE = Path(__file__).resolve().parent / "server" / "js" / "data" / "smelting.json"


def _data_root() -> Path:
    root = node_modules_dir() / "minecraft-data" / "minecraft-data" / "data"
    if not root.exists():
        raise SetupError(f"minecraft-data is not installed ({root} missing). {FIX_HINT}")
    return root


class MinecraftData:
    """Lazily loaded tables of one Minecraft version."""

    def __init__(self, version: str):
        root = _data_root()
        paths = json.loads((root / "dataPaths.json").read_text())["pc"]
        if version not in paths:
            raise UnsupportedVersion(f"minecraft-data has no data for Minecraft {version}")
        self.version = version
        self._root = root
        self._paths = paths[version]

    def _load(self, table: str):
        if table not in self._paths:
            return [] if table not in ("recipes",) else {}
        return json.loads((self._root / self._paths[table] / f"{table}.json").read_text())

    @cached_property
    def items(self) -> list[dict]:
        return self._load("items")

    @cached_property
    def items_by_name(self) -> dict[str, dict]:
        return {item["name"]: item for item in self.items}

    @cached_property
    def items_by_id(self) -> dict[int, dict]:
        return {item["id"]: item for item in self.items}

    @cached_property
    def blocks(self) -> list[dict]:
        return self._load("blocks")

    @cached_property
    def blocks_by_name(self) -> dict[str, dict]:
        return {block["name"]: block for block in self.blocks}

    @cached_property
    def foods_by_name(self) -> dict[str, dict]:
        return {food["name"]: food for food in self._load("foods")}

    @cached_property
    def entities_by_name(self) -> dict[str, dict]:
        return {entity["name"]: entity for entity in self._load("entities")}

    @cached_property
    def block_loot(self) -> dict[str, dict]:
        return {entry["block"]: entry for entry in self._load("blockLoot")}

    @cached_property
    def entity_loot(self) -> dict[str, dict]:
        return {entry["entity"]: entry for entry in self._load("entityLoot")}

    @cached_property
    def recipes(self) -> dict[str, list[dict]]:
        """Result item name -> minecraft-data's recipe entries (inShape/outShape or ingredients, result)."""
        by_id = self._load("recipes")
        recipes = {self.items_by_id[int(item_id)]["name"]: list(entries) for item_id, entries in by_id.items()}
        for name, entries in self._special_recipes().items():
            recipes.setdefault(name, []).extend(entries)
        return recipes

    def _special_recipes(self) -> dict[str, list[dict]]:
        """Recipes the game has and minecraft-data lacks (mindpy/data/special_recipes.json; the server and the
        bots add the same ones), as minecraft-data entries; those naming items this version lacks are left out."""
        table = json.loads((Path(__file__).parent / "data" / "special_recipes.json").read_text())
        out: dict[str, list[dict]] = {}
        for name, entries in table.items():
            if name not in self.items_by_name:
                continue
            for entry in entries:
                if all(n in self.items_by_name for n in entry["ingredients"]):
                    ids = [self.items_by_name[n]["id"] for n in entry["ingredients"]]
                    out.setdefault(name, []).append(
                        {"ingredients": ids, "result": {"id": self.items_by_name[name]["id"], "count": entry["count"]}})
        return out

    def recipes_for(self, item_name: str) -> list[dict]:
        return self.recipes.get(item_name, [])

    def is_item(self, name: str) -> bool:
        return name in self.items_by_name

    def is_block(self, name: str) -> bool:
        return name in self.blocks_by_name


@cache
def smelting_table() -> dict:
    """The embedded server's smelting table (mindpy/server/js/data/smelting.json: "recipes", input item ->
    {output, kind}, and "fuels", item -> burn ticks), which minecraft-data lacks. Cached: read-only."""
    return json.loads(SMELTING_TABLE.read_text(encoding="utf-8"))


def protocol_versions() -> list[dict]:
    """minecraft-data's list of Java-edition versions, newest first: {minecraftVersion, version (the protocol
    number), usesNetty, releaseType, ...}."""
    return json.loads((_data_root() / "pc" / "common" / "protocolVersions.json").read_text(encoding="utf-8"))


@cache
def minecraft_data(version: str = DEFAULT_MINECRAFT_VERSION) -> MinecraftData:
    """The (cached) minecraft-data of a game version."""
    return MinecraftData(version)
