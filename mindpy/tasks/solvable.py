"""Can a task be solved at all? A check made before playing, from what the team holds, what the task family's world
gives and the recipes.

    reason = unsolvable_reason(task)   # None when solvable, else one line such as "needs 1 more milk_bucket"

What counts:
- the items of every inventory of the task (agents' and human players'), pooled: players can hand items over;
- the family's world as `plan_setup` (world.py) builds it, read from its commands so that it follows world.py:
  blocks that surely drop something when dug by hand (logs, ripe crops at their smallest harvest, sugar cane,
  mushrooms, pumpkins, the kitchen's plank walls, its crafting table and bed), the ground's dirt (the superflat
  world has no end of it), the animals' sure drops (meat, leather, feathers, a sheep's wool), milk for each bucket,
  wool with shears, one egg per chicken for each full 10 minutes of the timeout (chickens lay every 5-10 minutes),
  and the stations it places (crafting table, furnace, smoker) with their fuel;
- crafting with minecraft-data's recipes (mindpy.recipes), which give buckets and bottles back empty. An
  ingredient of a tag may be any member, mixed as in the game (planks of any wood, logs, wool, coal or
  charcoal...), also where minecraft-data lists a tag by one member: dyeing takes wool, carpet or a bed of any
  other colour (mindpy.recipes.dye_slots); planks take the stripped and wood variants of their log.
  Crafts wider than 2x2 need a crafting table, placed in the world, held or made;
- smelting with the embedded server's table (mindpy/server/js/data/smelting.json) in a furnace (a smoker for
  food, a blast furnace for ores too) placed in the world, held or made, burning the world's furnace fuel or
  items that burn;
- blocked actions, when every agent has them and no human plays: !craftRecipe (no crafting), !smeltItem (no
  smelting), !collectBlocks (no blocks dug), !attack (no animals killed).

CoBlock tasks (type coblock) are judged apart: no world and no crafting, only the blocks the team holds against
the structure's blocks, colour by colour (`coblock_reason`).

Not counted: luck (saplings, sticks and apples from leaves, drops beyond the sure count), blocks that drop only
when dug with a tool (the kitchen's furnace and smoker), crops regrowing, water, trading, and time: a task
judged solvable may still not fit in its timeout.

The search is greedy: it makes the wanted items one unit at a time, trying each way to make a unit (backtracking
only within that unit), twice: first with the ways whose ingredients are at hand, then with minecraft-data's
order reversed (which puts sticks from planks before sticks from bamboo). So an unusual task could be judged
short when a cleverer split of shared ingredients would do; the generated splits and MINDcraft's files show
none. `STEP_BUDGET` bounds the search; a task whose search runs out of steps is taken as solvable. The reason
names what is missing at the first level down the recipe tree that the team cannot even start on (a dish the
world lacks everything for is broken down by its recipe), without breaking up unpacking (ingot <- nuggets).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from .. import DEFAULT_MINECRAFT_VERSION
from ..mcdata import MinecraftData, minecraft_data, smelting_table
from ..recipes import Recipe, dye_slots, parse_recipes, recipe_book
from .blueprint import Blueprint, block_base_name
from .family import family_of
from .generators.common import join_words
from .schema import Task, counted
from .world import plan_setup

UNLIMITED = 10**9          # the ground's dirt: more than any task can use
FUEL = "#fuel_ticks"       # pseudo-item: burn time available in a furnace, in game ticks
SMELT_TICKS = 200          # burn time per item smelted (a smoker burns twice as fast but cooks twice as fast)
EGG_EVERY_S = 600          # each chicken surely lays an egg per 10 minutes (the server: one every 5-10 minutes)
STEP_BUDGET = 200_000      # units a search may try to make before it gives up (then: taken as solvable)
ORIGIN = (0, -60, 0)       # where agent 0 stands for planning; the world's contents do not depend on it

# Ripe and young crops by hand, as the server's plugins/41_block_loot.js gives them (the smallest counts).
CROP_DROPS: dict[str, tuple[int, dict[str, int], dict[str, int]]] = {  # block: (ripe age, ripe drops, young drops)
    "wheat": (7, {"wheat": 1, "wheat_seeds": 1}, {"wheat_seeds": 1}),
    "beetroots": (3, {"beetroot": 1, "beetroot_seeds": 1}, {"beetroot_seeds": 1}),
    "carrots": (7, {"carrot": 2}, {"carrot": 1}),
    "potatoes": (7, {"potato": 2}, {"potato": 1}),
}
# Animal loot minecraft-data's tables leave out, as the server's plugins/40_animals.js adds it.
EXTRA_ANIMAL_LOOT = {"sheep": {"white_wool": 1}}
# Which stations smelt which kind of input (the smelting table's "kind").
SMELTERS = {"food": frozenset({"furnace", "smoker"}), "ore": frozenset({"furnace", "blast_furnace"}),
            "other": frozenset({"furnace"})}
# Blocked commands that take a whole kind of way away.
CRAFT, SMELT, DIG, KILL = "!craftRecipe", "!smeltItem", "!collectBlocks", "!attack"

_WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry", "pale_oak", "bamboo",
          "crimson", "warped")
_LOG = re.compile(rf"^(stripped_)?({'|'.join(_WOODS)})_(log|wood|stem|hyphae)$")
_FAMILIES = {"coal": "coals", "charcoal": "coals", "cobblestone": "stone", "blackstone": "stone",
             "cobbled_deepslate": "stone", "soul_sand": "soul_fire_base", "soul_soil": "soul_fire_base"}


@dataclass(frozen=True)
class _Way:
    """One way to get `count` x `item`: consume each slot's count from any of its members (mixed), with one of
    each tool set at hand (not consumed); a craft gives its `returns` back (a cake's empty buckets)."""

    item: str
    count: int
    slots: tuple[tuple[frozenset[str], int], ...]
    tools: tuple[frozenset[str], ...] = ()
    kind: str = "craft"      # craft, smelt, burn, milk, shear
    forward: bool = True     # False for unpacking and nugget recipes (mindpy.recipes' "reverse" ones)
    returns: tuple[tuple[str, int], ...] = ()  # containers given back per use (mindpy.recipes' Recipe.returns)

    def members(self) -> set[str]:
        return {m for members, _ in self.slots for m in members}

    def ingredients(self) -> set[str]:
        """The members that go into the item (fuel only burns)."""
        return self.members() - {FUEL}


@dataclass(frozen=True)
class _World:
    """What a task's world gives: items (surely, by hand), stations in place and animals."""

    supplies: Counter[str]
    stations: frozenset[str]
    animals: Counter[str]


# ----- recipes as ways -----
def _family(item: str) -> str | None:
    """The tag an ingredient belongs to, for merging minecraft-data's one-recipe-per-variant lists."""
    for suffix in ("planks", "wool", "carpet", "bed"):
        if item.endswith("_" + suffix):
            return suffix
    if item.endswith("_slab") and item[: -len("_slab")] in _WOODS:
        return "wooden_slab"
    if _LOG.match(item):
        return "log"
    return _FAMILIES.get(item)


def _recipe_key(recipe: Recipe) -> tuple | None:
    """Recipes of one result with the same key differ only by tag members; None when one can't be merged."""
    families = [(_family(name) or name, n) for name, n in recipe.ingredients]
    if len({f for f, _ in families}) < len(families):
        return None
    return recipe.count, recipe.needs_table, tuple(sorted(families))


def _merge(item: str, recipes: list[Recipe], forward: set[Recipe]) -> list[_Way]:
    """One way per group of variant recipes, each ingredient slot accepting every variant seen."""
    groups: dict[object, list[Recipe]] = {}
    for index, recipe in enumerate(recipes):
        groups.setdefault(_recipe_key(recipe) or ("alone", index), []).append(recipe)
    ways = []
    for group in groups.values():
        slots: dict[str, tuple[set[str], int]] = {}
        for recipe in group:
            for name, n in recipe.ingredients:
                slots.setdefault(_family(name) or name, (set(), n))[0].add(name)
        first = group[0]
        unpacking = first.units == 1 and first.count == 9  # a block back into 9 ingots, wheat...
        ways.append(_Way(item, first.count, tuple((frozenset(m), n) for m, n in slots.values()),
                         (frozenset({"crafting_table"}),) if first.needs_table else (),
                         forward=not unpacking and any(r in forward for r in group),
                         returns=tuple(first.returns())))
    return ways


def _widen(way: _Way, items: Mapping[str, object], version: str) -> _Way:
    """Tags minecraft-data lists by one member: dyeing (any other colour, mindpy.recipes.dye_slots) and
    planks (every form of the log)."""
    dyeing = dye_slots(way.item, version)
    slots = []
    forward = way.forward
    for members, n in way.slots:
        (only,) = members if len(members) == 1 else (None,)
        if only is not None and only in dyeing:
            members = dyeing[only]
            forward = True  # mindpy.recipes counts the ring of recolourings as "reverse"; dyeing explains well
        elif way.item.endswith("_planks") and only is not None and len(way.slots) == 1:
            members = frozenset(m for m in _log_forms(only) if m in items)
        slots.append((members, n))
    return replace(way, slots=tuple(slots), forward=forward)


def _log_forms(log: str) -> set[str]:
    """oak_log -> oak_log, oak_wood, stripped_oak_log, stripped_oak_wood (bamboo_block: its stripped form)."""
    forms = {log, "stripped_" + log}
    for a, b in (("_log", "_wood"), ("_stem", "_hyphae")):
        if log.endswith(a):
            wood = log[: -len(a)] + b
            forms |= {wood, "stripped_" + wood}
    return forms


@cache
def _crafting_ways(version: str) -> dict[str, list[_Way]]:
    data = minecraft_data(version)
    book = recipe_book(version)
    out: dict[str, list[_Way]] = {}
    for item, recipes in parse_recipes(data).items():
        forward = set(book.forward_recipes(item))
        out[item] = [_widen(way, data.items_by_name, version) for way in _merge(item, recipes, forward)]
    return out


@cache
def _smelting_ways() -> dict[str, list[_Way]]:
    out: dict[str, list[_Way]] = {}
    for raw, entry in sorted(smelting_table()["recipes"].items()):
        stations = SMELTERS.get(entry.get("kind", "other"), SMELTERS["other"])
        slots = ((frozenset({raw}), 1), (frozenset({FUEL}), SMELT_TICKS))
        out.setdefault(entry["output"], []).append(_Way(entry["output"], 1, slots, (stations,), "smelt"))
    return out


@cache
def _burning_ways() -> list[_Way]:
    """Fuel put in a furnace, longest-burning first (coal before the planks a recipe may need)."""
    fuels = sorted(smelting_table()["fuels"].items(), key=lambda kv: (-kv[1], kv[0]))
    return [_Way(FUEL, int(ticks), ((frozenset({name}), 1),), kind="burn") for name, ticks in fuels]


def _animal_ways(cows: bool, sheep: bool) -> list[_Way]:
    ways = []
    if cows:  # a bucket used on a cow fills with milk, as often as you like
        ways.append(_Way("milk_bucket", 1, ((frozenset({"bucket"}), 1),), kind="milk"))
    if sheep:  # shears give wool without killing; it grows back
        ways.append(_Way("white_wool", 1, (), (frozenset({"shears"}),), kind="shear"))
    return ways


@cache
def _ways(version: str, craft: bool, smelt: bool, cows: bool, sheep: bool) -> dict[str, list[_Way]]:
    """Item -> every way of making it, with crafting, smelting, cows and sheep or without (read-only: cached, as
    tasks share a few combinations). Animals' ways come first."""
    tables: list[Mapping[str, list[_Way]]] = [{way.item: [way] for way in _animal_ways(cows, sheep)}]
    if craft:
        tables.append(_crafting_ways(version))
    if smelt:
        tables += [_smelting_ways(), {FUEL: _burning_ways()}]
    ways: dict[str, list[_Way]] = {}
    for table in tables:
        for item, found in table.items():
            ways.setdefault(item, []).extend(found)
    return ways


# ----- the world -----
@lru_cache(maxsize=32)  # the cooking world and the forests are the same for many tasks
def _placed_blocks(commands: tuple[str, ...]) -> Counter[str]:
    """Block state -> how many cells hold it after the set-up's /fill and /setblock commands (read-only)."""
    cells: dict[tuple[int, int, int], str] = {}
    for line in commands:
        words = line.split()
        if words[0] == "fill" and len(words) >= 8:
            a, b = [int(w) for w in words[1:4]], [int(w) for w in words[4:7]]
            low, high = [min(p, q) for p, q in zip(a, b, strict=True)], [max(p, q) for p, q in zip(a, b, strict=True)]
            for x in range(low[0], high[0] + 1):
                for y in range(low[1], high[1] + 1):
                    for z in range(low[2], high[2] + 1):
                        cells[(x, y, z)] = words[7]
        elif words[0] == "setblock" and len(words) >= 5:
            cells[(int(words[1]), int(words[2]), int(words[3]))] = words[4]
    return Counter(cells.values())


def _state_value(state: str, key: str) -> str | None:
    match = re.search(rf"[\[,]{key}=([^,\]]+)", state)
    return match.group(1) if match else None


def _sure_block_drops(state: str, data: MinecraftData) -> dict[str, int]:
    """What digging this block by hand surely gives (nothing for blocks that need a tool, or drop by chance)."""
    name = block_base_name(state)
    if name == "air" or name.endswith("_leaves"):  # leaves: saplings, sticks and apples by chance only
        return {}
    if name in CROP_DROPS:
        ripe_age, ripe, young = CROP_DROPS[name]
        return ripe if int(_state_value(state, "age") or 0) >= ripe_age else young
    if name.endswith("_bed") and _state_value(state, "part") == "head":  # a bed drops once, from its foot
        return {}
    block = data.blocks_by_name.get(name)
    if block is None or block.get("harvestTools"):
        return {}
    drops: Counter[str] = Counter()
    entries = (data.block_loot.get(name) or {}).get("drops", [])
    for entry in entries:
        if entry.get("silkTouch") or "blockAge" in entry:
            continue
        chance = 1 if entry.get("noSilkTouch") else entry.get("dropChance", 1)
        if chance >= 1:
            drops[entry["item"]] += max(1, (entry.get("stackSizeRange") or [1])[0] or 1)
    return dict(drops)


def _sure_animal_drops(kind: str, data: MinecraftData) -> dict[str, int]:
    drops: Counter[str] = Counter(EXTRA_ANIMAL_LOOT.get(kind, {}))
    for entry in (data.entity_loot.get(kind) or {}).get("drops", []):
        if entry.get("dropChance", 1) >= 1:
            drops[entry["item"]] += max(1, (entry.get("stackSizeRange") or [1])[0] or 1)
    return dict(drops)


def _fuel_in_stations(commands: Iterable[str]) -> int:
    """Burn ticks of the fuel `/data merge block` puts in the world's furnaces."""
    fuels = smelting_table()["fuels"]
    ticks = 0
    for line in commands:
        if line.startswith("data merge block"):
            for name, count in re.findall(r'id:"minecraft:(\w+)",count:(\d+)', line):
                ticks += fuels.get(name, 0) * int(count)
    return ticks


def _world(task: Task, data: MinecraftData, can_dig: bool, can_kill: bool) -> _World:
    setup = plan_setup(task, [f"agent{i}" for i in range(task.agent_count)], ORIGIN)
    supplies: Counter[str] = Counter()
    if can_dig:
        placed = _placed_blocks(tuple(c for c in setup.commands if c.startswith(("fill ", "setblock "))))
        for state, cells in placed.items():
            for item, n in _sure_block_drops(state, data).items():
                supplies[item] += n * cells
        supplies["dirt"] = UNLIMITED  # the superflat ground around every site
    animals = Counter(kind for kind, _ in setup.animals)
    if can_kill:
        for kind, n in animals.items():
            for item, k in _sure_animal_drops(kind, data).items():
                supplies[item] += n * k
    supplies["egg"] += animals["chicken"] * int(task.timeout // EGG_EVERY_S)
    supplies[FUEL] += _fuel_in_stations(setup.commands)
    return _World(+supplies, frozenset(setup.stations), animals)


# ----- the search -----
class _OutOfSteps(Exception):
    """The search tried more ways than STEP_BUDGET."""


class _Solver:
    """Makes items from a pool (held items and what the world gives), greedily, one at a time."""

    def __init__(self, ways: Mapping[str, list[_Way]], pool: Counter[str], stations: frozenset[str],
                 open_ways: Mapping[str, list[_Way]] | None = None, use_held_first: bool = True,
                 wanted: Iterable[str] = ()):
        self.ways = ways                        # the ways that can work at all (see _reachable)
        self.open_ways = open_ways or ways      # every way the task leaves open, to explain a shortfall
        self.use_held_first = use_held_first    # else the last-listed ways first (see _ordered)
        self.wanted = frozenset(wanted)         # the task's targets: explanations do not break other targets up
        self.pool = pool.copy()
        self.stations = stations
        self.steps = 0
        self.made: Counter[str] = Counter()
        self.deficit: Counter[str] = Counter()
        self.tags: dict[str, frozenset[str]] = {}   # item charged with a deficit in a tag slot -> the tag

    # -- making for real --
    def ensure(self, item: str, n: int, stack: frozenset[str] = frozenset()) -> bool:
        """Make items until the pool holds n x item; False (the pool as far as it got) when it cannot."""
        while self.pool[item] < n:
            before = self.pool[item]
            if not self._one_more(item, stack) or self.pool[item] <= before:
                return False
        return True

    def _one_more(self, item: str, stack: frozenset[str]) -> bool:
        """One use of some way of making `item`; the pool is unchanged when none works."""
        if item in stack:
            return False
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise _OutOfSteps
        for way in self._ordered(item):
            saved = self.pool.copy(), self.made.copy()
            if self._use(way, stack | {item}):
                return True
            self.pool, self.made = saved
        return False

    def _ordered(self, item: str) -> list[_Way]:
        """Ways whose ingredients are at hand first, forward recipes before unpacking ones; or, the second try
        (for when that uses up what another part needs), the ways in reverse order: minecraft-data lists the odd
        ones first (sticks from bamboo before sticks from planks)."""
        def ready(way: _Way) -> bool:
            return all(sum(self.pool[m] for m in members) >= n for members, n in way.slots)
        ways = list(self.ways.get(item, ()))
        if self.use_held_first:
            return sorted(ways, key=lambda w: (not ready(w), not w.forward))
        return ways[::-1]

    def _use(self, way: _Way, stack: frozenset[str]) -> bool:
        if not all(self._tool(tools, stack) for tools in way.tools):
            return False
        if not all(self._take(members, n, stack) for members, n in way.slots):
            return False
        self.pool[way.item] += way.count
        self.made[way.item] += way.count
        for container, k in way.returns:
            self.pool[container] += k
        return True

    def _tool(self, tools: frozenset[str], stack: frozenset[str]) -> bool:
        """A station in the world, or one held or made (it stays in the pool: tools are not used up)."""
        if tools & self.stations or any(self.pool[t] > 0 for t in tools):
            return True
        return any(self._one_more(t, stack) for t in sorted(tools))

    def _take(self, members: frozenset[str], n: int, stack: frozenset[str]) -> bool:
        """Consume n of any members, held ones first, making more of whichever can be made. Never what is being
        made further up (`stack`): that would go round a cycle (ingots -> nuggets -> ingots) and gain nothing."""
        members = members - stack
        need = n
        for member in sorted(members, key=lambda m: -self.pool[m]):
            got = min(self.pool[member], need)
            self.pool[member] -= got
            need -= got
        while need > 0:
            made = next((m for m in sorted(members, key=_plainest_first) if self._one_more(m, stack)), None)
            if made is None:
                return False
            got = min(self.pool[made], need)
            self.pool[made] -= got
            need -= got
        return True

    # -- explaining a shortfall --
    def explain(self, item: str, n: int, reachable: set[str], stack: frozenset[str] = frozenset(),
                top: bool = False) -> None:
        """Like `ensure`, but what cannot be had is charged to `deficit`, at the first item down the recipe tree
        whose making the team cannot even start, or that only unpacking or nuggets would make. A wanted item
        (`top`) that nothing within reach makes is broken down by its recipe if it has just one."""
        if self.ensure(item, n, stack):
            return
        short = n - self.pool[item]
        way = self._way_to_explain(item, short, reachable, stack, top)
        if way is None:
            self.deficit[item] += short
            self.pool[item] += short
            return
        self._explain_way(way, math.ceil(short / way.count), reachable, stack | {item})

    def _way_to_explain(self, item: str, short: int, reachable: set[str], stack: frozenset[str],
                        top: bool) -> _Way | None:
        """The forward way, among those with an ingredient within reach that is not itself a target (a green
        carpet is not explained as a dyed one of the blueprint's grey carpets), that leaves the least missing."""
        if item in stack:
            return None
        ways = [w for w in self.open_ways.get(item, ()) if w.forward and w.kind != "burn"]
        candidates = [w for w in ways if (w.ingredients() - self.wanted) & reachable]
        crafts = [w for w in ways if w.kind == "craft"]
        if not candidates and top and item not in reachable and len(crafts) == 1:
            candidates = crafts
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        best, best_cost = None, math.inf
        for way in candidates:
            saved = (self.pool.copy(), self.deficit.copy(), dict(self.tags), self.made.copy())
            self._explain_way(way, math.ceil(short / way.count), reachable, stack | {item})
            cost = sum(self.deficit.values()) - sum(saved[1].values())
            self.pool, self.deficit, self.tags, self.made = saved
            if cost < best_cost:
                best, best_cost = way, cost
        return best

    def _explain_way(self, way: _Way, crafts: int, reachable: set[str], stack: frozenset[str]) -> None:
        if way.returns and crafts > 1:  # one at a time: each craft gives its buckets back for the next
            for _ in range(crafts):
                self._explain_way(way, 1, reachable, stack)
            return
        for tools in way.tools:
            if not self._tool(tools, stack):
                self.explain("furnace" if "furnace" in tools else min(tools), 1, reachable, stack)
        for slot, n in way.slots:
            members = slot - stack or slot
            need = n * crafts
            for member in sorted(members, key=lambda m: -self.pool[m]):
                got = min(self.pool[member], need)
                self.pool[member] -= got
                need -= got
            if need:
                member = self._preferred(members, reachable)
                if len(members) > 1:
                    self.tags[member] = members
                self.explain(member, need, reachable, stack)
                self.pool[member] -= need
        self.pool[way.item] += way.count * crafts
        for container, k in way.returns:
            self.pool[container] += k * crafts

    @staticmethod
    def _preferred(members: frozenset[str], reachable: set[str]) -> str:
        """The member to ask for: one within reach, else the plainest (oak first)."""
        return min(members, key=lambda m: (m not in reachable, _plainest_first(m)))


def _plainest_first(item: str) -> tuple[bool, str]:
    """Sort key among a tag's members: oak, white, cobblestone and coal first (what tasks usually hold)."""
    return not item.startswith(("oak_", "white_", "cobblestone", "coal")), item


def _reachable(ways: Mapping[str, list[_Way]], pool: Counter[str], stations: frozenset[str],
               relevant: set[str]) -> set[str]:
    """Items of which at least one can be had (counts ignored), among the relevant ones. Each way waits for its
    requirements (a slot's or a tool's item sets) and an item had meets those that name it, so every way is
    looked at once however long the chains (a pass over all until nothing changes cost 95% of validating)."""
    have = {item for item, n in pool.items() if n > 0} | set(stations)
    unmet: dict[tuple[str, int], int] = {}                       # (item, way) -> requirements not met yet
    meets: dict[str, list[tuple[str, int, int]]] = {}            # an item -> the (item, way, requirement) it meets
    ready = []
    for item in relevant - have:
        for n, way in enumerate(ways.get(item, ())):
            waiting = [req for req in _requirements(way) if req.isdisjoint(have)]
            if not waiting:
                ready.append(item)
                break
            unmet[(item, n)] = len(waiting)
            for r, req in enumerate(waiting):
                for member in req:
                    meets.setdefault(member, []).append((item, n, r))
    met: set[tuple[str, int, int]] = set()
    while ready:
        item = ready.pop()
        if item in have:
            continue
        have.add(item)
        for target, n, r in meets.get(item, ()):
            if target in have or (target, n, r) in met:
                continue
            met.add((target, n, r))
            unmet[(target, n)] -= 1
            if not unmet[(target, n)]:
                ready.append(target)
    return have


def _requirements(way: _Way) -> list[frozenset[str]]:
    """The item sets of which a way needs one each: its slots' members and its tools."""
    return [members for members, _ in way.slots] + list(way.tools)


def _possible(way: _Way, have: set[str]) -> bool:
    return (all(not members.isdisjoint(have) for members, _ in way.slots)
            and all(not tools.isdisjoint(have) for tools in way.tools))


@cache
def _sources(version: str, item: str) -> frozenset[str]:
    """Every item that can end up in making `item` (ingredients, tools, fuel), at any depth, itself included,
    whatever the task."""
    ways = _ways(version, craft=True, smelt=True, cows=True, sheep=True)
    seen: set[str] = set()
    todo = [item]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for way in ways.get(current, ()):
            todo.extend(way.members())
            todo.extend(t for tools in way.tools for t in tools)
    return frozenset(seen)


# ----- the task -----
@dataclass(frozen=True)
class _Setting:
    """One task's side of the search: what the team holds, its world, what it wants, the ways open to it."""

    task: Task
    version: str
    held: Counter[str]
    world: _World
    wanted: dict[str, int]
    open_ways: dict[str, list[_Way]]

    @property
    def pool(self) -> Counter[str]:
        return self.held + self.world.supplies


def _blocked_for_all(task: Task, command: str) -> bool:
    """Every agent has the command blocked and no human player could do it instead."""
    if task.human_count:
        return False
    return all(command in task.blocked_actions_for(i) for i in task.agent_indices)


def _team_items(task: Task) -> Counter[str]:
    held: Counter[str] = Counter()
    for i in range(task.agent_count + task.human_count):
        held.update({item: n for item, n in task.inventory_for(i).items() if n > 0})
    return held


def _block_item(block: str, data: MinecraftData) -> str | None:
    """The item that places a blueprint's block (wall_torch -> torch), or None when no item does."""
    if block in data.items_by_name:
        return block
    for entry in (data.block_loot.get(block) or {}).get("drops", []):
        return str(entry["item"])
    return {"water": "water_bucket", "lava": "lava_bucket"}.get(block)


def blueprint_items(task: Task, version: str) -> tuple[dict[str, int], list[str]]:
    """The items a builder's blueprint needs placed, and its blocks that no item places."""
    data = minecraft_data(version)
    wanted: Counter[str] = Counter()
    unplaceable = []
    for block, n in (task.blueprint.required_items() if task.blueprint else {}).items():
        item = _block_item(block, data)
        if item is None:
            unplaceable.append(block)
        else:
            wanted[item] += n
    return dict(wanted), unplaceable


def _open_ways(task: Task, world: _World, version: str) -> dict[str, list[_Way]]:
    """Every way of making things that the task's world and blocked actions leave open."""
    return _ways(*_ways_key(task, world, version))


def _ways_key(task: Task, world: _World, version: str) -> tuple[str, bool, bool, bool, bool]:
    """`_ways`'s arguments for the task: its version, crafting, smelting, cows, sheep."""
    return (version, not _blocked_for_all(task, CRAFT), not _blocked_for_all(task, SMELT), world.animals["cow"] > 0,
            world.animals["sheep"] > 0)


@lru_cache(maxsize=4096)  # many tasks of a file start from the same items and want the same things: one search each
def _possible_ways(ways_key: tuple[str, bool, bool, bool, bool], start: frozenset[str],
                   relevant: frozenset[str]) -> dict[str, list[_Way]]:
    """The ways to make each relevant item that can work at all from the `start` items (read-only: cached). Only
    relevant items matter: every item a relevant item's ways use is relevant too (`_sources`)."""
    ways = _ways(*ways_key)
    reachable = _reachable(ways, Counter(start), frozenset(), set(relevant))
    return {item: [w for w in ways.get(item, ()) if _possible(w, reachable)] for item in relevant}


def _setting(task: Task, version: str, wanted: dict[str, int]) -> _Setting:
    data = minecraft_data(version)
    world = _world(task, data, not _blocked_for_all(task, DIG), not _blocked_for_all(task, KILL))
    return _Setting(task, version, _team_items(task), world, wanted, _open_ways(task, world, version))


def _clash_reason(blueprint: Blueprint) -> str | None:
    """Why a blueprint whose levels want different blocks in one place can never be complete; None otherwise."""
    clash = blueprint.conflicts()
    if not clash:
        return None
    a, b = clash[0]
    positions = len({(cell.x, cell.y, cell.z) for _, cell in clash})
    return (f"the blueprint's levels want different blocks at {counted(positions, 'position')} (at {a.x}, {a.y}, "
            f"{a.z} level {a.level} wants {block_base_name(a.block)}, level {b.level} {block_base_name(b.block)}): "
            f"it can never be complete")


def blueprint_clash(task: Task) -> str | None:
    """Why a builder's blueprint can never be complete (levels that want different blocks in one place)."""
    return _clash_reason(task.blueprint) if task.blueprint else None


def _problem_before_search(version: str, wanted: dict[str, int], unplaceable: list[str]) -> str | None:
    """A reason found before any search (unknown items, unplaceable blocks)."""
    data = minecraft_data(version)
    if unplaceable:
        return f"the blueprint has blocks that no item places: {', '.join(sorted(unplaceable))}"
    unknown = sorted(item for item in wanted if item not in data.items_by_name)
    if unknown:
        verb = "is not an item" if len(unknown) == 1 else "are not items"
        return f"{', '.join(unknown)} {verb} in Minecraft {version}"
    return None


def unsolvable_reason(task: Task, version: str | None = None) -> str | None:
    """None when the task can be solved from the team's items, the family's world and the recipes; otherwise one
    line saying what is missing, such as "needs 1 more milk_bucket" or "needs 3 more gold_ingot (the team holds 5
    gold_nugget, which cannot make gold_ingot here)". The module doc says what counts."""
    return family_of(task).unsolvable_reason(task, version or DEFAULT_MINECRAFT_VERSION)


def items_unsolvable_reason(task: Task, version: str, wanted_items: tuple[dict[str, int], list[str]]) -> str | None:
    """`unsolvable_reason` for a family whose task wants items at the end (made, or placed by a builder):
    `wanted_items` are those items and the blocks no item places."""
    wanted, unplaceable = wanted_items
    problem = _problem_before_search(version, wanted, unplaceable)
    if problem or not wanted:
        return problem
    setting = _setting(task, version, wanted)
    relevant = set().union(*(_sources(version, item) for item in wanted))
    start = frozenset(item for item, n in setting.pool.items() if n > 0 and item in relevant)
    possible = _possible_ways(_ways_key(task, setting.world, version), start | (setting.world.stations & relevant),
                              frozenset(relevant))
    try:
        if any(_makes_all(_Solver(possible, setting.pool, setting.world.stations, use_held_first=first), wanted)
               for first in (True, False)):
            return None
        return _shortfall(setting, possible, relevant)
    except _OutOfSteps:
        return None  # nothing shown to be missing


def coblock_reason(task: Task) -> str | None:
    """A coblock task is solvable when the team's inventories together hold at least the structure's blocks of
    each colour (and its blueprint wants one block per position)."""
    if task.blueprint is None:
        return "a coblock task needs a blueprint"
    clash = _clash_reason(task.blueprint)
    if clash:
        return clash
    held = _team_items(task)
    wanted = {(c.x, c.y, c.z): block_base_name(c.block) for c in task.blueprint.cells(include_air=False)}
    short = {block: n - held[block] for block, n in sorted(Counter(wanted.values()).items()) if n > held[block]}
    if not short:
        return None
    parts = [_amount(block, n) for block, n in short.items()]
    return _needs(parts)


def _makes_all(solver: _Solver, wanted: Mapping[str, int]) -> bool:
    """Each wanted item is made and set aside in turn, so that making the next cannot use it up."""
    for item, n in wanted.items():
        if not solver.ensure(item, n):
            return False
        solver.pool[item] -= n
    return True


def _shortfall(setting: _Setting, possible: dict[str, list[_Way]], relevant: set[str]) -> str | None:
    """What the team lacks, as a reason line."""
    # explanations descend to what can be had or made without unpacking (nuggets must not lead to gold gear)
    forward = {item: [w for w in found if w.forward] for item, found in possible.items()}
    within_reach = _reachable(forward, setting.pool, setting.world.stations, relevant)
    solver = _Solver(possible, setting.pool, setting.world.stations, setting.open_ways, wanted=setting.wanted)
    for item, n in setting.wanted.items():
        solver.explain(item, n, within_reach, top=True)
        solver.pool[item] -= n
    if not solver.deficit:
        return None
    parts = [_amount(item, n) + _note(item, solver, setting) for item, n in solver.deficit.items()]
    return _needs(parts)


def _needs(parts: list[str]) -> str:
    """'needs A, B and C'."""
    return "needs " + join_words(parts)


def _amount(item: str, n: int) -> str:
    if item == FUEL:
        smelts = math.ceil(n / SMELT_TICKS)
        return f"fuel for {smelts} more smelted item{'s' if smelts > 1 else ''}"
    return f"{n} more {item}"


def _alternatives(item: str, members: frozenset[str]) -> str:
    """' (or spruce_planks or ...)': the other members of the tag slot `item` was asked for in."""
    others = sorted(members - {item})
    if len(others) <= 2:
        return f" (or {' or '.join(others)})"
    log = _LOG.match(item)
    if log and all((_LOG.match(m) or log).group(2) == log.group(2) for m in members):
        return f" (or another {log.group(2)} log or wood)"
    return f" (or any other {(_family(item) or 'kind').replace('_', ' ')})"


def _note(item: str, solver: _Solver, setting: _Setting) -> str:
    """What else would do, why the team's own items do not give enough, or which blocked command is in the way."""
    crafted, smelted = bool(_crafting_ways(setting.version).get(item)), bool(_smelting_ways().get(item))
    made_to_order = item in setting.wanted and not family_of(setting.task).builds  # a target to craft or cook
    if made_to_order and not crafted and not smelted and not setting.world.supplies[item]:
        return f" (no recipe makes it in minecraft-data {setting.version})"
    if item in solver.tags:
        return _alternatives(item, solver.tags[item])
    if crafted and _blocked_for_all(setting.task, CRAFT):
        return f" (every agent has {CRAFT} blocked)"
    if smelted and _blocked_for_all(setting.task, SMELT):
        return f" (every agent has {SMELT} blocked)"
    # held ingredients left over at the end (too few to make one more), not other targets
    inputs = sorted({m for way in setting.open_ways.get(item, ()) for m in way.ingredients()
                     if setting.held[m] > 0 and solver.pool[m] > 0 and m not in setting.wanted})
    if not inputs:
        return ""
    holds = " and ".join(f"{setting.held[m]} {m}" for m in inputs)
    made = solver.made[item]
    return (f" (the team holds {holds}, which cannot make {item} here)" if not made
            else f" (the team holds {holds}, which make only {made} {item} here)")


__all__ = ["items_unsolvable_reason", "unsolvable_reason"]
