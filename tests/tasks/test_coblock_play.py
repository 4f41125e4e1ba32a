"""Playing CoBlock tasks: the checker on a real site (built with /setblock on the embedded server, read by real bots),
an agent ending the task, the site bound of !placeBlock, and the coblock fields of result.json and of the eval
summary (unit-level: a recorder fed events). The world set-up itself is tested in test_tasks_world.py."""

from __future__ import annotations

import json

import pytest

from conftest import REPO_ROOT, wait_for_chunks, wait_until
from conftest import run_command as run
from mindpy.commands import AgentContext
from mindpy.harness.evaluate import Episode, Evaluation, coblock_line, summarize
from mindpy.tasks import Task, load_tasks
from mindpy.tasks.checkers import ENDED, SUCCESS, TaskMonitor, checker_for
from mindpy.tasks.families.coblock.checker import CoblockChecker
from mindpy.tasks.families.coblock.fields import CoblockFields
from mindpy.tasks.families.coblock.results import coblock_gamma
from mindpy.tasks.families.coblock.site import SITE_MARGIN, in_site, site_box, structure_cells
from mindpy.tasks.records import EpisodeResult
from mindpy.tasks.results import EpisodeRecorder, load_result
from mindpy.tasks.world import issue_via_server, set_up_task
from mindpy.world.queries import block_at

COBLOCK_FILE = REPO_ROOT / "tasks" / "coblock_test.json"


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return load_tasks(COBLOCK_FILE)


def set_up(server, make_bot, task: Task) -> list:
    """Two agents on the task's emptied site, as an episode starts."""
    bots = [make_bot("cob"), make_bot("cob")]
    set_up_task(task, bots, issue_via_server(server))
    for bot in bots:
        wait_for_chunks(bot)  # the site and around it: tests read cells just outside it too
    return bots


def setblocks(server, cells: dict) -> None:
    for (x, y, z), name in cells.items():
        server.command(f"setblock {x} {y} {z} {name}")


def block_name(bot, pos) -> str | None:
    found = block_at(bot, *pos)
    return found and found["name"]


def score_becomes(checker, bots, expected: float):
    """The check once the world has reached the expected score (the server applies /setblock in its own time)."""
    return wait_until(lambda: (r := checker.check(bots)).score == pytest.approx(expected) and r, timeout=15,
                      message=f"the score {expected} (now {checker.check(bots)})")


def bottom_up(cells: dict) -> list:
    return sorted(cells, key=lambda pos: (pos[1], pos[0], pos[2]))


# ----- the site -----
def test_the_site_is_the_blueprint_grid_with_a_margin(tasks):
    task = tasks["coblock_independent_4"]
    (x0, y0, z0), (x1, y1, z1) = task.blueprint.bounds()
    assert site_box(task) == (x0 - SITE_MARGIN, y0, z0 - SITE_MARGIN, x1 + SITE_MARGIN, y1 + SITE_MARGIN,
                              z1 + SITE_MARGIN)
    assert y0 == -60  # the ground layer; the superflat ground (y = -61) is not part of the site
    g = structure_cells(task)
    assert g == {(x, y, z): b for goal in task.fields.private_goals.values() for x, y, z, b in goal}
    assert len(g) == sum(task.blueprint.block_counts().values())
    assert all(in_site(task, *cell) for cell in g)
    assert not in_site(task, x0 - SITE_MARGIN - 1, y0, z0) and not in_site(task, x0, y0 - 1, z0)
    assert in_site(task, x1 + SITE_MARGIN, y1 + SITE_MARGIN, z1 + SITE_MARGIN)
    assert not in_site(task, x1, y1 + SITE_MARGIN + 1, z1)


