"""Ground truth for the theory-of-mind probes (introspection, first and second order), in Sally-Anne style
stories. Each expected answer is reasoned out in the comments from the three standards: was the agent present
and did it see it, has it been there since, was it told."""

from __future__ import annotations

import pytest
from test_defuse_game import hand_layout, round_of

from mindpy.tasks.families.defuse.game import DefuseGame
from mindpy.tasks.families.defuse.knowledge import KnowledgeTracker, bomb_sequence, bomb_state, describe, room_contents

ALPHA, BRAVO, CHARLIE = 0, 1, 2
ROOM3, BOMB = room_contents(3), bomb_state(7)


def seen_room3(tracker: KnowledgeTracker, agent: int, round_no: int) -> None:
    tracker.observe(agent, [ROOM3, BOMB], round_no)


def test_sally_anne_the_bomb_changes_while_alpha_is_away():
    t = KnowledgeTracker(3)
    seen_room3(t, ALPHA, 1)              # Alpha sees bomb 7 in room 3, then leaves
    seen_room3(t, BRAVO, 2)              # Bravo comes in after her
    t.change([ROOM3, BOMB], present=[BRAVO], round_no=3)   # and cuts a phase: only Bravo is there
    # Introspection: Bravo saw its own cut; Alpha's picture is from before it, a false belief.
    assert t.knows(BRAVO, BOMB) and t.knows(BRAVO, ROOM3)
    assert not t.knows(ALPHA, BOMB) and not t.knows(ALPHA, ROOM3)
    # First order from Bravo's side: "does Alpha know the bomb's state?" No, for the same reason.
    # Charlie never saw room 3 at all.
    assert not t.knows(CHARLIE, BOMB)
    # Second order: "is Bravo aware that Alpha knows?" Alpha does not know, so no.
    assert not t.aware_that_knows(BRAVO, ALPHA, BOMB)
    # "Is Alpha aware that Bravo knows?" Rooms are in every observation, so Alpha saw Bravo stand in room 3 when
    # it changed: yes.
    assert t.aware_that_knows(ALPHA, BRAVO, BOMB)


def test_telling_restores_knowledge_and_makes_it_mutual():
    t = KnowledgeTracker(3)
    seen_room3(t, ALPHA, 1)
    t.change([ROOM3, BOMB], present=[BRAVO], round_no=2)
    t.tell(BRAVO, range(3), t.snapshot(BRAVO, [BOMB]), round_no=3)   # "bomb 7 is defused" to everyone
    # Alpha and Charlie were told the current state: both know it now (the room itself was not mentioned).
    assert t.knows(ALPHA, BOMB) and t.knows(CHARLIE, BOMB) and not t.knows(ALPHA, ROOM3)
    # Bravo sent it, so Bravo is aware that Alpha knows; Alpha read it from Bravo, so is aware Bravo knows.
    assert t.aware_that_knows(BRAVO, ALPHA, BOMB) and t.aware_that_knows(ALPHA, BRAVO, BOMB)
    # Charlie got the same broadcast, so knows that Alpha was told too.
    assert t.aware_that_knows(CHARLIE, ALPHA, BOMB)


def test_a_stale_message_passes_on_a_false_belief():
    t = KnowledgeTracker(3)
    seen_room3(t, CHARLIE, 1)                                  # Charlie saw the bomb once
    t.change([ROOM3, BOMB], present=[BRAVO], round_no=2)      # Bravo cut it after Charlie left
    t.tell(CHARLIE, range(3), t.snapshot(CHARLIE, [BOMB]), round_no=3)
    # What Charlie tells is out of date: Alpha now believes the old state, which is not knowing.
    assert not t.knows(ALPHA, BOMB)
    # Bravo already knew the newer state: an old message does not overwrite it.
    assert t.knows(BRAVO, BOMB)


def test_inspecting_is_private_until_shared():
    t = KnowledgeTracker(3)
    seq = bomb_sequence(7)
    seen_room3(t, ALPHA, 1)
    seen_room3(t, BRAVO, 1)
    t.learn_privately(ALPHA, [seq], round_no=1)               # Alpha inspects with Bravo beside her
    # Agents do not see each other's actions: Bravo does not know the sequence, nor that Alpha knows it.
    assert t.knows(ALPHA, seq) and not t.knows(BRAVO, seq)
    assert not t.aware_that_knows(BRAVO, ALPHA, seq)
    # Alpha herself can tell she knows (the witness of her own learning).
    assert t.aware_that_knows(ALPHA, ALPHA, seq)
    t.tell(ALPHA, range(3), t.snapshot(ALPHA, [seq]), round_no=2)
    # Once she tells the team, everyone knows the sequence and knows that she knows it.
    assert all(t.knows(a, seq) for a in range(3))
    assert t.aware_that_knows(BRAVO, ALPHA, seq) and t.aware_that_knows(CHARLIE, ALPHA, seq)
    # The sequence never changes: cutting a phase does not make it stale.
    t.change([ROOM3, BOMB], present=[CHARLIE], round_no=3)
    assert t.knows(ALPHA, seq) and not t.knows(ALPHA, BOMB)


