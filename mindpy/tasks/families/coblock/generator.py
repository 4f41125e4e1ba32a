"""CoBlock structures: coloured block structures two agents build together, and their split into goals.

After "Your Co-Workers Matter" (CoBlock), section 2 and appendix A.1. A structure is a dict {(x, y, z): colour}
of wool blocks, y = 0 being the ground layer; x and z lie in a SITE_SIZE x SITE_SIZE site and y below SITE_HEIGHT,
all relative to the site origin. `generate` turns structures into MINDcraft-style task dicts (below); nothing here
touches a Minecraft server.

Tasks (`generate(split, seed, count)`, ids `coblock_{type}_{k}`): the three types cycle (independent,
skill_dependent, goal_dependent), and the k-th task of each type splits the same structure, as the paper reuses
structures across types. The site sits at ORIGIN on the superflat ground (structure y = 0 is world y = -60), away
from the construction sites. A task holds the whole structure G as a blueprint (one level per layer over the whole
site, "air" where G has no block), each agent's part of it as `private_goals` ({"0": [[x, y, z, block], ...]},
absolute, bottom up) and as a private goal text, the inventories, `coblock_type` and `complexity` (log10 spanning
trees, 2 decimals). Structures are never repeated inside a split, nor taken from `exclude` (blueprint
fingerprints, e.g. the test split's when making the train split).

Choices made where the paper is vague:
- Gravity: as in the paper (and in Minecraft, where wool does not fall), a block may be placed on the ground or
  against any face of a placed block. So a structure is buildable when each of its face-connected components has
  a ground block; `placement_order` gives an order that shows it.
- Complexity: the paper counts the spanning trees of a graph whose nodes are "surfaces" joined by adjacency; here
  the nodes are blocks and the edges shared faces, counted exactly with Kirchhoff's matrix-tree theorem (integer
  determinant of the reduced Laplacian) and reported as log10. A disconnected structure counts its spanning
  forests (the product over components), so one block, a column or any tree-shaped structure scores 0.
- Primitives (the paper names them and gives only the arch's rule): each is one colour and stands on its own
  lowest layer.
  symbol: a letter-like glyph of 4-8 blocks lying flat in one layer, within 3x3, connected, not a full rectangle;
  bridge: a deck one layer thick, 1-2 wide and 3-7 long, on two pillars under its ends as wide as the deck and
  1-3 high (lower than an arch, so no shape is both);
  arch: the paper's rule read as: two pillars one block thick ("width < 2") and at least 4 high ("height > 3"),
  whose positions differ by at least 4 along the span ("distance > 3"), joined over their tops by a lintel one or
  two layers thick ("width < 3"), all in one upright plane;
  tower: a 1x1 column or a 2x2 stack at least 3 high;
  rectangle: a filled rectangle with both sides 2-4 (the rule asks at least 2), flat on one layer or upright in
  one vertical plane.
  Each rule (`RULES`) accepts every shape its builder makes, in either horizontal orientation and at any
  position (sizes beyond the builder's ranges too, where the rule sets no bound), and no rule accepts another
  primitive's shape.
- Growth: the "3 random blocks" are three ground blocks of random colours forming a connected random walk.
  Depth-first search then adds primitives, each placed with a foot cell on the ground beside a ground block or on
  top of a block (the rest of the shape may overhang, as the adjacency rule allows), so the structure stays one
  connected piece resting on the ground. Overlapping existing blocks is allowed only where the colours agree.
  Adding a connected piece never lowers the spanning-tree count, so a branch whose complexity is already above
  the range is abandoned, and one inside it (after at least two primitives, and once something rises above the
  ground, which goal-dependent splits need) is the answer.
- Splits: the two goals partition the structure. Independent and skill-dependent goals are regions grown by one
  breadth-first search from two ground blocks, so each goal stands on the ground by itself. A goal-dependent split
  gives one agent a base that stands alone and the other the blocks above some layer of its region; the upper goal
  then has no ground block and rests directly on the base. Independent inventories hold the colours each goal
  needs. Skill-dependent and goal-dependent ones move one colour an agent needs wholly to its partner (sometimes
  also one colour the other way), so every inventory holds only colours of the structure.
- Inventories limit colours, not counts: as in the paper (20 blocks of each colour an agent holds), an agent holds
  max(20, that colour's count in the structure) of each of its colours. So who places a colour both hold is the
  team's choice (what workload balance measures), and a block broken by mistake can be replaced.
- Goal dependence is judged by support, not by position: a block that is merely above a partner's block but also
  connected to the ground through its own goal could be placed first, so it does not force an order. A split is
  goal-dependent when one goal cannot be built alone while the whole structure can.
"""

