"""A task's human players (`human_count`, `usernames`): a player who comes online under a reserved name gets that
slot's inventory and goal, and the checker counts what they hold."""

from __future__ import annotations

import threading

import pytest

from conftest import unique_name, wait_until
from mindpy.harness.episode import run_episode
from mindpy.harness.session import agent_names
from mindpy.models.replay import ReplayModel
from mindpy.tasks.schema import Task

pytestmark = pytest.mark.slow  # a whole episode


def whispers_to(bot) -> list[str]:
    heard: list[str] = []
    bot.on("messagestr", lambda text, *rest: heard.append(str(text)))
    return heard


def test_reserved_players_get_their_slot_and_their_items_count(server, make_bot, tmp_path):
    early, late = unique_name("early"), unique_name("late")
    task = Task.from_dict("humans_hold_the_sticks", {
        "type": "techtree", "agent_count": 1, "human_count": 2, "usernames": [early, late],
        "goal": {"0": "Make sure the team holds 2 sticks.", "1": "Hand your planks to andy.",
                 "2": "Keep the sticks until the end."},
        "initial_inventory": {"0": {}, "1": {"oak_planks": 3}, "2": {"stick": 2}},
        "target": "stick", "number_of_target": 2, "timeout": 90})
    (agent,) = agent_names(task)
    first = make_bot(exact_name=early)  # online before the episode starts
    first_heard = whispers_to(first)
    result: dict = {}

    def play() -> None:
        result.update(run_episode(task, tmp_path / "run", server=f"{server.host}:{server.port}",
                                  models={agent: ReplayModel([], default="I'll wait here.")}))

    episode = threading.Thread(target=play, daemon=True)
    episode.start()
    wait_until(lambda: any("Your goal: Hand your planks to andy." in t for t in first_heard), timeout=60,
               message="the first human's goal whispered to them")
    wait_until(lambda: first.inventory() == {"oak_planks": 3}, timeout=10, message="the first human's items")
    assert result == {}, "holding planks does not finish the task"

    # joins while the episode runs; holds the target once served. Its goal is whispered by the same code as the
    # first human's, checked above: a listener can only be added once the bot has joined, and the server may
    # serve it before that (the goal would be missed by the test, not by the player)
    second = make_bot(exact_name=late)
    episode.join(timeout=90)
    assert not episode.is_alive(), "the episode did not end"
    assert result["end_reason"] == "success" and result["score"] == 1.0, result
    assert second.inventory() == {"stick": 2}
