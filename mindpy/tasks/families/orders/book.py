"""The `orders` family's rules (MindAgent's CuisineWorld, played in the cooking world): dishes as steps at
stations, levels of dishes, and the stream of orders a dispatcher must serve before they expire.

    level = LEVELS["bakery"]
    level.tau_int(1.5)                     # 5: a new order every 5 steps
    book = OrderBook(OrderStream.for_level(level, alpha=1.5, episode_steps=100, seed=7))
    book.step(0)                           # [OrderEvent(t=0, kind='created', order_id=0, dish='cookie')]
    book.complete("cookie", 2)             # the open cookie order with the earliest deadline (None if none)
    book.events                            # every (t, kind, order_id, dish): created / completed / expired

Workload. A dish is a list of steps, each done at a station ("farm": crops, pumpkins, sugar cane and mushrooms dug
by hand; "pasture": an animal killed; "furnace": the furnace or the smoker; "crafting_table"; "none": crafted in
the inventory's 2x2 grid) that is busy for a number of steps. A dish's workload W is the sum of its steps' busy
times. Busy times, in dispatcher steps: a block dug 1, an animal killed 2, an item smelted 3 (a furnace takes
10 s an item), a craft in the hand 1, a craft at the table 2 (the one table is walked to and shared).
An input no earlier step makes is one the world lacks; it is dealt to the cooks' inventories (`Dish.given`).

Timing. The paper's τ_int is the interval between orders and τ_lft an order's lifetime (depending on the dish);
its M=5 settings of τ_int run from intense (more orders than the team can serve) to extremely relaxed. Ours, from
the workload model: a dish takes one cook D = W + 1 steps to make and serve (the serving command is a step), so
    τ_int(dish) = ceil(α·max(D, 4)/2)      τ_lft(dish) = ceil(1.5·α·D)
computed exactly (no float rounding). A level's order interval is the largest τ_int of its dishes; each order
lives as long as its own dish's τ_lft. At α=1 (intense) orders come every D/2 steps, as fast as two cooks working
without a pause serve them, and live 1.5·D steps: one cook starting an order when it arrives serves it in time,
so a perfect team can finish the stream. At α=3 (relaxed) they come every 1.5·D steps: one cook alone keeps up.
With the floor of 4 on D in the interval, each step of α (0.5) adds at least one step to τ_int, so a level's five
settings are five distinct intervals (the paper's Table 3 has about 3 times more orders at τ_int,(1) than at
τ_int,(5): 54 to 17 on level 0; ours 50 to 17 on golden_apple). CoS is measured over the five α of ALPHAS.

The stream. Orders arrive at steps 0, τ_int, 2·τ_int, ... before `episode_steps`; each arrival's dish is drawn
from the level's dishes by the stream's seed, so a seed fixes the whole schedule. An order created at step c
with lifetime L can be completed at steps c .. c+L-1 and expires (fails) at step c+L. As in the paper, any number
of orders may be open. Ours, an option (`OrderBook(stream, max_open=6)`): an arrival that finds `max_open` orders
open is skipped (dropped, never created later, so the schedule never shifts), listed in `OrderBook.skipped` with
a 'skipped' event, and counts as failed. Within a step, expiries come before the arrival, so an order expiring at
t frees its place for t's arrival. Orders still open when the episode ends count as neither completed nor failed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

ALPHAS = (1.0, 1.5, 2.0, 2.5, 3.0)
SERVE_STEPS = 1                         # the serving command, after a dish's steps
INTERVAL_FACTOR = Fraction(1, 2)        # τ_int = ceil(α·max(D, INTERVAL_FLOOR)·1/2), D = W + SERVE_STEPS
INTERVAL_FLOOR = 4                      # so that consecutive α (0.5 apart) give distinct intervals
LIFETIME_FACTOR = Fraction(3, 2)        # τ_lft = ceil(α·D·3/2)
MAX_OPEN = 6  # the cap of the max_open option (ours; the paper has none)
TIERS = ("entry", "simple", "intermediate", "advanced")

# Busy time of each kind of step, in dispatcher steps.
DIG = 1
KILL = 2
SMELT = 3
HAND_CRAFT = 1
TABLE_CRAFT = 2

STATIONS = ("farm", "pasture", "furnace", "crafting_table", "none")
# What the cooking world's farm and pasture give (mindpy.tasks.world builds them).
FARM_YIELDS = ("wheat", "beetroot", "potato", "carrot", "pumpkin", "sugar_cane", "brown_mushroom", "red_mushroom")
PASTURE_YIELDS = ("beef", "porkchop", "chicken", "mutton", "rabbit")


@dataclass(frozen=True)
class Step:
    """One step of a dish: at `station`, busy for `busy` steps, `inputs` are used up and `output` is made."""

    station: str
    busy: int
    inputs: tuple[tuple[str, int], ...]
    output: tuple[str, int]

    def __post_init__(self) -> None:
        if self.station not in STATIONS:
            raise ValueError(f"step station must be one of {', '.join(STATIONS)}, got {self.station!r}")
        if self.busy < 1:
            raise ValueError(f"step busy time must be at least 1 step, got {self.busy}")
        if self.output[1] < 1 or any(n < 1 for _, n in self.inputs):
            raise ValueError(f"step counts must be at least 1, got inputs {self.inputs} and output {self.output}")

    def text(self) -> str:
        """The step as a recipe line, e.g. 'crafting_table (2 steps): 3 wheat -> 1 bread'."""
        item, count = self.output
        what = (", ".join(f"{n} {name}" for name, n in self.inputs) + " -> " if self.inputs else "get ")
        return f"{self.station} ({self.busy} step{'s' if self.busy > 1 else ''}): {what}{count} {item}"


def dig(item: str, blocks: int = 1) -> Step:
    """Dig `blocks` blocks of a farm crop or plant, one item each."""
    return Step("farm", DIG * blocks, (), (item, blocks))


def kill(raw: str) -> Step:
    """Kill one animal of the pasture for its raw meat."""
    return Step("pasture", KILL, (), (raw, 1))


def smelt(raw: str, cooked: str) -> Step:
    """Cook one item in the furnace or the smoker."""
    return Step("furnace", SMELT, ((raw, 1),), (cooked, 1))


def craft(inputs: Mapping[str, int], output: str, count: int = 1, *, table: bool = True) -> Step:
    """One craft, at the crafting table or (table=False) in the inventory's grid."""
    return Step("crafting_table" if table else "none", TABLE_CRAFT if table else HAND_CRAFT,
                tuple(inputs.items()), (output, count))


