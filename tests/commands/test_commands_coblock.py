"""The coblock commands (!placeBlock, !breakBlock, !checkGoal, !endTask) on real bots: parsed from model-style text,
run, and checked against the world and the inventory; and who sees them (only agents of a coblock task)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from agent_helpers import make_profile, make_settings
from conftest import give_items, isolate, unique_name, wait_ticks, wait_until
from conftest import run_command as run
from mindpy.agent.factory import build_agent
from mindpy.agent.runner import AgentRunner
from mindpy.commands import AgentCommands, AgentContext, default_registry
from mindpy.commands.coblock import NAMES, NO_COBLOCK, blocked_outside_coblock
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile
from mindpy.tasks.families.coblock.fields import CoblockFields
from mindpy.tasks.schema import Task
from mindpy.world import queries

Y = -60  # the ground layer of a structure (the bots of `isolate` stand on it)


def coblock_task(goals: dict[str, list[tuple[int, int, int, str]]]) -> Task:
    return Task(id="coblock_test", type="coblock", agent_count=2, goal={"0": "Build.", "1": "Build."},
                fields=CoblockFields("independent", goals))


def block(bot, x, y, z) -> str | None:
    found = queries.block_at(bot, x, y, z)
    return found["name"] if found else None


def setblock(bot, x, y, z, name):
    bot.command(f"/setblock {x} {y} {z} {name}")
    wait_until(lambda: block(bot, x, y, z) == name, message=f"{name} at {x} {y} {z}")


def builder(make_bot, goals_of=None, index=0):
    """A bot in an area of its own, the cell (bx, Y, bz) two blocks east of it, and its context in a coblock task
    whose goals `goals_of(bx, bz)` gives."""
    bot = make_bot("builder")
    x, _, z = isolate(bot)
    bx, bz = x + 2, z
    goals = goals_of(bx, bz) if goals_of else {"0": [(bx, Y, bz, "red_wool")], "1": [(bx + 1, Y, bz, "yellow_wool")]}
    ctx = AgentContext.for_bot(bot, task=coblock_task(goals), agent_index=index)
    return bot, ctx, bx, bz


def test_outside_a_coblock_task_each_command_says_so(layer, make_bot):
    bot = make_bot("noblock")
    for task in (None, SimpleNamespace(type="construction", blueprint=None)):
        ctx = AgentContext.for_bot(bot, task=task, agent_index=0)
        for text in ('!placeBlock("red_wool", 0, -60, 0)', "!breakBlock(0, -60, 0)", "!checkGoal", "!endTask"):
            out = run(layer, ctx, f"Ok. {text}")
            assert out == NO_COBLOCK and not out.ok, (text, out)
        assert not ctx.task_finished.is_set()
    assert NO_COBLOCK.startswith("There is no coblock task: ") and NO_COBLOCK.count(".") == 1


def test_place_a_held_block_on_the_ground(layer, make_bot):
    bot, ctx, bx, bz = builder(make_bot)
    give_items(bot, {"red_wool": 2})
    out = run(layer, ctx, f'I will start. !placeBlock("red_wool", {bx}, {Y}, {bz})')
    assert out.ok, out
    assert block(bot, bx, Y, bz) == "red_wool"
    wait_until(lambda: bot.inventory().get("red_wool", 0) == 1, message="one red_wool used from the inventory")
    # and against the face of a placed block, in the air
    out = run(layer, ctx, f'!placeBlock("red_wool", {bx}, {Y + 1}, {bz})')
    assert out.ok and block(bot, bx, Y + 1, bz) == "red_wool", out
    wait_until(lambda: bot.inventory().get("red_wool", 0) == 0, message="the second red_wool used")


def test_refusals_say_why_and_place_nothing(layer, make_bot):
    goals = lambda bx, bz: {"0": [(bx, Y, bz, "red_wool"), (bx, Y + 1, bz, "blue_wool")],  # noqa: E731
                            "1": [(bx + 1, Y, bz, "yellow_wool")]}
    bot, ctx, bx, bz = builder(make_bot, goals)
    give_items(bot, {"red_wool": 3, "green_wool": 1, "dirt": 5})

    out = run(layer, ctx, f'!placeBlock("blue_wool", {bx}, {Y}, {bz})')
    assert not out.ok and out.startswith("You do not hold any blue_wool"), out
    assert "of the structure's blocks you hold 3 red_wool" in out and "dirt" not in out, out
    assert "green_wool" not in out  # not a colour of this structure

    setblock(bot, bx + 1, Y, bz, "stone")
    out = run(layer, ctx, f'!placeBlock("red_wool", {bx + 1}, {Y}, {bz})')
    assert not out.ok and f"({bx + 1}, {Y}, {bz}) is taken by stone" in out and "!breakBlock" in out, out

    out = run(layer, ctx, f'!placeBlock("red_wool", {bx}, {Y + 3}, {bz})')
    assert not out.ok and "would float" in out and "ground" in out, out

    out = run(layer, ctx, f'!placeBlock("red_wool", {bx + 5000}, {Y}, {bz})')
    assert not out.ok and "outside the construction site" in out, out

    # nothing was placed and no wool left the inventory (refusals happen before anything is done)
    assert block(bot, bx, Y, bz) == "air" and block(bot, bx, Y + 3, bz) == "air"
    assert block(bot, bx + 1, Y, bz) == "stone"
    assert bot.inventory().get("red_wool") == 3


def test_break_loses_the_block(layer, make_bot):
    bot, ctx, bx, bz = builder(make_bot)
    give_items(bot, {"red_wool": 1})
    assert run(layer, ctx, f'!placeBlock("red_wool", {bx}, {Y}, {bz})').ok
    wait_until(lambda: bot.inventory().get("red_wool", 0) == 0, message="the red_wool placed")

    out = run(layer, ctx, f"Wrong spot. !breakBlock({bx}, {Y}, {bz})")
    assert out.ok and "Broke the red_wool" in out and "lost" in out, out
    assert block(bot, bx, Y, bz) == "air"
    wait_ticks(40, "a drop's pickup delay (10 ticks) to pass well")
    assert bot.inventory().get("red_wool", 0) == 0
    assert not [e for e in queries.entities(bot, 8) if e["name"] == "item"]  # nothing dropped to pick up later

    # a block out of reach: the bot walks to it first
    setblock(bot, bx + 10, Y, bz, "blue_wool")
    out = run(layer, ctx, f"!breakBlock({bx + 10}, {Y}, {bz})")
    assert out.ok and block(bot, bx + 10, Y, bz) == "air", out
    assert abs(bot.position[0] - (bx + 10)) < 6


def test_break_refusals(layer, make_bot):
    bot, ctx, bx, bz = builder(make_bot)
    out = run(layer, ctx, f"!breakBlock({bx}, {Y}, {bz})")
    assert not out.ok and f"There is no block at ({bx}, {Y}, {bz})" in out, out
    out = run(layer, ctx, f"!breakBlock({bx}, {Y - 1}, {bz})")
    assert not out.ok and "part of the ground" in out, out
    assert block(bot, bx, Y - 1, bz) == "grass_block"
    out = run(layer, ctx, f"!breakBlock({bx + 5000}, {Y}, {bz})")
    assert not out.ok and "cannot see" in out, out
    parsed = layer.parse(f"!breakBlock({bx}, 400, {bz})")  # above the world: the parameter's domain refuses it
    assert parsed.error and "y must be in [-64, 320)" in parsed.error, parsed.error


def test_check_goal_follows_the_world(layer, make_bot):
    goals = lambda bx, bz: {"0": [(bx, Y, bz, "red_wool"), (bx, Y + 1, bz, "blue_wool")],  # noqa: E731
                            "1": [(bx + 1, Y, bz, "yellow_wool")]}
    bot, ctx, bx, bz = builder(make_bot, goals)
    give_items(bot, {"red_wool": 1, "blue_wool": 1})

    out = run(layer, ctx, "Let me see. !checkGoal")
    assert out.startswith("Your goal is not complete: 0 of 2 blocks are in place.")
    assert f"- red_wool at ({bx}, {Y}, {bz})" in out and f"- blue_wool at ({bx}, {Y + 1}, {bz})" in out, out
    assert "yellow_wool" not in out  # the partner's goal is not mine

    assert run(layer, ctx, f'!placeBlock("red_wool", {bx}, {Y}, {bz})').ok
    setblock(bot, bx, Y + 1, bz, "orange_wool")
    out = run(layer, ctx, "!checkGoal")
    assert out.startswith("Your goal is not complete: 1 of 2 blocks are in place.")
    assert f"- ({bx}, {Y + 1}, {bz}) has orange_wool instead of blue_wool" in out, out
    assert "red_wool at" not in out, out

    assert run(layer, ctx, f"!breakBlock({bx}, {Y + 1}, {bz})").ok
    out = run(layer, ctx, "!checkGoal")
    assert "Missing" in out and f"- blue_wool at ({bx}, {Y + 1}, {bz})" in out, out
    assert run(layer, ctx, f'!placeBlock("blue_wool", {bx}, {Y + 1}, {bz})').ok
    assert run(layer, ctx, "!checkGoal") == "Your goal is complete: all 2 of your blocks are in place."

    # the partner's view of the same world: its own goal
    partner = AgentContext.for_bot(bot, task=ctx.task, agent_index=1)
    out = run(layer, partner, "!checkGoal")
    assert f"- yellow_wool at ({bx + 1}, {Y}, {bz})" in out and "blue_wool" not in out, out
    unknown = AgentContext.for_bot(bot, task=ctx.task)
    assert "unknown" in run(layer, unknown, "!checkGoal")


def test_check_goal_answers_are_bounded(layer, make_bot):
    goals = lambda bx, bz: {"0": [(bx + i, Y, bz + j, "red_wool") for i in range(6) for j in range(6)]}  # noqa: E731
    bot, ctx, bx, bz = builder(make_bot, goals)
    out = run(layer, ctx, "!checkGoal")
    lines = out.splitlines()
    assert lines[0] == "Your goal is not complete: 0 of 36 blocks are in place."
    assert len([line for line in lines if line.startswith("- ")]) == 20 and lines[-1] == "... and 16 more."


def test_end_task_sets_the_flag(layer, make_bot):
    bot, ctx, _, _ = builder(make_bot)
    assert not ctx.task_finished.is_set()
    out = run(layer, ctx, "We are done! !endTask")
    assert out == "You declared the task finished." and ctx.task_finished.is_set()


def test_only_agents_of_a_coblock_task_see_the_commands(make_bot, server, tmp_path):
    task = coblock_task({"0": [(0, Y, 0, "red_wool")], "1": [(1, Y, 0, "red_wool")]})
    assert blocked_outside_coblock(task) == []
    assert blocked_outside_coblock(None) == list(NAMES) == ["placeBlock", "breakBlock", "checkGoal", "endTask"]

    settings = make_settings(tmp_path)
    names = [unique_name("cob"), unique_name("cob")]
    # !checkGoal is an option of ours (`check_goal`, off in the paper's setting: the factory blocks it then)
    profiles = [dataclasses.replace(load_profile(make_profile(tmp_path, n), settings=settings), check_goal=True)
                for n in names]
    runner = AgentRunner(settings, profiles, server.host, server.port, task=task,
                         models={n: ReplayModel([]) for n in names})
    second = runner._make_agent(names[1], make_bot(exact_name=names[1]))  # how the runner builds each agent
    assert second.context.agent_index == 1 and second.context.task is task
    docs = second.commands.docs(second.context)
    assert all(f"!{name}" in docs for name in NAMES), docs
    assert run(second.commands, second.context, "!checkGoal").startswith("Your goal is not complete")

    plain = build_agent(profiles[0], make_bot(exact_name=names[0]), settings, model=ReplayModel([]))
    docs = plain.commands.docs(plain.context)
    assert "!goToPlayer" in docs and not any(f"!{name}" in docs for name in NAMES), docs
    # blueprints are offered only when building, but !help reaches them; never the coblock commands
    listed = plain.commands.run(plain.context, "help", [])
    assert "!checkBlueprint" in listed and not any(f"!{name}" in listed for name in NAMES), listed
    assert plain.context.agent_index is None
    assert "blocked" in plain.commands.run(plain.context, "checkGoal", [])
    # the whole layer, without a task filter, still lists them (the command table, `mindpy commands`)
    assert "!placeBlock" in AgentCommands(default_registry()).docs()


def test_a_cell_out_of_reach_with_no_way_up_is_placed_from_afar(layer, make_bot):
    """CoBlock has no reach limit (as in the paper): the top of an 8-block tower on open ground, which no standing
    spot reaches, is placed from where the bot stands, and the block still leaves its inventory."""
    tower = lambda bx, bz: {"0": [(bx, Y + i, bz, "red_wool") for i in range(7)] + [(bx, Y + 7, bz, "blue_wool")],  # noqa: E731
                            "1": [(bx + 1, Y, bz, "yellow_wool")]}
    bot, ctx, bx, bz = builder(make_bot, tower)
    for i in range(7):
        setblock(bot, bx, Y + i, bz, "red_wool")
    give_items(bot, {"blue_wool": 2})
    out = run(layer, ctx, f'!placeBlock("blue_wool", {bx}, {Y + 7}, {bz})')
    assert out.ok and "from where you stand" in out, out
    assert block(bot, bx, Y + 7, bz) == "blue_wool"
    wait_until(lambda: bot.inventory().get("blue_wool", 0) == 1, message="one blue_wool taken from the inventory")
    # and broken the same way
    out = run(layer, ctx, f"!breakBlock({bx}, {Y + 7}, {bz})")
    assert out.ok and block(bot, bx, Y + 7, bz) == "air", out
