"""The defuse game without a server: its map generator, task files, rules, feedback texts, rounds, messages,
partial observability and the valid-action count."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from mindpy.tasks import dumps_tasks, splits
from mindpy.tasks.families.defuse import game as dg
from mindpy.tasks.families.defuse.game import Action, DefuseGame, mentioned_facts, parse_action
from mindpy.tasks.families.defuse.generator import (
    fingerprint,
    fingerprints_of_test_split,
    generate,
    task_dict,
    task_problems,
)
from mindpy.tasks.families.defuse.knowledge import bomb_sequence, bomb_state, room_contents
from mindpy.tasks.families.defuse.layout import COLOURS, Layout, generate_layout


def hand_layout() -> Layout:
    """Hub 0 joined to 1..4, and 1-2. Bombs: 1 red in room 1; 2 green, blue in room 2; 3 blue, red, green in
    room 3; 4 red, green in room 0; 5 blue in room 4. Alpha red+green, Bravo green+blue, Charlie blue+red; all
    start in the hub."""
    box = [0, -60, 0, 6, -58, 6]
    return Layout.from_dict({
        "rooms": [{"id": r, "box": box} for r in range(5)],
        "hub": 0,
        "hallways": [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2]],
        "doors": [],
        "bombs": [{"id": 1, "room": 1, "sequence": ["red"], "cell": [2, -60, 2]},
                  {"id": 2, "room": 2, "sequence": ["green", "blue"], "cell": [2, -60, 2]},
                  {"id": 3, "room": 3, "sequence": ["blue", "red", "green"], "cell": [2, -60, 2]},
                  {"id": 4, "room": 0, "sequence": ["red", "green"], "cell": [2, -60, 2]},
                  {"id": 5, "room": 4, "sequence": ["blue"], "cell": [2, -60, 2]}],
        "cutters": {"0": ["red", "green"], "1": ["green", "blue"], "2": ["blue", "red"]},
        "start_rooms": {"0": 0, "1": 0, "2": 0},
    })


def round_of(game: DefuseGame, *replies: str | Action) -> list[str]:
    """Every agent's reply for one round, in order; the feedback texts."""
    return [game.act(agent, reply) for agent, reply in enumerate(replies)]


# ----- map and task files -----
def test_generator_is_deterministic_and_seeds_matter():
    assert generate("test") == generate("test")
    assert generate("test", count=3) != generate("test", seed=99, count=3)
    assert generate_layout(5) == generate_layout(5)
    assert len({fingerprint(t) for t in generate("test").values()}) == 30


def test_committed_test_split_is_the_generators():
    assert splits.committed("defuse").read_text(encoding="utf-8") == dumps_tasks(splits.generate("defuse", "test"))
    assert splits.generate_raw("defuse", "test") == generate("test")


def test_train_split_leaves_out_the_test_layouts():
    test_marks = fingerprints_of_test_split()
    # a train split told to exclude its own first tasks must skip them
    first = generate("train", count=5)
    again = generate("train", count=5, exclude={fingerprint(t) for t in first.values()})
    assert not {fingerprint(t) for t in again.values()} & {fingerprint(t) for t in first.values()}
    assert not {fingerprint(t) for t in generate("train", count=40).values()} & test_marks


@pytest.mark.parametrize("task_id", [f"defuse_{k}" for k in range(30)])
def test_test_tasks_follow_the_paper(task_id):
    task = generate("test")[task_id]
    layout = DefuseGame.from_task(task).layout
    assert task["type"] == "defuse" and task["round_limit"] == 30 and task["agent_count"] == 3
    assert sorted(len(b.sequence) for b in layout.bombs) == [1, 1, 2, 2, 3]
    assert layout.max_score() == 90
    assert all(set(b.sequence) <= set(COLOURS) for b in layout.bombs)
    # a hub joined to every other room, one or two more hallways, five rooms
    assert len(layout.rooms) == 5
    assert set(layout.neighbours(layout.hub)) == set(layout.room_ids) - {layout.hub}
    assert len(layout.hallways) in (5, 6)
    # three agents: two colours each, every colour held by exactly two
    held = Counter(c for pair in layout.cutters for c in pair)
    assert all(len(set(pair)) == 2 for pair in layout.cutters) and held == {c: 2 for c in COLOURS}
    assert set(task["goal"]) == {"0", "1", "2"}
    assert "bomb 1" not in task["goal"]["0"].lower()   # the goal does not give the bombs away
    # one bomb a room: the paper's "Inspect Bomb" and "Apply X Tool" name no bomb
    assert sorted(b.room for b in layout.bombs) == sorted(layout.room_ids)


