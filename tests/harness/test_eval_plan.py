"""How `mindpy eval` plans a suite, without playing it: files, folders and globs; invalid tasks skipped with their
problems; one episode per (file, task id, agent count, trial), so files that reuse task ids keep every result.
(tests/harness/test_harness.py plays such a suite for real.)"""

from __future__ import annotations

import csv
import json

import pytest

from conftest import REPO_ROOT
from mindpy.harness.compare import RunSummary, load_run, settings_clash
from mindpy.harness.evaluate import NAME_LIMIT, Evaluation, cheat_setting, folder_name, read_results, summarize
from mindpy.tasks import TaskFileError
from mindpy.tasks.records import MIXED, EpisodeResult, Summary

LADDER = {"type": "techtree", "goal": "Craft a ladder.", "agent_count": 1, "initial_inventory": {"0": {"stick": 7}},
          "target": "ladder", "timeout": 60}
LADDER_PAIR = {**LADDER, "agent_count": 2, "initial_inventory": {"0": {"stick": 4}, "1": {"stick": 3}}}
WAVE = {"type": "greeting", "goal": "Wave at everyone.", "agent_count": 1}


@pytest.fixture
def suite(tmp_path):
    """Three files, two of one name, all with a task called 'ladder'; one file also has a task of no known type,
    and one is not JSON at all."""
    folder = tmp_path / "suite"
    for name, tasks in {"one/tasks.json": {"ladder": LADDER, "wave": WAVE},
                        "two/tasks.json": {"ladder": LADDER_PAIR},
                        "three.yaml": {"ladder": LADDER, "spare": LADDER}}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(tasks))
    (folder / "two" / "broken.json").write_text("{")
    return folder


def _ids(evaluation: Evaluation) -> list[tuple[str, str, int, int]]:
    return [(ep.file.rsplit("suite/", 1)[1], ep.task_id, ep.agent_count, ep.trial) for ep in evaluation.episodes]


def test_every_file_task_and_trial_is_its_own_episode(suite, tmp_path):
    evaluation = Evaluation([str(suite)], out=tmp_path / "out", trials=2, progress=lambda text: None)
    assert _ids(evaluation) == [
        ("one/tasks.json", "ladder", 1, 1), ("one/tasks.json", "ladder", 1, 2),
        ("three.yaml", "ladder", 1, 1), ("three.yaml", "ladder", 1, 2),
        ("three.yaml", "spare", 1, 1), ("three.yaml", "spare", 1, 2),
        ("two/tasks.json", "ladder", 2, 1), ("two/tasks.json", "ladder", 2, 2)]
    dirs = [ep.run_dir for ep in evaluation.episodes]
    assert len(set(dirs)) == len(dirs)
    assert all(d.parent.parent == tmp_path / "out" / "episodes" for d in dirs)
    assert dirs[0].name == "ladder-1_agents-trial_1" and dirs[-1].name == "ladder-2_agents-trial_2"
    assert dirs[0].parent.name.startswith("tasks-") and dirs[0].parent != dirs[-1].parent  # same file name
    assert [(s.file.rsplit("suite/", 1)[1], s.task_id, s.reason) for s in evaluation.skipped] == [
        ("one/tasks.json", "wave", "invalid"), ("two/broken.json", None, "unreadable")]
    assert "field 'type' must be one of techtree, cooking, construction, coblock" in evaluation.skipped[0].problems[0]


def planned(tmp_path, tasks: dict) -> Evaluation:
    """The evaluation of one task file holding `tasks`, planned, not played."""
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks))
    return Evaluation([str(path)], out=tmp_path / "out", progress=lambda text: None)


def test_a_task_that_cannot_be_solved_is_skipped_not_failed(tmp_path):
    short = {**LADDER, "initial_inventory": {"0": {"stick": 6}}, "target": "golden_apple",
             "goal": "Craft a golden_apple."}
    evaluation = planned(tmp_path, {"short": short, "ladder": LADDER})
    assert [ep.task_id for ep in evaluation.episodes] == ["ladder"]
    assert [(s.task_id, s.reason) for s in evaluation.skipped] == [("short", "unsolvable")]
    assert "needs 8 more gold_ingot" in evaluation.skipped[0].problems[0]


