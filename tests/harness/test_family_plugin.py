"""A task family from outside mindpy (tests/toy_family.py), registered through the `mindpy.families` entry point
of an installed distribution, and played through `mindpy eval` with nothing in mindpy/ knowing of it: its fields
are read and checked, its world set up, its checker scores, and its own summary lands in summary.json."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_mindpy
from mindpy.errors import ConfigError
from mindpy.tasks import check_task, family_named, register
from mindpy.tasks.family import BUILTIN, UnknownFamily, families, family_names, unregister

TESTS = REPO_ROOT / "tests"
BEACON = {"type": "beacon", "goal": "Place your block where you stand.", "agent_count": 1,
          "initial_inventory": {"0": {"gold_block": 1}}, "timeout": 90,
          "markers": [[231, -60, 247]], "block": "gold_block"}


@pytest.fixture
def beacon():
    register("beacon", "toy_family:BeaconFamily")
    yield family_named("beacon")
    unregister("beacon")


def test_a_registered_family_reads_and_checks_its_own_fields(beacon):
    check = check_task("b", BEACON)
    assert check.problems == [] and check.task is not None
    assert check.task.fields.markers == ((231, -60, 247),) and check.task.extra == {}
    assert check.task.to_dict()["markers"] == [[231, -60, 247]]  # written back as the file had it

    bad = check_task("b", {**BEACON, "markers": [[1, 2]]})
    assert bad.task is None and any("field 'markers' must be a non-empty list" in p for p in bad.problems)


def test_a_family_that_is_not_registered_is_named_with_the_known_ones():
    with pytest.raises(UnknownFamily) as caught:
        family_named("beacon")
    assert "unknown task family 'beacon'" in str(caught.value) and "crafting" in str(caught.value)
    check = check_task("b", BEACON)
    assert check.task is None and any("field 'type' must be one of" in p for p in check.problems)


def test_registering_a_second_family_under_a_taken_name_is_refused(beacon):
    with pytest.raises(ConfigError, match="already registered"):
        register("beacon", "toy_family:SomethingElse")
    register("misnamed", "toy_family:BeaconFamily")
    try:
        with pytest.raises(ConfigError, match="calls itself 'beacon'"):
            family_named("misnamed")
    finally:
        unregister("misnamed")
    assert "beacon" in family_names()


def test_a_family_that_does_not_load_stops_no_other():
    register("broken", "no_such_module:BrokenFamily")
    try:
        with pytest.raises(ConfigError, match="task family 'broken'.*cannot load 'no_such_module:BrokenFamily'"):
            family_named("broken")
        assert [f.name for f in families()][:6] == list(BUILTIN)  # the others load and are listed
        assert check_task("t", {"type": "techtree", "goal": "g", "agent_count": 1, "target": "stick"}).task
    finally:
        unregister("broken")


def _install_entry_point(folder: Path) -> dict[str, str]:
    """A distribution whose entry point adds the family, as `pip install` would leave it; returns the environment
    that puts it and tests/ on the path."""
    info = folder / "toy_family-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-family\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mindpy.families]\nbeacon = toy_family:BeaconFamily\n")
    paths = [str(folder), str(TESTS), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def test_mindpy_eval_plays_a_family_found_through_its_entry_point(tmp_path):
    env = _install_entry_point(tmp_path / "site")
    tasks = tmp_path / "beacon.json"
    tasks.write_text(json.dumps({"beacon_1": BEACON, "beacon_short": {**BEACON, "initial_inventory": {"0": {}}}}))
    (tmp_path / "replies.yaml").write_text("default: 'Here it goes. !placeHere(\"gold_block\")'\n")

    code, out = run_mindpy("tasks", "validate", str(tasks), cwd=tmp_path, env=env)
    assert code == 0, out
    code, out = run_mindpy("tasks", "families", cwd=tmp_path, env=env)
    assert code == 0 and "beacon" in out and "from entry point" in out, out

    out_dir = tmp_path / "eval"
    code, out = run_mindpy("eval", str(tasks), "--out", str(out_dir), "--model",
                           f"replay:{tmp_path / 'replies.yaml'}", cwd=tmp_path, env=env, timeout=300)
    assert code == 0, out
    with (out_dir / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["task_id"], r["family"], r["success"]) for r in rows] == [("beacon_1", "beacon", "True")], out
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["by_family"]["beacon"]["success_rate"] == 1.0
    assert summary["beacon"] == {"episodes": 1, "markers_lit": 1.0}  # the family's own summary
    assert summary["skipped"].get("unsolvable") == 1  # its solvability check: no block to place
    result = json.loads((Path(rows[0]["run_dir"]) / "result.json").read_text())
    assert result["type"] == "beacon" and result["end_reason"] == "success"
