"""The code sandbox: static checks, the separate process and its limits, API calls over the pipe.

Everything runs for real: each `run_code` starts a child Python process. The API behind `skills.*`/`world.*`
here is plain Python functions (the real-bot runs are in test_coding_generator.py). Tests with `check=False`
skip the static checker on purpose, to show that the runtime layers hold on their own.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from mindpy.coding import CodeApi, Limits, bind_api, build_docs, check_code, relevant_docs, run_code
from mindpy.coding.api import cached_members, skill_names
from mindpy.coding.api_docs import api_index
from mindpy.skills import Skills
from mindpy.skills.api import MAX_PLACE_NAME_CHARS, MAX_PLACES


def assert_next_run_works():
    """After any failure the parent goes on: a new run right after works."""
    r = run_code("print('still fine', 6 * 7)", timeout=10)
    assert r.ok and r.output == "still fine 42\n", (r.error, r.output)


# ---- allowed code ---------------------------------------------------------------------------------------
def test_allowed_code_prints_and_computes():
    code = """
import math
import random
from collections import Counter, defaultdict
import re, json, itertools

def area(r):
    return round(math.pi * r ** 2, 2)

random.seed(1)
counts = Counter("oak_log oak_log stone".split())
groups = defaultdict(list)
for name in ["oak_log", "birch_log", "stone"]:
    groups[name.endswith("_log")].append(name)
try:
    {}["missing"]
except KeyError as e:
    print("caught", repr(e))