def test_coblock_tasks_are_planned_beside_the_others(tmp_path):
    coblock = json.loads((REPO_ROOT / "tasks" / "coblock_test.json").read_text())["coblock_goal_dependent_3"]
    evaluation = planned(tmp_path, {"ladder": LADDER, "coblock_goal_dependent_3": coblock})
    assert [ep.task_id for ep in evaluation.episodes] == ["ladder", "coblock_goal_dependent_3"]
    assert evaluation.skipped == []


def test_files_named_twice_globs_ids_and_limits(suite, tmp_path):
    twice = Evaluation([str(suite / "one" / "tasks.json"), str(suite / "one"), str(suite / "one" / "*.json")],
                       out=tmp_path / "out")
    assert _ids(twice) == [("one/tasks.json", "ladder", 1, 1)]
    chosen = Evaluation([str(suite / "**" / "*.json")], out=tmp_path / "out", ids=["ladder"])
    assert _ids(chosen) == [("one/tasks.json", "ladder", 1, 1), ("two/tasks.json", "ladder", 2, 1)]
    assert [s.reason for s in chosen.skipped] == ["unreadable"]  # 'wave' was not asked for
    first = Evaluation([str(suite / "three.yaml")], out=tmp_path / "out", limit=1)
    assert _ids(first) == [("three.yaml", "ladder", 1, 1)]
    with pytest.raises(TaskFileError, match="no such task file or folder"):
        Evaluation([str(suite / "four.json")], out=tmp_path / "out")


def test_rows_and_summary_keep_every_episode_of_a_shared_id(suite, tmp_path):
    lines: list[str] = []
    evaluation = Evaluation([str(suite)], out=tmp_path / "out", progress=lines.append)
    evaluation.out.mkdir()
    for n, ep in enumerate(evaluation.episodes):
        result = {"task_id": ep.task_id, "score": 1.0 if n % 2 == 0 else 0.0, "end_reason": "success",
                  "agents": {"andy": {"tokens": 10}}}
        evaluation._record(ep, evaluation._row(ep, EpisodeResult.from_dict(result), attempts=1))
    assert [line.split("]")[0] for line in lines] == ["[1/4", "[2/4", "[3/4", "[4/4"]
    summary = evaluation.write()
    with (tmp_path / "out" / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["task_id"], r["agent_count"], r["trial"]) for r in rows] == [
        ("ladder", "1", "1"), ("ladder", "1", "1"), ("spare", "1", "1"), ("ladder", "2", "1")]
    assert len({r["file"] for r in rows}) == 3 and len({r["run_dir"] for r in rows}) == 4
    assert summary["episodes"] == 4 and summary["tokens"] == 40
    assert summary["skipped"] == {"invalid": 1, "unreadable": 1}
    assert summary["skipped_tasks"][0]["task_id"] == "wave" and summary["skipped_tasks"][0]["problems"]
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["skipped"] == summary["skipped"]


def test_the_summary_records_building_assistance_as_the_episodes_were_played(tmp_path):
    """summary.json's `cheat` comes from the episodes' results (--cheat or a profile's own cheat mode), not from
    this run's flag (a resumed run may be given another); episodes that differ make it "mixed", which no other run
    is compared with; the flag stands only where no episode records it."""
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"ladder": LADDER}))

    def run(name: str, cheats: list, flag: bool) -> dict:
        evaluation = Evaluation([str(path)], out=tmp_path / name, trials=len(cheats), progress=lambda text: None,
                                profile_options={"cheat": True} if flag else None)
        evaluation.out.mkdir()
        for ep, cheat in zip(evaluation.episodes, cheats, strict=True):
            if cheat == "error":
                evaluation._record(ep, evaluation._error_row(ep, "server did not start", attempts=2))
                continue
            result = {"task_id": ep.task_id, "score": 1.0, "end_reason": "success", **(
                {} if cheat is None else {"cheat": cheat})}
            evaluation._record(ep, evaluation._row(ep, EpisodeResult.from_dict(result), attempts=1))
        summary = evaluation.write()
        assert Summary.read(evaluation.out / "summary.json").cheat == summary["cheat"]
        assert summarize(read_results(evaluation.out / "results.csv"))["played"] == summary["played"]
        assert cheat_setting(read_results(evaluation.out / "results.csv"), flag) == summary["cheat"]  # read back
        return summary

    assert run("resumed", [False, False], flag=True)["cheat"] is False  # played without, resumed with --cheat
    assert run("profile", [True, None, "error"], flag=False)["cheat"] is True  # a profile's own cheat mode
    assert run("mixed", [True, False], flag=False)["cheat"] == MIXED
    assert run("older", [None, "error"], flag=True)["cheat"] is True  # nothing recorded: the flag
    assert run("none", [None], flag=False)["cheat"] is False

    runs = {name: RunSummary(name, tmp_path / name, load_run(tmp_path / name))
            for name in ("resumed", "profile", "mixed", "older")}
    clash = settings_clash([runs["resumed"], runs["profile"]])
    assert clash is not None and "resumed: cheat=False" in clash and "profile: cheat=True" in clash
    assert settings_clash([runs["profile"], runs["older"]]) is None
    mixed = settings_clash([runs["resumed"], runs["mixed"]])
    assert mixed is not None and "mixed: cheat=mixed" in mixed
    other = RunSummary("other", tmp_path / "other", runs["mixed"].summary)
    assert settings_clash([runs["mixed"], other]) is not None  # two mixed runs are no one setting either
    with pytest.raises(ValueError, match="'cheat' must be true, false or 'mixed'"):
        Summary.from_dict({"success_rate": 0.5, "cheat": "yes"})