@pytest.mark.parametrize("seed", range(20))
def test_rooms_doors_and_bombs_fit_in_the_world(seed):
    layout = generate_layout(seed)
    interiors = {}
    for room in layout.rooms:
        x0, y0, z0, x1, y1, z1 = room.box
        assert y0 == -60 and y1 - y0 == 2 and x1 - x0 >= 6 and z1 - z0 >= 6
        interiors[room.id] = {(x, z) for x in range(x0 + 1, x1) for z in range(z0 + 1, z1)}
    for a, b in combinations(interiors, 2):
        assert not interiors[a] & interiors[b]
    for door in layout.doors:
        x, _, z = door.cell
        for room_id in door.rooms:   # the gap is in a wall of both rooms
            x0, _, z0, x1, _, z1 = layout.room(room_id).box
            assert (x in (x0, x1) and z0 < z < z1) or (z in (z0, z1) and x0 < x < x1)
    assert sorted(d.rooms for d in layout.doors) == sorted(layout.hallways)
    cells = [b.cell for b in layout.bombs]
    assert len(set(cells)) == 5
    for bomb in layout.bombs:
        assert (bomb.cell[0], bomb.cell[2]) in interiors[bomb.room]
    assert max(Counter(b.room for b in layout.bombs).values()) == 1


def test_two_and_four_agents_split_colours_as_documented():
    for seed in range(10):
        two = Counter(c for pair in generate_layout(seed, 2).cutters for c in pair)
        assert two == {"green": 2, "red": 1, "blue": 1}
        four = Counter(c for pair in generate_layout(seed, 4).cutters for c in pair)
        assert sorted(four.values()) == [2, 3, 3] and set(four) == set(COLOURS)


@pytest.mark.parametrize("agents", [1, 5, "3", True])
def test_bad_agent_counts_are_refused(agents):
    with pytest.raises(ValueError, match="agents"):
        generate_layout(1, agents)


def test_task_problems_name_the_field():
    assert task_problems(task_dict(3)) == []
    task = task_dict(3)
    task["round_limit"] = 0
    task["agent_count"] = 2
    assert task_problems(task) == [
        "field 'round_limit' must be an integer from 1 to 1000, got 0",
        "field 'cutters' is for 3 agents but agent_count is 2"]
    task["bombs"][0]["sequence"] = ["purple"]
    assert "bomb 1 has a colour outside red, green, blue" in task_problems(task)[-1]
    del task["cutters"]
    assert task_problems(task) == ["field 'cutters' is required for defuse tasks"]


def _broken(change) -> dict:
    task = task_dict(3)
    change(task)
    return task


@pytest.mark.parametrize("task, problem", [
    (_broken(lambda t: t.update(layout=[])), "field 'layout' must be a mapping as Layout.to_dict writes it, got list"),
    (_broken(lambda t: t.update(bombs="x")), "field 'bombs' must be a list as Layout.to_dict writes it, got str"),
    (_broken(lambda t: t.update(cutters=None)), "field 'cutters' must be a mapping as Layout.to_dict writes it"),
    (_broken(lambda t: t["layout"].update(hallways=[[0, 9]])), "hallway (0, 9) joins an unknown room"),
    (_broken(lambda t: t["layout"].update(hub=42)), "the hub 42 is not one of the rooms"),
    (_broken(lambda t: t["layout"]["rooms"].append(t["layout"]["rooms"][0])), "room numbers given twice: "),
    (_broken(lambda t: t["bombs"].append(t["bombs"][0])), "bomb numbers given twice: "),
    (_broken(lambda t: t["cutters"].update({"0": ["purple"]})), "agent 0 holds a cutter outside red, green, blue"),
    (_broken(lambda t: t["layout"]["start_rooms"].pop("2")), "bad defuse layout (KeyError: '2')"),
    (_broken(lambda t: t.update(agent_count="3")), None),   # the schema's own check names agent_count
])
def test_malformed_tasks_get_one_line_problems(task, problem):
    problems = task_problems(task)
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0] and "\n" not in problems[0]