print(area(2), counts.most_common(1), dict(groups), re.findall(r"\\d+", "x1y22"))
print(json.dumps({"n": sum(x * x for x in range(4))}), list(itertools.combinations("ab", 2)))
log("log works too", sorted({3, 1, 2}), max(enumerate("abc"), key=lambda p: p[1]))
"""
    r = run_code(code, timeout=10)
    assert r.ok, r.error
    lines = r.output.splitlines()
    assert lines[0] == "caught KeyError('missing')"
    assert lines[1] == "12.57 [('oak_log', 2)] {True: ['oak_log', 'birch_log'], False: ['stone']} ['1', '22']"
    assert lines[2] == '{"n": 14} [(\'a\', \'b\')]'
    assert lines[3] == "log works too [1, 2, 3] (2, 'c')"
    assert "The code finished." in r.report()


def test_runtime_errors_come_back_with_the_generated_lines():
    r = run_code("def half(x):\n    return x / 0\nprint('before')\nhalf(4)\n", timeout=10)
    assert not r.ok and not r.timed_out and not r.refused
    assert r.output == "before\n"
    assert "line 4: half(4)" in r.error and "line 2, in half: return x / 0" in r.error
    assert r.error.endswith("ZeroDivisionError: division by zero")
    assert "child.py" not in r.error  # only the generated code's own frames
    assert "The code stopped with an error" in r.report()


def test_deep_recursion_reports_a_short_error():
    r = run_code("def down(n):\n    return down(n + 1)\ndown(0)\n", timeout=10)
    assert not r.ok and r.error.endswith("RecursionError: maximum recursion depth exceeded")
    assert "line 2, in down: return down(n + 1)\n  [the line above repeated" in r.error
    assert len(r.error) < 400
    assert_next_run_works()


# ---- refused by the checker ---------------------------------------------------------------------------------
def assert_refused(code: str, expected: list[str]):
    """Run `code` through the checker: refused, nothing ran, and every expected part is in the message."""
    r = run_code(code, timeout=10)
    assert r.refused and not r.ok and r.output == "", (r.error, r.output)
    for part in expected:
        assert part in r.error, r.error
    return r


@pytest.mark.parametrize("code, expected", [
    ("import os\nos.system('id')", ["Line 1", "importing os is not allowed", "Allowed modules: math"]),
    ("import subprocess\nsubprocess.run(['id'])", ["importing subprocess is not allowed"]),
    ("from os import path", ["importing os is not allowed"]),
    ("import socket\ns = socket.socket()\ns.connect(('example.com', 80))", ["importing socket is not allowed"]),
    ("f = open('/etc/passwd')\nprint(f.read())", ["Line 1", "open is not available", "Files are not available"]),
    ("print(__builtins__)", ["__builtins__ is not allowed"]),
    ("print(__import__('os'))", ["__import__ is not allowed"]),
    ("subs = ().__class__.__mro__[1].__subclasses__()", [".__class__ is not allowed", ".__mro__", ".__subclasses__"]),
    ("getattr((), '__cl' + 'ass__')", ["getattr is not available", "write obj.attribute directly"]),
    ("f = eval\nf('1')", ["eval is not available"]),
    ("def g():\n    yield 1\nprint(g().gi_frame.f_back.f_globals)", ["Line 3", ".gi_frame is not allowed"]),
    ("print('{0.__class__}'.format(1))", [".format is not allowed", "f-strings"]),
    ("import random\nrandom._os.system('id')", ["._os is not allowed"]),
    ("import re\nprint(re.enum)", ["re.enum is not available"]),
    ("import collections.abc", ["only the module collections itself"]),
    ("class A:\n    pass", ["class definitions are not supported"]),
    ("await skills.collect_blocks('oak_log')", ["the API is synchronous"]),
    ("print('x'", ["syntax error", "was never closed"]),
    ("return 5", ["'return' outside function"]),
])
def test_dangerous_or_broken_code_is_refused_with_a_clear_message(code, expected):
    r = assert_refused(code, expected)
    assert r.error.startswith("The code was not run because it failed the checks:")
    assert r.report() == r.error


# Every syntax that names an attribute, and every known way from a plain object to frames, code, globals
# or builtins. The first one read os.environ through the checker before match patterns were checked.
ATTRIBUTE_ROUTES = [
    # match class patterns: `case C(name=x)` is x = subject.name
    ('fmt = None\nmatch "{0.__globals__[os].environ}":\n    case str(format=fmt):\n        print(fmt(print))',
     ["Line 3: the pattern str(format=...) reads an attribute: the attribute .format is not allowed",
      "Line 2: the format field in '{0.__globals__[os].environ}' reads an attribute"]),
    ("match print:\n    case str(__globals__=g):\n        print(g)", ["the pattern str(__globals__=...)"]),
    ("try:\n    1 / 0\nexcept Exception as e:\n    match e:\n        case Exception(__traceback__=tb):\n"
     "            print(tb)", ["Line 5: the pattern Exception(__traceback__=...) reads an attribute"]),
    ("def g():\n    yield 1\nmatch g():\n    case str(gi_frame=f):\n        print(f)",
     ["the pattern str(gi_frame=...)", "frame, code and function internals"]),
    # parameter annotations are evaluated when the function is defined
    ("def f(x: print.__globals__):\n    pass", ["Line 1: the attribute .__globals__ is not allowed"]),
    ("match {}:\n    case {'__globals__': g}:\n        print(g)", ["the string '__globals__' names an interpreter"]),
    # format templates and format specs: fields walk attributes and keys by name
    ("print('{0.__class__}')", ["the format field in '{0.__class__}' reads an attribute", ".__class__"]),
    ("print('{0.gi_frame.f_back}')", ["the attribute .gi_frame is not allowed"]),
    ("print('{0[__builtins__]}')", ["reads the key '__builtins__', an interpreter internal"]),
    ("x = 1\nprint(f\"{x:{'{0.__globals__}'}}\")", ["Line 2: the format field in '{0.__globals__}'"]),
    ("print(f'{{0.__class__}}')", ["the format field in '{0.__class__}'"]),
    ("print('{0:{1.__class__}}')", ["the format field in '{0:{1.__class__}}'"]),
    ("print(str.format('{0.__class__}', 1))", [".format is not allowed", "Use f-strings"]),
    ("print('{0.real}'.format_map({}))", [".format_map is not allowed"]),
    # attribute access by name
    ("getattr(print, '__globals__')", ["getattr(..., '__globals__') reads an attribute", "getattr is not available"]),
    ("hasattr(print, 'tb_frame')", ["hasattr(..., 'tb_frame') reads an attribute", "hasattr is not available"]),
    ("setattr(print, 'x', 1)", ["setattr is not available"]),
    ("delattr(print, 'x')", ["delattr is not available"]),
    ("from operator import attrgetter", ["importing operator is not allowed"]),
    ("attrgetter = str\nattrgetter('a.__class__')", ["attrgetter(..., 'a.__class__') reads an attribute"]),
    ("methodcaller = str\nmethodcaller('mro')", ["methodcaller(..., 'mro') reads an attribute"]),
    ("print(vars(print))", ["vars is not available"]),
    ("print(dir(print))", ["dir is not available"]),
    # replacing a library object's method runs the code's function wherever the object is used
    ("from collections import Counter\nc = Counter(a=1)\nc.most_common = print",
     ["Line 3: changing the attribute .most_common of an object is not allowed"]),
    ("def f():\n    pass\ndel f.x", ["changing the attribute .x of an object is not allowed"]),
    # frames from generators, coroutines, async generators and tracebacks
    ("def g():\n    yield 1\nprint(g().gi_frame.f_back)", [".gi_frame is not allowed"]),
    ("def g():\n    yield 1\nprint(g().gi_code)", [".gi_code is not allowed"]),
    ("x = None\nprint(x.f_back.f_globals)", [".f_back is not allowed"]),
    ("async def c():\n    pass\nprint(c().cr_frame)", ["the API is synchronous", ".cr_frame is not allowed"]),
    ("async def a():\n    yield 1\nprint(a().ag_frame)", ["the API is synchronous", ".ag_frame is not allowed"]),
    ("try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__.tb_frame)",
     [".__traceback__ is not allowed", ".tb_frame is not allowed"]),
    # object walks and builtins through function globals
    ("print(().__class__.__base__.__subclasses__())", [".__subclasses__ is not allowed"]),
    ("print(print.__globals__['__builtins__'])", [".__globals__ is not allowed", "'__builtins__' names an"]),
    ("print(print.__code__)", [".__code__ is not allowed"]),
    ("print(print.__closure__)", [".__closure__ is not allowed"]),
    ("global __builtins__", ["the name __builtins__ is not allowed"]),
    ("match 1:\n    case int() as __builtins__:\n        pass", ["the name __builtins__ is not allowed"]),
]


@pytest.mark.parametrize("code, expected", ATTRIBUTE_ROUTES)
def test_every_syntax_that_names_an_attribute_is_checked(code, expected):
    assert_refused(code, expected)


def test_harmless_formats_patterns_and_attributes_pass_the_checker():
    code = """
