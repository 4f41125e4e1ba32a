"""Construction tasks: reading !checkBlueprint's answer and writing the code that places a level's blocks.

"Level 0 requires the following fixes:\\nPlace oak_door at coordinates X: 144, Y: -60, Z: -179\\n..."
Each agent places the blocks whose material it holds (and the crafter-like "lead" removes wrong blocks), so two
agents never fight over a cell and nobody needs the other's materials.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

_LEVEL = re.compile(r"^Level (\d+) (requires the following fixes:|is complete)", re.M)
_FIX = re.compile(r"^(?:Place (?P<place>[a-z0-9_]+)|Remove the (?P<remove>[a-z0-9_]+)|"
                  r"Replace the (?P<old>[a-z0-9_]+) with an? (?P<new>[a-z0-9_]+)) at coordinates "
                  r"X: (?P<x>-?\d+), Y: (?P<y>-?\d+), Z: (?P<z>-?\d+)", re.M)


@dataclass(frozen=True)
class Fix:
    """One block the blueprint check reports wrong: its level, what to do and where."""

    level: int
    kind: str       # place, remove, replace
    block: str      # the block to put there ("air" to remove)
    x: int
    y: int
    z: int


def is_check_output(text: str) -> bool:
    """True when `text` is an answer of !checkBlueprint."""
    return text.startswith("Blueprint is complete") or bool(_LEVEL.search(text))


def parse_check(text: str) -> list[Fix] | None:
    """The fixes in a !checkBlueprint answer ([] when complete); None when `text` is not one."""
    if text.startswith("Blueprint is complete"):
        return []
    if not _LEVEL.search(text):
        return None
    fixes: list[Fix] = []
    level = 0
    for line in text.splitlines():
        head = _LEVEL.match(line)
        if head:
            level = int(head.group(1))
            continue
        m = _FIX.match(line.strip())
        if not m:
            continue
        x, y, z = int(m["x"]), int(m["y"]), int(m["z"])
        if m["place"]:
            fixes.append(Fix(level, "place", m["place"], x, y, z))
        elif m["remove"]:
            fixes.append(Fix(level, "remove", "air", x, y, z))
        else:
            fixes.append(Fix(level, "replace", m["new"], x, y, z))
    return fixes


def is_door(fix: Fix) -> bool:
    """Does this fix put a door in (oak_door, iron_door...; not a trapdoor)?"""
    return fix.kind != "remove" and fix.block.endswith("_door")


def in_order(fixes: list[Fix]) -> list[Fix]:
    """The fixes to work on now: doors wait until everything else is built. The pathfinder cannot pass a door (open
    or shut), so an empty doorway is how the builders walk in to a ceiling and out again, and a door put in early
    shuts a builder in (or out)."""
    return [f for f in fixes if not is_door(f)] or fixes


def my_fixes(fixes: list[Fix], inv: Mapping[str, int], lead: bool, doors_last: bool = False,
             levels: int = 1) -> list[Fix]:
    """The fixes of the lowest level where I can do something (and of the `levels` - 1 levels above it): blocks
    whose material I hold, and removals for the lead. `doors_last`: building by hand, doors wait for the rest
    (in_order); with blocks set by command they need not."""
    if doors_last:
        fixes = in_order(fixes)
    mine = [f for f in fixes if (f.kind == "remove" and lead) or (f.kind != "remove" and inv.get(f.block, 0) > 0)]
    if not mine:
        return []
    low = min(f.level for f in mine)
    return [f for f in mine if low <= f.level < low + levels]


# levels of its own an agent building by hand places in one go: a storey's wall, three levels high, from one round of
# dirt pillars instead of three (each column bottom to top)
LEVELS_BY_HAND = 3


# calls in a row that wait, with nobody's progress, for a level below before building what has support anyway: a
# partner's wall takes a while (a path search may run 15 s), and blocks placed above a missing wall need climbing
LOWER_LEVEL_WAITS = 8
CLIMB_DIRT = 16   # dirt an agent digs to climb where walking does not reach
_BUILT = re.compile(r"Levels? [\d-]+: placed \d+ of \d+ blocks")
_NO_DIRT = "no dirt to climb on"  # the placing skill's words when only climbing would reach a block
_OUT_OF_REACH = re.compile(r"unreachable: [1-9]")  # the build's own count of blocks it could not reach
_NOT_SUPPORT = ("air", "cave_air", "water", "lava", "short_grass", "tall_grass", "snow")  # nothing to place against
PLACE_PASSES = 3  # a level's blocks are tried again while a pass places some: a ceiling grows from its walls inward
# blocks in a row a build fails to place though they have something to place against: it stops there and says how
# many are out of reach (each failure may be a path search of up to 15 s; 91 of them outlast the time limit)
MISSES_IN_A_ROW = 3


@dataclass(frozen=True)
class Site:
    """The house's extent as the blueprint checks have shown it: x and z bounds and the floor's level (y)."""

    min_x: int
    max_x: int
    min_z: int
    max_z: int
    ground: int


def site_of(fixes: list[Fix], known: Site | None = None) -> Site | None:
    """The site `known` widened by the cells of `fixes` (the floor's level: the lowest y seen)."""
    if not fixes:
        return known
    xs = [f.x for f in fixes] + ([known.min_x, known.max_x] if known else [])
    zs = [f.z for f in fixes] + ([known.min_z, known.max_z] if known else [])
    ys = [f.y for f in fixes] + ([known.ground] if known else [])
    return Site(min(xs), max(xs), min(zs), max(zs), min(ys))


def park_spot(site: Site) -> tuple[int, int, int]:
    """Where an agent with nothing to place stands: outside the house's corner, on the ground."""
    return site.min_x - 3, site.ground, site.min_z - 3


def is_build_output(text: str) -> bool:
    """True when `text` is the output of the code build_code wrote ("Level N: placed ...", or cut short: a skill
    said it had no dirt to climb on)."""
    return bool(_BUILT.search(text)) or _NO_DIRT in text


def reach_failed(build_output: str) -> bool:
    """Did a build's output count blocks that had something to place against and were still not placed (out of
    reach on foot, so climbing may help)?"""
    return bool(_OUT_OF_REACH.search(build_output or "")) or _NO_DIRT in (build_output or "")


def materials_needed(fixes: list[Fix]) -> dict[str, int]:
    """Blocks to place for `fixes`, by name (removals need none)."""
    out: dict[str, int] = {}
    for f in fixes:
        if f.kind != "remove":
            out[f.block] = out.get(f.block, 0) + 1
    return out


def round_the_level(fixes: list[Fix]) -> list[Fix]:
    """The fixes in the order of a walk round the level's middle (by angle), so that each block is near the last:
    a builder on a dirt pillar places the next ones from the same pillar, and one on foot walks round once (a
    ceiling's inner blocks follow the outer ones beside them; a column's blocks go bottom to top)."""
    if not fixes:
        return []
    cx = sum(f.x for f in fixes) / len(fixes)
    cz = sum(f.z for f in fixes) / len(fixes)
    return sorted(fixes, key=lambda f: (math.atan2(f.z - cz, f.x - cx), -math.hypot(f.x - cx, f.z - cz), f.level))


def levels_text(fixes: list[Fix]) -> str:
    """ "Level 5" or "Levels 5-7": the levels `fixes` are on."""
    low, high = (min(f.level for f in fixes), max(f.level for f in fixes)) if fixes else (0, 0)
    return f"Level {low}" if low == high else f"Levels {low}-{high}"


def build_code(fixes: list[Fix]) -> str:
    """Python for the coding sandbox: every fix, each result checked, a summary printed."""
    places = [(f.block, f.x, f.y, f.z) for f in round_the_level([f for f in fixes if f.kind != "remove"])]
    breaks = [(f.x, f.y, f.z) for f in fixes if f.kind in ("remove", "replace")]
    level = levels_text(fixes)
    lines = [f"# {level.lower()}: {len(places)} blocks to place, {len(breaks)} to clear first"]
    lines.append(f"to_break = {breaks!r}")
    lines.append(f"to_place = {places!r}")
    lines += [
        "failed = []",
        "for x, y, z in to_break:",
        "    if not skills.break_block_at(x, y, z):",
        "        failed.append(('break', x, y, z))",
        "if to_break:",
        "    skills.pickup_nearby_items()  # a cleared block is material again",
        "# a block that had something to place against and still failed was out of reach (or someone stood there)",
        "def has_support(x, y, z):",
        "    for dx, dy, dz in ((0, -1, 0), (0, 1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1)):",
        "        block = world.block_at(x + dx, y + dy, z + dz)",
        f"        if block and block['name'] not in {sorted(_NOT_SUPPORT)!r}:",
        "            return True",
        "    return False",
        "placed = 0",
        "pending = to_place",
        "missed = 0  # blocks in a row out of reach: each may have cost a long path search",
        f"for _ in range({PLACE_PASSES}):  # a block with nothing to place against yet may have it after a pass",
        "    left = []",
        "    for i, block in enumerate(pending):",
        "        if skills.place_block(*block):",
        "            placed, missed = placed + 1, 0",
        "            continue",
        "        left.append(block)",
        "        missed += has_support(*block[1:])  # one with nothing to place against yet neither counts nor resets",
        f"        if missed >= {MISSES_IN_A_ROW}:  # out of reach from here: say so, and climbing may help",
        "            left += pending[i + 1:]",
        "            break",
        f"    if missed >= {MISSES_IN_A_ROW} or not left or len(left) == len(pending):",
        "        break",
        "    pending = left",
        "failed += left",
        "unreached = [block for block in left if has_support(*block[1:])]",
        "if failed:",
        "    print('Could not do:', failed[:10])",
        "# last: the summary is what stays when a long output is cut in the middle",
        f"print('{level}: placed', placed, 'of', len(to_place), 'blocks; cleared', len(to_break), "
        "'; unreachable:', len(unreached))",
    ]
    return "```python\n" + "\n".join(lines) + "\n```"
