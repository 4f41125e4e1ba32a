"""Construction blueprints: MINDcraft's level/coordinates/placement format, pure-Python checking and the texts of
`!getBlueprint`, `!getBlueprintLevel(n)`, `!checkBlueprint` and `!checkBlueprintLevel(n)`.

Format (one dict per level):

    {"materials": {"stone": 40, ...},            # items the builders are given (optional)
     "levels": [{"level": 0,                     # the level's number, as shown to the model
                 "coordinates": [x, y, z],       # world position of placement[0][0]
                 "placement": [[...], ...]}]}    # rows x columns of block names, "air" = nothing

Row r, column c of a level is the block at (x + c, y, z + r): rows run along +Z, columns along +X, and every cell of
a level is at the level's y. Level numbers and list positions normally agree; the commands take the list position.

Reading the world is not done here: the checks take `get_block(x, y, z) -> block name or None` so a live bot, a test
dictionary or a saved world can answer.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MindpyError
from ..userfiles import quote

GetBlock = Callable[[int, int, int], "str | None"]
AIR_NAMES = frozenset({"air", "cave_air", "void_air"})
MAX_ITEM_COUNT = 36 * 64  # a full inventory: the most of one item a task may hand out or ask for


class BlueprintError(MindpyError):
    """A blueprint dictionary is malformed, or a level that does not exist was asked for."""


def block_base_name(name: str | None) -> str:
    """'minecraft:oak_stairs[facing=east]' -> 'oak_stairs'; None and the air variants -> 'air'."""
    if not name:
        return "air"
    base = name.split("[", 1)[0]
    if base.startswith("minecraft:"):
        base = base[len("minecraft:"):]
    return "air" if base in AIR_NAMES else base


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Cell:
    """One blueprint position and the block it should hold."""

    level: int
    x: int
    y: int
    z: int
    block: str


@dataclass(frozen=True)
class CellCheck:
    """One compared position: what the blueprint wants and what the world has."""

    level: int
    x: int
    y: int
    z: int
    expected: str
    actual: str

    @property
    def fix(self) -> str:
        where = f"at coordinates X: {self.x}, Y: {self.y}, Z: {self.z}"
        if self.actual == "air":
            return f"Place {self.expected} {where}"
        if self.expected == "air":
            return f"Remove the {self.actual} {where}"
        return f"Replace the {self.actual} with a {self.expected} {where}"


@dataclass(frozen=True)
class Comparison:
    """Matches and mismatches over the compared cells (cells where both sides are air are skipped)."""

    matches: tuple[CellCheck, ...]
    mismatches: tuple[CellCheck, ...]

    @property
    def score(self) -> float:
        """matches / (matches + mismatches); 1.0 when nothing was compared (an all-air blueprint on air)."""
        total = len(self.matches) + len(self.mismatches)
        return len(self.matches) / total if total else 1.0

    @property
    def complete(self) -> bool:
        return not self.mismatches


@dataclass(frozen=True)
class BlueprintLevel:
    """One horizontal layer of a blueprint: its y level, origin and rows of block names."""
    level: int
    coordinates: tuple[int, int, int]
    placement: tuple[tuple[str, ...], ...]
    extra: dict[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] = ("level", "coordinates", "placement")

    @property
    def width(self) -> int:
        """Cells along X (the longest row)."""
        return max((len(row) for row in self.placement), default=0)

    @property
    def depth(self) -> int:
        """Cells along Z (the number of rows)."""
        return len(self.placement)

    def cells(self) -> Iterator[Cell]:
        x0, y0, z0 = self.coordinates
        for r, row in enumerate(self.placement):
            for c, block in enumerate(row):
                yield Cell(self.level, x0 + c, y0, z0 + r, block)

    def to_dict(self) -> dict[str, Any]:
        values = {"level": self.level, "coordinates": list(self.coordinates),
                  "placement": [list(row) for row in self.placement], **copy.deepcopy(self.extra)}
        out = {k: values[k] for k in self.key_order if k in values}
        out.update({k: v for k, v in values.items() if k not in out})
        return out


@dataclass(frozen=True)
class Blueprint:
    """A construction target: its levels and materials; compares itself with the world."""
    levels: tuple[BlueprintLevel, ...]
    materials: dict[str, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] = ("materials", "levels")

    # ----- construction -----
    @classmethod
    def from_dict(cls, raw: Any, *, block_check: Callable[[str], str | None] | None = None,
                  item_check: Callable[[str], str | None] | None = None) -> Blueprint:
        problems: list[tuple[str, str]] = []
        blueprint = cls.parse(raw, problems, block_check=block_check, item_check=item_check)
        if problems:
            raise BlueprintError("\n".join(f"field '{fld}' {msg}" for fld, msg in problems))
        assert blueprint is not None
        return blueprint

    @classmethod
    def parse(cls, raw: Any, problems: list[tuple[str, str]], *, block_check: Callable[[str], str | None] | None = None,
              item_check: Callable[[str], str | None] | None = None) -> Blueprint | None:
        """Validate `raw`, appending (field, message) pairs to `problems`; returns what could be read."""
        if not isinstance(raw, Mapping):
            problems.append(("blueprint",
                             f"must be a mapping with 'levels' (and 'materials'), got {type(raw).__name__}"))
            return None
        materials = raw.get("materials")
        if materials is not None:
            if not isinstance(materials, Mapping):
                problems.append(("blueprint.materials", "must be a mapping item -> count"))
                materials = None
            else:
                clean: dict[str, int] = {}
                for item, count in materials.items():
                    if not _is_int(count) or not 0 <= count <= MAX_ITEM_COUNT:
                        problems.append((f"blueprint.materials.{item}",
                                         f"must be an integer from 0 to {MAX_ITEM_COUNT}, got {quote(count)}"))
                        continue
                    clean[str(item)] = count
                    message = item_check(str(item)) if item_check else None
                    if message:
                        problems.append(("blueprint.materials", message))
                materials = clean
        raw_levels = raw.get("levels")
        levels: list[BlueprintLevel] = []
        if not isinstance(raw_levels, list) or not raw_levels:
            problems.append(("blueprint.levels", "must be a non-empty list of {level, coordinates, placement}"))
            raw_levels = []
        seen_numbers: set[int] = set()
        reported_blocks: set[str] = set()
        for i, level in enumerate(raw_levels):
            fld = f"blueprint.levels[{i}]"
            if not isinstance(level, Mapping):
                problems.append((fld, "must be a mapping with level, coordinates and placement"))
                continue
            number = level.get("level", i)
            if not _is_int(number):
                problems.append((f"{fld}.level", f"must be an integer, got {number!r}"))
                number = i
            elif number in seen_numbers:
                problems.append((f"{fld}.level", f"repeats level number {number}"))
            seen_numbers.add(number)
            coords = level.get("coordinates")
            if not (isinstance(coords, (list, tuple)) and len(coords) == 3 and all(_is_int(c) for c in coords)):
                problems.append((f"{fld}.coordinates", f"must be three integers [x, y, z], got {coords!r}"))
                coords = (0, 0, 0)
            placement = level.get("placement")
            rows: list[tuple[str, ...]] = []
            if not isinstance(placement, list) or not placement:
                problems.append((f"{fld}.placement", "must be a non-empty list of rows (lists of block names)"))
            else:
                for r, row in enumerate(placement):
                    if not isinstance(row, list) or not all(isinstance(b, str) and b for b in row):
                        problems.append((f"{fld}.placement[{r}]", "must be a list of block names (\"air\" = empty)"))
                        continue
                    rows.append(tuple(row))
                    if block_check:
                        for block in row:
                            if block not in reported_blocks and block != "air":
                                message = block_check(block)
                                if message:
                                    reported_blocks.add(block)
                                    problems.append((f"{fld}.placement", message))
            extra = {k: copy.deepcopy(v) for k, v in level.items() if k not in ("level", "coordinates", "placement")}
            levels.append(BlueprintLevel(number, tuple(coords), tuple(rows), extra,
                                         tuple(str(k) for k in level.keys())))
        extra = {k: copy.deepcopy(v) for k, v in raw.items() if k not in ("materials", "levels")}
        return cls(tuple(levels), materials, extra, tuple(str(k) for k in raw.keys()))

    def to_dict(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if self.materials is not None:
            values["materials"] = dict(self.materials)
        values["levels"] = [level.to_dict() for level in self.levels]
        values.update(copy.deepcopy(self.extra))
        out = {k: values[k] for k in self.key_order if k in values}
        out.update({k: v for k, v in values.items() if k not in out})
        return out

    def with_materials(self, materials: Mapping[str, int] | None = None) -> Blueprint:
        """A copy whose `materials` are the given ones, or what building it takes (`required_items`)."""
        import dataclasses

        chosen = dict(materials) if materials is not None else self.required_items()
        return dataclasses.replace(self, materials=chosen)

    # ----- geometry -----
    def level_at(self, index: int) -> BlueprintLevel:
        """The level at list position `index` (what `!checkBlueprintLevel(index)` means)."""
        if not _is_int(index) or not 0 <= index < len(self.levels):
            raise BlueprintError(f"Level {index} does not exist: the blueprint has levels 0 to {len(self.levels) - 1}.")
        return self.levels[index]

    def cells(self, level: int | None = None, *, include_air: bool = True) -> list[Cell]:
        """Every blueprint position as (level, x, y, z, block), level by level, row by row."""
        levels = self.levels if level is None else (self.level_at(level),)
        return [cell for lvl in levels for cell in lvl.cells() if include_air or block_base_name(cell.block) != "air"]

    def bounds(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """((min x, min y, min z), (max x, max y, max z)) over all cells, air included."""
        xs, ys, zs = [], [], []
        for lvl in self.levels:
            x0, y0, z0 = lvl.coordinates
            xs += [x0, x0 + max(lvl.width - 1, 0)]
            ys.append(y0)
            zs += [z0, z0 + max(lvl.depth - 1, 0)]
        return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))

    @property
    def size(self) -> tuple[int, int, int]:
        """(cells along X, along Y, along Z) of the bounding box."""
        (x0, y0, z0), (x1, y1, z1) = self.bounds()
        return x1 - x0 + 1, y1 - y0 + 1, z1 - z0 + 1

    def conflicts(self) -> list[tuple[Cell, Cell]]:
        """Pairs of cells at one position that ask for different blocks (two levels given the same place, as in
        some hand-written blueprints): such a blueprint can never be complete. The first cell at the position,
        then each one that disagrees with it."""
        first: dict[tuple[int, int, int], Cell] = {}
        found = []
        for cell in self.cells():
            seen = first.setdefault((cell.x, cell.y, cell.z), cell)
            if seen is not cell and block_base_name(seen.block) != block_base_name(cell.block):
                found.append((seen, cell))
        return found

    def block_counts(self) -> Counter:
        """Non-air block name -> number of cells."""
        return Counter(block_base_name(c.block) for c in self.cells(include_air=False))

    def required_items(self) -> dict[str, int]:
        """Items needed to build it: one per block, except the upper half of a door (placing a door fills both)."""
        wanted = {(c.x, c.y, c.z): block_base_name(c.block) for c in self.cells(include_air=False)}
        needed: Counter = Counter()
        for (x, y, z), block in wanted.items():
            if block.endswith("_door") and _door_run_length(wanted, x, y, z, block) % 2 == 0:
                continue  # the upper half of the door below
            needed[block] += 1
        return dict(sorted(needed.items()))

    # ----- checking against a world -----
    def compare(self, get_block: GetBlock, level: int | None = None) -> Comparison:
        """Compare with the world: each non air-air position is a match or a mismatch (names without states)."""
        matches: list[CellCheck] = []
        mismatches: list[CellCheck] = []
        for cell in self.cells(level):
            expected = block_base_name(cell.block)
            actual = block_base_name(get_block(cell.x, cell.y, cell.z))
            if expected == "air" and actual == "air":
                continue
            check = CellCheck(cell.level, cell.x, cell.y, cell.z, expected, actual)
            (matches if expected == actual else mismatches).append(check)
        return Comparison(tuple(matches), tuple(mismatches))

    def score(self, get_block: GetBlock) -> float:
        return self.compare(get_block).score

    # ----- the command texts -----
    def check_level_text(self, index: int, get_block: GetBlock) -> str:
        """`!checkBlueprintLevel(index)`: 'Level N is complete' or the list of fixes, one per line."""
        try:
            lvl = self.level_at(index)
        except BlueprintError as exc:
            return str(exc)
        result = self.compare(get_block, index)
        if result.complete:
            return f"Level {lvl.level} is complete"
        lines = [f"Level {lvl.level} requires the following fixes:"]
        lines += [check.fix for check in result.mismatches]
        return "\n".join(lines) + "\n"

    def check_text(self, get_block: GetBlock) -> str:
        """`!checkBlueprint`: 'Blueprint is complete', or every level's state, level by level."""
        if self.compare(get_block).complete:
            return "Blueprint is complete"
        parts = []
        for index in range(len(self.levels)):
            text = self.check_level_text(index, get_block)
            parts.append(text if text.endswith("\n") else text + "\n")
        return "".join(parts)

    def describe_text(self) -> str:
        """`!getBlueprint`: size, materials and where each level starts."""
        width, height, depth = self.size
        counts = self.block_counts()
        lines = [f"Blueprint: {len(self.levels)} levels, {width} blocks along X by {depth} along Z, "
                 f"{sum(counts.values())} blocks to place. Build the lower levels first."]
        materials = self.materials if self.materials is not None else self.required_items()
        if materials:
            lines.append("Materials: " + ", ".join(f"{k}: {v}" for k, v in materials.items()))
        lines.append("In a level starting at X, Y, Z the block in row r, column c (counting from 0) goes at "
                     "X + c, Y, Z + r. Use !getBlueprintLevel(n) for a level's blocks.")
        for lvl in self.levels:
            x, y, z = lvl.coordinates
            blocks = Counter(block_base_name(c.block) for c in lvl.cells() if block_base_name(c.block) != "air")
            summary = ", ".join(f"{k} {v}" for k, v in sorted(blocks.items())) or "nothing but air"
            lines.append(f"Level {lvl.level}: starts at X: {x}, Y: {y}, Z: {z}; {summary}")
        return "\n".join(lines)

    def level_text(self, index: int) -> str:
        """`!getBlueprintLevel(index)`: the level's start and its rows of block names."""
        try:
            lvl = self.level_at(index)
        except BlueprintError as exc:
            return str(exc)
        x, y, z = lvl.coordinates
        lines = [f"Level {lvl.level} starting at coordinates X: {x}, Y: {y}, Z: {z} "
                 f"(row r, column c is at X + c, Y, Z + r):", "["]
        lines += ["[" + ", ".join(row) + "]," for row in lvl.placement]
        lines.append("]")
        return "\n".join(lines) + "\n"

    # ----- operator commands (for world set-up; sent by someone else) -----
    def setblock_commands(self) -> list[str]:
        """'/setblock x y z block' for every non-air cell, lower levels first (builds it instantly)."""
        return [f"/setblock {c.x} {c.y} {c.z} {c.block}" for c in self.cells(include_air=False)]

    def clear_commands(self, margin: int = 0) -> list[str]:
        """'/fill' commands that set the whole bounding box (plus `margin` around it) to air, one layer each."""
        (x0, y0, z0), (x1, y1, z1) = self.bounds()
        return [f"/fill {x0 - margin} {y} {z0 - margin} {x1 + margin} {y} {z1 + margin} air"
                for y in range(y0, y1 + 1 + margin)]

    def fingerprint(self) -> str:
        """A stable hash of the levels (coordinates and placements), to tell blueprints apart."""
        import hashlib
        import json

        payload = json.dumps([[lvl.coordinates, lvl.placement] for lvl in self.levels], separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()


def _door_run_length(wanted: Mapping[tuple[int, int, int], str], x: int, y: int, z: int, block: str) -> int:
    """How many cells of the same door are stacked from (x, y, z) downwards, this one included."""
    n = 0
    while wanted.get((x, y - n, z)) == block:
        n += 1
    return n


def compare(blueprint: Blueprint, get_block: GetBlock, level: int | None = None) -> Comparison:
    """Compare the world with the blueprint (or one of its levels)."""
    return blueprint.compare(get_block, level)


def score(blueprint: Blueprint, get_block: GetBlock) -> float:
    """The share of the blueprint's cells the world matches (0 to 1)."""
    return blueprint.score(get_block)


def from_world_dict(blocks: Mapping[tuple[int, int, int], str]) -> GetBlock:
    """A get_block over a {(x, y, z): name} mapping; positions not in it are air."""
    return lambda x, y, z: blocks.get((x, y, z), "air")


# The four blueprint commands' answers, by command name.
def check_blueprint_level(blueprint: Blueprint, level: int, get_block: GetBlock) -> str:
    """`!checkBlueprintLevel(level)`."""
    return blueprint.check_level_text(level, get_block)


def check_blueprint(blueprint: Blueprint, get_block: GetBlock) -> str:
    """`!checkBlueprint`."""
    return blueprint.check_text(get_block)


def get_blueprint(blueprint: Blueprint) -> str:
    """`!getBlueprint`."""
    return blueprint.describe_text()


def get_blueprint_level(blueprint: Blueprint, level: int) -> str:
    """`!getBlueprintLevel(level)`."""
    return blueprint.level_text(level)