x = 3.14159
print(f"{x:.2f} {x!r:>10}", "{0} {name} {0.real} {x[1]}", "__init__ is a word".upper())
match {"name": "oak_log", "count": 3}:
    case {"name": str() as name, **rest}:
        print(name, rest)
match [1, 2, 3]:
    case [first, *others]:
        print(first, others)
match 5:
    case int(real=r):
        print(r)
"""
    r = run_code(code, timeout=10)
    assert r.ok, r.error
    assert r.output.splitlines()[1:] == ["oak_log {'count': 3}", "1 [2, 3]", "5"]


def test_unknown_api_names_get_a_did_you_mean():
    assert "skills.colect_blocks does not exist. Did you mean skills.collect_blocks?" in \
        check_code("skills.colect_blocks('oak_log')").message()
    assert "skills.inventory does not exist. Did you mean world.inventory?" in \
        check_code("print(skills.inventory())").message()
    assert "the name collect_blocks is not defined. Did you mean skills.collect_blocks?" in \
        check_code("collect_blocks('oak_log', 1)").message()
    assert "the name mth is not defined. Did you mean math?" in check_code("import math\nprint(mth.pi)").message()
    assert "wrong arguments for skills.collect_blocks: too many positional arguments" in \
        check_code("skills.collect_blocks('oak_log', 1, 2)").message()
    assert "Call it as skills.place_block(block, x, y, z)" in check_code("skills.place_block('dirt', 1, 2)").message()
    assert "'skills' is the API and cannot be reassigned" in check_code("skills = 3").message()
    assert check_code("n = 2\nskills.collect_blocks(block='oak_log', num=n)\nprint(world.nearby_blocks(8))").ok


def test_checker_does_not_crash_on_huge_or_deep_code():
    assert "characters long" in check_code("x = 1\n" * 5000).message()
    assert not check_code("x = " + "(" * 500 + "1" + ")" * 500).ok
    assert not check_code("x = " + "-" * 100_000 + "1").ok


# ---- stopped at run time ---------------------------------------------------------------------------------------
def test_infinite_loop_is_stopped_by_the_timeout():
    start = time.monotonic()
    r = run_code("print('started')\nwhile True:\n    pass\n", timeout=2)
    assert time.monotonic() - start < 6
    assert r.timed_out and not r.ok
    assert r.output == "started\n"
    assert "stopped after 2 s (its time limit)" in r.error and r.error in r.report()
    assert_next_run_works()


def test_memory_bomb_is_stopped():
    r = run_code("chunks = []\nwhile True:\n    chunks.append('x' * 10_000_000)\n", timeout=20,
                 limits=Limits(memory_mb=200))
    assert not r.ok and not r.timed_out
    assert "MemoryError" in r.error and "200 MB" in r.error
    assert r.duration < 10
    assert_next_run_works()


def test_printing_without_end_is_stopped():
    r = run_code("while True:\n    print('spam' * 100)\n", timeout=20, limits=Limits(max_output_chars=200_000))
    assert not r.ok and "printed more than 200000 characters" in r.error
    assert "characters of output left out" in r.output and len(r.output) < 7_000
    assert_next_run_works()


def test_cancel_stops_a_running_run():
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    r = run_code("import time\nwhile True:\n    time.sleep(0.05)\n", timeout=30, cancel=cancel)
    assert time.monotonic() - start < 3
    assert r.stopped and not r.ok and not r.timed_out
    assert "stopped before it finished" in r.report()


# ---- the runtime layers without the checker ---------------------------------------------------------------
ESCAPE = "os_module = print.__globals__['os']\n"  # print is the child's own function: its globals hold os


def test_restricted_builtins_and_imports_hold_without_the_checker():
    r = run_code("open('/etc/passwd')", timeout=10, check=False)
    assert "NameError: name 'open' is not defined" in r.error
    r = run_code("os = __import__('os')", timeout=10, check=False)
    assert "ImportError: import of os is not allowed" in r.error
    r = run_code("import socket", timeout=10, check=False)
    assert "ImportError: import of socket is not allowed" in r.error
    r = run_code("import random\nprint(random._os)", timeout=10, check=False)
    assert "AttributeError" in r.error  # the module the code sees has only the allowed public names


def test_audit_hook_blocks_object_walks_and_frames_without_the_checker():
    walk = ("subs = ().__class__.__mro__[1].__subclasses__()\n"
            "wrap = [c for c in subs if c.__name__ == '_wrap_close'][0]\n"
            "wrap.__init__.__globals__['system']('touch /tmp/mindpy_sandbox_pwned')\n")
    r = run_code(walk, timeout=10, check=False)
    assert "RuntimeError: blocked by the sandbox: os.system" in r.error
    assert not Path("/tmp/mindpy_sandbox_pwned").exists()
    r = run_code(ESCAPE + "print(os_module.listdir('/'))", timeout=10, check=False)
    assert "blocked by the sandbox: os.listdir" in r.error
    r = run_code("try:\n    1/0\nexcept Exception as e:\n    print(e.__traceback__.tb_frame.f_back)", timeout=10,
                 check=False)
    assert "blocked by the sandbox: object.__getattr__" in r.error
    r = run_code(ESCAPE + "import socket", timeout=10, check=False)
    assert "ImportError" in r.error
    r = run_code("bi = print.__globals__['__builtins__']\nbi.__import__('socket')", timeout=10, check=False)
    assert "blocked by the sandbox: import" in r.error
    assert_next_run_works()


def test_kernel_limits_hold_even_past_the_audit_hook(tmp_path):
    """With the audit hook told to let file events through, the kernel still says no."""
    opened = run_code(ESCAPE + "print(os_module.open('/etc/hostname', 0))", timeout=10, check=False,
                      limits=Limits(seccomp=False, extra_audit_events=("open",)))
    assert "Too many open files" in opened.error  # RLIMIT_NOFILE: no new descriptor at all
    filtered = run_code(ESCAPE + "print(os_module.open('/etc/hostname', 0))", timeout=10, check=False,
                        limits=Limits(extra_audit_events=("open",)))
    if not filtered.seccomp:
        pytest.fail("libseccomp is expected on this machine (the system-call filter was not installed)")
    assert "PermissionError: [Errno 1] Operation not permitted" in filtered.error
    target = tmp_path / "made_by_generated_code"
    r = run_code(ESCAPE + f"os_module.mkdir({str(target)!r})", timeout=10, check=False,
                 limits=Limits(extra_audit_events=("os.mkdir",)))
    assert "Operation not permitted" in r.error and not target.exists()
    r = run_code(ESCAPE + "print(os_module.fork())", timeout=10, check=False,
                 limits=Limits(extra_audit_events=("os.fork",)))
    assert "Operation not permitted" in r.error


def test_child_sees_no_environment_of_the_parent(monkeypatch):
    monkeypatch.setenv("MINDPY_TEST_SECRET", "hunter2")
    r = run_code(ESCAPE + "print(dict(os_module.environ))", timeout=10, check=False)
    assert r.ok, r.error
    assert "hunter2" not in r.output and "LC_ALL" in r.output


# Each route from a plain object to frames, code, globals or the system, with the checker skipped: the
# runtime walls (namespace, audit hook, kernel) refuse the step that would matter.
RUNTIME_ROUTES = {
    "generator frame": ("def g():\n    yield 1\nprint(g().gi_frame.f_back)", "object.__getattr__"),
    "generator code": ("def g():\n    yield 1\nprint(g().gi_code)", "object.__getattr__"),
    "coroutine frame": ("async def c():\n    pass\nprint(c().cr_frame)", "object.__getattr__"),
    "async generator frame": ("async def a():\n    yield 1\nprint(a().ag_frame)", "object.__getattr__"),
    "traceback frame": ("try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__.tb_frame)",
                        "object.__getattr__"),
    "traceback frame by a match pattern": (
        "try:\n    1 / 0\nexcept Exception as e:\n    tb = e.__traceback__\n    match tb:\n"
        "        case tb.__class__(tb_frame=f):\n            print(f.f_back)", "object.__getattr__"),
    "globals by a match pattern, then os": (
        "match print:\n    case print.__class__(__globals__=g):\n        g['os'].system('id')", "os.system"),
    "function code": ("print(print.__code__)", "object.__getattr__"),
    "sys._getframe": ("print(print.__globals__['sys']._getframe())", "sys._getframe"),
    "gc.get_referrers": ("print(print.__globals__['gc'].get_referrers(print))", "gc.get_referrers"),
    "gc.get_objects": ("print(len(print.__globals__['gc'].get_objects()))", "gc.get_objects"),
    "open through function globals": ("print.__globals__['__builtins__'].open('/etc/hostname')",
                                      "open (/etc/hostname)"),
    "exec through function globals": ("print.__globals__['__builtins__'].exec('x = 1')", "compile"),
    "eval through function globals": ("print.__globals__['__builtins__'].eval('1')", "compile"),
    "ctypes loaded for the set-up": ("print(print.__globals__['sys'].modules['ctypes'].CDLL(None))", "ctypes.dlopen"),
    "a second audit hook": ("sys = print.__globals__['sys']\nsys.addaudithook(lambda event, args: None)\n"
                            "print.__globals__['__builtins__'].open('/etc/hostname')", "open (/etc/hostname)"),
    "a frame gate of its own": (
        "open_gate, close_gate, admits = print.__globals__['make_frame_gate']()\nopen_gate()\n"
        "try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__.tb_frame)", "object.__getattr__"),
}


@pytest.mark.parametrize("code, event", RUNTIME_ROUTES.values(), ids=RUNTIME_ROUTES.keys())
def test_routes_to_frames_and_the_system_are_blocked_at_run_time(code, event):
    r = run_code(code, timeout=10, check=False)
    assert not r.ok and f"RuntimeError: blocked by the sandbox: {event}" in r.error, (r.error, r.output)


# A function the code hands to the child in some way. If it ever runs with the audit hook relaxed, it can
# read a frame (the way back to the child's own variables) and says so.
SPY = """
busy = []
def spy(*args, **kwargs):
    if busy:  # print itself may use what the spy replaced
        return []
    busy.append(1)
    try:
        raise ValueError('probe')
    except ValueError as probe:
        try:
            frame = probe.__traceback__.tb_frame.f_back
            print('frame read:', frame.f_code.co_name)
        except RuntimeError as refused:
            print('refused:', refused)
    busy.pop()
    return []
