"""`mindpy sft train` for real: a few TRL steps of SmolLM2-135M on a tiny export lower the loss on the replies, a
killed run resumes from its checkpoint, and the trained folder is served by `transformers serve` (`--model
local:DIR`) and answers with what it was taught."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_mindpy, wait_until
from mindpy.models import create_model
from mindpy.models.local_server import stop_server

pytestmark = pytest.mark.slow

SYSTEM = ("You are andy, a Minecraft bot working on a task with other players. Your task: Collaborate with the "
          "other agents to craft {n} {item}. The other agents are: jill.\nAt the start of the task you had: 1 "
          "oak_log.\nReply briefly; a reply may end with one !command.")
ITEMS = ("oak_planks", "stick", "crafting_table", "oak_button")


def export_line(item: str, n: int) -> dict:
    """One line as `mindpy sft export --prompt compact` writes it: the prompt, then the reply to learn."""
    return {"messages": [{"role": "system", "content": SYSTEM.format(n=n, item=item)},
                         {"role": "user", "content": "jill: (FROM OTHER BOT)Go ahead, you have what it takes."},
                         {"role": "system", "content": "INVENTORY\n- oak_log: 1\nCurrent action: none"},
                         {"role": "assistant", "content": f'Crafting {item}. !craftRecipe("{item}", {n})'}],
            "metadata": {"task_id": f"make_{item}", "family": "crafting", "agent": "andy", "kind": "conversing"}}


@pytest.fixture(autouse=True)
def one_thread(monkeypatch):
    """Training and serving on one core: the other test workers share the machine and wait on the game's clock."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def tiny_export(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("export") / "sft.jsonl"
    lines = [json.dumps(export_line(item, n)) for n, item in enumerate(ITEMS, 1)]
    lines.insert(2, '{"messages": [{"role": "user", "content": "no reply"}]}')  # a malformed line: left out
    path.write_text("\n".join(lines) + "\n")
    return path


def train_args(data: Path, out: Path, *more: str) -> list[str]:
    return ["sft", "train", str(data), "--out", str(out), "--batch-size", "2", "--grad-accum", "1",
            "--max-length", "256", "--lr", "1e-4", "--epochs", "4", *more]


def test_training_lowers_the_loss_and_the_served_model_answers_with_what_it_learned(tiny_export, tmp_path):
    out = tmp_path / "tuned"
    code, text = run_mindpy(*train_args(tiny_export, out), cwd=tmp_path, timeout=280)
    assert code == 0, text
    assert "line 3: the last message must be the assistant's reply" in text  # the malformed line, in one line
    assert "tokens/s" in text and "min left" in text  # progress while it trains
    report = json.loads((out / "training.json").read_text())
    assert report["pairs"] == len(ITEMS) and report["malformed_lines"] == 1 and report["steps"] == 8
    assert report["loss_last"] < report["loss_first"] / 2, report["losses"]
    assert (out / "config.json").is_file() and not (out / "checkpoints").exists()

    try:
        model = create_model({"model": f"local:{out}", "params": {"max_tokens": 24}})
        line = export_line("stick", 2)
        reply = model.send(line["messages"][1:-1], line["messages"][0]["content"])
    finally:
        stop_server(out.resolve())  # the server this test started, not left for the rest of the session
    assert '!craftRecipe("stick", 2)' in reply.text, reply.text  # taught by four examples, asked a seen one
    assert reply.usage and reply.usage.completion_tokens > 0 and not reply.usage.estimated


def test_a_killed_training_run_resumes_from_its_last_checkpoint(tiny_export, tmp_path):
    out = tmp_path / "tuned"
    proc = subprocess.Popen([str(Path(sys.executable).with_name("mindpy")),
                             *train_args(tiny_export, out, "--save-steps", "2", "--epochs", "2")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until(lambda: any((out / "checkpoints").glob("checkpoint-*/trainer_state.json")), timeout=240,
                   interval=0.5, message="a checkpoint")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (out / "config.json").exists()  # killed before the end
    code, text = run_mindpy(*train_args(tiny_export, out, "--save-steps", "2", "--epochs", "2"), cwd=tmp_path,
                            timeout=280)
    assert code == 0, text
    assert "resuming from" in text and "checkpoint-" in text
    report = json.loads((out / "training.json").read_text())
    assert report["steps"] == 4 and report["resumed_from"].endswith("checkpoint-2")
    assert (out / "config.json").is_file()


def test_a_file_with_no_training_pairs_is_refused_in_one_line(tmp_path):
    data = tmp_path / "empty.jsonl"
    data.write_text('not json\n{"messages": []}\n')
    code, text = run_mindpy("sft", "train", str(data), "--out", str(tmp_path / "m"), cwd=tmp_path, timeout=120)
    assert code != 0 and "no training pairs (of 2 lines, 2 malformed" in text, text
    assert "Traceback" not in text
