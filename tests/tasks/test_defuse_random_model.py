"""The `random` model: the paper's random baseline team played from the prompts, as any model plays; seeded by the
task, the trial and the agent; refused outside defuse tasks."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

from mindpy.models import create_model
from mindpy.models.base import ModelError
from mindpy.models.registry import parse_model_spec
from mindpy.tasks.families.defuse.play import TeamPlay, defuse_game, tell_models
from mindpy.tasks.families.defuse.random_model import RandomModel
from mindpy.tasks.loader import read_task_file

TASKS = read_task_file(Path(__file__).resolve().parents[2] / "tasks" / "defuse_test.json")
NAMES = ["a", "b", "c"]
ANY_ACTION = re.compile(r'^(!goToRoom\(\d\)|!inspectBomb|!applyTool\("(red|green|blue)"\))$')


def random_play(task_id: str, trial: int, model: str = "random") -> TeamPlay:
    task = TASKS.task(task_id)
    game = defuse_game(task)
    goals = [task.goal_for(i) for i in range(game.agent_count)]
    models = [create_model(model) for _ in goals]
    tell_models(models, task, NAMES, trial)
    play = TeamPlay(game, models, goals, names=NAMES)
    play.run()
    return play


def test_the_random_model_is_named_like_the_other_scripted_ones():
    assert isinstance(create_model("random"), RandomModel) and create_model("random:7").seed == 7
    assert parse_model_spec("random:3").api == "random"
    with pytest.raises(ValueError, match="seed is a whole number"):
        parse_model_spec("random:x")


def test_it_draws_from_the_papers_whole_action_space_and_the_game_refuses_what_is_not_allowed():
    play = random_play("defuse_0", 0)
    replies = [turn.reply for turn in play.turns]
    assert all(ANY_ACTION.match(r) for r in replies) and len(replies) == 90
    # 5 rooms, inspect and 3 colours: every one of the 9 comes up, and some are refused
    assert len(set(replies)) == 9
    assert 0 < play.game.valid_rate() < 1 and play.game.rounds_used == 30


def test_trials_differ_and_reruns_repeat():
    first, again, other = (random_play("defuse_1", t) for t in (0, 0, 1))
    assert [t.reply for t in first.turns] == [t.reply for t in again.turns]
    assert [t.reply for t in first.turns] != [t.reply for t in other.turns]
    agents = {turn.agent: [] for turn in first.turns}
    for turn in first.turns:
        agents[turn.agent].append(turn.reply)
    assert agents[0] != agents[1]   # each agent draws its own


def test_its_team_scores_in_the_papers_band_on_the_test_tasks():
    points = [random_play(task_id, 0).game.score for task_id in sorted(TASKS.tasks)]
    # Table 1: Random 38 +- 14.7 (one trial of the 30 tasks here; the README gives 3)
    assert 38 - 14.7 <= statistics.fmean(points) <= 38 + 14.7


def test_it_plays_defuse_tasks_only():
    with pytest.raises(ModelError, match="defuse tasks only"):
        create_model("random").send([{"role": "user", "content": "Collect 3 oak logs."}], "You are andy.")