"""


# Everything the error report touches that the code can replace or create, and how the report ends.
REPORT_HIJACKS = {
    # Counter's repr calls self.most_common(): raised in an exception, the code's function runs while the
    # child describes the error; the report still names the line.
    "a library method the error's text calls": (
        "from collections import Counter\nc = Counter(a=1)\nc.most_common = spy\nraise KeyError(c)\n",
        "line 20: raise KeyError(c)\nKeyError: Counter({})"),
    "the child's report functions in its globals": (
        "g = print.__globals__\nfor name in ('describe_error', 'error_summary', '_compress', 'make_error_reporter',"
        " 'make_frame_reader'):\n    g[name] = spy\ng['os']._exit = spy\nraise ValueError('x')\n", "ValueError: x"),
    "builtins the report uses": (
        "bi = print.__globals__['__builtins__']\nbi.isinstance = bi.type = bi.BaseException = spy\n"
        "raise ValueError('x')\n", "ValueError (details unavailable)"),
    "an exception class with its own __str__": (
        "T = ().__class__.__class__\nE = T('E', (Exception,), {'__str__': spy, '__repr__': spy})\nraise E()\n",
        "E (details unavailable)"),
    "finalizers of garbage cycles": (
        "T = ().__class__.__class__\nD = T('D', (), {'__del__': spy})\nfor i in range(2000):\n    d = D()\n"
        "    d.cycle = d\nraise ValueError('x')\n", "ValueError: x"),
}


@pytest.mark.parametrize("code, error_end", REPORT_HIJACKS.values(), ids=REPORT_HIJACKS.keys())
def test_code_run_while_the_error_is_reported_is_audited(code, error_end):
    r = run_code(SPY + code, timeout=10, check=False)
    assert "frame read" not in r.output, r.output
    assert "refused: blocked by the sandbox: object.__getattr__" in r.output, (r.output, r.error)
    assert r.error, "the run still reports an error"
    assert r.error.endswith(error_end), r.error


def test_signal_handlers_of_the_code_do_not_run_while_the_error_is_reported():
    """A timer firing every millisecond: its handler runs during the code (refused), never in the report."""
    code = """
