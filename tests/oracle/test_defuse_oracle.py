"""Scripted defuse teams in the pure game: the oracle clears every test task within 12 rounds from what its agents
see and tell each other; the paper's random team lands in the paper's band; a deadlock ends a game."""

from __future__ import annotations

import statistics

import pytest

from mindpy.tasks.families.defuse.deadlock import DEADLOCK_ROUNDS, RepeatWatch
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
    # every reply is legal; its waits are no action, so they count against the paper's valid-action rate
    assert all(v.valid + v.idle == v.replies for v in game.validity)
    assert result.valid_rate == sum(v.valid for v in game.validity) / sum(v.replies for v in game.validity)


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


def test_the_papers_random_team_scores_in_the_papers_band_and_never_finishes():
    scores, rounds = [], []
    for task in TASKS.values():
        for trial in range(3):
            game = DefuseGame.from_task(task)
            result = play(game, random_team(game, seed=trial))
            scores.append(result.score)
            rounds.append(result.rounds)
    # Table 1: Random 38 +- 14.7 in 30.0 rounds; uniform over the n + m + 1 actions lands within one deviation
    assert 38 - 14.7 <= statistics.mean(scores) <= 38 + 14.7
    assert statistics.mean(rounds) == 30
    # choosing among legal actions only (ours) is a far stronger baseline, wrong cutters exploding a far weaker
    legal, exploding = [], []
    for task in TASKS.values():
        game = DefuseGame.from_task(task)
        legal.append(play(game, random_team(game, seed=1, legal_only=True)).score)
        game = DefuseGame.from_task(task, wrong_cutter_explodes=True)
        exploding.append(play(game, random_team(game, seed=1)).score)
    assert statistics.mean(legal) > 38 + 14.7 > 38 - 14.7 > statistics.mean(exploding)


def test_random_policy_is_seeded_and_its_legal_variant_legal():
    task = TASKS["defuse_3"]
    results = []
    for _ in range(2):
        game = DefuseGame.from_task(task)
        results.append(play(game, random_team(game, seed=7)))
    assert results[0] == results[1] and results[0].valid_rate < 1.0
    game = DefuseGame.from_task(task)
    play(game, [random_policy(game, a, seed=8, legal_only=True) for a in range(3)])
    assert all(v.valid + v.idle == v.replies for v in game.validity)


def test_a_team_repeating_its_replies_ends_in_a_deadlock():
    game = DefuseGame.from_task(TASKS["defuse_0"])
    here = game.rooms[0]
    stuck = [lambda obs: f"Move to Room {here}"] + [lambda obs: "Wait"] * 2   # Alpha cannot move to its own room
    result = play(game, stuck)
    assert game.stopped == "deadlock" and result.rounds == DEADLOCK_ROUNDS and result.valid_rate == 0.0
    # one agent saying something new each round keeps the game going to its round limit
    game = DefuseGame.from_task(TASKS["defuse_0"])
    talking = [lambda obs: f'Wait. Message to Team: "round {obs.round_no}"'] + [lambda obs: "Wait"] * 2
    assert play(game, talking).rounds == 30 and game.stopped is None
    # without the rule (deadlock_rounds 0) the stuck team plays on too
    game = DefuseGame.from_task(TASKS["defuse_0"])
    assert play(game, stuck, deadlock_rounds=0).rounds == 30


def test_the_deadlock_watch_counts_whole_rounds_of_the_same_replies():
    watch = RepeatWatch(agents=2, rounds=3)
    for replies in (["a", "b"], ["a", "b "], ["a", "c"], ["a", "c"]):
        for agent, reply in enumerate(replies):
            watch.see(agent, reply)
        assert not watch.end_round()
    for agent, reply in enumerate(["a", "c"]):
        watch.see(agent, reply)
    assert watch.end_round() and watch.streak == 3
    with pytest.raises(ValueError, match="at least 2"):
        RepeatWatch(agents=2, rounds=1)


def test_play_needs_one_policy_per_agent():
    game = DefuseGame.from_task(TASKS["defuse_0"])
    with pytest.raises(ValueError, match="one per agent"):
        play(game, make_oracle_team(game)[:2])
