"""Movement skills on the embedded server, with real bots: they end where asked, and stop when interrupted."""

from __future__ import annotations

import threading
import time

import pytest

from conftest import isolate, wait_until
from mindpy.skills import Skills


def distance(a, b):
    return sum((p - q) ** 2 for p, q in zip(a, b)) ** 0.5


def test_go_to_position_arrives(make_bot):
    bot = make_bot("walker")
    x, y, z = isolate(bot)
    skills = Skills(bot)
    assert skills.go_to_position(x + 12, y, z + 7, 1), skills.take_log()
    assert distance(bot.position, (x + 12.5, y, z + 7.5)) <= 2
    assert "reached" in skills.take_log()


def test_move_away_goes_at_least_that_far(make_bot):
    bot = make_bot("mover")
    isolate(bot)
    start = bot.position
    skills = Skills(bot)
    assert skills.move_away(6), skills.take_log()
    assert distance(bot.position, start) >= 5.5


def test_go_to_nearest_block_finds_a_placed_block(make_bot):
    bot = make_bot("seeker")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 9} {y} {z - 6} crafting_table")
    time.sleep(0.5)
    skills = Skills(bot)
    assert skills.go_to_nearest_block("crafting_table", 2, 32), skills.take_log()
    assert distance(bot.position, (x + 9.5, y, z - 5.5)) <= 3.5


def test_go_to_nearest_block_reports_when_there_is_none(make_bot):
    bot = make_bot("seeker")
    isolate(bot)
    skills = Skills(bot)
    assert not skills.go_to_nearest_block("diamond_ore", 2, 16)
    assert "Could not find any diamond_ore" in skills.take_log()


def test_remembered_places_round_trip(make_bot):
    bot = make_bot("memo")
    x, y, z = isolate(bot)
    skills = Skills(bot)
    assert skills.remember_place("home")
    assert skills.go_to_position(x + 10, y, z + 10, 1)
    assert skills.go_to_remembered_place("home"), skills.take_log()
    assert distance(bot.position, (x + 0.5, y, z + 0.5)) <= 2
    assert not skills.go_to_remembered_place("nowhere")
    assert "No place called 'nowhere'" in skills.take_log()


@pytest.mark.parametrize("skill, js_name, args", [("stay", "stay", (-1,)),
                                                   ("go_to_position", "goToCoordinates", ("far",))])
def test_interrupt_stops_a_long_skill(make_bot, skill, js_name, args):
    # how fast it stops is a figure of benchmarks/bench_interrupt.py; here: that it stops, and says so
    bot = make_bot("stopper")
    x, y, z = isolate(bot)
    skills = Skills(bot)
    if args == ("far",):
        args = (x + 150, y, z + 150, 1)
    outcome = {}

    def run():
        outcome["ok"] = getattr(skills, skill)(*args)

    worker = threading.Thread(target=run, daemon=True)  # a skill that never stops must not hold up pytest
    worker.start()
    wait_until(lambda: skills.runner.running() == js_name, timeout=20, message=f"{js_name} to start")
    assert worker.is_alive(), f"{skill} ended before it was interrupted: {skills.take_log()}"
    skills.interrupt()
    worker.join(30)  # a bound that only catches a skill that never stops
    assert not worker.is_alive(), f"{skill} did not stop when interrupted"
    assert outcome["ok"] is False and skills.last_result.interrupted
    assert skills.runner.running() is None


def test_skill_timeout_stops_the_skill(make_bot):
    bot = make_bot("slow")
    isolate(bot)
    skills = Skills(bot)
    started = time.monotonic()
    assert not skills._do("stay", -1, timeout=1.5)
    assert time.monotonic() - started < 30  # only catches a skill the timeout never stopped
    assert "took longer than" in skills.take_log()  # it ended because of the timeout
    # the interrupted skill really stopped: a new one runs normally
    assert skills.stay(0.2)