refusals = []
def on_alarm(*args):
    try:
        raise ValueError('probe')
    except ValueError as probe:
        try:
            frame = probe.__traceback__.tb_frame.f_back
            print('frame read:', frame.f_code.co_name)
        except RuntimeError:
            refusals.append(1)
sig = print.__globals__['signal']
sig.signal(sig.SIGALRM, on_alarm)
sig.setitimer(sig.ITIMER_REAL, 0.001, 0.001)
import time
time.sleep(0.05)
print('handler refused', len(refusals) > 0)
def down(n):
    return down(n + 1)
down(0)
"""
    r = run_code(code, timeout=10, check=False)
    assert "frame read" not in r.output, r.output
    assert "handler refused True" in r.output
    assert r.error.endswith("RecursionError: maximum recursion depth exceeded"), r.error


def test_garbage_on_the_pipe_ends_the_run_without_raising_in_the_parent():
    """Lines the parent cannot use (nesting deeper than its JSON parser goes, JSON that is not an object)."""
    channel = "out = print.__closure__[0].cell_contents.out\n"
    for line in ("b'[' * 100_000", "b'[1, 2]'"):
        r = run_code(channel + f"out.write({line} + b'\\n')\nout.flush()\nimport time\ntime.sleep(5)\n",
                     timeout=10, check=False)
        assert not r.ok and "broke the protocol" in r.error, r.error
        assert r.duration < 4
    assert_next_run_works()


# A "done" that the code writes itself, or a real one it changes on the way, must not pass for the run's result:
# each of these ends with the code failing, so a run that comes back ok was forged.
CHANNEL = "channel = print.__closure__[0].cell_contents\n"
FORGED_RESULTS = [
    pytest.param(CHANNEL + "channel.send({'t': 'done', 'ok': True})\nraise ValueError('real end')", id="channel-send"),
    pytest.param(CHANNEL + "channel.out.write(b'{\"t\": \"done\", \"ok\": true}\\n')\nchannel.out.flush()\n"
                 "raise ValueError('real end')", id="pipe-write"),
    pytest.param(ESCAPE + "for fd in range(12):\n    try:\n        os_module.write(fd, b'{\"t\": \"done\", "
                 "\"ok\": true}\\n')\n    except Exception:\n        pass\nraise ValueError('real end')", id="every-fd"),
    pytest.param(CHANNEL + "real = channel.out\nmake_class = print.__globals__['__builtins__'].type\n"
                 "channel.out = make_class('Rewrite', (), {'flush': lambda self: real.flush(), 'write': lambda self, "
                 "data: real.write(data.replace(b'\"ok\": false', b'\"ok\": true'))})()\n"
                 "raise ValueError('real end')", id="rewrite-writer"),
    pytest.param("json = print.__globals__['json']\nreal = json.dumps\njson.dumps = lambda msg, **kw: "
                 "real({**msg, 'ok': True} if msg.get('t') == 'done' else msg, **kw)\nraise ValueError('real end')",
                 id="patched-json"),
    pytest.param(CHANNEL + "channel.__class__.send = lambda self, msg: print.__globals__['os'].write(self.out.fileno(), "
                 "b'{\"t\": \"done\", \"ok\": true}\\n')\nraise ValueError('real end')", id="patched-send"),
]


@pytest.mark.parametrize("code", FORGED_RESULTS)
def test_a_result_the_code_forges_is_not_taken_for_the_real_one(code):
    r = run_code(code, timeout=10, check=False)
    assert not r.ok, (r.output, r.error)
    assert "real end" in r.error or "its own result" in r.error, r.error


# ---- API calls over the pipe -----------------------------------------------------------------------------------
class FakeBotApi:
    """Plain Python functions standing in for one bot's skills (the real ones need a server)."""

    def __init__(self):
        self.calls = []
        self.messages = []
        self.interrupted = threading.Event()

    def collect_blocks(self, block, num=1):
        self.calls.append(("collect_blocks", block, num))
        self.messages.append(f"Collected {num} {block}.")
        return True

    def stay(self, seconds=-1):
        self.interrupted.wait(seconds if seconds >= 0 else None)
        self.messages.append("Stopped staying." if self.interrupted.is_set() else "Stayed.")
        return not self.interrupted.is_set()

    def inventory(self):
        return {"items": {"oak_log": 3}, "freeSlots": 33}

    def take_log(self):
        text = "\n".join(self.messages)
        self.messages.clear()
        return text

    def api(self):
        return CodeApi({"skills": {"collect_blocks": self.collect_blocks, "stay": self.stay},
                        "world": {"inventory": self.inventory}},
                       interrupt=self.interrupted.set, take_log=self.take_log, members=cached_members())