# ----- the checker -----
def test_the_checker_wants_exactly_the_structure_and_scores_built_minus_extra(server, make_bot, tasks):
    task = tasks["coblock_goal_dependent_1"]
    bots = set_up(server, make_bot, task)
    checker = checker_for(task)
    assert isinstance(checker, CoblockChecker)
    g = structure_cells(task)
    n = len(g)
    x0, y0, z0, x1, y1, z1 = site_box(task)
    first = checker.check(bots)
    assert (first.score, first.done, first.detail) == (0, False, f"0/{n} blocks of the structure built, 0 extra")

    *lower, top = bottom_up(g)
    setblocks(server, {pos: g[pos] for pos in lower})
    missing_one = score_becomes(checker, bots, (n - 1) / n)
    assert not missing_one.done and missing_one.detail == f"{n - 1}/{n} blocks of the structure built, 0 extra"

    setblocks(server, {top: g[top]})
    complete = score_becomes(checker, bots, 1)
    assert complete.done and complete.detail == f"{n}/{n} blocks of the structure built, 0 extra"

    corner = (x0, y0, z0)  # a cell of the site that G leaves empty
    assert corner not in g
    setblocks(server, {corner: "stone"})
    extra = score_becomes(checker, bots, (n - 1) / n)
    assert not extra.done and extra.detail == f"{n}/{n} blocks of the structure built, 1 extra"

    outside = (x1 + 1, y0, z1)  # just outside the site: not the checker's business
    setblocks(server, {corner: "air", outside: "stone"})
    wait_until(lambda: block_name(bots[0], outside) == "stone" and block_name(bots[0], corner) == "air",
               timeout=15, message="the extra block moved out of the site")
    assert checker.check(bots).done
    server.command(f"setblock {outside[0]} {outside[1]} {outside[2]} air")

    setblocks(server, {top: "white_wool"})  # the wrong colour in a cell of G: not built, and an extra
    wrong = score_becomes(checker, bots, (n - 2) / n)
    assert not wrong.done and wrong.detail == f"{n - 1}/{n} blocks of the structure built, 1 extra"


def test_the_score_never_drops_below_zero():
    task = Task(id="t", type="coblock", agent_count=2, goal="Build.",
                fields=CoblockFields(private_goals={"0": [(0, -60, 0, "red_wool")], "1": []}))
    checker = CoblockChecker(task)
    world = {(1, -60, 0): "stone", (2, -60, 0): "stone"}
    result = checker.check_blocks(lambda x, y, z: world.get((x, y, z), "air"))
    assert (result.score, result.done, result.detail) == (0, False, "0/1 blocks of the structure built, 2 extra")
    unseen = checker.check_blocks(lambda x, y, z: "red_wool" if (x, y, z) == (0, -60, 0) else None)
    assert unseen.score == 1 and not unseen.done and "not seen" in unseen.detail  # an unseen site is not done


