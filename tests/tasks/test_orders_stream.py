"""The orders family's rules: dish workloads and τ values, levels, and the order stream's timing, cap and
earliest-deadline-first completion."""

from __future__ import annotations

import pytest

from mindpy.tasks.families.orders.book import (
    ALPHAS,
    DISHES,
    LEVELS,
    MAX_OPEN,
    TIERS,
    Dish,
    Level,
    OrderBook,
    OrderEvent,
    OrderStream,
    Step,
)
from mindpy.tasks.families.orders.cos import Tally, tally


def _dish(*busy: int) -> Dish:
    """A made-up dish whose steps keep the furnace busy for the given times."""
    steps = [Step("furnace", b, (("x", 1),), ("x", 1)) for b in busy[:-1]]
    steps.append(Step("crafting_table", busy[-1], (("x", 1),), ("made_up", 1)))
    return Dish("made_up", tuple(steps))


# ----- workload and τ -----
def test_tau_values_for_a_known_workload():
    dish = _dish(2, 3, 5)
    assert dish.workload == 10 and dish.serve_steps == 11
    # τ_int = ceil(α·11/2) = ceil(5.5α); τ_lft = ceil(1.5·α·11) = ceil(16.5α)
    assert [dish.tau_int(a) for a in ALPHAS] == [6, 9, 11, 14, 17]
    assert [dish.tau_lft(a) for a in ALPHAS] == [17, 25, 33, 42, 50]
    short = _dish(1, 1)  # D = 3: the interval's floor of 4 keeps the five intervals apart
    assert [short.tau_int(a) for a in ALPHAS] == [2, 3, 4, 5, 6]
    assert [short.tau_lft(a) for a in ALPHAS] == [5, 7, 9, 12, 14]


def test_every_levels_five_settings_are_distinct_and_span_intense_to_relaxed():
    for level in LEVELS.values():
        longest = max(DISHES[d].serve_steps for d in level.dishes)  # D of the level's longest dish
        pairs = [(level.tau_int(a), tuple(level.lifetimes(a).values())) for a in sorted(ALPHAS)]
        intervals = [tau_int for tau_int, _ in pairs]
        assert intervals == sorted(set(intervals)), (level.key, intervals)  # five distinct, widening intervals
        for d in level.dishes:
            assert [level.lifetimes(a)[d] for a in sorted(ALPHAS)] == sorted({level.lifetimes(a)[d] for a in ALPHAS})
        # intense: two cooks working without a pause just keep up, and each order can be served in time by one
        # cook starting it on arrival (its D steps before the deadline; the scripted dispatcher's check too)
        assert intervals[0] * 2 >= longest and intervals[0] < longest, (level.key, intervals[0], longest)
        for d in level.dishes:
            assert level.lifetimes(min(ALPHAS))[d] > DISHES[d].serve_steps, (level.key, d)
        assert intervals[-1] >= longest  # relaxed: one cook alone keeps up
        assert intervals[-1] / intervals[0] >= 2.5  # about the paper's spread (54 to 17 orders on its level 0)


def test_workload_sums_busy_times_and_given_is_what_no_step_makes():
    cake = DISHES["cake"]
    assert cake.workload == sum(step.busy for step in cake.steps)
    # sugar and wheat are made by earlier steps; milk and the egg are not
    assert cake.given == {"milk_bucket": 3, "egg": 1}
    assert DISHES["bread"].given == {}
    assert DISHES["rabbit_stew"].given == {"bowl": 1}


def test_a_levels_interval_is_the_largest_of_its_dishes_and_lifetimes_are_per_dish():
    widened = 0
    for level in LEVELS.values():
        for alpha in ALPHAS:
            per_dish = [DISHES[d].tau_int(alpha) for d in level.dishes]
            assert level.tau_int(alpha) == max(per_dish)
            widened += min(per_dish) < max(per_dish)
            assert level.lifetimes(alpha) == {d: DISHES[d].tau_lft(alpha) for d in level.dishes}
    assert widened  # some level mixes dishes of different intervals, so taking the largest matters


def test_levels_cover_the_four_tiers_and_grow_harder():
    assert len(LEVELS) == 12
    assert [lv.number for lv in LEVELS.values()] == list(range(12))
    by_tier = {tier: [lv for lv in LEVELS.values() if lv.tier == tier] for tier in TIERS}
    assert all(len(levels) == 3 for levels in by_tier.values())
    assert LEVELS["golden_apple"].stations == ("crafting_table",)  # the first level: one step at one station
    assert len(DISHES["golden_apple"].steps) == 1
    mean_workload = [sum(lv.workload for lv in levels) / 3 for levels in by_tier.values()]
    mean_stations = [sum(len(lv.stations) for lv in levels) / 3 for levels in by_tier.values()]
    assert mean_workload == sorted(mean_workload) and mean_workload[0] < mean_workload[-1]
    assert mean_stations == sorted(mean_stations) and mean_stations[0] < mean_stations[-1]
    assert all(lv.agent_counts == (2, 3, 4) for lv in LEVELS.values())


