"""Files users bring (task files, profiles, settings) are read within bounds: size, nesting, YAML aliases, UTF-8,
numbers in range. Every malformed file gives one short line naming the file, never a traceback or a hang; a model
that cannot be used is reported before any server starts."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_mindpy
from mindpy.errors import MindpyError
from mindpy.profiles import ProfileError, load_profile
from mindpy.settings import SettingsError, load_settings
from mindpy.tasks import TaskFileError, load_tasks, read_task_file
from mindpy.userfiles import DEFAULT_MAX_BYTES, TASK_FILE_MAX_BYTES, quote

MAX_MESSAGE = 400  # characters besides the file's path: a message quotes values, it never dumps them

GOOD_TASK = {"type": "techtree", "goal": "Craft sticks.", "agent_count": 1, "target": "stick", "timeout": 60}


def laughs(levels: int = 9, top: str = "") -> str:
    """A YAML "billion laughs": each level is a list of nine aliases of the one before (9**levels strings)."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        lines.append(f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]")
    return top + "\n".join(lines) + "\n"


def one_line_error(exc_info, path: Path) -> str:
    message = str(exc_info.value)
    assert "\n" not in message and len(message) < len(str(path)) + MAX_MESSAGE, message[:2000]
    assert str(path) in message, message
    return message


LOADERS = {  # how each kind of user file is loaded, and what it raises when the file cannot be used
    "task": (lambda path: load_tasks(path, check_names=False), TaskFileError),
    "profile": (lambda path: load_profile(path, base="survival"), ProfileError),
    "settings": (lambda path: load_settings(path, env={}), SettingsError),
}


def refusal(kind: str, path: Path) -> str:
    """The one-line error that loading `path` as a `kind` file gives."""
    load, error = LOADERS[kind]
    with pytest.raises(error) as err:
        load(path)
    return one_line_error(err, path)