# ----- an agent ends the task -----
def test_an_agent_ends_the_task_with_the_score_so_far_or_success(server, make_bot, tasks, tmp_path):
    task = tasks["coblock_independent_1"]
    bots = set_up(server, make_bot, task)
    names = [b.name for b in bots]
    g = structure_cells(task)
    n = len(g)
    half = bottom_up(g)[: n // 2]
    setblocks(server, {pos: g[pos] for pos in half})
    score_becomes(checker_for(task), bots, len(half) / n)

    recorder = EpisodeRecorder(task, names, results_dir=tmp_path)
    ends: list[tuple[float, str]] = []
    monitor = TaskMonitor(task, bots, on_end=[recorder.on_end, lambda s, r: ends.append((s, r))])
    assert not monitor.tick().done and not monitor.ended
    result = monitor.end_by_agent(names[1])
    assert not result.done and monitor.ended and (monitor.reason, monitor.ended_by) == (ENDED, names[1])
    assert ends == [(pytest.approx(len(half) / n), "ended")]
    monitor.end_by_agent(names[0])  # the episode has ended: nothing changes
    monitor.tick()
    assert ends == [(pytest.approx(len(half) / n), "ended")] and monitor.ended_by == names[1]
    saved = load_result(recorder.path)
    assert saved["end_reason"] == "ended" and saved["score"] == pytest.approx(len(half) / n)

    setblocks(server, g)
    score_becomes(checker_for(task), bots, 1)
    done: list[tuple[float, str]] = []
    monitor = TaskMonitor(task, bots, on_end=[lambda s, r: done.append((s, r))])
    assert monitor.end_by_agent(names[0]).done
    assert done == [(1, SUCCESS)] and monitor.reason == SUCCESS


# ----- the site bound of !placeBlock -----
def test_place_block_refuses_a_cell_outside_the_site(server, make_bot, tasks, layer):
    task = tasks["coblock_independent_0"]
    bots = set_up(server, make_bot, task)
    bot = bots[0]
    ctx = AgentContext.for_bot(bot, task=task, agent_index=0)
    x0, y0, z0, x1, y1, z1 = site_box(task)
    held = dict(bot.inventory())
    colour = sorted(held)[0]
    bounds = f"x {x0}..{x1}, y {y0}..{y1}, z {z0}..{z1}"
    assert block_name(bot, (x1 + 1, y0, z1)) == "air"  # seen, empty, on the ground: placeable but for the bound
    for cell in ((x1 + 1, y0, z1), (x0, y0, z0 - 1), (x0 + 3, y1 + 1, z0 + 3)):
        out = run(layer, ctx, f'!placeBlock("{colour}", {cell[0]}, {cell[1]}, {cell[2]})')
        assert not out.ok and out == (f"({cell[0]}, {cell[1]}, {cell[2]}) is outside the construction site "
                                      f"({bounds}): place the structure's blocks inside it."), out
    assert block_name(bot, (x1 + 1, y0, z1)) == "air" and bot.inventory() == held

    x, y, z, block = next(b for b in task.fields.private_goals["0"] if b[1] == y0)  # a goal block on the ground, inside
    out = run(layer, ctx, f'!placeBlock("{block}", {x}, {y}, {z})')
    assert out.ok and block_name(bot, (x, y, z)) == block, out
    wait_until(lambda: bot.inventory().get(block, 0) == held[block] - 1, message=f"one {block} used")


# ----- result.json -----
def small_task(inventories: dict, agent_count: int = 2, human_count: int = 0) -> Task:
    """G = red, blue, blue in a row; agent 0's goal is red and one blue, agent 1's the other blue."""
    return Task.from_dict("coblock_small", {
        "type": "coblock", "coblock_type": "skill_dependent", "agent_count": agent_count,
        "human_count": human_count, "goal": {"0": "Build.", "1": "Build."},
        "blueprint": {"levels": [{"level": 0, "coordinates": [0, -60, 0],
                                  "placement": [["red_wool", "blue_wool", "blue_wool"]]}]},
        "private_goals": {"0": [[0, -60, 0, "red_wool"], [1, -60, 0, "blue_wool"]], "1": [[2, -60, 0, "blue_wool"]]},
        "initial_inventory": inventories})


SHARED_BLUE = {"0": {"red_wool": 1, "blue_wool": 1}, "1": {"blue_wool": 1}}  # optimal split (2, 1)


def test_result_counts_successful_and_refused_actions_gamma_and_rounds(tmp_path):
    recorder = EpisodeRecorder(small_task(SHARED_BLUE), ["andy", "jill"], results_dir=tmp_path)
    for agent, command, times in (("andy", "!placeBlock", 3), ("andy", "!breakBlock", 1), ("andy", "!checkGoal", 1),
                                  ("jill", "!placeBlock", 1), ("jill", "!breakBlock", 1), ("jill", "!wait", 2),
                                  ("andy", "!endTask", 1)):
        for _ in range(times):
            recorder.record_command(agent, command)
    recorder.record_failed_command("andy", "!placeBlock")
    recorder.record_failed_command("jill", "breakBlock")  # with or without the '!'
    recorder.record_message("andy")
    recorder.record_message("andy")
    recorder.record_message("jill")
    recorder.record_round(2)
    recorder.record_round(3)
    recorder.on_end(0.5, "ended")

    saved = load_result(recorder.path)
    # the paper's timesteps: 4 successful places and breaks, 3 messages, 2 waits and an end; !checkGoal is none
    assert {k: saved[k] for k in ("timesteps", "build_actions", "refused_actions", "messages", "placed_by_agent",
                                  "broken_by_agent", "gamma", "gamma_note", "rounds", "end_reason")} == {
        "timesteps": 10, "build_actions": 4, "refused_actions": 2, "messages": 3, "placed_by_agent": {"andy": 2, "jill": 1},
        "broken_by_agent": {"andy": 1, "jill": 0}, "gamma": 0.5, "gamma_note": None, "rounds": 3,
        "end_reason": "ended"}
    assert saved["agents"]["andy"]["commands"] == {"!breakBlock": 1, "!checkGoal": 1, "!endTask": 1, "!placeBlock": 3}
    assert saved["agents"]["andy"]["commands_failed"] == {"placeBlock": 1}
    assert saved["agents"]["jill"]["commands_failed"] == {"breakBlock": 1}


@pytest.mark.parametrize("placed, gamma, note", [
    ((2, 1), 0.5, None),                              # the optimal split (2, 1)
    ((1, 2), 0.5 * 2 / (0.25 + 4), None),             # a = 1 * 1 / 2, b = 2
    ((3, 0), 0.0, None),                              # agent 1 did nothing
    ((0, 0), 0.0, "nobody placed a block"),
])
def test_gamma_against_the_optimal_split(placed, gamma, note):
    assert coblock_gamma(small_task(SHARED_BLUE), placed) == (pytest.approx(gamma), note)


def test_an_undefined_gamma_is_null_in_json_with_the_reason(tmp_path):
    task = small_task({"0": {"white_wool": 1}, "1": {"red_wool": 1, "blue_wool": 2}})  # N_a* = 0
    recorder = EpisodeRecorder(task, ["andy", "jill"], results_dir=tmp_path)
    recorder.record_command("jill", "!placeBlock")
    recorder.on_end(0.0, "timeout")
    text = recorder.path.read_text()
    assert '"gamma": null' in text and "NaN" not in text
    saved = json.loads(text)
    assert saved["gamma_note"].startswith("N_a* = 0") and saved["rounds"] is None
    assert saved["placed_by_agent"] == {"andy": 0, "jill": 1} and saved["timesteps"] == 1

    human = small_task(SHARED_BLUE, agent_count=1, human_count=1)  # a human partner's placements are not recorded
    gamma, why = coblock_gamma(human, [2])
    assert gamma is None and "human" in why


def test_other_families_results_are_unchanged(tmp_path):
    task = Task.from_dict("stick", {"type": "techtree", "goal": "Craft a stick.", "agent_count": 1,
                                    "target": "stick", "initial_inventory": {"0": {}}})
    recorder = EpisodeRecorder(task, ["andy"])
    recorder.record_command("andy", "!craftRecipe")
    recorder.record_failed_command("andy", "!craftRecipe")
    result = recorder.on_end(1.0, "success")
    assert set(result) == {"task_id", "type", "score", "end_reason", "error", "started_at", "duration_s",
                           "timeout_s", "agents"}
    played_in_rounds = EpisodeRecorder(task, ["andy"])
    played_in_rounds.record_round(3)
    assert played_in_rounds.on_end(0.0, "round_limit")["rounds"] == 3  # any family played in rounds says so
    assert result["agents"]["andy"] == {"commands": {"!craftRecipe": 1}, "commands_used": 1, "messages_sent": 0,
                                        "tokens": 0}


# ----- the eval summary -----
def test_the_eval_summary_gives_coblock_means(tmp_path):
    evaluation = Evaluation([], out=tmp_path)
    results = [{"task_id": "a", "score": 1.0, "end_reason": "success", "timesteps": 20, "gamma": 0.5, "rounds": 12},
               {"task_id": "b", "score": 0.25, "end_reason": "ended", "timesteps": 9, "gamma": None, "rounds": None},
               {"task_id": "c", "score": 0.5, "end_reason": "timeout", "timesteps": 31, "gamma": 0.3, "rounds": 20}]
    rows = [evaluation._row(Episode("f.json", r["task_id"], "coblock", 2, tmp_path / r["task_id"]), EpisodeResult.from_dict(r),
                            attempts=1)
            for r in results]
    rows.append(evaluation._row(Episode("f.json", "craft", "crafting", 1, tmp_path / "craft"),
                                EpisodeResult.from_dict({"task_id": "craft", "score": 1.0, "end_reason": "success"}),
                                attempts=1))
    assert rows[1]["gamma"] == "" and rows[3]["timesteps"] == ""  # blank in results.csv
    summary = summarize(rows)
    assert summary["coblock"] == {"episodes": 3, "mean_gamma": pytest.approx(0.4), "episodes_with_gamma": 2,
                                  "mean_timesteps": pytest.approx(20), "mean_rounds": pytest.approx(16),
                                  "episodes_in_rounds": 2, "settings": None}  # no result.json kept settings
    # the settings each episode's result.json recorded, merged ("mixed" where episodes differ)
    for n, task_id in enumerate("abc"):
        (tmp_path / task_id).mkdir()
        (tmp_path / task_id / "result.json").write_text(json.dumps({"coblock_settings": {
            "partner_modelling": False, "reflection": n == 1, "check_goal": False}}))
    assert summarize(rows)["coblock"]["settings"] == {"partner_modelling": False, "reflection": "mixed",
                                                      "check_goal": False}
    assert summary["by_family"]["coblock"]["success_rate"] == pytest.approx(1 / 3)
    assert coblock_line(summary) == ("coblock: 3 episodes, mean gamma 0.400 (over 2), mean timesteps 20.0, "
                                     "mean rounds 16.0 (over 2)")
    assert summarize(rows[3:])["coblock"] is None and coblock_line(summarize(rows[3:])) is None


def test_an_episode_counts_the_message_a_conversation_opens_with(tmp_path):
    """!startConversation sends its message itself; the echo in chat ("(To jill) ...") is not counted again, and
    the replies inside the conversation ("to bot") are."""
    from mindpy.harness.episode import _EpisodeHooks

    task = Task.from_dict("t", {"type": "techtree", "goal": "Craft a stick.", "agent_count": 2, "target": "stick",
                                "initial_inventory": {"0": {}, "1": {}}})
    hooks = _EpisodeHooks(tmp_path)
    hooks.recorder = EpisodeRecorder(task, ["andy", "jill"])
    on_event = hooks.event_hooks("andy")[0]
    on_event("command", "!startConversation('jill', 'I need a stick.')")
    on_event("said", "(To jill) I need a stick.")
    on_event("to bot", "(to jill) Thanks!")
    result = hooks.recorder.on_end(0.0, "timeout")
    assert result["agents"]["andy"]["messages_sent"] == 2