from __future__ import annotations

import math
import random
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...blueprint import Blueprint
from ...generators.common import join_words, rng_for

Coord = tuple[int, int, int]
Structure = dict[Coord, str]

COLOURS = ("red_wool", "orange_wool", "yellow_wool", "green_wool", "blue_wool", "purple_wool")
SITE_SIZE = 10   # x and z run over 0..9
SITE_HEIGHT = 8  # y runs over 0..7: an arch (at most 7 high) fits on the ground
TASK_TYPES = ("independent", "skill_dependent", "goal_dependent")
DEFAULT_COMPLEXITY = (2.0, 5.0)
DEFAULT_MAX_BLOCKS = 40
STOCK = 20  # blocks of each colour an agent holds (more where the structure takes more of that colour)
MIN_PRIMITIVES = 2  # a combination of primitives, not one shape beside the seed blocks

ARCH_MIN_PILLAR = 4     # "HEIGHT > 3"
ARCH_MIN_DISTANCE = 4   # "DISTANCE > 3"
ARCH_MAX_LINTEL = 2     # "WIDTH < 3"
BRIDGE_MAX_PILLAR = 3   # bridges stay below arches
SEED_BLOCKS = 3
BRANCHING = 6           # valid placements tried at each node of the search
PLACEMENT_ATTEMPTS = 40  # random placements drawn to find them

_FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
_SIDES = ((1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1))

# letter-like glyphs on a 3x3 grid ('#' = block); rotated and mirrored when placed
GLYPHS = (
    ("#..", "#..", "###"),  # L
    ("###", ".#.", ".#."),  # T
    (".#.", "###", ".#."),  # plus
    ("#.#", "#.#", "###"),  # U
    ("##.", ".#.", ".##"),  # Z
    ("#.#", "###", "#.#"),  # H
    ("###", "#..", "###"),  # C
    ("#..", "#..", "##."),  # small L
    ("##.", "##.", "#.."),  # P
)


# ----- blocks and gravity -----
def neighbours(cell: Coord) -> list[Coord]:
    """The six cells sharing a face with `cell`."""
    x, y, z = cell
    return [(x + dx, y + dy, z + dz) for dx, dy, dz in _FACES]


def components(cells: Iterable[Coord]) -> list[set[Coord]]:
    """The face-connected components of the cells, each found from its smallest cell, in sorted order."""
    remaining = set(cells)
    found: list[set[Coord]] = []
    for start in sorted(remaining):
        if start not in remaining:
            continue
        part = {start}
        remaining.discard(start)
        queue = deque([start])
        while queue:
            for n in neighbours(queue.popleft()):
                if n in remaining:
                    remaining.discard(n)
                    part.add(n)
                    queue.append(n)
        found.append(part)
    return found


def placement_order(cells: Iterable[Coord]) -> list[Coord] | None:
    """An order to place the blocks in, each on the ground or against an earlier one; None if there is none."""
    todo = set(cells)
    order = sorted(c for c in todo if c[1] == 0)
    queue = deque(order)
    todo.difference_update(order)
    while queue:
        for n in sorted(neighbours(queue.popleft())):
            if n in todo:
                todo.discard(n)
                order.append(n)
                queue.append(n)
    return None if todo else order


def is_buildable(cells: Iterable[Coord]) -> bool:
    """True when every block is on the ground or joined face to face, through other blocks, to one that is."""
    return placement_order(cells) is not None


def rests_on(upper: Iterable[Coord], lower: Iterable[Coord]) -> bool:
    """True when some block of `upper` is directly above a block of `lower`."""
    below = set(lower)
    return any((x, y - 1, z) in below for x, y, z in upper)


# ----- complexity -----
def _determinant(matrix: list[list[int]]) -> int:
    """Exact determinant by Bareiss' fraction-free elimination. No pivoting: it is only used on reduced
    Laplacians of connected graphs, which are positive definite, so every leading minor (the pivot) is > 0."""
    a = [row[:] for row in matrix]
    n = len(a)
    if n == 0:
        return 1
    previous = 1
    for k in range(n - 1):
        pivot, row_k = a[k][k], a[k]
        for i in range(k + 1, n):
            row_i = a[i]
            factor = row_i[k]
            for j in range(k + 1, n):
                row_i[j] = (row_i[j] * pivot - factor * row_k[j]) // previous
        previous = pivot
    return a[n - 1][n - 1]


