"""Live task checkers against real worlds on the embedded server: target items held or not, Hell's Kitchen's dishes
each in its own agent's hands, a partly built blueprint's score, and the end of an episode (monitor, history line,
result file)."""

from __future__ import annotations

import pytest

from conftest import isolate, wait_until
from mindpy.tasks import Task
from mindpy.tasks.checkers import (
    ConstructionChecker,
    HellsKitchenChecker,
    ItemChecker,
    TaskMonitor,
    checker_for,
    end_line,
)
from mindpy.tasks.results import EpisodeRecorder, load_result


def give(bot, item: str, count: int = 1) -> None:
    before = bot.inventory().get(item, 0)
    bot.command(f"/give {bot.name} {item} {count}")
    wait_until(lambda: bot.inventory().get(item, 0) == before + count, message=f"{count} {item} given")


def take(bot, item: str, count: int = 1) -> None:
    before = bot.inventory().get(item, 0)
    bot.command(f"/clear {bot.name} {item} {count}")
    wait_until(lambda: bot.inventory().get(item, 0) == before - count, message=f"{count} {item} taken")


def emptied(*bots) -> None:
    for bot in bots:
        bot.command(f"/clear {bot.name}")
    wait_until(lambda: all(not bot.inventory() for bot in bots), message="empty inventories")


def crafting_task(target, number_of_target=None, timeout=300) -> Task:
    data = {"type": "techtree", "goal": "Craft it.", "agent_count": 2, "target": target,
            "initial_inventory": {"0": {}, "1": {}}, "timeout": timeout}
    if number_of_target is not None:
        data["number_of_target"] = number_of_target
    return Task.from_dict("checker_crafting", data)


def test_crafting_scores_1_when_one_agent_holds_every_target_and_0_when_one_is_missing(make_bot):
    bots = [make_bot("items"), make_bot("items")]
    emptied(*bots)
    checker = checker_for(crafting_task(["wooden_sword", "bread"], number_of_target={"bread": 3}))
    assert isinstance(checker, ItemChecker)
    assert checker.check(bots).score == 0

    give(bots[1], "wooden_sword")
    give(bots[1], "bread", 3)
    result = checker.check(bots)
    assert (result.score, result.done) == (1, True)

    take(bots[1], "bread")  # 2 of the 3 breads left
    assert checker.check(bots).score == 0
    give(bots[0], "bread", 3)  # agent 0 has the bread, agent 1 the sword: nobody holds everything
    assert checker.check(bots).score == 0


def test_a_cooking_target_given_as_item_counts(make_bot):
    bots = [make_bot("cookchk"), make_bot("cookchk")]
    emptied(*bots)
    task = Task.from_dict("checker_cooking", {"type": "cooking", "goal": "Cook.", "agent_count": 2,
                                              "target": {"baked_potato": 2, "cooked_beef": 1},
                                              "initial_inventory": {"0": {}, "1": {}}})
    checker = checker_for(task)
    give(bots[0], "baked_potato", 2)
    assert checker.check(bots).score == 0
    give(bots[0], "cooked_beef")
    assert checker.check(bots).score == 1


def test_hells_kitchen_needs_each_agent_to_hold_its_own_dish(make_bot):
    bots = [make_bot("hell"), make_bot("hell")]
    emptied(*bots)
    task = Task.from_dict("checker_cooking_hells_kitchen", {
        "type": "cooking", "agent_count": 2, "target": ["bread", "baked_potato"],
        "goal": {"0": "You must make bread.", "1": "You must make baked_potato."},
        "initial_inventory": {"0": {}, "1": {}}})
    checker = checker_for(task)
    assert isinstance(checker, HellsKitchenChecker)

    give(bots[1], "bread")  # agent 0's dish in agent 1's hands
    give(bots[0], "baked_potato")  # and the other way round
    result = checker.check(bots)
    assert result.score == 0 and "agent 0" in result.detail and "agent 1" in result.detail

    give(bots[0], "bread")
    result = checker.check(bots)
    assert result.score == 0 and "agent 0" not in result.detail and "baked_potato" in result.detail

    give(bots[1], "baked_potato")
    assert checker.check(bots).done
    take(bots[0], "bread")  # eaten before the end: agent 0 no longer holds its dish
    assert checker.check(bots).score == 0


def blueprint_task(x: int, y: int, z: int, timeout: float = 300) -> Task:
    """Two 3x3 levels next to (x, y, z): a full stone floor, then a ring of four stones with air around."""
    return Task.from_dict("checker_construction", {
        "type": "construction", "goal": "Build it.", "agent_count": 1, "timeout": timeout,
        "initial_inventory": {"0": {}},
        "blueprint": {"levels": [
            {"level": 0, "coordinates": [x + 2, y, z], "placement": [["stone"] * 3] * 3},
            {"level": 1, "coordinates": [x + 2, y + 1, z],
             "placement": [["air", "stone", "air"], ["stone", "air", "stone"], ["air", "stone", "air"]]},
        ]}})


