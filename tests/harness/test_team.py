"""Mixed teams (`--team AGENT=MODEL`) and cross-play (`mindpy eval --pairings A,B`): the entries, their errors,
and a 2x2 matrix played by one command on the session's server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mindpy.errors import ConfigError
from mindpy.harness.options import EpisodeOptions
from mindpy.harness.team import (
    matrix_table,
    pairing_folder,
    pairings,
    parse_team,
    team_specs,
    write_cross_play,
)

MINDPY = Path(sys.executable).with_name("mindpy")


def test_team_entries_name_agents_by_name_or_index():
    team = parse_team(["andy=gpt-4o-mini", " 2 = oracle "])
    assert team == {"andy": "gpt-4o-mini", "2": "oracle"}
    assert team_specs(team, ["andy", "jill", "bob"], "chaos") == {"andy": "gpt-4o-mini", "jill": "chaos",
                                                                  "bob": "oracle"}
    assert EpisodeOptions.from_json(EpisodeOptions(team=team).to_json()).team == team  # what each episode gets


@pytest.mark.parametrize("entries, words", [
    (["andy"], "expected AGENT=MODEL"),
    (["=oracle"], "expected AGENT=MODEL"),
    (["andy="], "expected AGENT=MODEL"),
    (["andy=oracle", "andy=chaos"], "given twice"),
    (["andy=opnai/gpt-4o"], "did you mean 'openai/gpt-4o'"),
    (["andy=chaos:x"], "seed is a whole number"),
])
def test_malformed_team_entries_are_refused_with_the_fix(entries, words):
    with pytest.raises(ConfigError, match=words):
        parse_team(entries)


@pytest.mark.parametrize("team, words", [
    ({"bob": "oracle"}, "no agent 'bob' in the task \\(its agents: andy, jill"),
    ({"2": "oracle"}, "the task has agents 0 to 1"),
])
def test_a_team_entry_for_no_agent_of_the_task_is_refused(team, words):
    with pytest.raises(ConfigError, match=words):
        team_specs(team, ["andy", "jill"], None)


def test_the_cross_play_summary_holds_the_matrix_and_a_chart(tmp_path):
    models = ["oracle", "chaos:1"]
    assert pairings(models) == [("oracle", "oracle"), ("oracle", "chaos:1"), ("chaos:1", "oracle"),
                                ("chaos:1", "chaos:1")]
    summaries = {("oracle", "oracle"): {"played": 2, "success_rate": 1.0},
                 ("oracle", "chaos:1"): {"played": 2, "success_rate": 0.5},
                 ("chaos:1", "oracle"): {"played": 0, "success_rate": 0.0},   # nothing played: no rate
                 ("chaos:1", "chaos:1"): {"played": 2, "success_rate": 0.0}}
    summary = write_cross_play(tmp_path, models, summaries)
    assert summary["cross_play"] == {"oracle": {"oracle": 1.0, "chaos:1": 0.5},
                                     "chaos:1": {"oracle": None, "chaos:1": 0.0}}
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    assert pairing_folder("chaos:1", "oracle") == "pair_chaos_1__oracle"
    table = matrix_table(summary["cross_play"], models).splitlines()
    assert table[1].split() == ["oracle", "1.00", "0.50"] and table[2].split() == ["chaos:1", "-", "0.00"]
    assert (tmp_path / "cross_play.png").stat().st_size > 1000


@pytest.mark.slow
def test_one_command_plays_every_pairing_and_writes_the_cross_play_matrix(server, tmp_path):
    """Agent 0 holds the only log. A model that crafts succeeds as agent 0 whatever its partner; as the partner
    of one that only talks, it cannot (it holds nothing): the rows differ, the columns do not."""
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"planks_pair": {
        "type": "techtree", "goal": "Craft oak_planks.", "agent_count": 2, "target": "oak_planks",
        "initial_inventory": {"0": {"oak_log": 1}, "1": {}}, "number_of_target": 4, "timeout": 6}}))  # a success takes under 1 s
    crafts, talks = tmp_path / "crafts.yaml", tmp_path / "talks.yaml"
    crafts.write_text(yaml.safe_dump({"default": 'Crafting. !craftRecipe("oak_planks", 1)'}))
    talks.write_text(yaml.safe_dump({"default": "Nice weather today."}))
    models = [f"replay:{crafts}", f"replay:{talks}"]
    out = tmp_path / "eval"
    proc = subprocess.run([str(MINDPY), "eval", str(tasks), "--pairings", ",".join(models), "--out", str(out),
                           "--servers", f"{server.host}:{server.port}"],
                          capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    strong, weak = models
    assert summary["cross_play"] == {strong: {strong: 1.0, weak: 1.0}, weak: {strong: 0.0, weak: 0.0}}, summary
    assert (out / "cross_play.png").is_file()
    mixed = out / pairing_folder(weak, strong)
    assert json.loads((mixed / "summary.json").read_text())["team"] == {"0": weak}
    episode = next(mixed.rglob("profiles"))  # each agent's profile names its own model
    assert yaml.safe_load((episode / "andy.yaml").read_text())["model"] == weak
    assert yaml.safe_load((episode / "jill.yaml").read_text())["model"] == strong