@dataclass(frozen=True)
class Dish:
    """A dish an order can ask for, and the steps that make it (the last step makes the dish)."""

    name: str
    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError(f"dish {self.name!r} needs at least one step")
        if self.steps[-1].output[0] != self.name:
            raise ValueError(f"dish {self.name!r}: its last step must make it, not {self.steps[-1].output[0]!r}")

    @property
    def workload(self) -> int:
        """W: the sum of the steps' busy times."""
        return sum(step.busy for step in self.steps)

    @property
    def stations(self) -> tuple[str, ...]:
        """The stations the dish uses, in the order of its steps."""
        return tuple(dict.fromkeys(step.station for step in self.steps))

    @property
    def given(self) -> dict[str, int]:
        """Inputs no earlier step makes (what the world lacks, dealt to inventories), for one dish."""
        made: dict[str, int] = {}
        lacking: dict[str, int] = {}
        for step in self.steps:
            for item, n in step.inputs:
                use = min(n, made.get(item, 0))
                made[item] = made.get(item, 0) - use
                if n > use:
                    lacking[item] = lacking.get(item, 0) + n - use
            item, n = step.output
            made[item] = made.get(item, 0) + n
        return lacking

    @property
    def serve_steps(self) -> int:
        """D: the steps one cook takes to make the dish and serve it (W + the serving command)."""
        return self.workload + SERVE_STEPS

    def tau_int(self, alpha: float) -> int:
        """The order interval this dish asks for: ceil(α·max(D, 4)/2)."""
        return scaled_steps(alpha, max(self.serve_steps, INTERVAL_FLOOR), INTERVAL_FACTOR)

    def tau_lft(self, alpha: float) -> int:
        """The dish's order lifetime: ceil(1.5·α·D)."""
        return scaled_steps(alpha, self.serve_steps, LIFETIME_FACTOR)

    def recipe(self) -> list[str]:
        """The steps as recipe lines (a task's `recipes` entry)."""
        return [step.text() for step in self.steps]