def test_look_at_position_turns_the_bot(make_bot):
    bot = make_bot("looker")
    x, y, z = isolate(bot)
    skills = Skills(bot)
    assert skills.look_at_position(x + 10, y + 1.6, z)
    yaw_east = bot.js.entity.yaw
    assert skills.look_at_position(x - 10, y + 1.6, z)
    assert abs(bot.js.entity.yaw - yaw_east) > 2.5  # roughly opposite directions (radians)


def test_walking_never_breaks_protected_blocks(make_bot):
    """A bot walled in by red wool: with the wool protected it cannot get out and the walls stay whole; with it
    unprotected (a bot of its own), the pathfinder digs its way out."""
    from conftest import wait_until
    from mindpy.world import bulk

    def walled_in(bot):
        x, y, z = isolate(bot)
        bot.command("clear")
        bot.command(f"fill {x - 1} {y - 1} {z - 1} {x + 1} {y + 2} {z + 1} red_wool")  # walls, roof and floor
        bot.command(f"setblock {x} {y} {z} air")
        bot.command(f"setblock {x} {y + 1} {z} air")
        wall = [(x + 1, y, z), (x + 1, y + 1, z)]
        wait_until(lambda: bulk.block_names(bot, wall) == ["red_wool"] * 2, timeout=10, message="the walls")
        return x, y, z, wall

    kept = make_bot("kept")
    x, y, z, wall = walled_in(kept)
    skills = Skills(kept)
    skills.runner.protect_blocks(["red_wool"])
    assert not skills.go_to_position(x + 6, y, z, 1)
    box = [(x + dx, y + dy, z + dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1, 2) for dz in (-1, 0, 1)
           if (dx, dz) != (0, 0) or dy in (-1, 2)]
    assert set(bulk.block_names(kept, box)) == {"red_wool"}, "a protected block was broken"

    digger = make_bot("digger")
    x, y, z, wall = walled_in(digger)
    assert Skills(digger).go_to_position(x + 6, y, z, 1)  # the same walk, unprotected: it digs out
    assert "air" in bulk.block_names(digger, [(x + dx, y + dy, z + dz) for dx in (-1, 1) for dy in (0, 1)
                                              for dz in (-1, 0, 1)])


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), float("-inf"), 1e308, 10**400, -5, -1e308])
def test_stay_refuses_durations_that_are_not_a_time(make_bot, seconds):
    """Generated code can pass any number (NaN and infinity arrive over its JSON pipe): the skill answers at once
    with a note instead of standing still for good. -1 (until interrupted) is the one negative that means a time."""
    bot = make_bot("stayer")
    isolate(bot)
    skills = Skills(bot)
    outcome: dict = {}
    worker = threading.Thread(target=lambda: outcome.update(ok=skills.stay(seconds)), daemon=True)
    worker.start()
    worker.join(30)  # a hang only: the refusal is immediate
    if worker.is_alive():
        skills.interrupt()
        worker.join(10)
        pytest.fail(f"stay({seconds!r}) was still standing after 30 s")
    assert outcome["ok"] is False
    assert "stay takes a number of seconds from 0 to 86400, or -1" in skills.take_log()


@pytest.mark.parametrize("call", [lambda s: s.go_to_position(0, float("nan"), 0), lambda s: s.move_away(1e308),
                                  lambda s: s.collect_blocks("oak_log", 10**400),
                                  lambda s: s.look_at_position(float("inf"), 0, 0)],
                         ids=["nan-position", "huge-distance", "huge-count", "infinite-look"])
def test_skills_refuse_numbers_that_nan_or_infinity_would_slip_past(make_bot, call):
    skills = Skills(make_bot("numbers"))
    assert call(skills) is False
    assert "cannot use the number" in skills.take_log() and skills.last_result is None  # never reached Node


def test_the_js_stay_refuses_what_the_python_one_would_not_send(make_bot):
    skills = Skills(make_bot("jsstay"))
    assert skills._do("stay", -5, timeout=30) is False and skills._do("stay", 100_000, timeout=30) is False
    assert skills.take_log().count("stay takes a number of seconds from 0 to 86400") == 2
