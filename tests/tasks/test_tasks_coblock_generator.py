"""CoBlock structure generator: gravity (buildability), spanning-tree complexity, the five primitives and their
rules, the depth-first structure search, and the three kinds of goal/inventory split."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from mindpy.tasks.families.coblock import generator as cb
from mindpy.tasks.generators.common import rng_for

SEEDS = range(50)
RED, BLUE = "red_wool", "blue_wool"


def grid(*rows_by_layer: tuple[str, ...]) -> set[tuple[int, int, int]]:
    """Cells from pictures: one tuple of rows (z) per layer (y, from 0 up), '#' at x = column."""
    return {(x, y, z) for y, rows in enumerate(rows_by_layer) for z, row in enumerate(rows)
            for x, ch in enumerate(row) if ch == "#"}


def upright(*rows_top_down: str) -> set[tuple[int, int, int]]:
    """Cells of a picture in the x-y plane (z = 0), top row first."""
    height = len(rows_top_down)
    return {(x, height - 1 - r, 0) for r, row in enumerate(rows_top_down) for x, ch in enumerate(row) if ch == "#"}


# ----- buildability -----
def test_a_floating_block_is_not_buildable():
    assert not cb.is_buildable({(0, 1, 0)})
    assert not cb.is_buildable({(0, 0, 0), (5, 2, 5)})
    assert not cb.is_buildable({(0, 0, 0), (1, 1, 0)})  # touching only along an edge is not touching


def test_blocks_touching_the_ground_blocks_are_buildable():
    assert cb.is_buildable({(0, 0, 0)})
    assert cb.is_buildable({(0, 0, 0), (0, 1, 0)})
    assert cb.is_buildable({(0, 0, 0), (0, 1, 0), (1, 1, 0), (2, 1, 0)})  # an overhang hangs on by its face
    assert cb.is_buildable(set())


def test_placement_order_puts_every_block_next_to_an_earlier_one():
    cells = upright("#####", "#...#", "#...#", "#...#", "#...#")
    order = cb.placement_order(reversed(sorted(cells)))
    assert order is not None and sorted(order) == sorted(cells)
    for i, cell in enumerate(order):
        assert cell[1] == 0 or any(n in order[:i] for n in cb.neighbours(cell))
    assert cb.placement_order(cells - {(0, 0, 0)}) is not None  # still held by the other pillar
    assert cb.placement_order(cells - {(0, 0, 0), (4, 0, 0)}) is None


def test_rests_on():
    assert cb.rests_on({(0, 1, 0)}, {(0, 0, 0)})
    assert not cb.rests_on({(1, 0, 0)}, {(0, 0, 0)})
    assert not cb.rests_on({(0, 0, 0)}, {(0, 1, 0)})


# ----- complexity -----
def test_complexity_of_small_graphs():
    path = {(0, 0, 0), (1, 0, 0), (2, 0, 0)}
    assert cb.spanning_trees(path) == 1 and cb.complexity(path) == 0
    square = grid(("##", "##"))
    assert cb.spanning_trees(square) == 4 and cb.complexity(square) == pytest.approx(math.log10(4))
    assert cb.spanning_trees(upright("##", "##")) == 4
    assert cb.spanning_trees(grid(("##", "##"), ("##", "##"))) == 384  # the cube graph Q3
    assert cb.spanning_trees(grid(("###", "#.#", "###"))) == 8  # a ring of 8: drop any one edge
    assert cb.spanning_trees(grid(("###", "###"))) == 15  # the 2x3 grid graph
    assert cb.complexity({(0, 0, 0)}) == 0


def test_complexity_ignores_hanging_leaves_and_multiplies_over_components():
    square = grid(("##", "##"))
    assert cb.spanning_trees(square | {(2, 0, 0), (3, 0, 0), (0, 1, 0)}) == 4
    far_square = {(x + 5, y, z) for x, y, z in square}
    assert cb.spanning_trees(square | far_square) == 16


def test_complexity_grows_with_cycles():
    ladder = [cb.spanning_trees(grid(*[("##",)] * n)) for n in range(2, 7)]
    assert ladder == sorted(ladder) and len(set(ladder)) == len(ladder)
    assert ladder[0] == 4


# ----- primitives and rules -----
@pytest.mark.parametrize("kind", sorted(cb.PRIMITIVES))
def test_each_primitive_satisfies_its_own_rule_only(kind):
    shapes = set()
    for seed in range(200):
        rng = rng_for("coblock-test", kind, seed)
        origin = (rng.randrange(3), rng.randrange(2), rng.randrange(3))
        shape = cb.PRIMITIVES[kind](rng, origin, BLUE)
        assert set(shape.values()) == {BLUE}
        assert min(y for _, y, _ in shape) == origin[1]
        assert [name for name, rule in cb.RULES.items() if rule(shape)] == [kind]
        shapes.add(frozenset(cb._normalised(shape)))
    assert len(shapes) > 3  # the rng does vary the shape


@pytest.mark.parametrize("kind", sorted(cb.PRIMITIVES))
def test_primitives_are_deterministic_and_stand_on_their_lowest_layer(kind):
    one = cb.PRIMITIVES[kind](rng_for("same", kind), (0, 0, 0), RED)
    two = cb.PRIMITIVES[kind](rng_for("same", kind), (0, 0, 0), RED)
    assert one == two
    assert cb.is_buildable(one)


def test_arch_rule():
    assert cb.arch_rule(upright("#####", "#...#", "#...#", "#...#", "#...#"))
    assert cb.arch_rule(upright("######", "######", "#....#", "#....#", "#....#", "#....#"))  # two-layer lintel
    swapped = {(z, y, x) for x, y, z in upright("#####", "#...#", "#...#", "#...#", "#...#")}
    assert cb.arch_rule({(x + 3, y + 1, z + 2) for x, y, z in swapped})  # along z, moved, raised
    assert not cb.arch_rule(upright("###", "#.#", "#.#", "#.#", "#.#"))  # pillars 2 apart
    assert not cb.arch_rule(upright("####", "#..#", "#..#", "#..#", "#..#"))  # pillars 3 apart
    assert not cb.arch_rule(upright("#####", "#...#", "#...#", "#...#"))  # pillars 3 high
    assert not cb.arch_rule(upright("#####", "#####", "#####", "#...#", "#...#", "#...#", "#...#"))  # lintel 3
    assert not cb.arch_rule(upright("#####", "#...#", "#...#", "#...#", "##..#"))  # a foot too wide
    assert not cb.arch_rule(upright("#####", "#....", "#....", "#....", "#...."))  # one pillar
    thick = upright("#####", "#...#", "#...#", "#...#", "#...#")
    assert not cb.arch_rule(thick | {(x, y, 1) for x, y, _ in thick})  # two blocks thick: pillars 2 wide
    assert not cb.arch_rule(set())


def test_bridge_rule():
    assert cb.bridge_rule(upright("#####", "#...#"))
    assert cb.bridge_rule(upright("###", "#.#", "#.#", "#.#"))
    deck = upright("#####", "#...#", "#...#")
    assert cb.bridge_rule(deck | {(x, y, 1) for x, y, _ in deck})  # two wide
    assert not cb.bridge_rule(upright("#####", "#...."))  # one pillar
    assert not cb.bridge_rule(upright("#####", "#...#", "#...#", "#...#", "#...#"))  # as tall as an arch
    assert not cb.bridge_rule(upright("#####", "#.#.#"))  # a third pillar
    assert not cb.bridge_rule(upright("##", "##"))  # no span
    assert not cb.bridge_rule(grid(("#####",)))  # no pillars: flat


def test_tower_rule():
    assert cb.tower_rule(upright("#", "#", "#"))
    assert cb.tower_rule(grid(("##", "##"), ("##", "##"), ("##", "##"), ("##", "##")))
    assert not cb.tower_rule(upright("#", "#"))  # too low
    assert not cb.tower_rule(grid(("##", "##"), ("##", "##"), ("##", "#.")))  # a block missing
    assert not cb.tower_rule(upright("##", "##", "##"))  # a 2x1 footprint is a wall
    assert not cb.tower_rule(grid(("###", "###", "###"), ("###", "###", "###"), ("###", "###", "###")))


def test_rectangle_rule():
    assert cb.rectangle_rule(grid(("###", "###")))
    assert cb.rectangle_rule(upright("##", "##", "##", "##"))
    assert not cb.rectangle_rule(grid(("###", "#.#", "###")))  # a hole
    assert not cb.rectangle_rule(grid(("####",)))  # a line
    assert not cb.rectangle_rule(grid(("##", "##"), ("##", "##")))  # a box


def test_symbol_rule():
    assert cb.symbol_rule(grid(("#..", "#..", "###")))
    assert cb.symbol_rule({(x + 4, 2, z + 1) for x, _, z in grid((".#.", "###", ".#."))})  # moved and raised
    assert not cb.symbol_rule(grid(("#.#", ".#.", "#.#")))  # X: touches only at edges
    assert not cb.symbol_rule(grid(("###", "###")))  # a filled rectangle
    assert not cb.symbol_rule(grid(("#.", "##")))  # 3 blocks
    assert not cb.symbol_rule(grid(("#...", "####")))  # wider than 3
    assert not cb.symbol_rule(upright("#..", "#..", "###"))  # upright, not flat


def test_every_glyph_is_a_symbol():
    for rows in cb.GLYPHS:
        assert cb.symbol_rule(grid(rows)), rows


# ----- growing structures -----
@pytest.fixture(scope="module")
def structures():
    return {seed: cb.grow_structure(rng_for("coblock-test", "grow", seed)) for seed in SEEDS}


def test_grow_structure_is_deterministic_per_seed(structures):
    for seed in (0, 7, 33):
        assert cb.grow_structure(rng_for("coblock-test", "grow", seed)) == structures[seed]
    assert len({frozenset(s.items()) for s in structures.values()}) > len(SEEDS) * 0.9


def test_grown_structures_keep_their_promises(structures):
    low, high = cb.DEFAULT_COMPLEXITY
    for seed, structure in structures.items():
        assert cb.is_buildable(structure), seed
        assert len(cb.components(structure)) == 1, seed
        assert low <= cb.complexity(structure) <= high, seed
        assert len(structure) <= cb.DEFAULT_MAX_BLOCKS, seed
        assert all(cb.in_site(cell) for cell in structure), seed
        assert set(structure.values()) <= set(cb.COLOURS), seed
        assert any(y > 0 for _, y, _ in structure), seed
        assert sum(y == 0 for _, y, _ in structure) >= 3, seed  # the three seed blocks stay on the ground


@pytest.mark.parametrize("complexity_range, max_blocks", [((0.5, 1.5), 25), ((3.0, 4.0), 40), ((5.0, 7.0), 60)])
def test_grow_structure_honours_its_bounds(complexity_range, max_blocks):
    low, high = complexity_range
    for seed in range(15):
        structure = cb.grow_structure(rng_for("bounds", seed), complexity_range, max_blocks)
        assert low <= cb.complexity(structure) <= high
        assert len(structure) <= max_blocks and cb.is_buildable(structure)


def test_grow_structure_combines_primitives(structures):
    # at least two primitives on three seed blocks: more blocks than any single small shape plus the seed
    assert min(len(s) for s in structures.values()) > cb.SEED_BLOCKS + 4
    assert len({c for s in structures.values() for c in s.values()}) == len(cb.COLOURS)


def test_grow_structure_rejects_bad_arguments_and_impossible_ranges():
    with pytest.raises(ValueError):
        cb.grow_structure(rng_for("bad"), (3.0, 2.0))
    with pytest.raises(ValueError):
        cb.grow_structure(rng_for("bad"), (1.0, 2.0), max_blocks=3)
    with pytest.raises(ValueError):  # 8 blocks cannot hold 10^9 spanning trees
        cb.grow_structure(rng_for("bad"), (9.0, 10.0), max_blocks=8, max_nodes=200)


# ----- splits -----
def _check_partition(structure, goal_a, goal_b, inv_a, inv_b):
    assert goal_a and goal_b
    assert not set(goal_a) & set(goal_b)
    assert {**goal_a, **goal_b} == structure
    takes = Counter(structure.values())
    assert set(inv_a) | set(inv_b) == set(takes)  # only the structure's colours, and every one of them
    for inventory in (inv_a, inv_b):  # colours are limited, counts are not: 20, or all the structure takes
        assert inventory == {colour: max(20, takes[colour]) for colour in inventory}


@pytest.mark.parametrize("task_type, independent, skill_dependent", [
    ("independent", True, False),
    ("skill_dependent", False, True),
])
def test_independent_and_skill_dependent_splits(structures, task_type, independent, skill_dependent):
    for seed, structure in structures.items():
        goal_a, goal_b, inv_a, inv_b = cb.split_goals(structure, task_type, rng_for("split", seed))
        _check_partition(structure, goal_a, goal_b, inv_a, inv_b)
        assert cb.is_independent(goal_a, goal_b, inv_a, inv_b) == independent, seed
        assert cb.is_skill_dependent(goal_a, goal_b, inv_a, inv_b) == skill_dependent, seed
        assert not cb.is_goal_dependent(goal_a, goal_b, inv_a, inv_b), seed
        assert cb.is_buildable(goal_a) and cb.is_buildable(goal_b), seed  # each goal stands on the ground alone


def test_goal_dependent_splits(structures):
    for seed, structure in structures.items():
        goal_a, goal_b, inv_a, inv_b = cb.split_goals(structure, "goal_dependent", rng_for("split", seed))
        _check_partition(structure, goal_a, goal_b, inv_a, inv_b)
        assert cb.is_goal_dependent(goal_a, goal_b, inv_a, inv_b), seed
        assert cb.is_skill_dependent(goal_a, goal_b, inv_a, inv_b), seed
        assert not cb.is_independent(goal_a, goal_b, inv_a, inv_b), seed
        # exactly one goal needs the other first, and it sits directly on it
        alone = [cb.is_buildable(goal_a), cb.is_buildable(goal_b)]
        assert sorted(alone) == [False, True], seed
        upper, base = (goal_a, goal_b) if alone == [False, True] else (goal_b, goal_a)
        assert cb.rests_on(upper, base), seed


def test_splits_vary_which_agent_lacks_what(structures):
    lacking = Counter()
    for seed, structure in structures.items():
        goal_a, goal_b, inv_a, inv_b = cb.split_goals(structure, "skill_dependent", rng_for("split", seed))
        lacking["a"] += any(inv_a.get(c, 0) == 0 for c in cb.colour_needs(goal_a))
        lacking["b"] += any(inv_b.get(c, 0) == 0 for c in cb.colour_needs(goal_b))
    assert lacking["a"] > 5 and lacking["b"] > 5


def test_splits_are_deterministic(structures):
    structure = structures[4]
    for task_type in cb.TASK_TYPES:
        assert (cb.split_goals(structure, task_type, rng_for("det", task_type))
                == cb.split_goals(structure, task_type, rng_for("det", task_type)))


def test_split_for_seed_shares_the_structure_across_task_types():
    made = {t: cb.split_for_seed(11, t) for t in cb.TASK_TYPES}
    assert len({frozenset(parts[0].items()) for parts in made.values()}) == 1
    assert made["independent"] == cb.split_for_seed(11, "independent")


def test_split_goals_rejects_what_it_cannot_split():
    with pytest.raises(ValueError):
        cb.split_goals({(0, 0, 0): RED, (1, 0, 0): BLUE}, "cooperative", rng_for("x"))
    with pytest.raises(ValueError):  # flat: nothing can rest on the partner's goal
        cb.split_goals({(0, 0, 0): RED, (1, 0, 0): BLUE}, "goal_dependent", rng_for("x"))
    with pytest.raises(ValueError):  # a floating block
        cb.split_goals({(0, 0, 0): RED, (1, 0, 0): BLUE, (5, 3, 5): RED}, "independent", rng_for("x"))


# ----- the predicates themselves, on hand-made splits -----
PILLAR = {(0, 0, 0): RED, (0, 1, 0): RED}
TOP = {(0, 2, 0): BLUE, (1, 2, 0): BLUE}
BESIDE = {(3, 0, 0): BLUE}


def test_predicates_on_hand_made_splits():
    # each holds its own colours, each stands alone
    assert cb.is_independent(PILLAR, BESIDE, {RED: 2}, {BLUE: 1})
    assert not cb.is_independent(PILLAR, BESIDE, {RED: 1}, {BLUE: 1})  # one red short
    assert not cb.is_skill_dependent(PILLAR, BESIDE, {RED: 2}, {BLUE: 1})
    # the pillar's builder holds no red; the partner holds both
    assert cb.is_skill_dependent(PILLAR, BESIDE, {BLUE: 1}, {RED: 2})
    assert not cb.is_skill_dependent(PILLAR, BESIDE, {BLUE: 1}, {RED: 1})  # the partner holds too few
    assert not cb.is_goal_dependent(PILLAR, BESIDE, {BLUE: 1}, {RED: 2})
    # the top rests on the pillar: goal-dependent once skills are shared out too
    assert cb.is_goal_dependent(PILLAR, TOP, {BLUE: 2}, {RED: 2})
    assert not cb.is_goal_dependent(PILLAR, TOP, {RED: 2}, {BLUE: 2})  # no skill dependence
    assert not cb.is_independent(PILLAR, TOP, {RED: 2}, {BLUE: 2})  # the top cannot be built first
    # overlapping or empty goals are no split at all
    assert not cb.is_independent(PILLAR, PILLAR, {RED: 2}, {RED: 2})
    assert not cb.is_skill_dependent({}, PILLAR, {}, {RED: 2})