def _trees_of_component(part: set[Coord]) -> int:
    """Spanning trees of one connected component."""
    nodes = set(part)
    # leaves do not change the count (each tree must use their one edge): drop them first to keep the matrix small
    leaves = [c for c in nodes if sum(n in nodes for n in neighbours(c)) <= 1]
    while leaves and len(nodes) > 1:
        for leaf in leaves:
            nodes.discard(leaf)
        leaves = [c for c in nodes if sum(n in nodes for n in neighbours(c)) <= 1]
    ordered = sorted(nodes)
    index = {c: i for i, c in enumerate(ordered)}
    size = len(ordered)
    laplacian = [[0] * size for _ in range(size)]
    for c, i in index.items():
        for n in neighbours(c):
            j = index.get(n)
            if j is not None:
                laplacian[i][j] -= 1
                laplacian[i][i] += 1
    return _determinant([row[1:] for row in laplacian[1:]])


def spanning_trees(cells: Iterable[Coord]) -> int:
    """The number of spanning trees of the blocks' face-adjacency graph (of spanning forests, one tree per
    component, when it is not connected); 1 for no block or one block."""
    count = 1
    for part in components(cells):
        count *= _trees_of_component(part)
    return count


def complexity(cells: Iterable[Coord]) -> float:
    """log10 of `spanning_trees`: 0 for a single block or any tree-shaped structure."""
    return math.log10(spanning_trees(cells))


# ----- primitives -----
def _orient(local: Iterable[Coord], origin: Coord, along_z: bool, colour: str) -> Structure:
    """Local (u, y, w) cells, u along the shape's span, placed at `origin` with the span along x or z."""
    ox, oy, oz = origin
    out: Structure = {}
    for u, y, w in local:
        out[(ox + w, oy + y, oz + u) if along_z else (ox + u, oy + y, oz + w)] = colour
    return dict(sorted(out.items()))


def symbol(rng: random.Random, origin: Coord, colour: str) -> Structure:
    """A glyph from GLYPHS, turned and maybe mirrored, lying flat on the layer of `origin`."""
    rows = rng.choice(GLYPHS)
    cells = [(col, r) for r, row in enumerate(rows) for col, ch in enumerate(row) if ch == "#"]
    for _ in range(rng.randrange(4)):
        cells = [(r, -col) for col, r in cells]  # a quarter turn
    if rng.random() < 0.5:
        cells = [(-col, r) for col, r in cells]
    min_c, min_r = min(c for c, _ in cells), min(r for _, r in cells)
    return _orient([(c - min_c, 0, r - min_r) for c, r in cells], origin, False, colour)


def bridge(rng: random.Random, origin: Coord, colour: str) -> Structure:
    """A deck (3-7 long, 1-2 wide) on two pillars 1-3 high under its ends."""
    length, width, height = rng.randint(3, 7), rng.randint(1, 2), rng.randint(1, BRIDGE_MAX_PILLAR)
    cells = [(u, height, w) for u in range(length) for w in range(width)]
    cells += [(u, y, w) for u in (0, length - 1) for w in range(width) for y in range(height)]
    return _orient(cells, origin, rng.random() < 0.5, colour)


def arch(rng: random.Random, origin: Coord, colour: str) -> Structure:
    """Two one-block pillars 4-5 high, 4-6 apart, under a lintel of one or two layers."""
    distance, height = rng.randint(ARCH_MIN_DISTANCE, 6), rng.randint(ARCH_MIN_PILLAR, 5)
    lintel = rng.randint(1, ARCH_MAX_LINTEL)
    cells = [(u, y, 0) for u in (0, distance) for y in range(height)]
    cells += [(u, y, 0) for u in range(distance + 1) for y in range(height, height + lintel)]
    return _orient(cells, origin, rng.random() < 0.5, colour)


def tower(rng: random.Random, origin: Coord, colour: str) -> Structure:
    """A 1x1 column or 2x2 stack, 3-5 high."""
    side, height = rng.randint(1, 2), rng.randint(3, 5)
    return _orient([(u, y, w) for u in range(side) for w in range(side) for y in range(height)], origin, False,
                   colour)


def rectangle(rng: random.Random, origin: Coord, colour: str) -> Structure:
    """A filled rectangle with sides 2-4, flat on the ground layer or upright."""
    a, b = rng.randint(2, 4), rng.randint(2, 4)
    if rng.random() < 0.5:
        cells = [(u, 0, w) for u in range(a) for w in range(b)]
    else:
        cells = [(u, y, 0) for u in range(a) for y in range(b)]
    return _orient(cells, origin, rng.random() < 0.5, colour)


def _normalised(cells: Iterable[Coord]) -> set[Coord]:
    """The cells moved so that their smallest x, y and z are 0 (empty stays empty)."""
    cells = list(cells)
    if not cells:
        return set()
    mx, my, mz = (min(c[i] for c in cells) for i in range(3))
    return {(x - mx, y - my, z - mz) for x, y, z in cells}


