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

from conftest import REPO_ROOT
from mindpy import userfiles
from mindpy.errors import UserFileError
from mindpy.tasks import read_task_file
from mindpy.tasks.defuse import generator as defuse_generator
from mindpy.tasks.schema import DEFUSE_FIELDS
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


# ----- keys given twice, fields nobody reads -----
GOOD_TASK = {"type": "techtree", "goal": "Craft sticks.", "agent_count": 1, "target": "stick", "timeout": 60}
TASK_TEXT = json.dumps(GOOD_TASK)[1:-1]


@pytest.mark.parametrize("name, content, words", [
    ("task_twice.json", '{"t": {T}, "u": {T}, "t": {T}}'.replace("T", TASK_TEXT),
     "key 't' is given twice in the top-level object"),
    ("field_twice.json", '{"t": {T, "timeout": 5000}}'.replace("T", TASK_TEXT), "key 'timeout' is given twice in 't'"),
    ("nested_twice.json", '{"t": {T, "initial_inventory": {"0": {"stick": 1, "stick": 2}}}}'.replace("T", TASK_TEXT),
     "key 'stick' is given twice in 't.initial_inventory.0'"),
    ("field_twice.yaml", "t:\n  type: techtree\n  goal: Craft sticks.\n  agent_count: 1\n  target: stick\n"
                         "  agent_count: 2\n", "at line 6, column 3: key 'agent_count' is given twice (first at line 4)"),
])
def test_a_key_given_twice_is_refused_naming_it_and_where(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_text(content)
    report = read_task_file(path, check_names=False)
    assert len(report.file_problems) == 1 and words in report.file_problems[0], report.file_problems
    assert report.file_problems[0].startswith(str(path)) and "\n" not in report.file_problems[0]


def test_yaml_merge_keys_may_still_be_overridden(tmp_path):
    path = tmp_path / "tasks.yaml"
    path.write_text("base: &b {type: techtree, goal: g, agent_count: 1, target: stick}\n"
                    "t: {<<: *b, target: oak_planks}\n")
    assert read_task_file(path).tasks["t"].target == "oak_planks"


def test_unknown_task_fields_are_warned_about_once_per_field(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({f"t{i}": {**GOOD_TASK, "timout": 60, "colour": "red"} for i in range(500)}))
    report = read_task_file(path, check_names=False)
    assert len(report.tasks) == 500 and report.tasks["t7"].extra == {"timout": 60, "colour": "red"}
    lines = report.messages()
    assert lines == [f"{path}: warning: unknown field 'timout' in 500 tasks (the first: 't0'); it is kept but "
                     f"not used", f"{path}: warning: unknown field 'colour' in 500 tasks (the first: 't0'); it is "
                     f"kept but not used"], lines[:4]
    assert report.warning_count == 2


def test_the_fields_of_each_task_family_are_not_unknown():
    assert DEFUSE_FIELDS == defuse_generator.TASK_FIELDS
    for path in sorted((REPO_ROOT / "tasks").glob("*.json")):
        assert read_task_file(path, check_names=False).messages() == [], path


# ----- what a file holds never reaches the terminal as control sequences -----
EVIL_ID = "evil\x1b]0;owned\x07\x1b[2J\u202eexe.txt\x9b31m"


@pytest.mark.parametrize("command", [("validate",), ("show",), ("show", "--all"), ("show", EVIL_ID),
                                     ("show", EVIL_ID[:-1])])
def test_tasks_show_and_validate_print_control_characters_visibly(tmp_path, command):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({EVIL_ID: {**GOOD_TASK, "goal": "line\x1b[31m red\u202e"},
                                f"bad {EVIL_ID}": {**GOOD_TASK, "agent_count": 0, f"x{EVIL_ID}": 1}}))
    code, output = _mindpy("tasks", command[0], str(path), *command[1:], "--no-name-check", cwd=tmp_path)
    assert "Traceback" not in output and code in (0, 1, 2), output
    assert not any(c in output for c in "\x1b\x07\x9b\u202e"), repr(output)
    assert "evil\\x1b]0;owned\\x07" in output, output
