"""`mindpy eval`'s breakdowns without a server: real tasks of the committed splits are planned, their episodes given
made-up results through the rows `Evaluation` builds and writes, and the summary is checked for success by plan
depth, blocked access, Hell's Kitchen..., the spread over trials, results.csv read back, rows of older runs and
the chart's panels."""

from __future__ import annotations

import csv
import json
import struct

import pytest

from conftest import REPO_ROOT
from mindpy.harness.evaluate import BREAKDOWN_FIELDS, CSV_FIELDS, Episode, Evaluation, chart, read_results, summarize
from mindpy.tasks.records import EpisodeResult

# short name -> (split, task id); the comments give what the breakdowns should read from each task
TASKS = {
    "carrot": ("crafting", "multiagent_crafting_golden_carrot_partial_plan_requires_ctable__depth_0__2_agents"),
    # depth 0, blocked from the crafting plan
    "sword": ("crafting", "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents"),
    # depth 1, nobody blocked
    "kitchen": ("cooking", "multiagent_cooking_4_agents_baked_potato_cooked_beef_bread_rabbit_stew_hells_kitchen"),
    # Hell's Kitchen, hard, 4 agents
    "cake": ("cooking", "multiagent_cooking_2_agents_cake"),  # easy
    "house": ("construction", "materials_1_rooms_1_window_0_carpet_0_variant_0"),  # no depth, no difficulty
}
# (short name, trial) -> score; None: an infrastructure error
OUTCOMES = {("carrot", 1): 1.0, ("carrot", 2): 0.0, ("sword", 1): 1.0, ("sword", 2): 1.0,
            ("kitchen", 1): 0.0, ("kitchen", 2): 0.0, ("cake", 1): None, ("cake", 2): 1.0,
            ("house", 1): 0.5, ("house", 2): 0.5}


@pytest.fixture(scope="module")
def task_file(tmp_path_factory):
    """One file holding the five tasks, copied from the committed test splits."""
    splits = {name: json.loads((REPO_ROOT / "tasks" / f"{name}_test.json").read_text())
              for name in ("crafting", "cooking", "construction")}
    path = tmp_path_factory.mktemp("suite") / "tasks.json"
    path.write_text(json.dumps({task_id: splits[split][task_id] for split, task_id in TASKS.values()}))
    return path


def short(task_id: str) -> str:
    return next(name for name, (_, full) in TASKS.items() if full == task_id)


def play(evaluation: Evaluation, outcomes: dict = OUTCOMES) -> dict:
    """Record a made-up result for every planned episode as a finished episode would, and write the output."""
    evaluation.out.mkdir(parents=True)
    for ep in evaluation.episodes:
        score = outcomes[(short(ep.task_id), ep.trial)]
        if score is None:
            row = evaluation._error_row(ep, "server did not start", attempts=2)
        else:
            result = {"task_id": ep.task_id, "score": score, "end_reason": "success" if score == 1 else "timeout",
                      "agents": {"andy": {"tokens": 100, "commands_used": 3}}}
            row = evaluation._row(ep, EpisodeResult.from_dict(result), attempts=1)
        evaluation._record(ep, row)
    return evaluation.write()


@pytest.fixture(scope="module")
def two_trials(task_file, tmp_path_factory):
    evaluation = Evaluation([str(task_file)], out=tmp_path_factory.mktemp("run") / "eval", trials=2,
                            progress=lambda text: None)
    return evaluation, play(evaluation)


def rate(episodes: int, successes: int) -> dict:
    return {"episodes": episodes, "successes": successes, "success_rate": pytest.approx(successes / episodes)}


