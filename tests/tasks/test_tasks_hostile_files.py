"""Hostile task files and profiles: whatever a file holds or is (a FIFO, a folder, a device, a symlink loop,
binary, UTF-16, duplicate keys, huge numbers), `mindpy tasks validate`, `tasks show` and `run --profile` answer
with one line and no traceback, and nothing a file holds reaches the terminal as an escape sequence."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_mindpy
from mindpy import userfiles
from mindpy.errors import UserFileError
from mindpy.profiles import ProfileError, load_profile
from mindpy.tasks import read_task_file
from mindpy.userfiles import visible_text

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
    return run_mindpy(*args, cwd=cwd, timeout=timeout)


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


# ----- a probe set of malformed task files and profiles -----
def _write(content: bytes | str, name: str):
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
        return path
    return make


def _link(target: str, name: str):
    def make(folder: Path) -> Path:
        path = folder / name
        os.symlink(target if target.startswith("/") else folder / target, path)
        return path
    return make


def _fifo(name: str):
    def make(folder: Path) -> Path:
        os.mkfifo(folder / name)
        return folder / name
    return make


def _folder(folder: Path) -> Path:
    (folder / "empty_folder").mkdir()
    return folder / "empty_folder"


def _sparse(name: str, size: int):
    def make(folder: Path) -> Path:
        with (folder / name).open("wb") as f:
            f.truncate(size)
        return folder / name
    return make


def _task(**fields) -> str:
    return json.dumps({"t": {**GOOD_TASK, **fields}})


def _task_raw(field: str, raw: str) -> str:
    """A task file whose task 't' has `field` written as `raw` (JSON that json.dumps cannot write)."""
    return json.dumps({"t": {**GOOD_TASK, field: "RAW"}}).replace('"RAW"', raw)


def _laughs(levels: int = 9) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


# (case, how to make it, exit status of `tasks validate`, words in its output). 1: the file or a task was
# refused; 0: read, with a warning when the words say so.
HOSTILE_TASK_FILES = [
    ("empty", _write(b"", "empty.json"), 1, "not valid JSON at line 1"),
    ("empty-yaml", _write(b"", "empty.yaml"), 1, "a task file must map task ids to tasks, got null"),
    ("whitespace", _write(b"  \n\t\n", "blank.json"), 1, "not valid JSON"),
    ("truncated", _write('{"t": {"type": "techtree"', "cut.json"), 1, "not valid JSON at line 1"),
    ("truncated-string", _write('{"t": {"goal": "Craft', "cut2.json"), 1, "Unterminated string"),
    ("top-list", _write("[1, 2]", "list.json"), 1, "must map task ids to tasks, got [1, 2]"),
    ("top-string", _write('"tasks"', "string.json"), 1, "must map task ids to tasks"),
    ("top-number", _write("42", "number.json"), 1, "must map task ids to tasks, got 42"),
    ("top-null", _write("null", "null.json"), 1, "must map task ids to tasks, got null"),
    ("task-list", _write('{"t": []}', "tl.json"), 1, "must be a mapping of field -> value"),
    ("task-string", _write('{"t": "craft"}', "ts.json"), 1, "must be a mapping of field -> value"),
    ("agents-text", _write(_task(agent_count="2"), "a1.json"), 1, "field 'agent_count'"),
    ("agents-float", _write(_task(agent_count=1.5), "a2.json"), 1, "field 'agent_count'"),
    ("agents-negative", _write(_task(agent_count=-1), "a3.json"), 1, "field 'agent_count'"),
    ("agents-1e999", _write(_task_raw('agent_count', '1e999'), "a4.json"), 1, "field 'agent_count'"),
    ("agents-huge", _write(_task(agent_count=10**60), "a5.json"), 1, "field 'agent_count'"),
    ("agents-bool", _write(_task(agent_count=True), "a6.json"), 1, "field 'agent_count'"),
    ("timeout-NaN", _write(_task_raw('timeout', 'NaN'), "n1.json"), 1, "NaN is not a JSON number"),
    ("timeout-Infinity", _write(_task_raw('timeout', 'Infinity'), "n2.json"), 1, "Infinity is not a JSON number"),
    ("timeout--Infinity", _write(_task_raw('timeout', '-Infinity'), "n3.json"), 1, "is not a JSON number"),
    ("timeout-1e999", _write(_task_raw('timeout', '1e999'), "n4.json"), 1, "field 'timeout'"),
    ("timeout-negative", _write(_task(timeout=-5), "n5.json"), 1, "field 'timeout'"),
    ("timeout-text", _write(_task(timeout="soon"), "n6.json"), 1, "field 'timeout'"),
    ("long-integer", _write(_task_raw('timeout', '1' + '0' * 5000), "n7.json"), 1, "not valid JSON"),
    ("inventory-negative", _write(_task(initial_inventory={"0": {"stick": -5}}), "i1.json"), 1,
     "field 'initial_inventory"),
    ("inventory-huge", _write(_task(initial_inventory={"0": {"stick": 10**12}}), "i2.json"), 1,
     "must be an integer from 0 to 2304"),
    ("inventory-list", _write(_task(initial_inventory=["stick"]), "i3.json"), 1, "field 'initial_inventory'"),
    ("inventory-agent-99", _write(_task(initial_inventory={"99": {"stick": 1}}), "i4.json"), 1,
     "initial_inventory"),
    ("unknown-item", _write(_task(initial_inventory={"0": {"diamond_sward": 1}}), "i5.json"), 1,
     "unknown item 'diamond_sward' (did you mean 'diamond_sword'?)"),
    ("unknown-target", _write(_task(target="stik"), "i6.json"), 1, "unknown item 'stik'"),
    ("target-count-zero", _write(_task(number_of_target=0), "i7.json"), 1, "field 'number_of_target'"),
    ("unknown-type", _write(_task(type="debug"), "y1.json"), 1, "field 'type' must be one of"),
    ("blueprint-text", _write(_task(type="construction", blueprint="house"), "b1.json"), 1, "field 'blueprint"),
    ("blueprint-outside", _write(_task(type="construction", blueprint={"materials": {"stone": 1}, "levels": [
        {"level": 0, "coordinates": [10**12, -60, 0], "placement": [["stone"]]}]}), "b2.json"), 1,
     "must lie inside the world"),
    ("empty-id", _write(json.dumps({"": GOOD_TASK}), "id1.json"), 1, "task ids must be non-empty strings"),
    ("escape-id", _write(json.dumps({"t\x1b[2J\u202e": {**GOOD_TASK, "agent_count": 0}}), "id2.json"), 1,
     "task 't\\x1b[2J\\u202e'"),
    ("surrogate-id", _write(_task(agent_count=0).replace('"t"', '"t\\ud800"', 1), "id3.json"), 1,
     "task 't\\ud800'"),
    ("key-twice", _write('{"t": {T}, "t": {T}}'.replace("T", TASK_TEXT), "k1.json"), 1,
     "key 't' is given twice in the top-level object"),
    ("field-twice", _write(_task().replace('"timeout": 60', '"timeout": 60, "timeout": 9'), "k2.json"), 1, "key 'timeout' is given twice in 't'"),
    ("yaml-key-twice", _write("t: {type: techtree, goal: g, agent_count: 1, target: stick, target: stone}\n",
                              "k3.yaml"), 1, "key 'target' is given twice"),
    ("key-with-nul", _write(_task_raw('x', '1').replace('"x"', '"x\\u0000y"'), "k4.json"), 0, "unknown field 'x\\x00y'"),
    ("unknown-field", _write(_task(timout=60), "u1.json"), 0, "unknown field 'timout' in 1 task"),
    ("many-unknown-fields", _write(_task(**{f"f{i}": i for i in range(1000)}), "u2.json"), 0,
     "... and 980 more problems and warnings"),
    ("bom", _write(b"\xef\xbb\xbf" + _task().encode(), "bom.json"), 0, "1 valid"),
    ("utf16-le", _write(b"\xff\xfe" + _task().encode("utf-16-le"), "u16.json"), 1, "not valid UTF-8 at byte 0"),
    ("utf16-be", _write(b"\xfe\xff" + _task().encode("utf-16-be"), "u16be.json"), 1, "not valid UTF-8"),
    ("utf32", _write(_task().encode("utf-32"), "u32.json"), 1, "not valid UTF-8"),
    ("latin1", _write('{"t": {"type": "techtree", "goal": "caf\xe9"}}'.encode("latin-1"), "l1.json"), 1,
     "not valid UTF-8"),
    ("binary", _write(bytes(range(256)) * 8, "bin.json"), 1, "not valid UTF-8"),
    ("nul-bytes", _write(b"\x00" * 64, "nul.json"), 1, "not valid JSON"),
    ("raw-control-in-string", _write('{"t": {"goal": "a\x01b"}}', "ctl.json"), 1, "Invalid control character"),
    ("trailing-garbage", _write(_task() + " x", "tg.json"), 1, "Extra data"),
    ("comments", _write("// tasks\n" + _task(), "cm.json"), 1, "not valid JSON at line 1"),
    ("single-quotes", _write("{'t': {}}", "sq.json"), 1, "not valid JSON"),
    ("trailing-comma", _write('{"t": {"type": "techtree",}}', "tc.json"), 1, "not valid JSON"),
    ("deep-json", _write("[" * 100_000 + "]" * 100_000, "deep.json"), 1, "nested deeper than"),
    ("deep-yaml", _write("a: " + "[" * 100_000 + "]" * 100_000, "deep.yaml"), 1, "nested deeper than"),
    ("billion-laughs", _write(_laughs(), "laughs.yaml"), 1, "aliases expand it"),
    ("alias-loop", _write("a: &a [1, *a]\n", "loop.yaml"), 1, "refers to the collection that contains it"),
    ("python-tag", _write("a: !!python/object/apply:os.system ['true']\n", "py.yaml"), 1, "not valid YAML"),
    ("two-documents", _write("a: 1\n---\nb: 2\n", "docs.yaml"), 1, "not valid YAML"),
    ("tab-indent", _write("t:\n\t- x\n", "tab.yaml"), 1, "not valid YAML at line 2"),
    ("unhashable-key", _write("? [a, b]\n: 1\n", "uk.yaml"), 1, "not valid YAML"),
    ("yaml-date-timeout", _write("t: {type: techtree, goal: g, agent_count: 1, target: stick, timeout: 2020-01-01}\n",
                                 "date.yaml"), 1, "field 'timeout'"),
    ("yaml-binary-goal", _write("t: {type: techtree, goal: !!binary aGk=, agent_count: 1, target: stick}\n",
                                "bg.yaml"), 1, "field 'goal'"),
    ("yaml-nan", _write("t: {type: techtree, goal: g, agent_count: 1, target: stick, timeout: .nan}\n", "nan.yaml"),
     1, "field 'timeout'"),
    ("yaml-bad-int-tag", _write('t: {agent_count: !!int "x"}\n', "tag.yaml"), 1, "not valid YAML"),
    ("over-64MB", _sparse("huge.json", 64 * 2**20 + 1), 1, "larger than 64 MB"),
    ("folder", _folder, 1, "the folder has no task files"),
    ("fifo", _fifo("pipe.json"), 1, "is not a regular file (a FIFO)"),
    ("dev-zero", _link("/dev/zero", "zero.json"), 1, "is not a regular file (a character device)"),
    ("dev-null", _link("/dev/null", "null_device.json"), 1, "is not a regular file (a character device)"),
    ("symlink-loop", _link("loop_b.json", "loop_a.json"), 1, "no such task file or folder"),
    ("dangling-symlink", _link("/nonexistent/x.json", "dangling.json"), 1, "no such task file or folder"),
    ("missing", lambda folder: folder / "missing.json", 1, "no such task file or folder"),
]


@pytest.mark.parametrize("case, make, status, words", HOSTILE_TASK_FILES, ids=[c[0] for c in HOSTILE_TASK_FILES])
def test_a_hostile_task_file_gets_a_short_answer(tmp_path, capsys, case, make, status, words):
    from mindpy.cli import main

    if case == "symlink-loop":
        os.symlink(tmp_path / "loop_a.json", tmp_path / "loop_b.json")
    path = make(tmp_path)
    code = main(["tasks", "validate", str(path)])
    out, err = capsys.readouterr()
    problems = err.strip().splitlines()
    assert code == status and "Traceback" not in out + err, (code, out, err[-2000:])
    assert len(problems) <= 21 and all(len(line) < len(str(path)) + 300 for line in problems), problems[:3]
    assert len(problems) <= 2 or case.startswith("many"), problems[:3]  # a problem, and a warning it explains
    assert words in out + err, (out, err[-2000:])
    assert not any(c in out + err for c in "\x1b\u202e\x00"), repr(out + err)


HOSTILE_PROFILES = [
    ("empty", _write(b"", "p_empty.yaml"), "a profile must be a mapping"),
    ("list", _write("- name: bob\n", "p_list.yaml"), "a profile must be a mapping"),
    ("binary", _write(bytes(range(256)), "p_bin.yaml"), "not valid UTF-8"),
    ("utf16", _write("name: bob\n".encode("utf-16"), "p_u16.yaml"), "not valid UTF-8 at byte 0"),
    ("fifo", _fifo("p_pipe.yaml"), "is not a regular file (a FIFO)"),
    ("dev-zero", _link("/dev/zero", "p_zero.yaml"), "is not a regular file (a character device)"),
    ("folder", _folder, "is a folder"),
    ("missing", lambda folder: folder / "nobody.yaml", "no such profile"),
    ("name-twice", _write("name: bob\nname: eve\n", "p_twice.yaml"), "key 'name' is given twice"),
    ("json-key-twice", _write('{"name": "bob", "name": "eve"}', "p_twice.json"), "key 'name' is given twice"),
    ("name-number", _write("name: 42\n", "p_num.yaml"), "field 'name'"),
    ("name-escape", _write('name: "bob\\e[2J"\n', "p_esc.yaml"), "field 'name'"),
    ("cooldown-nan", _write("name: bob\ncooldown: .nan\n", "p_nan.yaml"), "field 'cooldown'"),
    ("cooldown-1e999", _write('{"name": "bob", "cooldown": 1e999}', "p_inf.json"), "field 'cooldown'"),
    ("cooldown-NaN-literal", _write('{"name": "bob", "cooldown": NaN}', "p_nanl.json"), "NaN is not a JSON number"),
    ("modes-list", _write("name: bob\nmodes: [cheat]\n", "p_modes.yaml"), "field 'modes'"),
    ("mode-unknown", _write("name: bob\nmodes: {flying: true}\n", "p_mode.yaml"), "unknown mode"),
    ("deep", _write("name: bob\nmodes: " + "{a: " * 5000 + "1" + "}" * 5000, "p_deep.yaml"), "nested deeper than"),
    ("laughs", _write("name: bob\n" + _laughs(), "p_laughs.yaml"), "aliases expand it"),
    ("truncated-json", _write('{"name": "bo', "p_cut.json"), "not valid JSON"),
    ("no-name", _write("model: gpt-4o\n", "p_noname.yaml"), "field 'name' is missing"),
    ("prompt-number", _write("name: bob\nconversing: 5\n", "p_prompt.yaml"), "field 'conversing'"),
    ("over-4MB", _sparse("p_huge.yaml", 4 * 2**20 + 1), "larger than 4 MB"),
]


@pytest.mark.parametrize("case, make, words", HOSTILE_PROFILES, ids=[c[0] for c in HOSTILE_PROFILES])
def test_a_hostile_profile_is_refused_in_one_line(tmp_path, case, make, words):
    path = make(tmp_path)
    with pytest.raises(ProfileError) as err:
        load_profile(path, base="survival")
    message = str(err.value)
    assert "\n" not in message and len(message) < len(str(path)) + 300 and words in message, message