def test_errors_are_listed_per_episode_and_skipped_counts_start_at_zero():
    rows = [{"task_id": "ladder", "file": f"{name}.json", "family": "crafting", "agent_count": 1, "trial": 1,
             "score": "", "success": False, "end_reason": "error", "tokens": 0, "error": f"{name} failed"}
            for name in ("a", "b")]
    summary = summarize(rows)
    assert [e["file"] for e in summary["errors_by_episode"]] == ["a.json", "b.json"]
    assert summary["errors"] == 2 and summary["skipped"] == {"invalid": 0} and summary["skipped_tasks"] == []


def test_usernames_are_the_humans_and_never_name_an_agent():
    """MINDcraft's `usernames` name the human players; an agent used to take the first of them."""
    from mindpy.harness.session import agent_names
    from mindpy.tasks.schema import Task

    task = Task.from_dict("t", {"type": "techtree", "goal": "Craft a torch.", "agent_count": 2, "human_count": 1,
                                "usernames": ["Jill"], "target": "torch"})
    assert agent_names(task) == ["andy", "bob"]


def test_folder_names_are_safe_and_never_shared():
    names = ["ladder", "..", ".", "a b", "a_b", "x" * 300, "x" * 301, "../up"]
    folders = [folder_name(n) for n in names]
    assert folders[0] == "ladder" and folders[4] == "a_b"  # safe names stay as they are
    assert len(set(folders)) == len(folders)
    assert all(f not in (".", "..") and "/" not in f and len(f) <= NAME_LIMIT + 9 for f in folders)


@pytest.mark.parametrize("option, value", [("--trials", "0"), ("--limit", "0"), ("--limit", "-1"),
                                           ("--trials", "two")])
def test_counts_below_one_are_refused_before_anything_runs(option, value, capsys):
    from mindpy.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "tasks.json", option, value])
    assert "must be a whole number >= 1" in capsys.readouterr().err


def test_orders_tasks_play_the_papers_three_trials_unless_told(tmp_path):
    """MindAgent averages three episodes: an orders task gets 3 trials by default, a crafting task beside it 1, and
    --trials N applies to both."""
    orders = REPO_ROOT / "tasks" / "orders_test.json"
    ladder = tmp_path / "ladder.json"
    ladder.write_text(json.dumps({"ladder": LADDER}))
    orders_id = "orders_l00_golden_apple_2_agents_alpha_1"
    planned = Evaluation([str(orders), str(ladder)], out=tmp_path / "a", ids=[orders_id, "ladder"],
                         progress=lambda text: None)
    assert sorted((ep.task_id, ep.trial) for ep in planned.episodes) == [
        ("ladder", 1), (orders_id, 1), (orders_id, 2), (orders_id, 3)]
    assert any("orders tasks: 3 trials each" in note for note in planned.notes), planned.notes
    told = Evaluation([str(orders), str(ladder)], out=tmp_path / "b", ids=[orders_id, "ladder"], trials=2,
                      progress=lambda text: None)
    assert sorted((ep.task_id, ep.trial) for ep in told.episodes) == [
        ("ladder", 1), ("ladder", 2), (orders_id, 1), (orders_id, 2)]
    assert not any("trials each" in note for note in told.notes)