def scaled_steps(alpha: float, workload: int, factor: Fraction) -> int:
    """ceil(α·W·factor) in exact arithmetic (α is read as the decimal it prints as: 1.5, not 1.4999...)."""
    if not alpha > 0 or workload < 1:
        raise ValueError(f"alpha must be > 0 and the workload at least 1, got alpha={alpha!r}, W={workload!r}")
    return math.ceil(Fraction(str(alpha)) * workload * factor)


DISHES: dict[str, Dish] = {d.name: d for d in (
    Dish("golden_apple", (craft({"gold_ingot": 8, "apple": 1}, "golden_apple"),)),
    Dish("golden_carrot", (dig("carrot"), craft({"gold_nugget": 8, "carrot": 1}, "golden_carrot"))),
    Dish("mushroom_stew", (dig("brown_mushroom"), dig("red_mushroom"),
                           craft({"brown_mushroom": 1, "red_mushroom": 1, "bowl": 1}, "mushroom_stew", table=False))),
    Dish("suspicious_stew", (dig("brown_mushroom"), dig("red_mushroom"),
                             craft({"brown_mushroom": 1, "red_mushroom": 1, "dandelion": 1, "bowl": 1},
                                   "suspicious_stew", table=False))),
    Dish("bread", (dig("wheat", 3), craft({"wheat": 3}, "bread"))),
    Dish("cookie", (dig("wheat", 2), craft({"wheat": 2, "cocoa_beans": 1}, "cookie", 8))),
    Dish("baked_potato", (dig("potato"), smelt("potato", "baked_potato"))),
    Dish("cooked_beef", (kill("beef"), smelt("beef", "cooked_beef"))),
    Dish("cooked_porkchop", (kill("porkchop"), smelt("porkchop", "cooked_porkchop"))),
    Dish("cooked_chicken", (kill("chicken"), smelt("chicken", "cooked_chicken"))),
    Dish("cooked_mutton", (kill("mutton"), smelt("mutton", "cooked_mutton"))),
    Dish("cooked_rabbit", (kill("rabbit"), smelt("rabbit", "cooked_rabbit"))),
    Dish("pumpkin_pie", (dig("pumpkin"), dig("sugar_cane"), craft({"sugar_cane": 1}, "sugar", table=False),
                         craft({"pumpkin": 1, "sugar": 1, "egg": 1}, "pumpkin_pie", table=False))),
    Dish("beetroot_soup", (dig("beetroot", 6), craft({"beetroot": 6, "bowl": 1}, "beetroot_soup"))),
    Dish("cake", (dig("wheat", 3), dig("sugar_cane", 2), craft({"sugar_cane": 2}, "sugar", 2, table=False),
                  craft({"milk_bucket": 3, "sugar": 2, "egg": 1, "wheat": 3}, "cake"))),
    Dish("rabbit_stew", (kill("rabbit"), smelt("rabbit", "cooked_rabbit"), dig("potato"),
                         smelt("potato", "baked_potato"), dig("carrot"), dig("brown_mushroom"),
                         craft({"cooked_rabbit": 1, "baked_potato": 1, "carrot": 1, "brown_mushroom": 1, "bowl": 1},
                               "rabbit_stew"))),
)}


