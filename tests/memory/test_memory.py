"""History, memory summaries through a (replay) model, per-bot state files and their crash safety."""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import REPO_ROOT
from mindpy.memory import BotState, History, atomic_write_json, summarize_span
from mindpy.models.replay import ReplayModel
from mindpy.prompts import Prompter

ROOT = REPO_ROOT
LONG_SUMMARY = ("Goal from steve: build a wooden house near spawn. Agreed: I gather logs, jill crafts planks. "
                "Learned: oak forest lies 40 blocks east of spawn, river to the north. ") * 6  # ~900 chars


def make_history(tmp_path, replies=None, **kw):
    model = ReplayModel({"replies": [{"match": ".", "reply": r} for r in (replies or [LONG_SUMMARY])],
                         "default": "fallback memory"})
    prompter = Prompter(name="andy")
    state = BotState("andy", tmp_path)
    history = History("andy", summarizer=lambda memory, turns: prompter.summarize(model, memory, turns),
                      state=state, **kw)
    return history, model, state


def test_roles_and_speaker_names(tmp_path):
    history, _, _ = make_history(tmp_path)
    history.add("steve", "hi andy")
    history.add("andy", "hey!")
    history.add("system", "Arrived.")
    history.add("jill", "(FROM OTHER BOT)need logs?")
    assert history.turns == [
        {"role": "user", "content": "steve: hi andy"},
        {"role": "assistant", "content": "hey!"},
        {"role": "system", "content": "Arrived."},
        {"role": "user", "content": "jill: (FROM OTHER BOT)need logs?"},
    ]


def test_summary_at_max_messages(tmp_path):
    history, model, state = make_history(tmp_path)
    for i in range(14):
        history.add("steve" if i % 2 == 0 else "system", f"message {i}")
    assert len(history.turns) == 14 and history.memory == "" and not model.calls
    history.add("steve", "message 14")  # the 15th turn triggers the summary
    assert len(model.calls) == 1
    assert 0 < len(history.memory) <= 500
    assert history.memory.startswith("Goal from steve")
    assert len(history.turns) == 10  # the oldest 5 went into the memory
    assert history.turns[0] == {"role": "system", "content": "message 5"}
    # the memory prompt got the old memory and exactly the folded turns
    sent = model.calls[0]["messages"][-1]["content"]
    assert "message 4" in sent and "message 5" not in sent
    assert "500 characters" in model.calls[0]["system"]
    archive = state.read_archive()
    assert len(archive) == 1 and [t["content"] for t in archive[0]["turns"]][0] == "steve: message 0"
    assert archive[0]["memory_after"] == history.memory


def test_summary_takes_following_assistant_turns(tmp_path):
    history, _, _ = make_history(tmp_path, replies=["short note"])
    roles = ["user", "assistant", "system", "user", "user", "assistant", "assistant", "user"] + ["user"] * 7
    for i, role in enumerate(roles):
        history.add({"user": "steve", "assistant": "andy", "system": "system"}[role], f"t{i}")
    # 5 oldest + the two assistant replies right after them: 15 - 7 = 8 remain, starting with a user turn
    assert len(history.turns) == 8 and history.turns[0]["role"] == "user"
    assert history.memory == "short note"
    assert summarize_span([{"role": "assistant"}] * 3, 5) == 3


def test_memory_carries_over_between_summaries(tmp_path):
    history, model, _ = make_history(tmp_path, replies=["first note", "second note"])
    for i in range(20):  # summaries at the 15th and the 20th turn
        history.add("steve", f"m{i}")
    assert history.memory == "second note"
    assert "first note" in model.calls[1]["messages"][-1]["content"]  # the old memory is folded in


def test_model_failure_keeps_old_memory(tmp_path):
    model = ReplayModel([])  # no replies: every call fails

    def summarizer(memory, turns):
        return Prompter(name="andy").summarize(model, memory, turns)

    history = History("andy", summarizer=summarizer, state=BotState("andy", tmp_path))
    history.memory = "keep me"
    for i in range(15):
        history.add("steve", f"m{i}")
    assert history.memory == "keep me" and len(history.turns) == 10
    assert len(BotState("andy", tmp_path).read_archive()) == 1


