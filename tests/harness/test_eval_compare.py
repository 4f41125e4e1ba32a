"""`mindpy eval compare`: run folders written through `Evaluation.write` (no server: the episodes get made-up
results), then compared through the command line; a folder without summary.json and a run from before the
breakdowns are compared beside them."""

from __future__ import annotations

import csv
import json

import pytest

from conftest import REPO_ROOT
from mindpy.cli import main
from mindpy.harness.ablations import PAPER_INIT_MESSAGE, Ablations
from mindpy.harness.compare import comparison_rows, load_runs
from mindpy.harness.evaluate import BREAKDOWN_FIELDS, CSV_FIELDS, Evaluation, read_results
from mindpy.tasks.records import EpisodeResult

CARROT = "multiagent_crafting_golden_carrot_partial_plan_requires_ctable__depth_0__2_agents"  # depth 0, blocked
SWORD = "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents"  # depth 1
CAKE = "multiagent_cooking_2_agents_cake"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs of the same three tasks, two trials each: 'strong' wins all but the carrot's second trial,
    'weak' wins only the sword's, and has one infrastructure error; 'old' is 'weak' as written before the
    breakdown columns (its summary.json without by_breakdown, its results.csv without the columns)."""
    crafting = json.loads((REPO_ROOT / "tasks" / "crafting_test.json").read_text())
    cooking = json.loads((REPO_ROOT / "tasks" / "cooking_test.json").read_text())
    root = tmp_path_factory.mktemp("runs")
    tasks = root / "tasks.json"
    tasks.write_text(json.dumps({CARROT: crafting[CARROT], SWORD: crafting[SWORD], CAKE: cooking[CAKE]}))
    wins = {"strong": {(CARROT, 1), (SWORD, 1), (SWORD, 2), (CAKE, 1), (CAKE, 2)},
            "weak": {(SWORD, 1), (SWORD, 2)}}
    for name, won in wins.items():
        evaluation = Evaluation([str(tasks)], out=root / name, trials=2, usd_per_mtok=2.0, progress=lambda t: None)
        evaluation.out.mkdir()
        for ep in evaluation.episodes:
            if name == "weak" and (ep.task_id, ep.trial) == (CAKE, 1):
                evaluation._record(ep, evaluation._error_row(ep, "server did not start", attempts=2))
                continue
            result = {"task_id": ep.task_id, "score": float((ep.task_id, ep.trial) in won), "end_reason": "ended",
                      "agents": {"andy": {"tokens": 1000 if name == "strong" else 250}}}
            evaluation._record(ep, evaluation._row(ep, EpisodeResult.from_dict(result), attempts=1))
        evaluation.write()
    old = root / "old"
    old.mkdir()
    summary = json.loads((root / "weak" / "summary.json").read_text())
    del summary["by_breakdown"], summary["trials"]
    (old / "summary.json").write_text(json.dumps(summary))
    with (old / "results.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[k for k in CSV_FIELDS if k not in BREAKDOWN_FIELDS],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(read_results(root / "weak" / "results.csv"))
    (root / "empty").mkdir()
    return root


def table(rows: list[tuple[str, list[str]]]) -> dict[str, list[str]]:
    return dict(rows)


def test_the_table_has_a_column_per_run(runs):
    loaded, problems = load_runs([runs / "strong", runs / "weak"])
    assert problems == [] and [run.label for run in loaded] == ["strong", "weak"]
    rows = table(comparison_rows(loaded))
    assert rows["episodes"] == ["6", "6"] and rows["errors"] == ["0", "1"] and rows["played"] == ["6", "5"]
    assert rows["success"] == ["83% (5/6)", "40% (2/5)"]
    assert rows["family=crafting"] == ["75% (3/4)", "50% (2/4)"]
    assert rows["family=cooking"] == ["100% (2/2)", "0% (0/1)"]
    assert rows["plan_depth=0"] == ["50% (1/2)", "0% (0/2)"] and rows["plan_depth=1"] == ["100% (2/2)"] * 2
    assert rows["blocked_access=yes"] == ["50% (1/2)", "0% (0/2)"]
    assert rows["difficulty=easy"] == ["100% (2/2)", "0% (0/1)"]
    assert "plan_depth=n/a" not in rows and not any(name.startswith("coblock_type") for name in rows)
    assert rows["crafting success over trials"] == ["75% ± 25%", "50% ± 0%"]
    assert rows["tokens"] == ["6,000", "1,250"] and rows["cost (USD)"] == ["0.0120", "0.0025"]


def test_a_run_from_before_the_breakdowns_gets_them_from_its_results(runs):
    loaded, _ = load_runs([runs / "weak", runs / "old"])
    rows = table(comparison_rows(loaded))
    assert rows["family=crafting"] == ["50% (2/4)", "50% (2/4)"]
    assert rows["plan_depth=0"] == ["0% (0/2)", "-"] and rows["plan_depth=unknown"] == ["-", "40% (2/5)"]
    assert rows["crafting success over trials"] == ["50% ± 0%"] * 2


def test_compare_prints_the_table_and_writes_the_chart_leaving_out_a_folder_without_summary(runs, tmp_path,
                                                                                                capsys):
    out = tmp_path / "charts" / "compare.png"
    code = main(["eval", "compare", str(runs / "strong"), str(runs / "empty"), str(runs / "weak"), "--out", str(out)])
    printed = capsys.readouterr().out.splitlines()
    assert code == 1  # a folder was left out
    assert printed[0] == f"left out: {runs / 'empty'}: no summary.json (give the --out folder of a `mindpy eval` run)"
    header = printed[1].split()
    assert header == ["strong", "weak"]
    success = next(line for line in printed if line.startswith("success "))
    assert success.split()[1:] == ["83%", "(5/6)", "40%", "(2/5)"]
    assert printed[-1] == f"Chart: {out}"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_of_runs_that_all_have_summaries_succeeds(runs, tmp_path, capsys):
    out = tmp_path / "c.svg"
    assert main(["eval", "compare", str(runs / "strong"), str(runs / "old"), "--out", str(out)]) == 0
    assert "<svg" in out.read_text()[:500]
    assert "left out" not in capsys.readouterr().out


def test_compare_refuses_what_it_cannot_use(runs, tmp_path, capsys):
    assert main(["eval", "compare", str(runs / "empty"), "--out", str(tmp_path / "c.png")]) == 1
    assert "nothing to compare" in capsys.readouterr().out
    assert not (tmp_path / "c.png").exists()
    assert main(["eval", "compare", str(runs / "strong"), "--out", str(tmp_path / "c.txt")]) == 2
    assert "give a file name with one of those endings" in capsys.readouterr().err
    assert main(["eval", "compare"]) == 2
    assert "needs at least one RUN_DIR" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", "compare", str(runs / "strong"), "--trials", "3"])
    assert "takes RUN_DIR... and --out FILE.png only, not --trials" in capsys.readouterr().err


def test_an_old_run_with_a_broken_results_csv_is_left_out_with_the_reason(runs, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "summary.json").write_text((runs / "old" / "summary.json").read_text())
    text = (runs / "old" / "results.csv").read_text().splitlines()
    (broken / "results.csv").write_text("\n".join([text[0], text[1].replace(",2,1,", ",two,1,", 1), *text[2:]]))
    loaded, problems = load_runs([runs / "strong", broken])
    assert [run.label for run in loaded] == ["strong"]
    assert problems == [f"{broken / 'results.csv'}: results row of task '{CARROT}': agent_count must be a whole "
                        f"number, got 'two'; fix or remove that row of results.csv"]


def test_compare_refuses_runs_played_with_different_ablations(runs, tmp_path, capsys):
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    summary = json.loads((runs / "weak" / "summary.json").read_text())
    # every run records its settings, as its families' plays applied them (the paper's joining message)
    assert summary["ablations"] == {"communication": True, "tools": True, "init_message": "paper", "temperature": None,
                                   "prompt": "full"}
    summary["ablations"] = Ablations(communication=False, init_message=PAPER_INIT_MESSAGE).record()
    (quiet / "summary.json").write_text(json.dumps(summary))
    assert main(["eval", "compare", str(runs / "strong"), str(quiet), "--out", str(tmp_path / "c.png")]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith("not comparable: the runs were played with different settings") and \
        "communication=False" in printed and "tools=" not in printed  # only what differs and not (tmp_path / "c.png").exists()
    # a run from before the record is compared with either
    older = tmp_path / "older"
    older.mkdir()
    del summary["ablations"]
    (older / "summary.json").write_text(json.dumps(summary))
    assert main(["eval", "compare", str(older), str(quiet), "--out", str(tmp_path / "d.png")]) == 0


def test_compare_refuses_defuse_runs_played_with_different_settings(tmp_path):
    from pathlib import Path

    from mindpy.harness.compare import RunSummary, settings_clash
    from mindpy.tasks.families.defuse.settings import DefuseSettings
    from mindpy.tasks.records import Summary

    def run(label: str, settings) -> RunSummary:
        return RunSummary(label, Path(tmp_path / label), Summary.from_dict({"defuse": {"settings": settings}}))

    paper, long = DefuseSettings().record(), DefuseSettings(defuse_long_history=True).record()
    assert settings_clash([run("a", paper), run("b", dict(paper))]) is None
    line = settings_clash([run("a", paper), run("b", long)])
    assert line is not None and "defuse.history_rounds=2" in line and "defuse.history_rounds=6" in line
    mixed = {**paper, "valid_actions": "mixed"}
    assert "defuse.valid_actions=mixed" in (settings_clash([run("a", mixed), run("b", mixed)]) or "")
    assert settings_clash([run("a", paper), run("old", None)]) is None   # a run from before the record