def test_every_row_carries_its_tasks_breakdown(two_trials):
    evaluation, _ = two_trials
    assert sorted({short(ep.task_id) for ep in evaluation.episodes}) == sorted(TASKS)  # none skipped
    rows = {(short(r["task_id"]), int(r["trial"])): r for r in read_results(evaluation.out / "results.csv")}
    columns = list(rows[("carrot", 1)])
    assert columns == list(CSV_FIELDS) and columns[-len(BREAKDOWN_FIELDS) - 2:] == [*BREAKDOWN_FIELDS, "cheat", "human_count"]
    picked = {name: {key: rows[(name, 2)][key] for key in BREAKDOWN_FIELDS} for name in TASKS}
    assert picked["carrot"] == {"plan_depth": "0", "difficulty": "n/a", "coblock_type": "n/a",
                                "blocked_access": "yes", "hells_kitchen": "no"}
    assert picked["sword"]["plan_depth"] == "1" and picked["sword"]["blocked_access"] == "no"
    assert picked["kitchen"] == {"plan_depth": "n/a", "difficulty": "hard", "coblock_type": "n/a",
                                 "blocked_access": "no", "hells_kitchen": "yes"}
    assert picked["cake"]["difficulty"] == "easy" and picked["house"]["difficulty"] == "n/a"
    assert rows[("cake", 1)]["end_reason"] == "error" and rows[("cake", 1)]["hells_kitchen"] == "no"  # errors too


def test_success_by_breakdown_counts_played_episodes_only(two_trials):
    _, summary = two_trials
    by = summary["by_breakdown"]
    assert by["family"] == {"construction": rate(2, 0), "cooking": rate(3, 1), "crafting": rate(4, 3)}
    assert by["agent_count"] == {"2": rate(7, 4), "4": rate(2, 0)}
    assert by["plan_depth"] == {"0": rate(2, 1), "1": rate(2, 2)}  # tasks without a depth are left out
    assert by["difficulty"] == {"easy": rate(1, 1), "hard": rate(2, 0)}
    assert by["blocked_access"] == {"no": rate(7, 3), "yes": rate(2, 1)}
    assert by["hells_kitchen"] == {"no": rate(7, 4), "yes": rate(2, 0)}
    assert by["coblock_type"] == {}
    assert summary["played"] == 9 and summary["errors"] == 1
    assert json.loads((two_trials[0].out / "summary.json").read_text())["by_breakdown"] == by


def test_several_trials_give_the_spread_per_task_and_per_family(two_trials):
    trials = two_trials[1]["trials"]
    assert trials["count"] == 2
    tasks = {short(t["task_id"]): t for t in trials["by_task"]}
    assert (tasks["carrot"]["trials"], tasks["carrot"]["success_mean"], tasks["carrot"]["success_std"]) == (
        2, pytest.approx(0.5), pytest.approx(0.5))
    assert (tasks["sword"]["success_mean"], tasks["sword"]["success_std"]) == (1.0, 0.0)
    assert (tasks["house"]["score_mean"], tasks["house"]["score_std"], tasks["house"]["success_mean"]) == (
        pytest.approx(0.5), 0.0, 0.0)
    assert tasks["cake"]["trials"] == 1 and tasks["cake"]["success_std"] == 0.0  # its errored trial left out
    crafting, cooking = trials["by_family"]["crafting"], trials["by_family"]["cooking"]
    assert crafting["success_rate_by_trial"] == {"1": 1.0, "2": 0.5}
    assert (crafting["mean"], crafting["std"]) == (pytest.approx(0.75), pytest.approx(0.25))
    assert cooking["success_rate_by_trial"] == {"1": 0.0, "2": 0.5}  # trial 1: the kitchen alone (cake errored)
    assert (cooking["mean"], cooking["std"]) == (pytest.approx(0.25), pytest.approx(0.25))


def test_one_trial_has_no_spread(task_file, tmp_path):
    evaluation = Evaluation([str(task_file)], out=tmp_path / "eval", progress=lambda text: None)
    assert play(evaluation)["trials"] is None