def _views(cells: Iterable[Coord]) -> list[set[Coord]]:
    """The cells moved to the origin, as they are and with x and z swapped (span along x in one of them)."""
    base = _normalised(cells)
    return [base, {(z, y, x) for x, y, z in base}] if base else []


def _extent(cells: set[Coord], axis: int) -> int:
    return max(c[axis] for c in cells) + 1  # of normalised cells


def symbol_rule(cells: Iterable[Coord]) -> bool:
    """4-8 blocks in one layer, within 3x3, face-connected, not a filled rectangle."""
    shape = _normalised(cells)
    if not 4 <= len(shape) <= 8 or _extent(shape, 1) != 1:
        return False
    xs, zs = _extent(shape, 0), _extent(shape, 2)
    return xs <= 3 and zs <= 3 and len(shape) < xs * zs and len(components(shape)) == 1


def bridge_rule(cells: Iterable[Coord]) -> bool:
    """A deck one layer thick (at least 3 long, at most 2 wide) on two pillars 1-3 high, as wide as the deck,
    under its two ends."""
    for shape in _views(cells):
        length, width, top = _extent(shape, 0), _extent(shape, 2), _extent(shape, 1) - 1
        if length < 3 or width > 2 or not 1 <= top <= BRIDGE_MAX_PILLAR:
            continue
        expected = {(u, top, w) for u in range(length) for w in range(width)}
        expected |= {(u, y, w) for u in (0, length - 1) for w in range(width) for y in range(top)}
        if shape == expected:
            return True
    return False


def arch_rule(cells: Iterable[Coord]) -> bool:
    """Two pillars one block thick and more than 3 high, more than 3 apart, joined on top by a lintel less than
    3 layers thick; all in one upright plane."""
    for shape in _views(cells):
        distance = _extent(shape, 0) - 1
        if _extent(shape, 2) != 1 or distance < ARCH_MIN_DISTANCE:
            continue
        between = [y for x, y, _ in shape if 0 < x < distance]
        if not between:
            continue
        height, total = min(between), _extent(shape, 1)
        if height < ARCH_MIN_PILLAR or not 1 <= total - height <= ARCH_MAX_LINTEL:
            continue
        expected = {(u, y, 0) for u in (0, distance) for y in range(height)}
        expected |= {(u, y, 0) for u in range(distance + 1) for y in range(height, total)}
        if shape == expected:
            return True
    return False


def tower_rule(cells: Iterable[Coord]) -> bool:
    """A filled 1x1 or 2x2 footprint repeated on at least 3 layers."""
    shape = _normalised(cells)
    if not shape:
        return False
    xs, height, zs = _extent(shape, 0), _extent(shape, 1), _extent(shape, 2)
    return xs == zs and xs in (1, 2) and height >= 3 and len(shape) == xs * zs * height


def rectangle_rule(cells: Iterable[Coord]) -> bool:
    """A filled rectangle, both sides at least 2, in one horizontal or vertical plane."""
    shape = _normalised(cells)
    if not shape:
        return False
    extents = sorted(_extent(shape, axis) for axis in range(3))
    return extents[0] == 1 and extents[1] >= 2 and len(shape) == extents[1] * extents[2]


Builder = Callable[[random.Random, Coord, str], Structure]
PRIMITIVES: dict[str, Builder] = {
    "symbol": symbol, "bridge": bridge, "arch": arch, "tower": tower, "rectangle": rectangle,
}
RULES: dict[str, Callable[[Iterable[Coord]], bool]] = {
    "symbol": symbol_rule, "bridge": bridge_rule, "arch": arch_rule, "tower": tower_rule,
    "rectangle": rectangle_rule,
}


# ----- growing a structure -----
def in_site(cell: Coord) -> bool:
    """True when the cell lies inside the building site."""
    x, y, z = cell
    return 0 <= x < SITE_SIZE and 0 <= z < SITE_SIZE and 0 <= y < SITE_HEIGHT


def _seed_structure(rng: random.Random) -> Structure:
    """Three ground blocks of random colours, each beside an earlier one."""
    start = (rng.randrange(SITE_SIZE), 0, rng.randrange(SITE_SIZE))
    cells = [start]
    while len(cells) < SEED_BLOCKS:
        x, _, z = rng.choice(cells)
        dx, _, dz = rng.choice(_SIDES)
        cell = (x + dx, 0, z + dz)
        if in_site(cell) and cell not in cells:
            cells.append(cell)
    return {c: rng.choice(COLOURS) for c in sorted(cells)}