@dataclass(frozen=True)
class Level:
    """A level: its dishes, its tier and the team sizes it is played with."""

    number: int
    name: str
    tier: str
    dishes: tuple[str, ...]
    agent_counts: tuple[int, ...] = (2, 3, 4)

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"level {self.name!r}: tier must be one of {', '.join(TIERS)}, got {self.tier!r}")
        unknown = [d for d in self.dishes if d not in DISHES]
        if not self.dishes or unknown:
            raise ValueError(f"level {self.name!r} needs dishes from DISHES; unknown: {unknown or 'none given'}")

    @property
    def key(self) -> str:
        """'l03_bakery': the level's number and name, as task ids spell it."""
        return f"l{self.number:02d}_{self.name}"

    @property
    def workload(self) -> int:
        """The largest workload of the level's dishes."""
        return max(DISHES[d].workload for d in self.dishes)

    @property
    def stations(self) -> tuple[str, ...]:
        """Every station some dish of the level uses."""
        return tuple(dict.fromkeys(s for d in self.dishes for s in DISHES[d].stations))

    def tau_int(self, alpha: float) -> int:
        """The level's order interval: the largest τ_int of its dishes."""
        return max(DISHES[d].tau_int(alpha) for d in self.dishes)

    def lifetimes(self, alpha: float) -> dict[str, int]:
        """Each dish's τ_lft."""
        return {d: DISHES[d].tau_lft(alpha) for d in self.dishes}


LEVELS: dict[str, Level] = {lv.name: lv for lv in (
    Level(0, "golden_apple", "entry", ("golden_apple",)),
    Level(1, "golden_food", "entry", ("golden_apple", "golden_carrot")),
    Level(2, "mushroom_stews", "entry", ("mushroom_stew", "suspicious_stew")),
    Level(3, "bakery", "simple", ("bread", "cookie")),
    Level(4, "grill", "simple", ("baked_potato", "cooked_beef", "cooked_porkchop")),
    Level(5, "roast", "simple", ("cooked_chicken", "cooked_mutton", "cooked_rabbit")),
    Level(6, "sweets", "intermediate", ("pumpkin_pie", "cookie", "bread")),
    Level(7, "soups", "intermediate", ("beetroot_soup", "mushroom_stew", "suspicious_stew")),
    Level(8, "farmhouse", "intermediate", ("baked_potato", "cooked_beef", "bread", "pumpkin_pie")),
    Level(9, "cake_shop", "advanced", ("cake", "pumpkin_pie", "cookie")),
    Level(10, "rabbit_stew", "advanced", ("rabbit_stew", "cooked_rabbit", "baked_potato")),
    Level(11, "banquet", "advanced", ("rabbit_stew", "cake", "beetroot_soup", "cooked_mutton")),
)}


# ----- the order stream -----
class Arrival(NamedTuple):
    """A scheduled order: at step `t`, an order for `dish`."""

    t: int
    dish: str


class OrderEvent(NamedTuple):
    """What happened to an order: kind is 'created', 'completed', 'expired' or (with a cap on open orders)
    'skipped' (an arrival that found the kitchen full; its order_id is -1)."""

    t: int
    kind: str
    order_id: int
    dish: str


@dataclass(frozen=True)
class Order:
    """An order in the book: its id (arrival order), dish, the step it was created at and its deadline."""

    id: int
    dish: str
    created: int
    deadline: int  # the step it expires at: completable before it


@dataclass(frozen=True)
class OrderStream:
    """The fixed schedule of an episode's orders: every τ_int steps an order for a seeded dish."""

    dishes: tuple[str, ...]
    tau_int: int
    lifetimes: Mapping[str, int]
    episode_steps: int
    seed: int

    def __post_init__(self) -> None:
        if not self.dishes:
            raise ValueError("an order stream needs at least one dish")
        if self.tau_int < 1 or self.episode_steps < 1:
            raise ValueError(f"tau_int and episode_steps must be at least 1, got {self.tau_int} and "
                             f"{self.episode_steps}")
        missing = [d for d in self.dishes if self.lifetimes.get(d, 0) < 1]
        if missing:
            raise ValueError(f"every dish needs a lifetime (tau_lft) of at least 1 step; missing or bad: {missing}")

    @classmethod
    def for_level(cls, level: Level, alpha: float, episode_steps: int, seed: int) -> OrderStream:
        return cls(level.dishes, level.tau_int(alpha), level.lifetimes(alpha), episode_steps, seed)

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> OrderStream:
        """The stream of an orders task (its dishes, tau_int, tau_lft, episode_steps and seed fields; a parsed
        `Task` keeps them typed in `task.fields`: pass `task.fields.as_dict()`)."""
        missing = [key for key in ("dishes", "tau_int", "tau_lft", "episode_steps", "seed") if key not in fields]
        if missing:
            raise ValueError(f"an orders task needs the field {missing[0]!r} to make its order stream")
        return cls(tuple(fields["dishes"]), int(fields["tau_int"]), dict(fields["tau_lft"]),
                   int(fields["episode_steps"]), int(fields["seed"]))

    def arrivals(self) -> list[Arrival]:
        """Every scheduled order of the episode, in time order (with a cap on open orders, some may be skipped)."""
        rng = random.Random(self.seed)
        return [Arrival(t, rng.choice(self.dishes)) for t in range(0, self.episode_steps, self.tau_int)]