@pytest.mark.parametrize("make, words", [
    (lambda: Step("oven", 1, (), ("bread", 1)), "station must be one of"),
    (lambda: Step("farm", 0, (), ("wheat", 1)), "busy time must be at least 1"),
    (lambda: Dish("bread", (Step("farm", 1, (), ("wheat", 3)),)), "last step must make it"),
    (lambda: Level(99, "x", "expert", ("bread",)), "tier must be one of"),
    (lambda: Level(99, "x", "simple", ("pizza",)), "unknown: ['pizza']"),
    (lambda: DISHES["bread"].tau_int(0), "alpha must be > 0"),
    (lambda: OrderStream(("bread",), 2, {}, 10, 0), "lifetime"),
])
def test_bad_definitions_say_what_is_wrong(make, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        make()


# ----- the stream -----
def _run(book: OrderBook) -> None:
    for t in range(book.stream.episode_steps):
        book.step(t)


def test_orders_arrive_every_tau_int_and_expire_after_their_lifetime():
    book = OrderBook(OrderStream(("bread",), tau_int=3, lifetimes={"bread": 4}, episode_steps=20, seed=0))
    _run(book)
    created = [e for e in book.events if e.kind == "created"]
    expired = [e for e in book.events if e.kind == "expired"]
    assert [e.t for e in created] == [0, 3, 6, 9, 12, 15, 18]
    assert [(e.order_id, e.t) for e in expired] == [(i, 3 * i + 4) for i in range(6)]  # the last at 19 < 20
    assert [o.id for o in book.open] == [6]  # still open at the end: neither completed nor failed
    assert book.counts() == {"created": 7, "completed": 0, "expired": 6}
    assert not book.skipped


def test_any_number_of_orders_may_be_open_as_in_the_paper():
    book = OrderBook(OrderStream(("bread",), tau_int=1, lifetimes={"bread": 10}, episode_steps=14, seed=0))
    most = 0
    for t in range(14):
        book.step(t)
        most = max(most, len(book.open))
    assert most == 10 and not book.skipped
    assert book.counts() == {"created": 14, "completed": 0, "expired": 4}


def test_with_the_cap_at_most_six_orders_are_open_and_a_skipped_arrival_fails():
    book = OrderBook(OrderStream(("bread",), tau_int=1, lifetimes={"bread": 10}, episode_steps=14, seed=0),
                     max_open=MAX_OPEN)
    most = 0
    for t in range(14):
        book.step(t)
        most = max(most, len(book.open))
    assert most == MAX_OPEN == 6
    assert [a.t for a in book.skipped] == [6, 7, 8, 9]
    # at 10 the first order expires before the arrival, which takes its place
    assert [(e.t, e.kind, e.order_id) for e in book.events if e.t == 10] == [(10, "expired", 0), (10, "created", 6)]
    assert [e.order_id for e in book.events if e.kind == "created"] == list(range(10))  # ids have no gaps
    assert [e.t for e in book.events if e.kind == "skipped"] == [6, 7, 8, 9]
    assert tally(book.events) == Tally(0, 4 + 4)  # 4 expired (0..3 at 10..13) and 4 skipped


def test_completion_takes_the_earliest_deadline_of_that_dish():
    stream = OrderStream(("bread", "cake"), tau_int=1, lifetimes={"bread": 9, "cake": 3}, episode_steps=12, seed=3)
    book = OrderBook(stream)
    book.step(4)
    open_now = list(book.open)
    for dish in ("bread", "cake"):
        mine = [o for o in open_now if o.dish == dish]
        assert len(mine) >= 1, "the seed should give both dishes by step 4"
        order = book.complete(dish, 4)
        assert order == min(mine, key=lambda o: o.deadline)
        assert OrderEvent(4, "completed", order.id, dish) == book.events[-1]
    assert book.complete("pumpkin_pie", 4) is None  # no such order: nothing happens
    assert book.events[-1].kind == "completed"


def test_an_order_cannot_be_completed_at_or_after_its_deadline():
    book = OrderBook(OrderStream(("bread",), tau_int=5, lifetimes={"bread": 3}, episode_steps=10, seed=0))
    assert book.complete("bread", 2).id == 0  # created at 0, deadline 3
    assert book.complete("bread", 8) is None  # order 1 (created at 5) expired at 8, before the dish came
    assert [(e.t, e.kind, e.order_id) for e in book.events] == [
        (0, "created", 0), (2, "completed", 0), (5, "created", 1), (8, "expired", 1)]


def test_events_are_plain_tuples_and_time_only_moves_forward():
    book = OrderBook(OrderStream(("bread",), tau_int=2, lifetimes={"bread": 3}, episode_steps=6, seed=0))
    t, kind, order_id, dish = book.step(0)[0]
    assert (t, kind, order_id, dish) == (0, "created", 0, "bread")
    book.step(3)
    with pytest.raises(ValueError, match="time only moves forward"):
        book.step(2)
    with pytest.raises(ValueError, match="from 0 to 5"):
        book.step(6)
    assert book.step(3) == []  # the same step again changes nothing


def test_the_seed_fixes_the_dishes_of_the_stream():
    level = LEVELS["banquet"]
    one = OrderStream.for_level(level, 1.0, 100, seed=11).arrivals()
    assert one == OrderStream.for_level(level, 1.0, 100, seed=11).arrivals()
    assert [a.dish for a in one] != [a.dish for a in OrderStream.for_level(level, 1.0, 100, seed=12).arrivals()]
    assert {a.dish for a in one} == set(level.dishes)
    assert [a.t for a in one] == list(range(0, 100, level.tau_int(1.0)))


def test_from_fields_reads_an_orders_task():
    from mindpy.tasks.families.orders.generator import make_task

    task = make_task(LEVELS["grill"], 3, 2.5, seed=5)
    assert OrderStream.from_fields(task) == OrderStream.for_level(LEVELS["grill"], 2.5, task["episode_steps"], 5)
    with pytest.raises(ValueError, match="needs the field 'tau_lft'"):
        OrderStream.from_fields({k: v for k, v in task.items() if k != "tau_lft"})
