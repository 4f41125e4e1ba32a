"""Defuse episodes: the oracle team through its prompts, the table mirroring the game in the world, and whole
episodes on the session's server (the world's bombs read back, a wrong cutter's feedback in the next prompt, an
invalid reply in the valid-action rate, each agent seeing only its own room)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import teleport, unique_name
from mindpy.cli import build_parser
from mindpy.commands.defuse import BELIEF_HEADINGS
from mindpy.harness.options import EpisodeOptions, method_options
from mindpy.models.replay import ReplayModel
from mindpy.oracle.provider import OracleModel
from mindpy.tasks.families.defuse import FAMILY, Action
from mindpy.tasks.families.defuse.knowledge import LEVELS
from mindpy.tasks.families.defuse.play import TeamPlay, TeamTable, _seed_of, defuse_game, run_defuse_episode
from mindpy.tasks.families.defuse.settings import DefuseSettings
from mindpy.tasks.families.defuse.tom_probes import PROBE_MARK, ProbeScore
from mindpy.tasks.families.defuse.world import BOMB, WALL, WOOL, DefuseWorld
from mindpy.tasks.loader import read_task_file
from mindpy.world.bulk import block_map

TASKS = read_task_file(Path(__file__).resolve().parents[2] / "tasks" / "defuse_test.json")


def task(task_id: str):
    return TASKS.task(task_id)


def wrong_cut(task_id: str) -> tuple[int, str] | None:
    """A bomb in agent 0's start room and a cutter agent 0 holds that is not its first colour, if there is one."""
    game = defuse_game(task(task_id))
    for bomb in game.live_bombs_in(game.rooms[0]):
        wrong = [c for c in game.layout.cutters[0] if c != game.remaining(bomb)[0]]
        if wrong:
            return bomb, wrong[0]
    return None


@pytest.mark.parametrize("task_id", ["defuse_0", "defuse_7", "defuse_15"])
def test_the_oracle_team_reading_its_prompts_defuses_every_bomb(task_id):
    game = defuse_game(task(task_id))
    goals = [task(task_id).goal_for(i) for i in range(game.agent_count)]
    play = TeamPlay(game, [OracleModel() for _ in goals], goals, names=["a", "b", "c"])
    play.run()
    assert game.score == 90 and game.rounds_used <= 12 and game.stopped is None
    assert all(turn.command and turn.ok for turn in play.turns)   # every reply a command the game took
    # its waits are no action: they count against the paper's valid-action rate, and nothing else does
    assert sum(v.valid for v in game.validity) == sum(turn.command != "wait" for turn in play.turns)


def test_the_table_mirrors_legal_actions_in_the_world_and_nothing_else():
    game = defuse_game(task("defuse_0"))
    world = DefuseWorld(game.layout, ["a", "b", "c"])
    lines: list[str] = []
    table = TeamTable(game, world, lines.append)
    bomb = game.live_bombs_in(game.rooms[0])[0]
    first = game.remaining(bomb)[0]
    holder = next(a for a in range(3) if first in game.layout.cutters[a] and game.rooms[a] == game.rooms[0])
    refused, mover = (a for a in range(3) if a != holder)
    assert not table.play(refused, Action.move(99)).ok and lines == []   # refused: the world stays
    assert table.play(holder, Action.apply(first, bomb)).ok
    left = game.remaining(bomb)
    x, y, z = world.marker_cell(bomb)
    expected = f"setblock {x} {y} {z} {WOOL[left[0]]}" if left else f"setblock {x} {y} {z} air"
    assert expected in lines
    room = game.layout.neighbours(game.rooms[mover])[0]
    lines.clear()
    assert table.play(mover, Action.move(room)).ok and lines == world.move_lines(mover, room)

def watching(make_bot):
    """A bot standing beside the rooms' area from before the episode: the server keeps a chunk's changes only while
    a player is near it."""
    observer = make_bot("watch")
    teleport(observer, 145, -60, -130)
    return observer


def bomb_blocks(observer, world: DefuseWorld) -> dict:
    cells = [c for b in world.layout.bombs for c in (b.cell, world.marker_cell(b.id))]
    return block_map(observer, cells)