@dataclass
class OrderBook:
    """The open orders of an episode as time goes by: created by the stream, completed by served dishes,
    expired at their deadlines. Time only moves forward. `max_open`: None (the paper's) or the cap on open orders,
    over which arrivals are skipped."""

    stream: OrderStream
    max_open: int | None = None
    events: list[OrderEvent] = field(default_factory=list, init=False)
    skipped: list[Arrival] = field(default_factory=list, init=False)   # arrivals that found the kitchen full
    open: list[Order] = field(default_factory=list, init=False)
    now: int = field(default=-1, init=False)  # the last step processed
    _pending: list[Arrival] = field(default_factory=list, init=False, repr=False)
    _next_id: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._pending = list(reversed(self.stream.arrivals()))  # popped from the end: earliest first

    def step(self, t: int) -> list[OrderEvent]:
        """Advance to step t (through any steps in between): expiries, then the arrival. Returns their events."""
        if not 0 <= t < self.stream.episode_steps:
            raise ValueError(f"step must be from 0 to {self.stream.episode_steps - 1}, got {t}")
        if t < self.now:
            raise ValueError(f"time only moves forward: step {t} is before step {self.now}")
        start = len(self.events)
        for now in range(self.now + 1, t + 1):
            self._expire(now)
            self._arrive(now)
        self.now = max(self.now, t)
        return self.events[start:]

    def _expire(self, t: int) -> None:
        for order in [o for o in self.open if o.deadline <= t]:
            self.open.remove(order)
            self.events.append(OrderEvent(t, "expired", order.id, order.dish))

    def _arrive(self, t: int) -> None:
        while self._pending and self._pending[-1].t == t:
            arrival = self._pending.pop()
            if self.max_open is not None and len(self.open) >= self.max_open:
                self.skipped.append(arrival)
                self.events.append(OrderEvent(t, "skipped", -1, arrival.dish))
                continue
            order = Order(self._next_id, arrival.dish, t, t + self.stream.lifetimes[arrival.dish])
            self._next_id += 1
            self.open.append(order)
            self.events.append(OrderEvent(t, "created", order.id, order.dish))

    def complete(self, dish: str, t: int) -> Order | None:
        """A dish served at step t completes the open order of that dish with the earliest deadline (the oldest
        on a tie); None when no order of that dish is open (the dish is wasted)."""
        self.step(t)
        candidates = [o for o in self.open if o.dish == dish]
        if not candidates:
            return None
        order = min(candidates, key=lambda o: (o.deadline, o.id))
        self.open.remove(order)
        self.events.append(OrderEvent(t, "completed", order.id, order.dish))
        return order

    def finish(self) -> list[OrderEvent]:
        """Run to the episode's last step (orders still open then count as neither completed nor failed)."""
        return self.step(self.stream.episode_steps - 1)

    def counts(self) -> dict[str, int]:
        """How many orders were created, completed and expired (and skipped, with a cap) so far."""
        kinds = ("created", "completed", "expired", "skipped") if self.max_open is not None else \
            ("created", "completed", "expired")
        return {kind: sum(1 for e in self.events if e.kind == kind) for kind in kinds}


def given_for(arrivals: Iterable[Arrival]) -> dict[str, int]:
    """What the world lacks for making every scheduled order (items sorted by name)."""
    total: dict[str, int] = {}
    for arrival in arrivals:
        for item, n in DISHES[arrival.dish].given.items():
            total[item] = total.get(item, 0) + n
    return dict(sorted(total.items()))
