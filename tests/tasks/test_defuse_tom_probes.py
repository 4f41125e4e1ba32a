"""Theory-of-mind probes during play: the fact each action concerns, the three questions about it with the
tracker's answers, reading yes or no from free text, and scoring per level."""

from __future__ import annotations

import random

import pytest
from test_defuse_game import hand_layout, round_of

from mindpy.tasks.families.defuse.game import Action, DefuseGame
from mindpy.tasks.families.defuse.knowledge import LEVELS, bomb_sequence, bomb_state, room_contents
from mindpy.tasks.families.defuse.tom_probes import ProbeScore, probes_after, read_yes_no

ALPHA, BRAVO, CHARLIE = 0, 1, 2


def test_each_kind_of_action_concerns_its_fact_and_a_wait_or_a_refusal_none():
    game = DefuseGame(hand_layout())
    round_of(game, Action.move(1), Action.inspect(4), Action.apply("red", 4))
    assert game.concerned == {ALPHA: room_contents(1), BRAVO: bomb_sequence(4), CHARLIE: bomb_state(4)}
    round_of(game, Action.wait(), Action.apply("red", 1), Action.move(3))  # Bravo is not in room 1: refused
    assert game.concerned == {CHARLIE: room_contents(3)}


def test_the_three_questions_carry_the_trackers_answers():
    game = DefuseGame(hand_layout())
    # Bravo inspects bomb 4 in the hub, alone in knowing its sequence; Alpha and Charlie leave the hub.
    round_of(game, Action.move(1), Action.inspect(4), Action.move(3))
    probes = probes_after(game, BRAVO, random.Random(3))
    assert [p.level for p in probes] == list(LEVELS) and {p.fact for p in probes} == {bomb_sequence(4)}
    target = probes[1].target
    assert target in (ALPHA, CHARLIE) and probes[2].target == target and probes[0].target is None
    # introspection: Bravo inspected it; first order: the teammate did not; second order: the teammate cannot
    # tell that Bravo knows (an inspection is private)
    assert [p.answer for p in probes] == [True, False, False]
    assert "Do you know the sequence of bomb 4?" == probes[0].question
    assert game.name(target) in probes[1].question and game.name(target) in probes[2].question
    # once Bravo tells the team, the teammate knows and knows that Bravo knows
    round_of(game, Action.wait(), Action.wait("Bomb 4 sequence: red, green"), Action.wait())
    game.concerned[BRAVO] = bomb_sequence(4)  # ask about the same fact again
    again = probes_after(game, BRAVO, random.Random(3))
    assert [p.answer for p in again] == [True, True, True]


def test_no_probe_after_a_wait_or_without_a_teammate():
    game = DefuseGame(hand_layout())
    round_of(game, Action.wait(), Action.wait(), Action.wait())
    assert probes_after(game, ALPHA, random.Random(0)) == []


def test_teammates_are_drawn_with_the_seed():
    def targets(seed):
        game = DefuseGame(hand_layout())
        round_of(game, Action.move(1), Action.move(2), Action.move(3))
        rng = random.Random(seed)
        return [probes_after(game, agent, rng)[1].target for agent in (ALPHA, BRAVO, CHARLIE)]
    assert targets(5) == targets(5)
    assert len({tuple(targets(s)) for s in range(10)}) > 1


@pytest.mark.parametrize("reply, said", [
    ("Yes.", True), ("no", False), ("Answer: No", False), ("**Yes**, I saw it", True), ("True", True),
    ("I think the answer is yes: I was there", True), ("Answer: false - Bravo left", False),
    ("No, but yes it was there before", False),           # the first word decides
    ("Well, yes... Answer: no", False),                    # a labelled answer beats an earlier word
    ("I cannot say.", None), ("", None), ("Yesterday I knew", None), ("nobody knows", None),
])
def test_yes_or_no_is_read_from_free_text(reply, said):
    assert read_yes_no(reply) is said


def test_accuracy_counts_unanswered_as_wrong_and_merges_over_episodes():
    game = DefuseGame(hand_layout())
    round_of(game, Action.move(1), Action.inspect(4), Action.move(3))
    probes = probes_after(game, BRAVO, random.Random(3))   # answers: yes, no, no
    score = ProbeScore()
    assert [score.add(p, r) for p, r in zip(probes, ["Yes", "Yes", "I cannot say"], strict=True)] == [True, True, None]
    summary = score.summary()
    assert summary["introspection"] == {"asked": 1, "answered": 1, "correct": 1, "yes": 1, "accuracy": 1.0,
                                        "yes_share": 1.0}
    assert summary["first_order"]["correct"] == 0 and summary["second_order"]["answered"] == 0
    merged = ProbeScore.merge([summary, summary]).summary()
    assert merged["introspection"]["asked"] == 2 and merged["first_order"]["yes_share"] == 0.0
    assert ProbeScore().summary()["second_order"]["accuracy"] is None  # nothing asked: no accuracy, not 0