@pytest.mark.slow
def test_an_oracle_episode_scores_90_and_clears_the_bombs_from_the_world(server, make_bot, tmp_path):
    observer = watching(make_bot)
    names = [unique_name(n) for n in ("alpha", "bravo", "charlie")]
    result = run_defuse_episode(task("defuse_1"), tmp_path / "run", model="oracle",
                                server=f"{server.host}:{server.port}", names=names, belief_state=True,
                                tom_probes=True)
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    probes = [json.loads(line) for line in (tmp_path / "run" / "tom_probes.jsonl").read_text().splitlines()]
    assert {level: s["asked"] for level, s in saved["tom_probes"].items()} == {
        level: sum(p["level"] == level for p in probes) for level in LEVELS}
    assert probes and all(p["agent"] in names and p["said"] is None for p in probes)  # the oracle does not answer
    assert saved["end_reason"] == "success" and saved["score"] == 1.0 and saved["points"] == 90
    assert saved["world_mirrors_game"] is True
    assert saved["rounds"] == result["rounds"] <= 12
    # every reply was taken; the waits are no action, so they count against the paper's valid-action rate
    assert all(saved["agents"][n]["valid"] + saved["agents"][n]["no_action"] == saved["agents"][n]["replies"]
               for n in names)
    assert 0.5 < saved["valid_action_rate"] < 1.0
    assert saved["defuse_settings"] == {"history_rounds": 2, "valid_actions": "paper",
                                        "phases_before_inspection": False, "belief_state": True,
                                        "tom_probes": "balanced", "deadlock_rounds": 3, "paper_setting": True}
    assert sum(saved["agents"][n]["replies"] for n in names) >= 3 * (saved["rounds"] - 1) + 1
    calls = [json.loads(line) for line in (tmp_path / "run" / "calls" / f"{names[0]}.jsonl").read_text().splitlines()]
    # with belief states each turn is two calls: the belief rewritten, then the action
    assert len(calls) == 2 * saved["agents"][names[0]]["replies"] and calls[1]["reply"].startswith("!")
    for name in names:  # each agent's last belief is kept beside its run
        assert (tmp_path / "run" / "bots" / name / "belief.txt").read_text().strip()

    world = DefuseWorld(defuse_game(task("defuse_1")).layout, names)
    assert set(bomb_blocks(observer, world).values()) == {"air"}   # every bomb defused, its blocks removed
    x0, _, z0, _, y1, _ = world.layout.rooms[0].box
    assert block_map(observer, [(x0, y1, z0)])[(x0, y1, z0)] == WALL


@pytest.mark.slow
def test_a_wrong_cutter_and_an_unreadable_reply_come_back_as_feedback(server, make_bot, tmp_path):
    task_id = next(t for t in sorted(TASKS.tasks) if wrong_cut(t))
    found = wrong_cut(task_id)
    assert found is not None
    bomb, colour = found
    observer = watching(make_bot)
    names = [unique_name(n) for n in ("alpha", "bravo", "charlie")]
    models = {names[0]: ReplayModel([f'!applyTool("{colour}", {bomb})', "I cut the wire.", "!wait"]),
              names[1]: ReplayModel([], default="!wait"), names[2]: ReplayModel([], default="!wait")}
    result = run_defuse_episode(task(task_id), tmp_path / "run", models=models, round_limit=3,
                                server=f"{server.host}:{server.port}", names=names)
    assert result["end_reason"] == "round_limit" and result["points"] == 0 and result["rounds"] == 3
    assert result["agents"][names[0]]["replies"] == 3 and result["agents"][names[0]]["valid"] == 0
    # the paper's rule: the refused cutter, the unreadable reply and the waits are no valid actions
    assert result["valid_action_rate"] == 0.0
    assert [result["agents"][n]["no_action"] for n in names] == [1, 3, 3]

    prompts = [call["messages"][-1]["content"] for call in models[names[0]].calls]
    game = defuse_game(task(task_id))
    assert (f"You can not apply Tool {colour} to Bomb {bomb} because the sequence of this bomb is "
            f"{', '.join(game.remaining(bomb))}.") in prompts[1]
    assert "Your action is invalid. Your reply has no command" in prompts[2]
    # partial observability: each agent's first prompt names the bombs of its own room and no other
    for agent, name in enumerate(names):
        first = models[name].calls[0]["messages"][-1]["content"]
        mine = set(game.bombs_in(game.rooms[agent]))
        assert {int(n) for n in re.findall(r"\bBomb (\d+)", first)} == mine
    assert result["world_mirrors_game"] is True
    world = DefuseWorld(game.layout, names)
    seen = bomb_blocks(observer, world)
    for b in game.layout.bombs:   # nothing was cut: every bomb stands, showing its first colour
        assert (seen[b.cell], seen[world.marker_cell(b.id)]) == (BOMB, WOOL[b.sequence[0]])


