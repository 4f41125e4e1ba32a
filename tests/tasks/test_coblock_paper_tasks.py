"""`mindpy tasks convert coblock`: the CoBlock paper's own tasks (its web portal's task instances and sessions) as
coblock tasks. The files in coblock_paper/ are written in the portal's format for these tests (our structures)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from mindpy.cli import main
from mindpy.tasks.families.coblock.generator import ORIGIN, task_type_of
from mindpy.tasks.families.coblock.paper_tasks import PaperTaskError, convert_data, convert_file, wool_of
from mindpy.tasks.loader import load_tasks

DATA = Path(__file__).parent / "coblock_paper"


def convert(tmp_path: Path, name: str, *extra: str, capsys) -> tuple[int, Path, str]:
    out = tmp_path / "out.json"
    code = main(["tasks", "convert", "coblock", str(DATA / name), "-o", str(out), *extra])
    return code, out, capsys.readouterr().err


def validate(path: Path, capsys) -> str:
    code = main(["tasks", "validate", str(path)])
    text = capsys.readouterr()
    assert code == 0, text
    assert "0 invalid, 0 warnings" in text.out and "unsolvable" not in text.out + text.err, text
    return text.out


def test_visual_motives_become_private_goals_on_the_site(tmp_path, capsys):
    code, out, err = convert(tmp_path, "visual_instance.json", capsys=capsys)
    assert code == 0 and "wrote 1 coblock tasks" in err and "warning" not in err, err
    validate(out, capsys)
    tasks = json.loads(out.read_text())
    assert list(tasks) == ["coblock_paper_bench_01"]
    task = tasks["coblock_paper_bench_01"]
    # moved whole: x 4.. -> 100.., z -2 -> -100, the ground layer y 0 -> -60
    assert task["private_goals"] == {
        "0": [[100, -60, -100, "green_wool"], [101, -60, -100, "green_wool"], [102, -60, -100, "green_wool"]],
        "1": [[100, -59, -100, "yellow_wool"], [101, -59, -100, "yellow_wool"], [102, -59, -100, "yellow_wool"],
              [102, -58, -100, "purple_wool"]]}
    assert task["initial_inventory"] == {"0": {"green_wool": 3}, "1": {"purple_wool": 1, "yellow_wool": 4}}
    assert task["coblock_type"] == "goal_dependent"  # Bob's seat rests on Amy's bench only
    assert task["agent_count"] == 2 and task["timeout"] == 600 and task["type"] == "coblock"
    levels = task["blueprint"]["levels"]
    assert [lv["coordinates"] for lv in levels] == [[100, -60, -100], [100, -59, -100], [100, -58, -100]]
    assert "purple_wool at (102, -58, -100)" in task["goal"]["1"] and "green" not in task["goal"]["1"]


def test_block_indices_motives_and_ids_from_names(tmp_path, capsys):
    code, out, err = convert(tmp_path, "indices_instances.json", capsys=capsys)
    assert code == 0, err
    validate(out, capsys)
    tasks = load_tasks(out)
    assert list(tasks) == ["coblock_paper_twin_towers", "coblock_paper_twin_towers_2"]  # unique, sanitised
    towers = tasks["coblock_paper_twin_towers"]
    assert towers.fields.private_goals == {
        "0": [(100, -60, -100, "red_wool"), (100, -59, -100, "red_wool")],
        "1": [(103, -60, -99, "blue_wool"), (103, -59, -99, "blue_wool"), (103, -58, -99, "red_wool")]}
    assert towers.fields.coblock_type == "skill_dependent"  # Bob's tower is topped with red he does not hold
    # the portal's label said otherwise: the data decides, and a warning says so
    assert "motiveType \"parallel\"" in err and "skill_dependent is used" in err
    pair = tasks["coblock_paper_twin_towers_2"]
    assert pair.fields.private_goals == {"0": [(100, -60, -100, "black_wool")],
                                         "1": [(101, -60, -100, "light_blue_wool")]}
    assert pair.fields.coblock_type == "independent"


def test_a_session_page_with_its_task_config_as_text(tmp_path, capsys):
    code, out, err = convert(tmp_path, "session_page.json", capsys=capsys)
    assert code == 0, err
    validate(out, capsys)
    task = json.loads(out.read_text())["coblock_paper_session_42"]
    goals = task["private_goals"]
    assert len(goals["0"]) == 6 and {b[3] for b in goals["0"]} == {"blue_wool"}
    assert len(goals["1"]) == 5 and [104, -57, -100, "red_wool"] in goals["1"]
    assert min(b[1] for g in goals.values() for b in g) == -60 and task["blueprint"]["materials"] == {
        "blue_wool": 6, "red_wool": 5}
    assert task["coblock_type"] == "independent"
    # the blueprint's green block is in neither motive: left out, with a warning
    assert "1 block of the base blueprint (the first: green_wool at [2, 0, 2]) is in no agent's goal" in err


def test_malformed_tasks_refuse_the_file_or_are_skipped_when_asked(tmp_path, capsys):
    code, out, err = convert(tmp_path, "malformed.json", capsys=capsys)
    assert code == 1 and not out.exists()
    lines = err.strip().splitlines()
    expected = {"coblock_paper_lonely": "has 1 agent: a CoBlock task needs two agents",
                "coblock_paper_task_1": "is neither a task instance",
                "coblock_paper_no_pos": "block 0 (uid np) needs a position",
                "coblock_paper_half": '"y": 0.5',
                "coblock_paper_beyond": "has blockIndex 7, outside the blueprint's 2 blocks",
                "coblock_paper_nobody": "has 0 agents"}
    for task_id, message in expected.items():
        assert sum(f"'{task_id}'" in line and message in line for line in lines) == 1, (task_id, err)
    assert lines[-1] == "mindpy: nothing written: 6 of 7 tasks refused (--skip-bad writes the others)"

    code, out, err = convert(tmp_path, "malformed.json", "--skip-bad", capsys=capsys)
    assert code == 0 and list(json.loads(out.read_text())) == ["coblock_paper_good"]
    assert "skipped 6 of 7 tasks: task 'coblock_paper_lonely' (entry 0)" in err


@pytest.mark.parametrize(("name", "message"), [
    ("too_big.json", "'coblock_paper_long_wall' (entry 0): has a structure of 12 x 1 x 1 blocks (x by y by z), "
                     "larger than the site (10 x 8 x 10)"),
    ("unknown_colour.json", "'coblock_paper_gilded' (entry 0): agent 1 motive 0 block 0 (uid u-gold) has "
                            "blockType \"gold\", not a colour"),
    ("overlap.json", "'coblock_paper_shared' (entry 0): the agents' goals overlap in 1 position (the first: "
                     "[1, 0, 0])"),
])
def test_refused_tasks_say_why(tmp_path, capsys, name, message):
    code, out, err = convert(tmp_path, name, capsys=capsys)
    assert code == 1 and not out.exists()
    assert message in err, err


def test_files_that_are_not_tasks(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"agents": [}')
    out = tmp_path / "out.json"
    assert main(["tasks", "convert", "coblock", str(bad), "-o", str(out)]) == 1 and not out.exists()
    assert "not valid JSON" in capsys.readouterr().err
    bad.write_text("17")
    assert main(["tasks", "convert", "coblock", str(bad), "-o", str(out)]) == 1 and not out.exists()
    assert "expected a task instance, a collaboration session or a list of them, got 17" in capsys.readouterr().err
    with pytest.raises(PaperTaskError):
        convert_data([])


def _instance(amy_blocks, bob_blocks, amy_inventory, bob_inventory, base=None):
    def agent(blocks, inventory):
        return {"inventory": [{"blockType": c, "count": n} for c, n in inventory.items()],
                "motives": [{"config": {"blockIndices": []},
                             "description": {"descriptionType": "VISUAL", "blocks": [
                                 {"uid": f"{c}{x}{y}{z}", "blockType": c, "pos": {"x": x, "y": y, "z": z}}
                                 for c, x, y, z in blocks]}}]}
    return {"id": "t", "spec": {}, "agents": [agent(amy_blocks, amy_inventory), agent(bob_blocks, bob_inventory)],
            "baseBlueprint": base}


def test_refusals_of_what_cannot_be_played():
    floating = convert_data(_instance([("red", 0, 0, 0)], [("blue", 0, 2, 0)], {"red": 1}, {"blue": 1}))
    assert not floating.tasks and "cannot be built" in floating.problem_lines()[0]
    short = convert_data(_instance([("red", 0, 0, 0), ("red", 1, 0, 0)], [("blue", 2, 0, 0)], {"red": 1},
                                   {"blue": 1}))
    assert "they need 1 more red_wool" in short.problem_lines()[0]
    base = {"spec": {"blocks": [{"uid": "x", "blockType": "green", "pos": {"x": 0, "y": 0, "z": 0}}]}}
    clash = convert_data(_instance([("red", 0, 0, 0)], [("blue", 1, 0, 0)], {"red": 1}, {"blue": 1}, base))
    assert "a goal has red_wool at [0, 0, 0], where the base blueprint has green_wool" in clash.problem_lines()[0]
    raised = convert_data(_instance([("red", 3, 5, 3)], [("blue", 4, 5, 3)], {"red": 1}, {"blue": 1}))
    assert raised.tasks["coblock_paper_t"]["private_goals"]["0"] == [[100, -60, -100, "red_wool"]]
    assert "lowest layer is y = 5" in raised.warning_lines()[0]


def test_an_experiment_holding_a_session_whose_task_is_named_config():
    instance = _instance([("red", 0, 0, 0)], [("blue", 1, 0, 0)], {"red": 1}, {"blue": 1})
    instance["id"] = ""
    instance["spec"] = json.dumps({"motiveType": "parallel"})
    experiment = {"name": "Pilot Run #3", "session": {"id": None, "blueprint": 5, "config": instance}}
    result = convert_data({"tasks": [experiment]})
    assert list(result.tasks) == ["coblock_paper_pilot_run_3"] and not result.warning_lines()
    assert result.tasks["coblock_paper_pilot_run_3"]["private_goals"]["1"] == [[101, -60, -100, "blue_wool"]]


def test_colours():
    assert wool_of("red") == "red_wool" and wool_of("Light Blue") == "light_blue_wool"
    assert wool_of("purple_wool") == "purple_wool" and wool_of("grey") == "gray_wool"
    assert wool_of("gold") is None and wool_of(3) is None and wool_of("") is None


def test_the_type_read_from_the_data_is_the_test_splits_type():
    tasks = json.loads((REPO_ROOT / "tasks" / "coblock_test.json").read_text())
    for task_id, task in tasks.items():
        ox, oy, oz = ORIGIN  # the generator's cells are relative to the site, its ground at y 0
        goals = [{(x - ox, y - oy, z - oz): b for x, y, z, b in task["private_goals"][k]} for k in ("0", "1")]
        inventories = [task["initial_inventory"][k] for k in ("0", "1")]
        assert task_type_of(*goals, *inventories) == task["coblock_type"], task_id


def test_convert_file_names_the_file():
    result = convert_file(DATA / "overlap.json")
    assert result.problem_lines()[0].startswith(f"{DATA / 'overlap.json'}: task 'coblock_paper_shared'")


@pytest.mark.slow
def test_oracle_players_build_a_converted_task(tmp_path):
    """One whole episode: the goal-dependent bench, converted, played by oracle players."""
    out = tmp_path / "bench.json"
    assert main(["tasks", "convert", "coblock", str(DATA / "visual_instance.json"), "-o", str(out)]) == 0
    run_dir = tmp_path / "run"
    proc = subprocess.run([str(Path(sys.executable).with_name("mindpy")), "run", "--task", str(out), "--task-id",
                           "coblock_paper_bench_01", "--model", "oracle", "--run-dir", str(run_dir)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": ""})
    console = (run_dir / "console.log").read_text() if (run_dir / "console.log").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + console[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "score: 1.0", console[-3000:]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "success", result