def test_api_calls_are_forwarded_and_answered():
    bot = FakeBotApi()
    code = ("ok = skills.collect_blocks('oak_log', num=2)\n"
            "print('ok:', ok)\n"
            "print('logs:', world.inventory()['items']['oak_log'])\n")
    r = run_code(code, bot.api(), timeout=10)
    assert r.ok, r.error
    assert bot.calls == [("collect_blocks", "oak_log", 2)]
    assert r.output == "Collected 2 oak_log.\nok: True\nlogs: 3\n"  # the skill's messages, in order
    assert r.calls == 2


def test_bad_api_calls_raise_in_the_generated_code():
    bot = FakeBotApi()
    r = run_code("args = ['oak_log', 1, 2, 3]\nskills.collect_blocks(*args)", bot.api(), timeout=10)
    assert "TypeError: skills.collect_blocks(block, num=1): too many positional arguments" in r.error
    r = run_code("skills.collect_blocks({1, 2})", bot.api(), timeout=10)
    assert "arguments must be plain values" in r.error
    r = run_code("skills.go_to_player('steve')", bot.api(), timeout=10)  # in the docs, not bound here
    assert "LookupError: skills.go_to_player is not part of the API" in r.error
    assert bot.calls == []


def test_oversized_arguments_are_refused_before_the_skill_runs():
    bot = FakeBotApi()
    r = run_code("skills.collect_blocks('x' * 1_000_000)", bot.api(), timeout=10)
    assert r.error.endswith("ValueError: skills.collect_blocks: the argument block is 1000000 characters long "
                            "(the limit is 200); use short names and small values"), r.error
    r = run_code("skills.collect_blocks(['oak_log'] * 1000)", bot.api(), timeout=10)
    assert "the argument block holds more than 100 items (the limit)" in r.error
    r = run_code("skills.collect_blocks({'a': ['x' * 300]})", bot.api(), timeout=10)
    assert "the argument block holds a text that is 300 characters long" in r.error
    assert bot.calls == []
    assert run_code("print(skills.collect_blocks('x' * 200, num=3))", bot.api(), timeout=10).output.endswith("True\n")