def _placement(rng: random.Random, structure: Structure, max_blocks: int) -> Structure | None:
    """One random primitive placed against the structure, or None when the draw does not fit."""
    colour = rng.choice(COLOURS)
    shape = PRIMITIVES[rng.choice(sorted(PRIMITIVES))](rng, (0, 0, 0), colour)
    foot = rng.choice([c for c in shape if c[1] == 0])
    ax, ay, az = rng.choice(sorted(structure))
    if rng.random() < 0.5:
        target = (ax, ay + 1, az)  # on top of the anchor
    elif ay == 0:
        dx, _, dz = rng.choice(_SIDES)
        target = (ax + dx, 0, az + dz)  # on the ground beside it
    else:
        return None
    if target in structure:
        return None
    shift = (target[0] - foot[0], target[1] - foot[1], target[2] - foot[2])
    placed = {(x + shift[0], y + shift[1], z + shift[2]): colour for x, y, z in shape}
    if not all(in_site(c) for c in placed):
        return None
    if any(structure.get(c, colour) != colour for c in placed):
        return None  # overlaps a block of another colour
    grown = {**structure, **placed}
    if len(grown) > max_blocks or not is_buildable(grown):
        return None
    return dict(sorted(grown.items()))


def grow_structure(rng: random.Random, complexity_range: tuple[float, float] = DEFAULT_COMPLEXITY,
                   max_blocks: int = DEFAULT_MAX_BLOCKS, *, min_primitives: int = MIN_PRIMITIVES,
                   max_nodes: int = 3000) -> Structure:
    """A structure grown from three random ground blocks by depth-first search over primitive placements, with
    complexity in `complexity_range` (inclusive), at most `max_blocks` blocks, at least `min_primitives`
    primitives and at least one block above the ground. Same rng state, same structure. ValueError when
    `max_nodes` search nodes find none."""
    low, high = complexity_range
    if low > high or max_blocks < SEED_BLOCKS + 1 or min_primitives < 1:
        raise ValueError(f"bad complexity range {complexity_range}, max_blocks {max_blocks} or min_primitives "
                         f"{min_primitives}")
    visited = 0

    def search(structure: Structure, depth: int) -> Structure | None:
        nonlocal visited
        visited += 1
        if visited > max_nodes:
            return None
        value = complexity(structure)
        if value > high:
            return None  # more blocks can only add spanning trees
        if depth >= min_primitives and value >= low and any(y > 0 for _, y, _ in structure):
            return structure
        options: list[Structure] = []
        seen: set[frozenset[Coord]] = set()
        for _ in range(PLACEMENT_ATTEMPTS):
            grown = _placement(rng, structure, max_blocks)
            if grown is not None and frozenset(grown) not in seen:
                seen.add(frozenset(grown))
                options.append(grown)
                if len(options) == BRANCHING:
                    break
        for grown in options:
            found = search(grown, depth + 1)
            if found is not None or visited > max_nodes:
                return found
        return None

    found = search(_seed_structure(rng), 0)
    if found is None:
        raise ValueError(f"no structure with complexity in {complexity_range} within {max_nodes} search nodes")
    return found


# ----- goals and inventories -----
def colour_needs(goal: Mapping[Coord, str]) -> dict[str, int]:
    """How many blocks of each colour the goal takes."""
    return dict(sorted(Counter(goal.values()).items()))


def _regions(structure: Structure, roots: tuple[Coord, Coord]) -> tuple[Structure, Structure]:
    """Blocks labelled by which root a joint breadth-first search reaches first: each region is connected to its
    root, so one with a ground root stands alone."""
    label = {roots[0]: 0, roots[1]: 1}
    queue = deque(roots)
    while queue:
        cell = queue.popleft()
        for n in sorted(neighbours(cell)):
            if n in structure and n not in label:
                label[n] = label[cell]
                queue.append(n)
    parts: tuple[Structure, Structure] = ({}, {})
    for cell in sorted(structure):
        parts[label.get(cell, 0)][cell] = structure[cell]  # other components have their own ground blocks
    return parts


def _region_splits(structure: Structure, rng: random.Random, tries: int = 8) -> list[tuple[Structure, Structure]]:
    ground = sorted(c for c in structure if c[1] == 0)
    if len(ground) < 2:
        raise ValueError("a structure needs two ground blocks to be split into goals")
    splits = []
    for _ in range(tries):
        root_a, root_b = rng.sample(ground, 2)
        splits.append(_regions(structure, (root_a, root_b)))
    return splits