def play_rounds(play: TeamPlay, rounds: int) -> None:
    for _ in range(rounds):
        for agent in range(play.game.agent_count):
            play.play_turn(agent)


def test_by_default_a_prompt_holds_the_previous_two_rounds_as_the_paper_has_it():
    goals = [task("defuse_0").goal_for(i) for i in range(3)]
    alpha = ReplayModel([], default="!wait")
    play = TeamPlay(defuse_game(task("defuse_0")), [alpha, *[ReplayModel([], default="!wait")] * 2], goals,
                    names=["a", "b", "c"])
    play_rounds(play, 4)
    fourth = alpha.calls[3]["messages"]
    assert [m["role"] for m in fourth] == ["user", "assistant"] * 2 + ["user"]
    assert [re.match(r"Round (\d+)", m["content"]).group(1) for m in fourth if m["role"] == "user"] == ["2", "3", "4"]
    # our longer history is an option, recorded as such
    settings = DefuseSettings.from_options({"defuse_long_history": True})
    assert DefuseSettings().history_rounds == 2 and settings.history_rounds == 6
    assert DefuseSettings().record()["paper_setting"] and not settings.record()["paper_setting"]
    alpha = ReplayModel([], default="!wait")
    play = TeamPlay(defuse_game(task("defuse_0")), [alpha, *[ReplayModel([], default="!wait")] * 2], goals,
                    names=["a", "b", "c"], history_rounds=settings.history_rounds)
    play_rounds(play, 4)
    assert len(alpha.calls[3]["messages"]) == 7 and "Round 1 of" in alpha.calls[3]["messages"][0]["content"]


def test_a_belief_state_starts_from_the_template_and_goes_beside_the_history():
    game = defuse_game(task("defuse_0"))
    goals = [task("defuse_0").goal_for(i) for i in range(3)]
    alpha = ReplayModel([{"reply": "BELIEF-ONE: alone in my room", "match": "Update your belief state"},
                         {"reply": "BELIEF-TWO: still waiting", "match": "so far:\\s*BELIEF-ONE"}], default="!wait")
    others = [ReplayModel([], default="!wait") for _ in range(2)]
    play = TeamPlay(game, [alpha, *others], goals, names=["a", "b", "c"], belief_state=True)
    play_rounds(play, 2)
    asked = [call["messages"] for call in alpha.calls]   # belief, action, belief, action
    assert [m[-1]["content"].startswith("Update your belief state") for m in asked] == [True, False, True, False]
    template = asked[0][-1]["content"].split("Your belief so far:\n", 1)[1]
    for heading in BELIEF_HEADINGS:   # the paper's template, filled in: the map and everyone's cutters
        assert f"{heading}:" in template
    assert "Role: you are Player Alpha." in template and "Round: 1. Team score: 0." in template
    for room in game.layout.room_ids:
        assert f"- Room {room} connects to room " in template
    for agent, name in enumerate(("Alpha", "Bravo", "Charlie")):
        assert f"- {name}: {' and '.join(game.layout.cutters[agent])} cutters." in template
    here = game.bombs_in(game.rooms[0])
    for bomb in game.layout.bombs:
        said = "sequence unknown" if bomb.id in here else "nothing known yet"
        assert f"- Bomb {bomb.id}: " in template and said in template.split(f"- Bomb {bomb.id}: ")[1].split("\n")[0]
    assert "Your belief so far:\nBELIEF-ONE" in asked[2][-1]["content"]   # the belief is rewritten, not restarted
    second_turn = asked[3]   # the belief beside the history of the round before
    assert [m["role"] for m in second_turn] == ["user", "assistant", "user"]
    assert second_turn[0]["content"].startswith("Your belief state:\nBELIEF-ONE") and "Round 1 of" in \
        second_turn[0]["content"]
    assert second_turn[-1]["content"].startswith("Your belief state:\nBELIEF-TWO")
    assert "Round 2 of" in second_turn[-1]["content"]
    assert play.beliefs[0] == "BELIEF-TWO: still waiting"