def test_bad_task_is_refused_with_a_message():
    with pytest.raises(ValueError, match="not a defuse task"):
        DefuseGame.from_task({"type": "coblock"})
    task = task_dict(3)
    del task["layout"]["hub"]
    with pytest.raises(ValueError, match="bad defuse layout"):
        DefuseGame.from_task(task)


# ----- replies -----
@pytest.mark.parametrize("reply, expected", [
    ('Action selection: Move to Room 3. Message to Team: "I go to room 3"', Action.move(3, "I go to room 3")),
    ("Inspect Bomb", Action.inspect()),
    ("inspect bomb 4", Action.inspect(4)),
    ("Apply Red Tool", Action.apply("red")),
    ("apply the blue wire cutter to bomb 2", Action.apply("blue", 2)),
    ("I will wait here.", Action.wait()),
    ('Message to Team: "Bomb 2 is red". Action selection: Inspect Bomb', Action.inspect(None, "Bomb 2 is red")),
    ('Message to Team: "Bomb 2 is green, blue"', Action("message", message="Bomb 2 is green, blue")),
    ("I am not sure what to do", None),
    # wordings a model writes
    ("move to room 3", Action.move(3)),
    ("**MOVE TO ROOM 3.**", Action.move(3)),
    ("Move to room #3", Action.move(3)),
    ("Move to the Room 3", Action.move(3)),
    ("Apply the red tool to bomb 2", Action.apply("red", 2)),
    ("Apply Tool Red to Bomb #2.", Action.apply("red", 2)),
    ("apply RED cutters on the bomb 2", Action.apply("red", 2)),
    ("Inspect bomb #4.", Action.inspect(4)),
    ("inspect Bomb4", Action.inspect(4)),
    ("Go to room 3", Action.move(3)),                       # other verbs of moving and applying
    ("I'll head back to Room 2.", Action.move(2)),
    ("Enter room 4", Action.move(4)),
    ("Use the green tool on bomb 5", Action.apply("green", 5)),
    ("Apply purple tool", Action.apply("purple")),          # parsed; the game refuses the colour
    ('Move to Room 3. Message to Team: "I said "hi" to you"', Action.move(3, 'I said "hi" to you')),
    ("Message to team: \u201cBomb 2 is red\u201d", Action("message", message="Bomb 2 is red")),
    ("Message to team: 'I'll check bomb 3'. Action: Wait", Action.wait("I'll check bomb 3")),
    ("Move to Room 3\nMessage to Team: Bomb 2 is red.", Action.move(3, "Bomb 2 is red.")),
    ("I could move to Room 2, but Action selection: Inspect Bomb", Action.inspect()),
    # malformed: no action found
    ("Apply the tool", None),
    ("Apply the tool to bomb 2", None),
    ("Inspect", None),
    ("Go to room three", None),
    ("", None),
])
def test_replies_parse_as_in_the_paper(reply, expected):
    assert parse_action(reply) == expected
    if expected is not None:
        assert parse_action(expected.text()) == expected


def test_messages_mention_facts():
    assert mentioned_facts("Room 3 is empty; bomb 2 is red, green") == [
        room_contents(3), bomb_state(2), bomb_sequence(2)]
    assert mentioned_facts("going to bomb 5") == [bomb_state(5)]