class StandingBot:
    """The part of a bot that remember_place reads."""
    position = (1.0, 64.0, -2.0)


def test_remembered_places_cannot_grow_without_end():
    """Long names and endless new names would grow what the agent keeps (and shows the model) every run; the
    limit sits in the skill, so !rememberHere from a player meets it too."""
    skills = Skills(StandingBot(), runner=object())
    api = bind_api(skills, bot=StandingBot())
    r = run_code("skills.remember_place('x' * 1_000_000)", api, timeout=10)
    assert "ValueError: skills.remember_place: the argument name is 1000000 characters long" in r.error
    assert skills.places == {}
    assert skills.remember_place("y" * (MAX_PLACE_NAME_CHARS + 1)) is False
    assert skills.take_log().startswith(f"A place name can be at most {MAX_PLACE_NAME_CHARS} characters long")
    r = run_code("saved = [skills.remember_place(f'place {i}') for i in range(150)]\n"
                 "print(saved.count(True), saved.count(False))", api, timeout=20)
    assert r.ok and r.output.endswith("100 50\n"), (r.output, r.error)
    assert len(skills.places) == MAX_PLACES
    assert "100 places are saved already (the limit is 100): save under a name already used" in r.output
    r = run_code("print(skills.remember_place('place 7'))", api, timeout=10)  # a name already saved: fine
    assert r.ok and r.output.endswith("True\n"), r.error