def test_the_belief_state_and_probe_flags_reach_the_defuse_runner_and_eval_children():
    args = build_parser().parse_args(["run", "--task", "tasks/defuse_test.json", "--task-id", "defuse_1",
                                      "--belief-state", "--tom-probes"])
    options = method_options(args)
    assert options == {"belief_state": True, "tom_probes": True}
    # how `mindpy eval` passes them on: the episode options, as JSON to the episode's process
    assert EpisodeOptions.from_json(EpisodeOptions.from_args(args).to_json()).profile_options == options
    plain = build_parser().parse_args(["run", "--task", "tasks/defuse_test.json", "--task-id", "defuse_1"])
    assert method_options(plain) == {}
    # our departures from the paper are named options too, and the family takes each of them
    ours = build_parser().parse_args(["eval", "tasks/defuse_test.json", "--defuse-long-history",
                                      "--defuse-lenient-validity", "--defuse-show-phases"])
    options = method_options(ours)
    assert options == {"defuse_long_history": True, "defuse_lenient_validity": True, "defuse_show_phases": True}
    assert set(options) <= set(FAMILY.episode_options)
    record = DefuseSettings.from_options(options).record()
    assert record["history_rounds"] == 6 and record["valid_actions"] == "lenient"
    assert record["phases_before_inspection"] is True and record["paper_setting"] is False
    with pytest.raises(ValueError, match="unknown defuse option"):
        DefuseSettings.from_options({"defuse_short_history": True})


class ProbeAnswerer:
    """Answers a probe from the truth the play holds for it (`lie`: the opposite); every other call goes to the
    oracle, so the team plays as usual."""

    def __init__(self, lie: bool = False):
        self.oracle, self.lie, self.play = OracleModel(), lie, None
        self.questions: list[str] = []

    def send(self, messages, system=""):
        if PROBE_MARK not in messages[-1]["content"]:
            return self.oracle.send(messages, system)
        self.questions.append(messages[-1]["content"])
        truth = self.play.asking.answer != self.lie
        return ReplayModel([], default="Yes, I do." if truth else "Answer: no").send(messages, system)


@pytest.mark.parametrize("lie, accuracy", [(False, 1.0), (True, 0.0)])
def test_tom_probes_are_asked_after_actions_scored_per_level_and_kept_out_of_the_history(lie, accuracy):
    game = defuse_game(task("defuse_2"))
    goals = [task("defuse_2").goal_for(i) for i in range(game.agent_count)]
    models = [ProbeAnswerer(lie) for _ in goals]
    play = TeamPlay(game, models, goals, names=["a", "b", "c"], tom_probes=True, probe_seed=4)
    for model in models:
        model.play = play
    play.run()
    assert game.score == 90   # the side questions do not change the play
    summary = play.probe_score.summary()
    assert set(summary) == set(LEVELS)
    for level in LEVELS:
        assert summary[level]["asked"] > 0 and summary[level]["answered"] == summary[level]["asked"]
        assert summary[level]["accuracy"] == accuracy
    asked = sum(s["asked"] for s in summary.values())
    assert asked == len(play.probe_records) == sum(len(m.questions) for m in models)
    assert all(2 * s["yes"] == s["asked"] for s in summary.values())   # balanced: a yes and a no each time
    actors = {r["actor"] for r in play.probe_records}
    assert actors <= {"a", "b", "c"} and {r["agent"] for r in play.probe_records} - actors == set()
    for history in play.histories:   # the agents' own histories hold turns only
        assert not any(PROBE_MARK in m["content"] for m in history)
    assert all(r["correct"] is (not lie) for r in play.probe_records)


def test_the_oracle_answers_no_probe_and_keeps_playing():
    game = defuse_game(task("defuse_2"))
    goals = [task("defuse_2").goal_for(i) for i in range(game.agent_count)]
    play = TeamPlay(game, [OracleModel() for _ in goals], goals, names=["a", "b", "c"], tom_probes=True)
    play.run()
    assert game.score == 90 and all(turn.ok for turn in play.turns)
    summary = play.probe_score.summary()
    assert all(s["asked"] > 0 and s["answered"] == 0 and s["accuracy"] == 0.0 for s in summary.values())


def test_the_oracle_team_keeps_defusing_with_belief_states():
    game = defuse_game(task("defuse_3"))
    goals = [task("defuse_3").goal_for(i) for i in range(game.agent_count)]
    play = TeamPlay(game, [OracleModel() for _ in goals], goals, names=["a", "b", "c"], belief_state=True)
    play.run()
    assert game.score == 90 and all(turn.ok for turn in play.turns)