# ----- rules -----
@pytest.mark.parametrize("lenient", [False, True])
def test_errors_use_the_papers_feedback_and_change_nothing(lenient):
    game = DefuseGame(hand_layout(), lenient_validity=lenient)
    round_of(game, "Move to Room 1", "Move to Room 4", "Wait")
    assert round_of(game, "Move to Room 3", "Apply red Tool", "Apply blue Tool") == [
        dg.NOT_ADJACENT.format(room=3, here=1),
        dg.NO_SUCH_TOOL.format(colour="red"),
        "You can not apply Tool blue to Bomb 4 because the sequence of this bomb is red, green. You will need to "
        "apply other color tool first."]
    assert game.rooms == [1, 4, 0] and game.score == 0 and game.remaining(4) == ("red", "green")
    assert round_of(game, "Inspect Bomb 5", "Apply blue Tool", "blah") == [
        "Bomb 5 is not in your current location, Room 1.", "You applied Tool blue to Bomb 5. Bomb 5 is defused.",
        dg.INVALID]
    assert round_of(game, "Wait", "Inspect Bomb", "Apply red Tool to Bomb 5") == [
        "You waited.", dg.NOTHING_TO_INSPECT.format(here=4), "Bomb 5 is not in your current location, Room 0."]
    assert round_of(game, "Wait", "Apply blue Tool to Bomb 5", "Wait")[1] == "Bomb 5 is already defused."
    # the paper's rule: only allowed moves, inspections and cuts are valid; a wait is no action (lenient: valid)
    assert [v.idle for v in game.validity] == [2, 0, 2]
    if lenient:
        assert [(v.valid, v.replies) for v in game.validity] == [(3, 5), (2, 5), (2, 5)]
        assert game.valid_rate() == pytest.approx(7 / 15)
    else:
        assert [(v.valid, v.replies) for v in game.validity] == [(1, 5), (2, 5), (0, 5)]
        assert game.valid_rate() == pytest.approx(3 / 15)
    assert game.score == 10


def test_a_message_alone_passes_the_turn_but_is_no_valid_action():
    game = DefuseGame(hand_layout())
    assert round_of(game, 'Message to Team: "I am in the hub"', "Move to Room 1", "Inspect Bomb")[0] == \
        "Your message will reach your teammates next round."
    assert [(v.valid, v.idle) for v in game.validity] == [(0, 1), (1, 0), (1, 0)]
    assert game.observation(1).messages == (("Alpha", "I am in the hub"),)   # the message still went out


def test_unknown_rooms_and_colours_are_refused_with_a_clear_line():
    game = DefuseGame(hand_layout())
    assert round_of(game, "Move to Room 9", "Apply purple Tool", "Apply the tool") == [
        "Your action is invalid. There is no Room 9: the rooms are 0, 1, 2, 3, 4.",
        dg.NO_SUCH_TOOL.format(colour="purple"), dg.INVALID]
    assert game.rooms == [0, 0, 0] and [v.valid for v in game.validity] == [0, 0, 0]


def test_correct_cutters_score_ten_per_phase_and_finish_the_game():
    game = DefuseGame(hand_layout())
    assert round_of(game, "Apply red Tool", "Wait", "Wait")[0] == (
        "You applied Tool red to Bomb 4. This bomb is active and its remaining sequence is green.")
    assert game.score == 10 and game.remaining(4) == ("green",)
    assert round_of(game, "Move to Room 1", "Apply green Tool", "Move to Room 3")[1] == (
        "You applied Tool green to Bomb 4. Bomb 4 is defused.")
    round_of(game, "Apply red Tool", "Move to Room 2", "Apply blue Tool")       # bombs 1 and 3
    round_of(game, "Move to Room 2", "Apply green Tool", "Apply red Tool")      # bombs 2 and 3
    assert game.round_no == 5 and game.score == 60 and game.remaining(3) == ("green",)
    round_of(game, "Wait", "Apply blue Tool", "Move to Room 0")
    round_of(game, "Move to Room 0", "Move to Room 0", "Move to Room 4")
    round_of(game, "Move to Room 3", "Wait", "Apply blue Tool")
    assert game.score == 80 and not game.done
    assert game.act(0, "Apply green Tool") == "You applied Tool green to Bomb 3. Bomb 3 is defused."
    assert game.done and game.score == 90 and game.finished_round == 8 and game.rounds_used == 8
    with pytest.raises(ValueError, match="game is over"):
        game.act(1, "Wait")