def test_state_saved_and_restored(tmp_path):
    extra = {"self_prompt": {"state": "active", "goal": "build a house"}, "task_start": 1234.5,
             "last_sender": "steve"}
    history, _, state = make_history(tmp_path, extra_state=lambda: extra)
    history.add("steve", "build a house")
    history.add("andy", "On it! !goal(\"build a house\")")
    saved = json.loads((tmp_path / "andy" / "state.json").read_text())
    assert saved["turns"][0]["content"] == "steve: build a house"
    assert saved["self_prompt"]["goal"] == "build a house" and saved["last_sender"] == "steve"

    restored = History("andy", state=BotState("andy", tmp_path))
    data = restored.load()
    assert restored.turns == history.turns and restored.memory == history.memory
    assert restored.restored["task_start"] == 1234.5 and data["self_prompt"]["state"] == "active"
    restored.clear()
    assert History("andy", state=BotState("andy", tmp_path)).load()["turns"] == []


_WRITER = textwrap.dedent("""
    import sys, itertools
    sys.path.insert(0, {root!r})
    from mindpy.memory.state import atomic_write_json
    path = sys.argv[1]
    print("ready", flush=True)
    for i in itertools.count():
        atomic_write_json(path, {{"i": i, "turns": [{{"role": "user", "content": "x" * 200}}] * 400}})
""")


def _kill_a_writer(path, rng: random.Random, earliest: float = 0.0) -> None:
    """Start the writer process on `path` and kill -9 it at a random moment once it is writing."""
    proc = subprocess.Popen([sys.executable, "-c", _WRITER.format(root=str(ROOT)), str(path)], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"ready"
    time.sleep(rng.uniform(earliest, 0.08))
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_kill_during_write_never_leaves_a_broken_file(tmp_path):
    """Kill a writer process at random moments, many times: the file always parses."""
    path = tmp_path / "state.json"
    atomic_write_json(path, {"i": -1})
    rng = random.Random(7)
    seen = set()
    for _ in range(20):
        _kill_a_writer(path, rng)
        data = json.loads(path.read_text())  # never a torn file
        seen.add(data["i"])
        assert data["i"] == -1 or len(data["turns"]) == 400
    assert len(seen) > 1, "the writer never got to write: the test proved nothing"
    leftovers = [p for p in tmp_path.iterdir() if p.name != "state.json"]
    assert all(p.name.endswith(".tmp") for p in leftovers)  # only orphaned temp files, never read


def test_archive_skips_a_torn_last_line(tmp_path):
    state = BotState("andy", tmp_path)
    state.append_archive({"turns": [{"role": "user", "content": "a"}]})
    with state.archive_path.open("a") as f:
        f.write('{"turns": [{"role": "us')
    assert len(state.read_archive()) == 1


def _kill_writers(path, times: int = 15, tries: int = 40) -> list:
    """Run the writer process on `path` and kill -9 it at random moments, `times` times and then until a killed
    writer has left its temp file; returns the temp files left."""
    rng = random.Random(11)
    left: list = []
    for attempt in range(tries):
        _kill_a_writer(path, rng, earliest=0.01)
        left = sorted(path.parent.glob(".state.json.*.tmp"))
        if attempt + 1 >= times and left:
            return left
    raise AssertionError("no killed writer left a temp file: the test proved nothing")


def test_temp_files_of_killed_writers_do_not_pile_up(tmp_path):
    path = tmp_path / "andy" / "state.json"
    atomic_write_json(path, {"turns": [], "memory": "kept"})
    left = _kill_writers(path)
    assert len(left) == 1, f"{len(left)} temp files after 15 kills"  # each writer removes those before it

    busy = path.parent / f".state.json.{os.getpid()}.busy1234.tmp"  # a writer that is running: left alone
    busy.write_text("{}")
    state = BotState("andy", tmp_path)  # opening the bot's state removes the last one
    assert sorted(p.name for p in path.parent.iterdir()) == [busy.name, "state.json"]
    data = state.load()  # the last complete write, whichever it was
    assert data.get("memory") == "kept" or len(data["turns"]) == 400


def test_the_first_write_of_a_process_removes_orphaned_temp_files(tmp_path):
    path = tmp_path / "cache" / "keys.json"
    path.parent.mkdir()
    for i in range(3):  # named as earlier versions named them (no process id)
        (path.parent / f".keys.json.old{i}xyz.tmp").write_text("{")
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True)
    (path.parent / f".keys.json.{int(finished.stdout)}.abcdefgh.tmp").write_text("{")
    atomic_write_json(path, {"i": 0})
    assert [p.name for p in path.parent.iterdir()] == ["keys.json"]