def children_cpu_seconds() -> float:
    """CPU time of the finished child processes so far: a loaded machine must not make a child look slow."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sparse_file(path: Path, size: int) -> Path:
    """A file of `size` zero bytes that takes no room on disk."""
    with path.open("wb") as f:
        f.truncate(size)
    return path


def run_limited(code: str, timeout: float = 60, memory_mb: int = 1024) -> subprocess.CompletedProcess:
    """Run Python code in a child process with its address space capped, so that a file that blows up cannot take
    the machine with it: the child fails with MemoryError instead."""
    def cap():
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=cap, cwd=REPO_ROOT)


# ----- task files -----
def test_billion_laughs_task_file_is_refused_fast_with_little_memory(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(laughs(9))
    out = run_limited(f"""
        import re, time
        from mindpy.tasks import TaskFileError, load_tasks, read_task_file
        started = time.process_time()  # CPU time: a loaded machine must not make it look slow
        try:
            load_tasks({str(path)!r}, check_names=False)
        except TaskFileError as exc:
            print(repr(str(exc)))
        print(time.process_time() - started)
        # this process's own peak (ru_maxrss would count the forking test worker's, which exec keeps)
        status = open("/proc/self/status").read()
        print(int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) // 1024)
    """)
    assert out.returncode == 0, out.stderr[-3000:]
    message, seconds, peak_mb = out.stdout.splitlines()
    assert "aliases expand it to more than" in message and str(path) in message and "\\n" not in message
    assert float(seconds) < 5, f"{seconds} s"
    assert int(peak_mb) < 200, f"{peak_mb} MB"


def test_cli_validate_gives_one_line_without_a_traceback(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(laughs(9))
    started = children_cpu_seconds()
    out = run_limited(f"""
        import sys
        from mindpy.cli import main
        sys.exit(main(["tasks", "validate", {str(path)!r}]))
    """)
    assert children_cpu_seconds() - started < 30
    assert out.returncode == 1, out.stderr[-3000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert lines[0].startswith(f"{path}: not valid YAML at line 1") and len(lines[0]) < len(str(path)) + MAX_MESSAGE


MALFORMED_TASK_FILES = [
    ("bad_utf8.json", b'{"t": {"type": "techtree", "goal": "x\xff\xfe"}}', "not valid UTF-8 at byte 37 (line 1)"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested deeper than"),
    ("deep_ok_for_python.json", b'{"t": ' + b"[" * 500 + b"]" * 500 + b"}", "nested deeper than"),
    ("deep.yaml", b"a: " + b"[" * 100_000 + b"]" * 100_000, "nested deeper than"),
    ("deep_block.yaml", b"".join(b"  " * i + b"k:\n" for i in range(300)), "nested deeper than"),
    ("alias_loop.yaml", b"a: &a [1, *a]\n", "refers to the collection that contains it"),
    ("nan.json", b'{"t": {"timeout": NaN}}', "NaN is not a JSON number"),
    ("long_int.json", b'{"t": {"agent_count": 1' + b"0" * 5000 + b"}}", "not valid JSON"),
    ("long_int.yaml", b"t: {agent_count: 1" + b"0" * 5000 + b"}\n", "not valid YAML"),
    ("tab.yaml", b"t:\n\t- x\n", "not valid YAML at line 2"),
    ("two_docs.yaml", b"a: 1\n---\nb: 2\n", "not valid YAML at line"),
    ("python_tag.yaml", b"a: !!python/object/apply:os.system ['true']\n", "not valid YAML at line 1"),
    ("trailing_comma.json", b'{"t": {"type": "techtree",}}', "not valid JSON at line 1"),
]


def test_yaml_anchors_and_merge_keys_still_work(tmp_path):
    path = tmp_path / "tasks.yaml"
    path.write_text(textwrap.dedent("""
        base: &base {type: techtree, goal: Craft sticks., agent_count: 2, timeout: 60, target: stick}
        sticks: {<<: *base, target: stick, initial_inventory: {"0": &logs {oak_log: 1}, "1": *logs}}
        planks: {<<: *base, target: oak_planks, initial_inventory: {"0": *logs, "1": *logs}}
    """))
    tasks = load_tasks(path)
    assert tasks["planks"].inventory_for(1) == {"oak_log": 1} and tasks["sticks"].agent_count == 2


def test_yaml_keys_that_name_one_task_id_are_refused_not_overwritten(tmp_path):
    path = tmp_path / "tasks.yaml"
    path.write_text(textwrap.dedent("""
        1: {type: techtree, goal: Craft sticks., agent_count: 1, target: stick}
        "1": {type: techtree, goal: Craft planks., agent_count: 1, target: oak_planks}
        2: {type: techtree, goal: Craft a table., agent_count: 1, target: crafting_table}
    """))
    report = read_task_file(path)
    assert report.task_ids == ["1", "2"] and list(report.tasks) == ["2"]
    assert "the id is given 2 times (1 and '1')" in report.problems["1"][0]


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"t": GOOD_TASK}).encode())
    assert list(load_tasks(path)) == ["t"]


BAD_NUMBERS = [
    ("agent_count", 10**100, "must be an integer from 1 to 50, got <an integer of about 100 digits>"),
    ("agent_count", 51, "must be an integer from 1 to 50, got 51"),
    ("human_count", 10**30, "must be an integer from 0 to 49"),
    ("timeout", float("nan"), "must be a number of seconds > 0, got NaN"),
    ("timeout", float("inf"), "must be a number of seconds > 0 and at most 86400, got Infinity"),
    ("timeout", 10**400, "must be a number of seconds > 0 and at most 86400"),
    ("number_of_target", 10**20, "must be an integer from 1 to 2304"),
    ("initial_inventory", {"0": {"stick": 10**12}}, "must be an integer from 0 to 2304"),
    ("target", {"stick": 10**9}, "must be an integer from 1 to 2304"),
    ("max_depth", 10**100, "must be an integer from 0 to 1000"),
]


@pytest.mark.parametrize("field, value, words", BAD_NUMBERS, ids=[f"{f}={str(v)[:12]}" for f, v, _ in BAD_NUMBERS])
def test_numbers_out_of_range_name_the_field(tmp_path, field, value, words):
    path = tmp_path / "tasks.yaml"
    task = {**GOOD_TASK, field: value}
    path.write_text("t:\n" + "".join(f"  {k}: {_yaml_value(v)}\n" for k, v in task.items()))
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, check_names=False)
    message = one_line_error(err, path)
    assert f"field '{field}" in message and words in message, message


def _yaml_value(value) -> str:
    if isinstance(value, float) and value != value:
        return ".nan"
    if value == float("inf"):
        return ".inf"
    return json.dumps(value)


def test_blueprint_coordinates_outside_the_world_are_refused(tmp_path):
    blueprint = {"materials": {"stone": 1}, "levels": [
        {"level": 0, "coordinates": [10**12, -60, 0], "placement": [["stone"]]},
        {"level": 1, "coordinates": [0, 5000, 0], "placement": [["stone"]]}]}
    path = tmp_path / "house.json"
    path.write_text(json.dumps({"house": {"type": "construction", "goal": "build", "agent_count": 1,
                                          "blueprint": blueprint}}))
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, check_names=False)
    assert "field 'blueprint.levels[0].coordinates' must lie inside the world" in err.value.problems[0]
    assert "field 'blueprint.levels[1].coordinates' must lie inside the world" in err.value.problems[1]


def test_huge_values_and_names_are_quoted_short(tmp_path):
    task_id = "t" * 100_000
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({task_id: {**GOOD_TASK, "goal": ["x" * 1000] * 10_000,
                                          "initial_inventory": {"0": {"s" * 100_000: "many"}}}}))
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, check_names=False)
    for problem in err.value.problems:
        assert "\n" not in problem and len(problem) < len(str(path)) + MAX_MESSAGE, problem[:500]


def test_a_file_with_many_problems_shows_the_first_ones(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({f"t{i}": {"type": "nope"} for i in range(5000)}))
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, check_names=False)
    assert len(err.value.problems) > 5000
    lines = str(err.value).splitlines()
    assert len(lines) == 21 and lines[-1] == f"... and {len(err.value.problems) - 20} more problems"


def test_quote_renders_only_what_it_shows():
    shared = ["lol"] * 9
    for _ in range(30):  # 9**30 strings if it were rendered in full
        shared = [shared] * 9
    text = quote(shared)
    assert len(text) <= 80 and text.startswith("[[[[") and text.endswith("...")
    assert quote(10**5000) == "<an integer of about 5000 digits>"
    assert quote("line\nbreak") == '"line\\nbreak"'


# ----- profiles and settings -----
MALFORMED_PROFILES = [
    ("laughs.yaml", laughs(9, top="name: bob\n").encode(), "aliases expand it"),
    ("laughs_name.yaml", (laughs(4) + "name: *l4\n").encode(), "field 'name'"),  # 59049 strings: let in
    ("comma.json", b'{"name": "bob",}', "not valid JSON at line 1"),
    ("bad_utf8.yaml", b"name: b\xc3\x28b\n", "not valid UTF-8 at byte 7 (line 1)"),
    ("deep.yaml", b"name: bob\nmodes: " + b"{a: " * 5000 + b"1" + b"}" * 5000, "nested deeper than"),
    ("nan.yaml", b"name: bob\ncooldown: .nan\n", "field 'cooldown'"),
    ("inf.yaml", b"name: bob\ncooldown: .inf\n", "field 'cooldown'"),
    ("negative.yaml", b"name: bob\ncooldown: -1\n", "field 'cooldown'"),
    ("api.yaml", b"name: bob\nmodel: {api: nosuch, model: x}\n", "field 'model': no provider for api 'nosuch'"),
    ("unknown_api.yaml", b"name: bob\nmodel: {api: claudeai, model: x}\n", "field 'model': no provider for api 'claudeai'"),
    ("replay.yaml", b"name: bob\nmodel: replay:/no/such/script.yaml\n", "field 'model'"),
]


def test_example_files_are_read_within_the_same_bounds(tmp_path):
    (tmp_path / "examples.yaml").write_text(laughs(9))
    path = tmp_path / "bob.yaml"
    path.write_text("name: bob\nconversation_examples: examples.yaml\n")
    with pytest.raises(ProfileError) as err:
        load_profile(path, base="survival")
    assert "aliases expand it" in str(err.value) and "\n" not in str(err.value)


MALFORMED_SETTINGS = [
    ("laughs.yaml", laughs(9).encode(), "aliases expand it"),
    ("bad_utf8.yaml", b"port: 1\xff\n", "not valid UTF-8 at byte 7"),
    ("nan.yaml", b"model_timeout_s: .nan\n", "setting 'model_timeout_s'"),
    ("inf.yaml", b"model_timeout_s: .inf\n", "setting 'model_timeout_s'"),
    ("zero.yaml", b"model_timeout_s: 0\n", "setting 'model_timeout_s'"),
    ("code.yaml", b"code_timeout_mins: .inf\n", "setting 'code_timeout_mins'"),
    ("code_negative.yaml", b"code_timeout_mins: -2\n", "setting 'code_timeout_mins'"),
    ("attempts.yaml", b"model_attempts: 1000000000000\n", "setting 'model_attempts'"),
    ("who.yaml", b"player_commands: admins\n", "setting 'player_commands' must be one of everyone"),
    ("messages.yaml", b"max_messages: " + b"9" * 5000 + b"\n", "not valid YAML"),
    ("comma.json", b'{"port": 1,}', "not valid JSON at line 1"),
]


MALFORMED = [("task", *c) for c in MALFORMED_TASK_FILES] + [("profile", *c) for c in MALFORMED_PROFILES] + \
    [("settings", *c) for c in MALFORMED_SETTINGS]


@pytest.mark.parametrize("kind, name, content, words", MALFORMED, ids=[f"{k}-{n}" for k, n, _, _ in MALFORMED])
def test_malformed_files_give_one_line(tmp_path, kind, name, content, words):
    path = tmp_path / name
    path.write_bytes(content)
    assert words in refusal(kind, path)


@pytest.mark.parametrize("kind, name, limit, words", [
    ("task", "huge.json", TASK_FILE_MAX_BYTES, f"larger than {TASK_FILE_MAX_BYTES // 2**20} MB"),
    ("profile", "huge.yaml", DEFAULT_MAX_BYTES, "larger than 4 MB"),
])
def test_a_file_over_the_size_limit_is_not_read(tmp_path, kind, name, limit, words):
    path = sparse_file(tmp_path / name, limit + 1)
    assert words in refusal(kind, path)


@pytest.mark.parametrize("variable, value", [("MINDPY_MODEL_TIMEOUT_S", "nan"), ("MINDPY_CODE_TIMEOUT_MINS", "inf"),
                                             ("MINDPY_PROFILES", "[" * 100_000)])
def test_settings_variables_are_checked_too(variable, value):
    with pytest.raises(SettingsError) as err:
        load_settings(env={variable: value})
    assert variable in str(err.value) and "\n" not in str(err.value) and len(str(err.value)) < MAX_MESSAGE


def test_every_file_error_is_a_mindpy_error():
    assert issubclass(TaskFileError, MindpyError) and issubclass(ProfileError, MindpyError)
    assert issubclass(SettingsError, MindpyError)


# ----- the model is checked before any server starts -----
def _mindpy(*args: str, cwd: Path, timeout: float = 60, env: dict | None = None) -> tuple[int, str, float]:
    """The exit code, the output and the CPU seconds of a `mindpy` command."""
    started = children_cpu_seconds()
    code, output = run_mindpy(*args, cwd=cwd, timeout=timeout, env=env)
    return code, output, children_cpu_seconds() - started


def _assert_refused_before_a_server(code: int, output: str, words: str, folder: Path) -> None:
    lines = output.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in output, output[-3000:]
    assert lines[0].startswith("mindpy: error: ") and words in lines[0], lines[0]
    assert not list(folder.rglob("server.log")), "a server was started"


def test_run_with_a_profile_whose_model_has_no_provider_stops_at_once(tmp_path):
    (tmp_path / "bob.yaml").write_text("name: bob\nmodel: {api: nosuch, model: x}\n")
    code, output, _ = _mindpy("run", "--profile", "bob.yaml", "--run-dir", "runs", cwd=tmp_path)
    _assert_refused_before_a_server(code, output, "no provider for api 'nosuch'", tmp_path)


NO_KEYS = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}


@pytest.mark.parametrize("command, model, key", [
    (("run", "--task", "tasks.json", "--task-id", "t", "--run-dir", "runs/t"), "claude-3-5-sonnet",
     "ANTHROPIC_API_KEY"),
    (("eval", "tasks.json", "--out", "runs/eval"), "gemini-2.0-flash", "GEMINI_API_KEY"),
])
def test_a_hosted_model_without_its_key_stops_at_once_naming_the_variable(tmp_path, command, model, key):
    (tmp_path / "tasks.json").write_text(json.dumps({"t": GOOD_TASK}))
    code, output, _ = _mindpy(*command, "--model", model, cwd=tmp_path, env=NO_KEYS)
    _assert_refused_before_a_server(code, output, f"{model} needs {key}", tmp_path)
    assert not (tmp_path / "runs" / "eval" / "episodes").exists()



def test_run_with_an_unreadable_task_file_is_one_line(tmp_path):
    (tmp_path / "tasks.yaml").write_text(laughs(9))
    code, output, seconds = _mindpy("run", "--task", "tasks.yaml", "--task-id", "t", cwd=tmp_path)
    _assert_refused_before_a_server(code, output, "aliases expand it", tmp_path)
    assert seconds < 30