def test_results_csv_read_back_summarizes_as_the_run_did(two_trials):
    evaluation, summary = two_trials
    again = summarize(read_results(evaluation.out / "results.csv"))
    for key in ("success_rate", "by_family", "by_family_and_agents", "by_breakdown", "trials", "tokens", "errors"):
        assert again[key] == summary[key], key


def test_rows_of_older_runs_count_as_unknown(two_trials, tmp_path):
    evaluation, summary = two_trials
    old_fields = [f for f in CSV_FIELDS if f not in BREAKDOWN_FIELDS]
    with (tmp_path / "results.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=old_fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(read_results(evaluation.out / "results.csv"))
    old = summarize(read_results(tmp_path / "results.csv"))
    assert old["by_breakdown"]["plan_depth"] == {"unknown": rate(9, 4)}
    assert old["by_breakdown"]["hells_kitchen"] == {"unknown": rate(9, 4)}
    assert old["by_breakdown"]["family"] == summary["by_breakdown"]["family"]
    chart(old, tmp_path / "old.png")  # panels for family and agent count only: the others know nothing
    assert png_size(tmp_path / "old.png") == png_size_of_panels(2)
    older = {k: v for k, v in old.items() if k not in ("by_breakdown", "trials")}  # a summary.json of before
    chart(older, tmp_path / "older.png")
    assert png_size(tmp_path / "older.png") == png_size_of_panels(0)
    unplanned = Evaluation([], out=tmp_path).\
        _row(Episode("f.json", "t", "crafting", 2, tmp_path / "t"), EpisodeResult.from_dict({"score": 1.0, "end_reason": "success"}), 1)
    assert unplanned["plan_depth"] == "" and summarize([unplanned])["by_breakdown"]["plan_depth"] == {
        "unknown": rate(1, 1)}


def test_episodes_with_people_beside_the_agents_are_a_group_of_their_own(tmp_path):
    def row(task_id: str, humans: int, score: float) -> dict:
        episode = Episode("f.json", task_id, "orders", 2, tmp_path / task_id, human_count=humans)
        return Evaluation([], out=tmp_path)._row(
            episode, EpisodeResult.from_dict({"score": score, "end_reason": "success" if score else "timeout"}), 1)

    rows = [row("a", 0, 1.0), row("b", 0, 1.0), row("c", 1, 0.0)]
    groups = summarize(rows)["by_family_and_agents"]
    assert groups["orders/2_agents"]["episodes"] == 2 and groups["orders/2_agents"]["success_rate"] == 1.0
    assert groups["orders/2_agents+1_humans"] == {"family": "orders", "agent_count": 2, "human_count": 1,
                                                  "episodes": 1, "success_rate": 0.0, "mean_score": 0.0}
    with (tmp_path / "results.csv").open("w", newline="") as f:  # read back as strings, and without the column
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    assert summarize(read_results(tmp_path / "results.csv"))["by_family_and_agents"] == groups
    older = [{k: v for k, v in r.items() if k != "human_count"} for r in rows]
    assert summarize(older)["by_family_and_agents"]["orders/2_agents"]["episodes"] == 3


def test_the_chart_has_a_panel_per_breakdown_with_values(two_trials):
    evaluation, _ = two_trials
    # family, agent count, plan depth, difficulty, blocked access, Hell's Kitchen (no coblock type): 1 + 6 panels
    assert png_size(evaluation.out / "summary.png") == png_size_of_panels(6)


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def png_size_of_panels(panels: int) -> tuple[int, int]:
    """The chart's size in pixels (100 dpi) with the first panel and `panels` more, three to a line."""
    if panels == 0:
        return png_size_single()
    columns = min(3, 1 + panels)
    lines = -(-(1 + panels) // columns)
    return round(480 * columns), 400 * lines


def png_size_single() -> tuple[int, int]:
    """The original one-panel chart of the family/agent groups of the run above (four groups)."""
    return round(100 * max(4, 1.2 * 4 + 2)), 400