def _imbalance(pair: tuple[Structure, Structure]) -> int:
    return abs(len(pair[0]) - len(pair[1]))


def _standalone_split(structure: Structure, rng: random.Random) -> tuple[Structure, Structure]:
    """Two goals that each stand on the ground; the most even of a few tries."""
    return min(_region_splits(structure, rng), key=_imbalance)


def _dependent_split(structure: Structure, rng: random.Random) -> tuple[Structure, Structure]:
    """(base, upper): the base stands alone, the upper goal has no ground block and rests on the base. Tries the
    blocks of one region above a random layer; the ground layer against everything above it always works for a
    connected structure that rises above the ground."""
    top = max(y for _, y, _ in structure)
    if top == 0:
        raise ValueError("a flat structure has no goal-dependent split")
    candidates = []
    for _first, second in _region_splits(structure, rng):
        layer = rng.randint(1, top)
        upper = {c: b for c, b in second.items() if c[1] >= layer}
        base = {c: b for c, b in structure.items() if c not in upper}
        candidates.append((base, upper))
    candidates.append(({c: b for c, b in structure.items() if c[1] == 0},
                       {c: b for c, b in structure.items() if c[1] > 0}))
    good = [(base, upper) for base, upper in candidates
            if upper and is_buildable(base) and rests_on(upper, base)]
    if not good:
        raise ValueError("no goal-dependent split: the structure is not buildable")
    return min(good, key=_imbalance)


def _lend_colours(needs: tuple[dict[str, int], dict[str, int]], rng: random.Random
                  ) -> tuple[dict[str, int], dict[str, int]]:
    """Inventories where one agent's goal needs a colour only the partner holds: that colour moves wholly to the
    partner; half the time (or when the first agent would hold nothing) one colour moves back the other way."""
    inventories = [dict(needs[0]), dict(needs[1])]
    lacking = rng.randrange(2)
    helper = 1 - lacking
    colour = rng.choice(sorted(needs[lacking]))
    inventories[helper][colour] = inventories[helper].get(colour, 0) + inventories[lacking].pop(colour)
    back = sorted(c for c in needs[helper] if c != colour)
    if back and (rng.random() < 0.5 or not inventories[lacking]):
        other = rng.choice(back)
        inventories[lacking][other] = inventories[lacking].get(other, 0) + inventories[helper].pop(other)
    return dict(sorted(inventories[0].items())), dict(sorted(inventories[1].items()))


def split_goals(structure: Mapping[Coord, str], task_type: str, rng: random.Random
                ) -> tuple[Structure, Structure, dict[str, int], dict[str, int]]:
    """(goal_a, goal_b, inventory_a, inventory_b) for a task type of TASK_TYPES: the goals partition the
    structure, which must be buildable with at least two ground blocks (and, for goal_dependent, not flat)."""
    if task_type not in TASK_TYPES:
        raise ValueError(f"task type must be one of {TASK_TYPES}, got {task_type!r}")
    whole = dict(sorted(structure.items()))
    if not is_buildable(whole):
        raise ValueError("the structure is not buildable")
    if task_type == "goal_dependent":
        first, second = _dependent_split(whole, rng)
    else:
        first, second = _standalone_split(whole, rng)
    goal_a, goal_b = (first, second) if rng.random() < 0.5 else (second, first)
    needs = (colour_needs(goal_a), colour_needs(goal_b))
    inv_a, inv_b = needs if task_type == "independent" else _lend_colours(needs, rng)
    whole_needs = colour_needs(whole)
    return goal_a, goal_b, _stocked(inv_a, whole_needs), _stocked(inv_b, whole_needs)


def _stocked(colours: Mapping[str, int], needs: Mapping[str, int]) -> dict[str, int]:
    """The inventory for the colours an agent holds: STOCK of each, or all the structure takes of it if more."""
    return {colour: max(STOCK, needs[colour]) for colour in sorted(colours)}


def split_for_seed(seed: int, task_type: str, complexity_range: tuple[float, float] = DEFAULT_COMPLEXITY,
                   max_blocks: int = DEFAULT_MAX_BLOCKS
                   ) -> tuple[Structure, Structure, Structure, dict[str, int], dict[str, int]]:
    """(structure, goal_a, goal_b, inventory_a, inventory_b) for a seed. The structure does not depend on the task
    type, so one seed gives the same structure split three ways (the paper reuses structures across types)."""
    structure = grow_structure(rng_for("coblock", "structure", seed), complexity_range, max_blocks)
    return (structure, *_split_for_seed(structure, seed, task_type))