def score_becomes(checker, bots, expected: float) -> float:
    wait_until(lambda: checker.check(bots).score == pytest.approx(expected), timeout=10,
               message=f"the score {expected} (now {checker.check(bots).score})")
    return checker.check(bots).score


def test_construction_scores_the_fraction_of_right_blocks(make_bot):
    bot = make_bot("blueprint")
    x, y, z = isolate(bot)
    task = blueprint_task(x, y, z)
    checker = checker_for(task)
    assert isinstance(checker, ConstructionChecker)
    assert checker.check([bot]).score == 0  # 13 cells to fill, none filled

    bot.command(f"/fill {x + 2} {y} {z} {x + 4} {y} {z + 1} stone")  # 6 of the 9 floor cells
    assert score_becomes(checker, [bot], 6 / 13) == pytest.approx(6 / 13)

    bot.command(f"/setblock {x + 2} {y + 1} {z} dirt")  # a block where the blueprint wants air: one more mismatch
    bot.command(f"/setblock {x + 2} {y} {z + 2} dirt")  # the wrong block in a stone cell: still a mismatch
    score_becomes(checker, [bot], 6 / 14)
    assert "8 wrong" in checker.check([bot]).detail

    bot.command(f"/fill {x + 2} {y} {z + 2} {x + 4} {y} {z + 2} stone")
    bot.command(f"/setblock {x + 2} {y + 1} {z} air")
    for dx, dz in ((1, 0), (0, 1), (2, 1), (1, 2)):
        bot.command(f"/setblock {x + 2 + dx} {y + 1} {z + dz} stone")
    score_becomes(checker, [bot], 1)
    assert checker.check([bot]).done


def test_a_timed_out_construction_keeps_its_score_in_the_history_and_the_result_file(make_bot, tmp_path):
    bot = make_bot("timeout")
    x, y, z = isolate(bot)
    task = blueprint_task(x, y, z, timeout=1.5)
    bot.command(f"/fill {x + 2} {y} {z} {x + 4} {y} {z + 2} stone")  # the whole floor: 9 of 13
    score_becomes(checker_for(task), [bot], 9 / 13)

    recorder = EpisodeRecorder(task, [bot.name], results_dir=tmp_path)
    history: list[tuple[str, str]] = []
    recorder.on_history(lambda agent, line: history.append((agent, line)))
    ends: list[tuple[float, str]] = []
    monitor = TaskMonitor(task, [bot], on_end=[recorder.on_end, lambda s, r: ends.append((s, r))])
    recorder.record_command(bot.name, "!placeHere")
    recorder.record_command(bot.name, "!placeHere")
    recorder.record_command(bot.name, "!checkBlueprint")
    recorder.record_message(bot.name)
    recorder.record_tokens(bot.name, 1200)
    recorder.record_tokens(bot.name, 34)

    monitor.tick()
    assert not monitor.ended  # 9/13 is not done, and time is not up
    wait_until(lambda: monitor.tick() and monitor.ended, timeout=5, message="the timeout")
    monitor.tick()  # ends only once

    assert ends == [(pytest.approx(9 / 13), "timeout")]
    assert history == [(bot.name, "Task ended with score : 0.6923")]
    result = load_result(recorder.path)
    assert result["task_id"] == "checker_construction" and result["type"] == "construction"
    assert result["score"] == pytest.approx(9 / 13) and result["end_reason"] == "timeout"
    assert 1.5 <= result["duration_s"] < 5
    assert result["agents"][bot.name] == {"commands": {"!checkBlueprint": 1, "!placeHere": 2}, "commands_used": 3,
                                          "messages_sent": 1, "tokens": 1234}


def test_the_monitor_ends_with_success_once_the_target_is_held(make_bot, tmp_path):
    bots = [make_bot("success"), make_bot("success")]
    emptied(*bots)
    task = crafting_task("stick", number_of_target=4)
    recorder = EpisodeRecorder(task, [b.name for b in bots], results_dir=tmp_path)
    monitor = TaskMonitor(task, bots, on_end=[recorder.on_end], interval=0.1)
    assert not monitor.tick().done
    give(bots[1], "stick", 4)
    wait_until(lambda: monitor.tick() and monitor.ended, timeout=5, message="success")
    assert (monitor.reason, monitor.score) == ("success", 1)
    result = load_result(recorder.path)
    assert (result["score"], result["end_reason"], result["error"]) == (1, "success", None)
    assert set(result["agents"]) == {b.name for b in bots}


def test_an_error_ends_the_episode_with_the_last_score(make_bot, tmp_path):
    bot = make_bot("error")
    emptied(bot)
    task = crafting_task("stick")
    recorder = EpisodeRecorder(task, [bot.name], results_dir=tmp_path)
    monitor = TaskMonitor(task, [bot], on_end=[recorder.on_end])
    monitor.tick()
    recorder.record_error("the model API failed")
    monitor.fail("the model API failed")
    monitor.fail("again")  # ignored: the episode has ended
    result = load_result(recorder.path)
    assert (result["score"], result["end_reason"], result["error"]) == (0, "error", "the model API failed")
    assert end_line(0.5) == "Task ended with score : 0.5" and end_line(1.0) == "Task ended with score : 1"
