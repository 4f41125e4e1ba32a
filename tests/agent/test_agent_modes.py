"""Modes with real bots: they notice the world through one observation per tick and act through actions."""

from __future__ import annotations

import threading
import time

import pytest

from conftest import isolate, teleport, wait_until
from mindpy.agent.actions import ActionManager
from mindpy.agent.modes import ModeController
from mindpy.skills import Skills


class Ticker:
    """Calls `controller.update()` every 300 ms, as the agent's update loop does."""

    def __init__(self, controller):
        self.controller = controller
        self.stopped = threading.Event()
        self.errors = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self.stopped.wait(0.3):
            try:
                self.controller.update()
            except Exception as exc:  # surfaced by the test
                self.errors.append(exc)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join(5)
        assert not self.errors, self.errors


def agent_parts(bot, only=()):
    skills = Skills(bot)
    actions = ActionManager(skills.interrupt, skills.take_log, bot.name)
    modes = ModeController(bot, skills, actions)
    for mode in modes.modes:
        mode.on = mode.name in only
    return skills, actions, modes


def test_item_collecting_picks_up_a_nearby_drop(make_bot):
    collector, digger = make_bot("collector"), make_bot("digger")
    x, y, z = isolate(collector)
    teleport(digger, x + 9, y, z)
    digger.command(f"/setblock {x + 5} {y} {z} oak_planks")
    wait_until(lambda: (digger.js.blockAt(digger.js.entity.position.offset(-4, 0, 0)) or {}).name == "oak_planks",
               timeout=5, message="the planks block")
    # the digger breaks the planks 4 blocks away: the drop lands 5 blocks from the collector
    digger.js.dig(digger.js.blockAt(digger.js.entity.position.offset(-4, 0, 0)), timeout=20)
    skills, actions, modes = agent_parts(collector, only=("item_collecting",))
    with Ticker(modes):
        wait_until(lambda: collector.inventory().get("oak_planks") == 1, timeout=15,
                   message="the collector to pick up the planks")
    assert "item_collecting" in modes.take_behavior_log()


def test_unstuck_moves_a_bot_that_does_not_move(make_bot):
    bot = make_bot("stuck")
    isolate(bot)
    skills, actions, modes = agent_parts(bot, only=("unstuck",))
    modes.get("unstuck").max_stuck_seconds = 2.0
    start = bot.position

    def waits_forever():  # an action that makes no progress
        while not actions.stop_requested:
            time.sleep(0.05)

    with Ticker(modes):
        result = actions.run("action:collectBlocks", waits_forever, timeout=30)
        wait_until(lambda: "unstuck" in modes.behavior_log, timeout=5, message="unstuck to act")
        wait_until(lambda: not actions.executing, timeout=15, message="unstuck's move to finish")
    assert result.interrupted
    assert "interrupted by mode unstuck" in result.message
    moved = sum((a - b) ** 2 for a, b in zip(bot.position, start)) ** 0.5
    assert moved >= 4


def test_unstuck_leaves_a_bot_alone_while_its_skills_report_progress(make_bot):
    """A builder placing blocks from one spot stands still, but is not stuck: each skill report counts."""
    bot = make_bot("builder")
    x, y, z = isolate(bot)
    skills, actions, modes = agent_parts(bot, only=("unstuck",))
    modes.get("unstuck").max_stuck_seconds = 2.0
    reports = []

    def works_in_place():  # a quick report every 0.2 s for three times the stuck limit
        end = time.monotonic() + 6.0
        while time.monotonic() < end and not actions.stop_requested:
            reports.append(skills.break_block_at(x, y + 5, z))  # "There is no block to break at ..."
            time.sleep(0.2)

    with Ticker(modes):
        result = actions.run("action:newAction", works_in_place, timeout=30)
    assert not result.interrupted, result.message
    assert "unstuck" not in modes.behavior_log
    assert len(reports) >= 10 and all(reports)


def test_self_preservation_jumps_in_water(make_bot):
    bot = make_bot("swimmer")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x} {y} {z} water")
    bot.command(f"/setblock {x} {y + 1} {z} water")
    skills, actions, modes = agent_parts(bot, only=("self_preservation",))
    with Ticker(modes):
        wait_until(lambda: bot.js.controlState.jump, timeout=5, message="the bot to jump in water")
        bot.command(f"/setblock {x} {y} {z} air")
        bot.command(f"/setblock {x} {y + 1} {z} air")
        wait_until(lambda: not bot.js.controlState.jump, timeout=5, message="the bot to stop jumping")


def test_modes_are_listed_and_switchable(make_bot):
    bot = make_bot("moder")
    skills, actions, modes = agent_parts(bot)
    assert len(modes.modes) == 10
    modes.set_on("cowardice", True)
    text = modes.describe()
    assert "cowardice(ON)" in text and "cheat(OFF)" in text
    with pytest.raises(KeyError):
        modes.set_on("flying", True)