DAMAGED = {
    "not_json": b'{"memory": "half a fi',
    "not_utf8": b'{"memory": "\xff\xfe"}',
    "empty": b"",
    "not_an_object": b'["memory"]',
    "too_deep": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("content", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_state_file_is_moved_aside_and_the_bot_starts_afresh(tmp_path, caplog, content):
    path = tmp_path / "andy" / "state.json"
    path.parent.mkdir()
    path.write_bytes(content)
    history = History("andy", state=BotState("andy", tmp_path))
    with caplog.at_level(logging.WARNING):
        assert history.load() == {}
    backups = list(path.parent.glob("state.json.damaged-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == content
    assert any(backups[0].name in record.getMessage() and "started afresh" in record.getMessage()
               for record in caplog.records)

    history.add("steve", "still here?")  # and the bot carries on, saving a new state
    saved = json.loads(path.read_text())
    assert saved["turns"] == [{"role": "user", "content": "steve: still here?"}]


def test_a_damaged_state_file_found_on_save_is_moved_aside_too(tmp_path):
    history, _, state = make_history(tmp_path)
    history.add("steve", "one")
    state.path.write_bytes(b"\x00garbage")
    history.add("steve", "two")  # History.add saves: it must not raise
    assert json.loads(state.path.read_text())["turns"][-1]["content"] == "steve: two"
    assert len(list(state.dir.glob("state.json.damaged-*"))) == 1


def test_saved_turns_of_the_wrong_shape_are_left_out(tmp_path):
    state = BotState("andy", tmp_path)
    atomic_write_json(state.path, {"memory": "m", "turns": [{"role": "user", "content": 5}, "x",
                                                            {"role": "user", "content": "ok"}]})
    history = History("andy", state=state)
    history.load()
    assert history.turns == [{"role": "user", "content": "ok"}]
    atomic_write_json(state.path, {"memory": "m", "turns": {"role": "user"}})
    history.load()
    assert history.turns == []


def test_archive_skips_damaged_lines_and_appends_after_a_torn_one(tmp_path):
    state = BotState("andy", tmp_path)
    state.append_archive({"turns": [{"role": "user", "content": "a"}]})
    with state.archive_path.open("ab") as f:
        f.write(b'{"turns": "\xff"}\n[1]\n{"turns": [{"role": "us')  # not UTF-8, not an object, torn
    state.append_archive({"turns": [{"role": "user", "content": "b"}]})
    assert [r["turns"][0]["content"] for r in state.read_archive()] == ["a", "b"]


def test_lone_surrogates_in_a_reply_are_saved_and_read_back(tmp_path, caplog):
    """A model's JSON may hold "\\ud800", which decodes to a lone surrogate that UTF-8 cannot encode."""
    history, _, state = make_history(tmp_path, max_messages=4, summarize_count=2,
                                     extra_state=lambda: {"self_prompt": {"goal": "dig \udfff"}})
    for sender, text in (("andy", "a \ud800 b"), ("andy", "\udc00 lone low"), ("steve", "pair \ud83d\ude00 and é 中"),
                         ("steve", "plain"), ("andy", "after")):
        history.add(sender, text)  # History.add saves, and summarizing archives: neither may raise
    assert "could not save" not in caplog.text
    restored = History("andy", state=BotState("andy", tmp_path))
    data = restored.load()
    assert restored.turns[1:] == history.turns[1:] and data["self_prompt"]["goal"] == "dig \udfff"
    assert len(restored.turns) == 3 and restored.turns[0]["content"] == "steve: pair \U0001f600 and é 中"
    archived = [t["content"] for record in state.read_archive() for t in record["turns"]]
    assert archived[:2] == ["a \ud800 b", "\udc00 lone low"]
    assert "\\ud800" in state.archive_path.read_text(encoding="utf-8")  # escaped, the rest of the line as it was