def test_a_run_has_a_budget_of_api_calls():
    bot = FakeBotApi()
    r = run_code("for i in range(10):\n    world.inventory()\n", bot.api(), timeout=10, limits=Limits(max_calls=5))
    assert r.calls == 5
    assert r.error.endswith("RuntimeError: the code made more than 5 skills/world calls, the most one run may make; "
                            "do the task in fewer calls"), r.error


def test_a_huge_error_message_is_cut():
    r = run_code("raise ValueError('x' * 100_000)", timeout=10)
    assert not r.ok and len(r.error) < 4_200 and r.error.endswith("characters cut)")


def test_timeout_during_a_skill_interrupts_the_skill():
    bot = FakeBotApi()
    start = time.monotonic()
    r = run_code("print('waiting')\nskills.stay(60)\nprint('never')", bot.api(), timeout=1.5)
    assert time.monotonic() - start < 8
    assert r.timed_out and bot.interrupted.is_set()
    assert "never" not in r.output


def test_rpc_and_start_overhead_are_small():
    bot = FakeBotApi()
    r0 = run_code("print(1)", timeout=10)
    r = run_code("for i in range(300):\n    world.inventory()\n", bot.api(), timeout=30)
    assert r.ok and r.calls == 300
    per_call = (r.duration - r0.duration) / 300
    assert r0.duration < 1.0, f"process start took {r0.duration:.3f} s"
    assert per_call < 0.01, f"{per_call * 1000:.2f} ms per call"


# ---- docs ------------------------------------------------------------------------------------------------------------
def test_docs_cover_the_whole_api_and_only_it():
    docs = build_docs()
    names = [d.name for d in docs]
    assert names[:len(skill_names())] == [f"skills.{n}" for n in skill_names()]
    assert {"world.stats", "world.inventory", "world.nearby_blocks", "world.entities", "world.craftable"} <= set(names)
    assert not any(n.split(".")[1] in ("interrupt", "take_log", "bot", "runner", "log") or "._" in n for n in names)
    collect = next(d for d in docs if d.name == "skills.collect_blocks")
    assert collect.text.startswith("skills.collect_blocks(block: str, num: int = 1) -> bool\n    Dig `num` blocks")
    nearby = next(d for d in docs if d.name == "world.nearby_blocks")
    assert nearby.text.startswith("world.nearby_blocks(search_range: int = 16) -> list[dict]")
    assert "place_block" in api_index() and "modules you may import: math" in api_index()


def test_relevant_docs_uses_the_given_ranking_or_word_overlap():
    docs = build_docs()
    assert relevant_docs("collect some oak logs", 1)[0].name == "skills.collect_blocks"
    chosen = relevant_docs("anything", 3, rank=lambda q, texts: [len(texts) - 1, 0, 0, 99, 1])
    assert [d.name for d in chosen] == [docs[-1].name, docs[0].name, docs[1].name]
    assert len(relevant_docs("smelt iron", 5)) == 5
