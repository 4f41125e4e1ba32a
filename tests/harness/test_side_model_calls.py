"""Every model an agent uses goes through the harness: a profile's code_model and vision_model are budgeted and
logged like its chat model (calls/<agent>.jsonl, kinds "coding" and "vision"), their tokens and dollars are in
the agent's totals, and SFT export still reads the log. The side models are real OpenAI-compatible clients talking
to a local HTTP server (tests/models/model_http_fakes.py) whose every reply reports a million prompt tokens:
$0.15 at gpt-4o-mini's price, so a cap of $0.10 is spent by the first side call (the replay chat model is free)."""

from __future__ import annotations

import json
import struct
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import MILLION, priced_server, priced_spec  # noqa: E402

from mindpy.harness.calls import read_calls
from mindpy.harness.episode import _EpisodeHooks, run_episode
from mindpy.harness.session import agent_names
from mindpy.harness.sft import call_example, export_sft
from mindpy.models import create_model
from mindpy.models.budget import Budget, BudgetExceeded, BudgetLimits
from mindpy.models.replay import ReplayModel
from mindpy.tasks.records import EpisodeResult
from mindpy.tasks.schema import Task

CAP = BudgetLimits(max_usd=0.10)  # one side call ($0.15) spends it


def tiny_png() -> bytes:
    """A real 2x2 grey PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x80\x80\x80" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.fixture
def side_server():
    with priced_server("A grey wall.") as server:
        yield server



def test_side_models_are_budgeted_and_logged_with_their_kind_and_one_log_survives_a_restart(side_server, tmp_path):
    budget = Budget(BudgetLimits(max_usd=0.25))
    hooks = _EpisodeHooks(tmp_path, budget)
    chat = hooks.wrap_model("andy", ReplayModel(["!stats"]))
    coder = hooks.wrap_model("andy", create_model(priced_spec(side_server), attempts=1), role="code")
    seeing = hooks.wrap_model("andy", create_model(priced_spec(side_server), attempts=1), role="vision")

    chat.send([{"role": "user", "content": "hi"}], "You are andy.")
    coder.send([{"role": "user", "content": "pick up a log"}], "Write a function.")
    png = tiny_png()
    assert seeing.send_image(png, "Describe it.").text == "A grey wall."
    assert budget.exceeded is not None and budget.spent_usd == pytest.approx(0.30)
    with pytest.raises(BudgetExceeded):  # refused before it goes: not logged, not sent
        seeing.send_image(png, "Describe it again.")
    assert len(side_server.requests) == 2
    image_part = side_server.requests[1].body["messages"][-1]["content"][1]
    assert image_part["type"] == "image_url"  # the picture went to the server...

    restarted = hooks.wrap_model("andy", ReplayModel(["!inventory"]))  # the agent built again
    assert list(hooks.logs) == ["andy"] and restarted.log is chat.log  # one log writes the file
    hooks.close()
    lines = read_calls(tmp_path / "calls" / "andy.jsonl")
    assert [line["kind"] for line in lines] == ["conversing", "coding", "vision"]
    assert [line["model"] for line in lines] == ["replay/inline", "openai/gpt-4o-mini", "openai/gpt-4o-mini"]
    vision = lines[2]
    assert vision["image"] == {"format": "png", "bytes": len(png), "file": "calls/andy-pictures/0001.png"}
    assert (tmp_path / vision["image"]["file"]).read_bytes() == png  # the picture is kept beside the log
    assert vision["messages"] == [{"role": "user", "content": "Describe it."}] and vision["reply"] == "A grey wall."
    text = (tmp_path / "calls" / "andy.jsonl").read_text()
    assert image_part["image_url"]["url"].split(",", 1)[1][:40] not in text  # ...but not to the log
    tokens, usd = hooks.spent("andy")  # both chat models (before and after the restart) and the side models
    assert tokens == sum(line["prompt_tokens"] + line["completion_tokens"] for line in lines) >= 2 * MILLION
    assert usd == pytest.approx(0.30)


def test_a_failed_command_marks_the_call_before_a_vision_call(tmp_path):
    hooks = _EpisodeHooks(tmp_path)
    chat = hooks.wrap_model("andy", ReplayModel(["!lookAtPosition(1, 2, 3)", "!stats"]))
    chat.send([{"role": "user", "content": "look"}], "You are andy.")
    hooks.logs["andy"].record(ReplayModel([]), "vision", "", [{"role": "user", "content": "Describe."}],
                              None, image={"format": "png", "bytes": 9})
    hooks.event_hooks("andy")[0]("command failed", "!lookAtPosition(1, 2, 3)")
    chat.send([{"role": "user", "content": "again"}], "You are andy.")
    hooks.close()
    lines = read_calls(tmp_path / "calls" / "andy.jsonl")
    assert [(line["kind"], line["command_ok"]) for line in lines] == [
        ("conversing", False), ("vision", True), ("conversing", True)]


def test_sft_export_reads_a_log_with_side_calls_and_conversing_lines_are_as_before(side_server, tmp_path):
    episode = tmp_path / "runs" / "ep"
    hooks = _EpisodeHooks(episode)
    chat = hooks.wrap_model("andy", ReplayModel(['!craftRecipe("stick", 1)']))
    coder = hooks.wrap_model("andy", create_model(priced_spec(side_server), attempts=1), role="code")
    chat.send([{"role": "user", "content": "make a stick"}], "You are andy, a Minecraft bot.")
    coder.send([{"role": "user", "content": "collect logs"}], "Write a function.")
    hooks.wrap_model("andy", create_model(priced_spec(side_server), attempts=1)).send_image(tiny_png(), "Describe.")
    hooks.close()
    (episode / "result.json").write_text(json.dumps({"task_id": "sticks", "type": "techtree", "score": 1.0,
                                                     "end_reason": "success"}))
    out = tmp_path / "sft.jsonl"
    counts = export_sft([tmp_path / "runs"], out)
    examples = [json.loads(line) for line in out.read_text().splitlines()]
    assert counts["examples"] == 2 == len(examples)  # vision is not a default kind
    result = EpisodeResult.from_dict({"task_id": "sticks", "type": "techtree", "score": 1.0})
    assert examples[0] == {  # the conversing example, field for field as before
        "messages": [{"role": "system", "content": "You are andy, a Minecraft bot."},
                     {"role": "user", "content": "make a stick"},
                     {"role": "assistant", "content": '!craftRecipe("stick", 1)'}],
        "metadata": {"task_id": "sticks", "family": "crafting", "agent": "andy", "kind": "conversing",
                     "score": 1.0}}
    assert examples[1] == call_example({"system": "Write a function.", "agent": "andy", "kind": "coding",
                                        "messages": [{"role": "user", "content": "collect logs"}],
                                        "reply": "A grey wall."}, result)


@pytest.mark.parametrize("side", ["code", "vision"])
def test_an_episode_whose_only_spending_is_a_side_model_ends_by_the_budget(side, side_server, server, tmp_path):
    task = Task.from_dict("many_planks", {"type": "techtree", "goal": "Craft 40 oak_planks.", "agent_count": 1,
                                          "initial_inventory": {"0": {"oak_log": 1}}, "target": "oak_planks",
                                          "number_of_target": 40, "timeout": 60})
    (name,) = agent_names(task)
    if side == "code":
        first, options = '!newAction("Craft planks from every log you have.")', {"code_model": priced_spec(side_server)}
    else:
        first, options = "!lookAtPosition(200, -61, 203)", {"allow_vision": True,
                                                            "vision_model": priced_spec(side_server)}
    chat = ReplayModel([first], default="I wait.")
    run_dir = tmp_path / "run"
    result = run_episode(task, run_dir, server=f"{server.host}:{server.port}", models={name: chat},
                         profile_options=options, budget=CAP)
    assert result["end_reason"] == "budget", result
    assert result["budget"]["exceeded"] and result["budget"]["usd"] >= 0.15
    assert len(side_server.requests) == 1  # the cap stopped the side model after its first call
    lines = read_calls(run_dir / "calls" / f"{name}.jsonl")
    kind = "coding" if side == "code" else "vision"
    sides = [line for line in lines if line["model"] == "openai/gpt-4o-mini"]
    assert [line["kind"] for line in sides] == [kind] and sides[0]["prompt_tokens"] == MILLION
    assert any(line["kind"] == "conversing" and line["reply"] == first for line in lines)
    totals = json.loads((run_dir / "result.json").read_text())["agents"][name]
    assert totals["tokens"] >= MILLION and totals["usd"] == pytest.approx(0.15)