def _split_for_seed(structure: Structure, seed: int, task_type: str
                    ) -> tuple[Structure, Structure, dict[str, int], dict[str, int]]:
    """The seed's split of `structure` for a task type (its own random stream per type)."""
    return split_goals(structure, task_type, rng_for("coblock", "split", seed, task_type))


# ----- what a split promises -----
def _partition_ok(goal_a: Mapping[Coord, str], goal_b: Mapping[Coord, str]) -> bool:
    return bool(goal_a) and bool(goal_b) and not set(goal_a) & set(goal_b)


def _covers(inventory: Mapping[str, int], needs: Mapping[str, int]) -> bool:
    return all(inventory.get(colour, 0) >= count for colour, count in needs.items())


def is_independent(goal_a: Mapping[Coord, str], goal_b: Mapping[Coord, str],
                   inventory_a: Mapping[str, int], inventory_b: Mapping[str, int]) -> bool:
    """Each agent holds enough of every colour its goal needs, and each goal stands on the ground by itself."""
    return (_partition_ok(goal_a, goal_b)
            and _covers(inventory_a, colour_needs(goal_a)) and _covers(inventory_b, colour_needs(goal_b))
            and is_buildable(goal_a) and is_buildable(goal_b))


def is_skill_dependent(goal_a: Mapping[Coord, str], goal_b: Mapping[Coord, str],
                       inventory_a: Mapping[str, int], inventory_b: Mapping[str, int]) -> bool:
    """Together the agents hold what the structure needs, and one agent has none of a colour its goal needs while
    its partner holds at least as many as that goal takes."""
    if not _partition_ok(goal_a, goal_b):
        return False
    total = Counter(colour_needs(goal_a)) + Counter(colour_needs(goal_b))
    if not _covers(Counter(inventory_a) + Counter(inventory_b), total):
        return False
    for goal, own, partner in ((goal_a, inventory_a, inventory_b), (goal_b, inventory_b, inventory_a)):
        for colour, count in colour_needs(goal).items():
            if own.get(colour, 0) == 0 and partner.get(colour, 0) >= count:
                return True
    return False


def is_goal_dependent(goal_a: Mapping[Coord, str], goal_b: Mapping[Coord, str],
                      inventory_a: Mapping[str, int], inventory_b: Mapping[str, int]) -> bool:
    """Skill-dependent, and one goal cannot be built alone (part of it reaches the ground only through the
    partner's blocks) while the two together can."""
    return (is_skill_dependent(goal_a, goal_b, inventory_a, inventory_b)
            and is_buildable([*goal_a, *goal_b])
            and not (is_buildable(goal_a) and is_buildable(goal_b)))


def task_type_of(goal_a: Mapping[Coord, str], goal_b: Mapping[Coord, str],
                 inventory_a: Mapping[str, int], inventory_b: Mapping[str, int]) -> str:
    """The type of a split, read from its data (for tasks made elsewhere): goal_dependent when a goal cannot be
    built alone (part of it reaches the ground only through the partner's blocks) while both together can; else
    skill_dependent when an agent holds fewer blocks of a colour than its own goal takes; else independent. It
    names the type whose promise (PROMISES) a generated split keeps."""
    if is_buildable([*goal_a, *goal_b]) and not (is_buildable(goal_a) and is_buildable(goal_b)):
        return "goal_dependent"
    if not (_covers(inventory_a, colour_needs(goal_a)) and _covers(inventory_b, colour_needs(goal_b))):
        return "skill_dependent"
    return "independent"


# ----- tasks -----
ORIGIN = (100, -60, -100)  # site corner (x, z) on the ground layer; construction sites are at (150, -60, -170)
AGENTS = 2
TIMEOUT = 600
STRUCTURE_ATTEMPTS = 50    # structure seeds tried for one group of tasks before giving up


def to_world(cell: Coord, origin: Coord = ORIGIN) -> Coord:
    """A site cell's absolute world position."""
    return cell[0] + origin[0], cell[1] + origin[1], cell[2] + origin[2]


def goal_blocks(goal: Mapping[Coord, str], origin: Coord = ORIGIN) -> list[list[Any]]:
    """[[x, y, z, block], ...] in world coordinates, bottom up (then by x and z)."""
    placed = sorted((to_world(cell, origin), block) for cell, block in goal.items())
    return [[x, y, z, block] for (x, y, z), block in sorted(placed, key=lambda p: (p[0][1], p[0][0], p[0][2]))]


