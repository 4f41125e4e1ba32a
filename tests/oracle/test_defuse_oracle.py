"""Scripted defuse teams in the pure game: the oracle clears every test task within 12 rounds from what its agents
see and tell each other; random play stays far below."""

from __future__ import annotations

import statistics

import pytest

from mindpy.tasks.families.defuse.game import DefuseGame
from mindpy.tasks.families.defuse.generator import generate
from mindpy.tasks.families.defuse.oracle import Beliefs, OracleAgent, play, random_policy, random_team
from mindpy.tasks.families.defuse.oracle import oracle_team as make_oracle_team

TASKS = generate("test")


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_oracle_defuses_everything_within_twelve_rounds(task_id):
    game = DefuseGame.from_task(TASKS[task_id])
    result = play(game, make_oracle_team(game))
    assert result.score == 90
    assert result.rounds <= 12
    assert result.valid_rate == 1.0


def test_oracle_also_survives_exploding_bombs():
    # It never guesses a colour, so the stricter rule costs it nothing.
    for task in list(TASKS.values())[:10]:
        game = DefuseGame.from_task(task, wrong_cutter_explodes=True)
        assert play(game, make_oracle_team(game)).score == 90


def test_oracle_agents_only_know_the_public_map():
    game = DefuseGame.from_task(TASKS["defuse_0"])
    team = make_oracle_team(game)
    agents = [policy.__self__ for policy in team]   # type: ignore[attr-defined]
    assert all(isinstance(a, OracleAgent) and a.beliefs.contents == {} for a in agents)
    first = team[0](game.observation(0))
    # after one look, Alpha believes only what its own room shows
    alpha = agents[0]
    assert set(alpha.beliefs.contents) == {game.rooms[0]}
    assert "Room" in first


def test_oracle_shares_what_it_learns():
    game = DefuseGame.from_task(TASKS["defuse_0"])
    team = make_oracle_team(game)
    reply = team[0](game.observation(0))
    here = game.rooms[0]
    assert f"Room {here}: " in reply   # its room's contents go to the team at once
    listening = Beliefs()
    listening.read_message("Room 2: bombs 1, 4. Bomb 1: red, blue. Bomb 4: defused. Inspecting bomb 3.")
    assert listening.contents == {2: {1, 4}}
    assert listening.remaining == {1: ("red", "blue"), 4: ()}
    assert listening.claimed == {3}


def test_random_baseline_is_far_below_the_oracle():
    scores, rounds = [], []
    for task in TASKS.values():
        game = DefuseGame.from_task(task)
        result = play(game, random_team(game, seed=1))
        scores.append(result.score)
        rounds.append(result.rounds)
    # Even choosing only legal actions (so never a wrong colour), random play rarely finishes in 30 rounds.
    assert statistics.mean(scores) < 80
    assert statistics.mean(rounds) > 25
    # Over the paper's whole action space, with exploding bombs, it does far worse (the paper reports 38).
    paper_like = []
    for task in TASKS.values():
        game = DefuseGame.from_task(task, wrong_cutter_explodes=True)
        paper_like.append(play(game, random_team(game, seed=1, whole_space=True)).score)
    assert statistics.mean(paper_like) < 38


def test_random_policy_is_seeded_and_legal():
    task = TASKS["defuse_3"]
    results = []
    for _ in range(2):
        game = DefuseGame.from_task(task)
        results.append(play(game, random_team(game, seed=7)))
    assert results[0] == results[1] and results[0].valid_rate == 1.0
    game = DefuseGame.from_task(task)
    other = play(game, [random_policy(game, a, seed=8) for a in range(3)])
    assert other.valid_rate == 1.0


def test_play_needs_one_policy_per_agent():
    game = DefuseGame.from_task(TASKS["defuse_0"])
    with pytest.raises(ValueError, match="one per agent"):
        play(game, make_oracle_team(game)[:2])
