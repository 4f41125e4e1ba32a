"""Hostile task files and profiles: whatever a file holds or is (a FIFO, a folder, a device, a symlink loop,
binary, UTF-16, duplicate keys, huge numbers), `mindpy tasks validate`, `tasks show` and `run --profile` answer
with one line and no traceback, and nothing a file holds reaches the terminal as an escape sequence."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mindpy import userfiles
from mindpy.errors import UserFileError
from mindpy.userfiles import visible_text

MINDPY = Path(sys.executable).with_name("mindpy")
MAX_MESSAGE = 300  # characters of a one-line refusal, the path included
MAX_PROBLEMS_PRINTED = 20


def test_visible_text_escapes_what_a_terminal_would_act_on_or_hide():
    text = "id\x1b[2J\x1b]0;owned\x07\u202etxt.exe\u200b\t\r\n\x7f\x9b\ud800\u2028\U000e0041"
    assert visible_text(text) == ("id\\x1b[2J\\x1b]0;owned\\x07\\u202etxt.exe\\u200b\\x09\\x0d\\x0a\\x7f\\x9b"
                                  "\\ud800\\u2028\\U000e0041")
    kept = "plain ascii, é, 中文, emoji 😀, Ελληνικά, back\\slash"
    assert visible_text(kept) == kept
    assert visible_text("") == ""


# ----- files that are not regular files -----
def _mindpy(*args: str, cwd: Path, timeout: float = 30) -> tuple[int, str]:
    """The exit code and output of a `mindpy` command; fails the test when it is still running after `timeout`."""
    proc = subprocess.Popen([str(MINDPY), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"mindpy {' '.join(args)}: still running after {timeout} s")
    return proc.returncode, out + err


@pytest.mark.parametrize("command", [("tasks", "validate", "tasks.json"), ("tasks", "show", "tasks.json"),
                                     ("tasks", "show", "tasks.json", "t"), ("run", "--profile", "bob.yaml")])
def test_a_fifo_is_refused_in_one_line_without_waiting_for_a_writer(tmp_path, command):
    os.mkfifo(tmp_path / "tasks.json")
    os.mkfifo(tmp_path / "bob.yaml")
    code, output = _mindpy(*command, cwd=tmp_path)
    lines = output.strip().splitlines()
    assert code in (1, 2) and "Traceback" not in output, output[-3000:]
    refusal = [line for line in lines if "is not a regular file (a FIFO)" in line]
    assert len(refusal) == 1 and len(refusal[0]) < MAX_MESSAGE, lines
    assert len(lines) == (2 if command[1] == "validate" else 1), lines  # validate adds the file's summary line


def test_a_file_that_reads_too_slowly_is_given_up(tmp_path, monkeypatch):
    path = tmp_path / "tasks.json"
    path.write_bytes(b"{}" * (3 * userfiles.READ_CHUNK))
    monkeypatch.setattr(userfiles, "READ_TIME_LIMIT_S", 0.0)  # every read is late: a stalled network file system
    with pytest.raises(UserFileError) as err:
        userfiles.read_user_file(path, "task file", max_bytes=userfiles.TASK_FILE_MAX_BYTES)
    assert str(err.value) == f"{path}: reading the task file took longer than 0 s (read 1 MB); copy it to a local disk"


# ----- many problems -----
def test_validate_and_show_print_the_first_problems_and_count_the_rest(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({f"t{i}": {"type": "nope", "agent_count": 1, "goal": "x"} for i in range(5000)}))
    code, output = _mindpy("tasks", "validate", str(path), "--no-name-check", cwd=tmp_path)
    lines = output.strip().splitlines()
    assert code == 1 and len(lines) == MAX_PROBLEMS_PRINTED + 2, (len(lines), lines[-3:])
    assert f"... and {5000 - MAX_PROBLEMS_PRINTED} more problems and warnings" in lines, lines[-3:]
    code, output = _mindpy("tasks", "show", str(path), "--no-name-check", cwd=tmp_path)
    assert len(output.strip().splitlines()) <= MAX_PROBLEMS_PRINTED + 12 and "more problems" in output, output[-2000:]