def structure_blueprint(structure: Mapping[Coord, str], origin: Coord = ORIGIN) -> Blueprint:
    """The structure as a blueprint: one level per layer from the ground to its top, each over the whole site, with
    "air" where it has no block; materials are the blocks it takes."""
    top = max(y for _, y, _ in structure)
    ox, oy, oz = origin
    levels = [{"level": y, "coordinates": [ox, oy + y, oz],
               "placement": [[structure.get((x, y, z), "air") for x in range(SITE_SIZE)] for z in range(SITE_SIZE)]}
              for y in range(top + 1)]
    blueprint = Blueprint.parse({"materials": {}, "levels": levels}, [])
    assert blueprint is not None
    return blueprint.with_materials()


def goal_text(goal: Mapping[Coord, str], inventory: Mapping[str, int], origin: Coord = ORIGIN) -> str:
    """An agent's private goal: its own blocks (absolute, bottom up) and what it holds; nothing of its partner's."""
    blocks = ", ".join(f"{block} at ({x}, {y}, {z})" for x, y, z, block in goal_blocks(goal, origin))
    held = join_words([f"{n} {colour}" for colour, n in inventory.items()]) or "nothing"
    return (f"Build your part of a structure of coloured wool together with your partner. Place exactly these "
            f"{len(goal)} blocks, bottom up: {blocks}. Your partner builds the rest of the structure. "
            f"You hold {held}.")


def task_dict(structure: Mapping[Coord, str], goal_a: Mapping[Coord, str], goal_b: Mapping[Coord, str],
              inventory_a: Mapping[str, int], inventory_b: Mapping[str, int], task_type: str,
              origin: Coord = ORIGIN) -> dict[str, Any]:
    """One task's dictionary (the task file format of mindpy.tasks.schema)."""
    goals, inventories = (goal_a, goal_b), (inventory_a, inventory_b)
    return {
        "type": "coblock",
        "coblock_type": task_type,
        "agent_count": AGENTS,
        "goal": {str(i): goal_text(goals[i], inventories[i], origin) for i in range(AGENTS)},
        "blueprint": structure_blueprint(structure, origin).to_dict(),
        "private_goals": {str(i): goal_blocks(goals[i], origin) for i in range(AGENTS)},
        "initial_inventory": {str(i): dict(sorted(inventories[i].items())) for i in range(AGENTS)},
        "complexity": round(complexity(structure), 2),
        "timeout": TIMEOUT,
    }


PROMISES: dict[str, Callable[..., bool]] = {
    "independent": lambda *split: is_independent(*split) and not is_skill_dependent(*split),
    "skill_dependent": lambda *split: is_skill_dependent(*split) and not is_goal_dependent(*split),
    "goal_dependent": is_goal_dependent,
}


def _group(structure_seed: int, types: Iterable[str]) -> tuple[Structure, dict[str, dict[str, Any]]] | None:
    """The structure of a seed split into one task of each type, or None when a split breaks its type's promise."""
    structure = grow_structure(rng_for("coblock", "structure", structure_seed))
    tasks = {}
    for task_type in types:
        goal_a, goal_b, inv_a, inv_b = _split_for_seed(structure, structure_seed, task_type)
        if not PROMISES[task_type](goal_a, goal_b, inv_a, inv_b):
            return None
        tasks[task_type] = task_dict(structure, goal_a, goal_b, inv_a, inv_b, task_type)
    return structure, tasks


def generate(split: str, seed: int, count: int, *, exclude: Iterable[str] = (), agents: Any = None,
             version: str | None = None) -> dict[str, dict[str, Any]]:
    """`count` CoBlock tasks (task id -> task dict), the three types in turn; the same seed gives the same tasks.
    Each group of three splits one structure; no structure repeats, nor is one of `exclude` (blueprint
    fingerprints)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if agents not in (None, 2, "2", (2,), [2]):
        raise ValueError("coblock tasks are for 2 agents")
    if count < 0:
        raise ValueError("count must be >= 0")
    rng = rng_for("coblock", split, seed)
    seen = set(exclude)
    tasks: dict[str, dict[str, Any]] = {}
    for k in range(-(-count // len(TASK_TYPES))):
        types = TASK_TYPES[:min(len(TASK_TYPES), count - k * len(TASK_TYPES))]
        for _attempt in range(STRUCTURE_ATTEMPTS):
            try:
                made = _group(rng.getrandbits(48), TASK_TYPES)
            except ValueError:  # no structure in range within the search budget, or one that cannot be split
                continue
            if made is None:
                continue
            structure, group = made
            fingerprint = structure_blueprint(structure).fingerprint()
            if fingerprint not in seen:
                break
        else:
            raise ValueError(f"could not make a new coblock structure for group {k} of the {split} split")
        seen.add(fingerprint)
        for task_type in types:
            tasks[f"coblock_{task_type}_{k}"] = group[task_type]
    return tasks
