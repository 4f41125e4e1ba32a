"""Theory-of-mind probes during play: the fact each action concerns, the balanced questions about it (per level a
yes and a no, with the tracker's answers), reading yes or no from free text, and scoring per level."""

from __future__ import annotations

import random

import pytest
from test_defuse_game import hand_layout, round_of

from mindpy.tasks.families.defuse.game import Action, DefuseGame
from mindpy.tasks.families.defuse.knowledge import bomb_sequence, bomb_state, room_contents
from mindpy.tasks.families.defuse.tom_probes import ProbeScore, probes_after, read_yes_no

ALPHA, BRAVO, CHARLIE = 0, 1, 2


def test_each_kind_of_action_concerns_its_fact_and_a_wait_or_a_refusal_none():
    game = DefuseGame(hand_layout())
    round_of(game, Action.move(1), Action.inspect(4), Action.apply("red", 4))
    assert game.concerned == {ALPHA: room_contents(1), BRAVO: bomb_sequence(4), CHARLIE: bomb_state(4)}
    round_of(game, Action.wait(), Action.apply("red", 1), Action.move(3))  # Bravo is not in room 1: refused
    assert game.concerned == {CHARLIE: room_contents(3)}


def test_each_level_asks_one_yes_and_one_no_question_or_none():
    game = DefuseGame(hand_layout())
    # Bravo inspects bomb 4 in the hub, alone in knowing its sequence; Alpha and Charlie leave the hub.
    round_of(game, Action.move(1), Action.inspect(4), Action.move(3))
    probes = probes_after(game, BRAVO, random.Random(3))
    assert {p.fact for p in probes} == {bomb_sequence(4)}
    # second order has no yes: an inspection is private, so nobody can tell that anyone knows
    assert [(p.level, p.answer) for p in probes] == [
        ("introspection", True), ("introspection", False), ("first_order", True), ("first_order", False)]
    yes, no = probes[0], probes[1]
    assert (yes.agent, yes.target, yes.question) == (BRAVO, None, "Do you know the sequence of bomb 4?")
    assert no.agent in (ALPHA, CHARLIE)   # Bravo knows: the no goes to a teammate who does not
    knows_not, knows = probes[3], probes[2]
    assert knows_not.agent == BRAVO and knows_not.target in (ALPHA, CHARLIE)   # the acting agent first
    assert knows.target == BRAVO and f"Does player {game.name(BRAVO)} know the sequence of bomb 4?" == \
        knows.question
    # once Bravo tells the team, everyone knows, and knows that the others know: every answer is yes, so no level
    # can be balanced and none is asked
    round_of(game, Action.wait(), Action.wait("Bomb 4 sequence: red, green"), Action.wait())
    game.concerned[BRAVO] = bomb_sequence(4)  # ask about the same fact again
    assert probes_after(game, BRAVO, random.Random(3)) == []


def test_second_order_questions_come_in_pairs_too():
    game = DefuseGame(hand_layout())
    # Alpha walks into room 1 while the others watch from the hub: they can tell that it knows room 1
    round_of(game, Action.move(1), Action.wait(), Action.wait())
    probes = [p for p in probes_after(game, ALPHA, random.Random(0)) if p.level == "second_order"]
    assert [p.answer for p in probes] == [True, False]
    assert probes[0].agent == ALPHA and "aware of the fact that you know the current contents of room 1" in \
        probes[0].question


def test_no_probe_after_a_wait_or_without_a_teammate():
    game = DefuseGame(hand_layout())
    round_of(game, Action.wait(), Action.wait(), Action.wait())
    assert probes_after(game, ALPHA, random.Random(0)) == []


def test_questions_are_drawn_with_the_seed():
    def drawn(seed):
        game = DefuseGame(hand_layout())
        round_of(game, Action.move(1), Action.move(2), Action.move(3))
        rng = random.Random(seed)
        return [(p.agent, p.target) for agent in (ALPHA, BRAVO, CHARLIE) for p in probes_after(game, agent, rng)]
    assert drawn(5) == drawn(5)
    assert len({tuple(drawn(s)) for s in range(10)}) > 1


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
    probes = probes_after(game, BRAVO, random.Random(3))   # answers: yes, no (introspection), yes, no (first)
    score = ProbeScore()
    replies = ["Yes", "Yes", "I cannot say", "No"]
    assert [score.add(p, r) for p, r in zip(probes, replies, strict=True)] == [True, True, None, False]
    summary = score.summary()
    assert summary["introspection"] == {"asked": 2, "answered": 2, "correct": 1, "yes": 1, "accuracy": 0.5,
                                        "yes_share": 0.5}
    assert summary["first_order"] == {"asked": 2, "answered": 1, "correct": 1, "yes": 1, "accuracy": 0.5,
                                      "yes_share": 0.5}
    assert summary["second_order"]["asked"] == 0
    merged = ProbeScore.merge([summary, summary]).summary()
    assert merged["introspection"]["asked"] == 4 and merged["first_order"]["yes_share"] == 0.5
    assert ProbeScore().summary()["second_order"]["accuracy"] is None  # nothing asked: no accuracy, not 0