def test_a_wrong_cutter_can_explode_the_bomb_instead():
    game = DefuseGame(hand_layout(), wrong_cutter_explodes=True)
    assert game.is_valid(2, "Apply blue Tool")     # legal: the bomb decides
    assert game.act(0, "Wait") == "You waited."
    assert game.act(1, "Wait") == "You waited."
    assert game.act(2, "Apply blue Tool") == "Bomb 4 exploded: its next phase was red, not blue."
    assert game.state(4) == "exploded" and game.remaining(4) == () and game.score == 0
    assert game.act(0, "Apply red Tool") == dg.NOTHING_TO_DEFUSE.format(here=0)


def test_rounds_need_every_agent_and_end_at_the_limit():
    game = DefuseGame(hand_layout(), round_limit=3)
    game.act(0, "Wait")
    with pytest.raises(ValueError, match="already acted in round 1"):
        game.act(0, "Wait")
    game.act(1, "Wait")
    assert game.round_no == 1
    game.act(2, "Wait")
    assert game.round_no == 2
    for _ in range(2):
        round_of(game, "Wait", "Wait", "Wait")
    assert game.done and game.rounds_used == 3 and game.finished_round is None


def test_messages_arrive_next_round_for_teammates_only():
    game = DefuseGame(hand_layout())
    game.act(0, 'Inspect Bomb. Message to Team: "Bomb 4 is red, green"')
    assert game.observation(1).messages == ()
    game.act(1, "Wait")
    game.act(2, "Wait")
    assert game.observation(1).messages == (("Alpha", "Bomb 4 is red, green"),)
    assert game.observation(2).messages == (("Alpha", "Bomb 4 is red, green"),)
    assert game.observation(0).messages == ()
    round_of(game, "Wait", "Wait", "Wait")
    assert game.observation(1).messages == ()     # read once, at the start of the round after sending


def test_observations_show_only_my_room():
    game = DefuseGame(hand_layout())
    round_of(game, "Move to Room 1", "Move to Room 2", "Wait")
    alpha = game.observation(0)
    assert [b.id for b in alpha.bombs] == [1] and alpha.teammates == {"Bravo": 2, "Charlie": 0}
    text = alpha.text()
    assert "Bomb 1" in text and "Room 1" in text
    for elsewhere in ("Bomb 2", "Bomb 3", "Bomb 4", "Bomb 5"):
        assert elsewhere not in text
    assert "Player Bravo is in Room 2" in text and "Round 2 of 30" in text
    # the sequence shows after my own inspection only; before, not even how many phases are left (the paper's
    # "bomb 1 with unknown sequence")
    assert "Bomb 1 is here, active, sequence unknown." in text and "phase" not in text
    assert alpha.bombs[0].phases_left is None
    round_of(game, "Inspect Bomb", "Wait", "Wait")
    assert "remaining sequence: red" in game.observation(0).text()
    assert game.observation(0).bombs[0].remaining == ("red",)
    round_of(game, "Wait", "Move to Room 1", "Wait")
    assert game.observation(1).bombs[0].remaining is None


def test_show_phases_is_our_option_to_show_an_uninspected_bombs_phases():
    game = DefuseGame(hand_layout(), show_phases=True)
    round_of(game, "Move to Room 3", "Wait", "Wait")
    assert "Bomb 3 is here, active, 3 phase(s) left, sequence unknown." in game.observation(0).text()


def test_valid_actions_are_exactly_the_legal_ones():
    game = DefuseGame(hand_layout())
    actions = game.valid_actions(2)   # Charlie in the hub with bomb 4 (red, green): blue is refused
    assert Action.apply("red", 4) in actions and Action.apply("blue", 4) not in actions
    assert {a.room for a in actions if a.kind == "move"} == {1, 2, 3, 4}
    assert all(game.is_valid(2, a) for a in actions)
    assert not game.is_valid(2, "Move to Room 0") and not game.is_valid(2, "nonsense")


def test_no_start_observation_mentions_a_bomb_elsewhere():
    for task in generate("test").values():
        game = DefuseGame.from_task(task)
        for agent in range(3):
            text = game.observation(agent).text()
            for bomb in game.layout.bombs:
                assert (f"Bomb {bomb.id} " in text) == (bomb.room == game.rooms[agent])