def test_revisiting_is_seen_by_everyone():
    t = KnowledgeTracker(3)
    seen_room3(t, ALPHA, 1)
    t.change([ROOM3, BOMB], present=[], round_no=2)   # (a bomb can change with nobody there: an explosion)
    assert not t.knows(ALPHA, ROOM3)
    seen_room3(t, ALPHA, 4)                           # Alpha goes back: she knows again,
    assert t.knows(ALPHA, ROOM3)
    assert t.aware_that_knows(CHARLIE, ALPHA, ROOM3)  # and Charlie, who sees where she is, can tell
    assert t.history[ROOM3][-1] == "round 4: agent 0 observed version 1"


def test_questions_read_as_in_the_paper():
    assert describe(room_contents(5)) == "the current contents of room 5"
    assert describe(bomb_state(2)) == "the state and remaining sequence of bomb 2"
    assert describe(bomb_sequence(2)) == "the sequence of bomb 2"
    with pytest.raises(ValueError, match="agents"):
        KnowledgeTracker(0)


def test_the_game_keeps_the_tracker_up_to_date():
    # Hand layout: everyone starts in the hub (room 0) with bomb 4 (red, green); bomb 1 (red) is in room 1.
    game = DefuseGame(hand_layout())
    k = game.knowledge
    hub, b4 = room_contents(0), bomb_state(4)
    # Alpha leaves for room 1; Bravo inspects bomb 4 with Charlie beside him.
    round_of(game, "Move to Room 1", "Inspect Bomb", "Wait")
    assert k.knows(BRAVO, bomb_sequence(4)) and not k.knows(CHARLIE, bomb_sequence(4))
    assert k.knows(ALPHA, room_contents(1)) and not k.knows(BRAVO, room_contents(1))
    # Charlie cuts red on bomb 4 while Alpha is away: Bravo (present) knows the new state, Alpha does not.
    round_of(game, "Wait", "Wait", "Apply red Tool")
    assert k.knows(BRAVO, b4) and k.knows(CHARLIE, b4) and k.knows(BRAVO, hub)
    assert not k.knows(ALPHA, b4) and not k.knows(ALPHA, hub)
    assert not k.aware_that_knows(CHARLIE, ALPHA, b4)
    # Charlie tells the team; the message arrives as the round ends: now Alpha knows the bomb's state, and Charlie
    # is aware of it.
    round_of(game, "Wait", "Wait", 'Wait. Message to Team: "I cut bomb 4, green is left"')
    assert k.knows(ALPHA, b4) and k.aware_that_knows(CHARLIE, ALPHA, b4)
    # It named no room, so Alpha still does not know the hub's current contents.
    assert not k.knows(ALPHA, hub)
    # It named a colour, but Charlie never inspected bomb 4: it cannot pass on a sequence it does not know.
    assert not k.knows(ALPHA, bomb_sequence(4))


def test_probes_ask_the_papers_questions_with_true_answers():
    t = KnowledgeTracker(3)
    seen_room3(t, ALPHA, 1)
    t.change([ROOM3, BOMB], present=[BRAVO], round_no=2)
    # Alpha's view of room 3 is old: she does not know it; Bravo does; Bravo is not aware that Alpha knows.
    intro = t.probe("introspection", ALPHA, ROOM3)
    assert intro.question == "Do you know the current contents of room 3?" and intro.answer is False
    first = t.probe("first_order", ALPHA, ROOM3, target=BRAVO)
    assert first.question == "Does player Bravo know the current contents of room 3?" and first.answer is True
    second = t.probe("second_order", BRAVO, BOMB, target=ALPHA)
    assert second.question.endswith("is player Alpha aware of the fact that you know the state and remaining "
                                    "sequence of bomb 7?")
    assert second.answer is True      # Alpha saw Bravo in room 3 when the bomb changed
    with pytest.raises(ValueError, match="needs a teammate"):
        t.probe("first_order", ALPHA, ROOM3)
    with pytest.raises(ValueError, match="level must be one of"):
        t.probe("third_order", ALPHA, ROOM3, target=BRAVO)