@pytest.mark.parametrize("word", ["Yes.", "No."])
def test_a_constant_answer_scores_chance_on_every_level(word):
    """The probe set is balanced per level: always yes or always no is right half the time, wherever it is asked
    (before the balancing, always yes scored 100% on introspection and 80% on second order)."""
    score = ProbeScore()
    for task_id in ("defuse_0", "defuse_1", "defuse_2", "defuse_3"):
        game = defuse_game(task(task_id))
        goals = [task(task_id).goal_for(i) for i in range(game.agent_count)]
        constant = [ReplayModel([], default=word) for _ in goals]
        play = TeamPlay(game, [OracleModel() for _ in goals], goals, names=["a", "b", "c"], tom_probes=True,
                        probe_models=constant, probe_seed=_seed_of(task_id))
        play.run()
        assert game.score == 90
        for level, counts in play.probe_score.summary().items():
            merged = score.levels[level]
            merged.asked, merged.answered = merged.asked + counts["asked"], merged.answered + counts["answered"]
            merged.correct, merged.true = merged.correct + counts["correct"], merged.true + counts["yes"]
    for level, counts in score.summary().items():
        assert counts["asked"] >= 8 and counts["answered"] == counts["asked"], level
        assert abs(counts["accuracy"] - 0.5) <= 0.05, (level, counts)


def test_the_eval_summary_keeps_the_settings_points_and_probes_of_its_defuse_episodes(tmp_path):
    from mindpy.harness.evaluate import summarize

    rows = []
    paper, ours = DefuseSettings(tom_probes=True).record(), DefuseSettings(defuse_long_history=True).record()
    for i, (correct, asked, points, settings) in enumerate([(3, 4, 90, paper), (1, 4, 40, paper),
                                                            (None, None, 50, ours)]):   # the last without probes
        run = tmp_path / str(i)
        run.mkdir()
        score = ProbeScore()
        if asked:
            for level in LEVELS:
                score.levels[level].asked, score.levels[level].answered = asked, asked
                score.levels[level].correct, score.levels[level].true = correct, 2
        result = {"points": points, "rounds": 30, "valid_action_rate": 0.5, "end_reason": "round_limit",
                  "defuse_settings": settings, **({"tom_probes": score.summary()} if asked else {})}
        (run / "result.json").write_text(json.dumps(result))
        rows.append({"task_id": f"t{i}", "file": "f", "family": "defuse", "agent_count": 3, "trial": 1,
                     "score": 1.0, "success": True, "end_reason": "success", "duration_s": 1, "commands": 0,
                     "messages": 0, "tokens": 0, "attempts": 1, "error": "", "run_dir": str(run)})
    defuse = summarize(rows)["defuse"]
    merged = defuse["tom_probes"]
    assert merged["episodes"] == 2 and defuse["episodes"] == 3 and defuse["points_mean"] == 60
    assert merged["first_order"] == {"asked": 8, "answered": 8, "correct": 4, "yes": 4, "accuracy": 0.5,
                                     "yes_share": 0.5}
    # settings the episodes share are kept, those they differ in are "mixed"
    assert defuse["settings"]["valid_actions"] == "paper" and defuse["settings"]["history_rounds"] == "mixed"
    assert summarize(rows[:2])["defuse"]["settings"] == paper
    assert summarize(rows[2:])["defuse"]["tom_probes"] is None


def test_a_team_repeating_its_replies_ends_the_episode_in_a_deadlock():
    from mindpy.tasks.families.defuse.play import _result
    from mindpy.tasks.results import EpisodeRecorder

    game = defuse_game(task("defuse_4"))
    goals = [task("defuse_4").goal_for(i) for i in range(3)]
    play = TeamPlay(game, [ReplayModel([], default="!wait") for _ in goals], goals, names=["a", "b", "c"])
    play.run()
    assert game.stopped == "deadlock" and game.rounds_used == 3 and len(play.turns) == 9
    result = _result(EpisodeRecorder(task("defuse_4"), ["a", "b", "c"]), game, ["a", "b", "c"], False)
    assert result["end_reason"] == "deadlock" and result["valid_action_rate"] == 0.0
    assert all(result["agents"][n]["no_action"] == 3 for n in "abc")
