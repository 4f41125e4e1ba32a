"""Typed records of result.json and summary.json: today's files round-trip byte for byte, old ones read."""

from __future__ import annotations

import json

import pytest

from mindpy.harness.evaluate import summarize
from mindpy.tasks import Task
from mindpy.tasks.records import EpisodeResult, Summary
from mindpy.tasks.results import EpisodeRecorder


def _coblock_task() -> Task:
    return Task.from_dict("coblock_small", {
        "type": "coblock", "coblock_type": "skill_dependent", "agent_count": 2,
        "goal": {"0": "Build.", "1": "Build."},
        "blueprint": {"levels": [{"level": 0, "coordinates": [0, -60, 0],
                                  "placement": [["red_wool", "blue_wool"]]}]},
        "private_goals": {"0": [[0, -60, 0, "red_wool"]], "1": [[1, -60, 0, "blue_wool"]]},
        "initial_inventory": {"0": {"red_wool": 1}, "1": {"blue_wool": 1}}})


def _cooking_task() -> Task:
    return Task.from_dict("bread", {"type": "cooking", "goal": "Bake.", "agent_count": 1,
                                    "initial_inventory": {"0": {"wheat": 3}}, "target": {"bread": 1}})


def _written_result(tmp_path, task: Task, names: list[str], rounds: bool) -> str:
    """result.json as an episode writes it: the recorder's result, the costs and budget, the round rules, and
    what Session.write_result adds."""
    recorder = EpisodeRecorder(task, names)
    for name in names:
        recorder.record_command(name, "!placeBlock")
        recorder.record_tokens(name, 120)
    recorder.record_message(names[0])
    if rounds:
        recorder.record_round(2)
    result = recorder.on_end(1.0, "success")
    result = {**result, "agents": {n: {**a, "usd": 0.0012} for n, a in result["agents"].items()},
              "budget": {"usd": 0.0024, "max_usd": None, "requests": 4}}
    if rounds:
        result = {**result, "round_rules": {"limit": 3, "message_is_action": False},
                  "round_tally": {n: {"actions": 1, "messages": 0, "passes": 1} for n in names}}
    written = {**result, "run_dir": str(tmp_path), "agent_names": names}
    path = tmp_path / "result.json"
    path.write_text(json.dumps(written, indent=2) + "\n")
    return path.read_text()


@pytest.mark.parametrize("kind", ["coblock", "cooking"])
def test_todays_result_round_trips_byte_for_byte(tmp_path, kind):
    task, names = (_coblock_task(), ["andy", "jill"]) if kind == "coblock" else (_cooking_task(), ["andy"])
    text = _written_result(tmp_path, task, names, rounds=kind == "coblock")
    result = EpisodeResult.read(tmp_path / "result.json")
    assert result.task_id == task.id and result.family == kind and result.succeeded and result.counted
    assert result.agent_names == names and result.budget == {"usd": 0.0024, "max_usd": None, "requests": 4}
    if kind == "coblock":
        assert result.rounds == 2 and "gamma" in result.extra and "timesteps" in result.extra
    result.write(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == text
    assert EpisodeResult.from_dict(json.loads(text)).to_dict() == json.loads(text)


def test_old_result_without_newer_keys_reads_with_defaults(tmp_path):
    old = {"task_id": "t1", "type": "techtree", "score": 0.0, "end_reason": "timeout", "error": None,
           "started_at": "2025-01-01T10:00:00", "duration_s": 12.5, "timeout_s": 60,
           "agents": {"andy": {"commands": {}, "commands_used": 0, "messages_sent": 0, "tokens": 0}}}
    (tmp_path / "result.json").write_text(json.dumps(old))
    result = EpisodeResult.read(tmp_path / "result.json")
    assert result.budget is None and result.agent_names == [] and result.run_dir is None and result.rounds is None
    assert result.family == "crafting" and not result.succeeded and result.counted
    assert result.to_dict() == old  # nothing is added that the file did not have


def test_a_partial_result_is_written_back_without_added_keys(tmp_path):
    partial = {"score": 1.0, "run_dir": "elsewhere"}
    assert EpisodeResult.from_dict(partial).to_dict() == partial


def test_budget_cut_off_and_error_are_not_counted():
    cut = EpisodeResult.from_dict({"task_id": "t", "type": "cooking", "score": 1.0, "end_reason": "budget"})
    assert not cut.succeeded and not cut.counted
    assert not EpisodeResult.from_dict({"task_id": "t", "type": "cooking", "end_reason": "error"}).counted


def test_unknown_key_survives_a_round_trip(tmp_path):
    data = {"task_id": "t", "type": "future_family", "score": 0.5, "end_reason": "ended", "error": None,
            "notes": {"kept": [1, 2]}, "agents": {}}
    result = EpisodeResult.from_dict(data)
    assert result.extra == {"notes": {"kept": [1, 2]}} and result.family == "future_family"
    assert list(result.to_dict()) == list(data) and result.to_dict() == data


def test_malformed_result_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"task_id": "t", "type": "cooking", "score": "lots", "end_reason": "success"}))
    with pytest.raises(ValueError) as info:
        EpisodeResult.read(path)
    message = str(info.value)
    assert str(path) in message and "'score'" in message and "\n" not in message
    path.write_text("{not json")
    with pytest.raises(ValueError, match="result.json"):
        EpisodeResult.read(path)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="JSON object"):
        EpisodeResult.read(path)


def test_summary_round_trips_and_keeps_family_sections(tmp_path):
    rows = [{"task_id": "t1", "file": "f.json", "family": "cooking", "agent_count": 1, "trial": 1, "score": 1.0,
             "success": True, "end_reason": "success", "tokens": 10, "error": "", "run_dir": str(tmp_path)}]
    summary = summarize(rows, model="m")
    text = json.dumps(summary, indent=2) + "\n"
    (tmp_path / "summary.json").write_text(text)
    record = Summary.read(tmp_path / "summary.json")
    assert record.model == "m" and record.played == 1 and record.success_rate == 1.0
    assert "coblock" in record.families and record.families["coblock"] is None
    assert record.budget["ended"] == 0
    record.write(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == text


def test_old_summary_reads_with_defaults(tmp_path):
    old = {"model": "m", "episodes": 2, "played": 2, "errors": 0, "success_rate": 0.5, "by_family": {}}
    (tmp_path / "summary.json").write_text(json.dumps(old))
    record = Summary.read(tmp_path / "summary.json")
    assert record.budget == {} and record.skipped == {} and record.trials is None and record.families == {}
    assert record.to_dict() == old
    (tmp_path / "summary.json").write_text(json.dumps({"model": "m", "played": "two"}))
    with pytest.raises(ValueError, match="'played'"):
        Summary.read(tmp_path / "summary.json")
