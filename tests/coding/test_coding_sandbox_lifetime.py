"""How long a sandboxed child lives: never longer than its parent, never much longer than its time limit.

The parent here is a separate Python process running `run_code`, so the test can kill it (SIGKILL, as a crash
or the OOM killer would) or freeze it (SIGSTOP, as a debugger or a stuck machine would) and watch the child
through /proc. The code the child runs sleeps in a loop, so the CPU-time limit never fires.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mindpy.coding import Limits, run_code

SLEEPER = "import time\nwhile True:\n    time.sleep(0.5)\n"
REPO = Path(__file__).resolve().parents[2]


def parent_running(timeout: float, grace: float) -> subprocess.Popen:
    """A process that runs SLEEPER in the sandbox with this time limit and grace."""
    script = (f"from mindpy.coding import Limits, run_code\n"
              f"run_code({SLEEPER!r}, timeout={timeout}, limits=Limits(wall_grace_s={grace}))\n")
    return subprocess.Popen([sys.executable, "-c", script], cwd=REPO)


def proc_field(pid: int, name: str) -> str:
    """A field of /proc/<pid>/status ('' once the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def is_dead(pid: int) -> bool:
    """Gone, or a zombie (nobody may reap it soon: its new parent is the container's init)."""
    return proc_field(pid, "State")[:1] in ("", "Z", "X")


def set_up(pid: int) -> bool:
    """Whether the child's set-up is done: its process limits come last (after the parent-death signal and
    the watchdog thread), right before the code runs."""
    try:
        return resource.prlimit(pid, resource.RLIMIT_NPROC) == (0, 0)
    except OSError:
        return False


def ready_child_of(parent: int, timeout: float = 20) -> int:
    """The sandbox child of `parent` once its set-up is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and proc_field(int(entry.name), "PPid") == str(parent) \
                    and set_up(int(entry.name)):
                return int(entry.name)
        time.sleep(0.01)
    raise AssertionError("the sandbox child did not start")


def seconds_until_dead(pid: int, limit: float) -> float:
    """How long until `pid` exits (a pidfd becomes readable then, also for a process that is not our child)."""
    start = time.monotonic()
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return 0.0
    try:
        if not select.select([fd], [], [], limit)[0]:
            return float("inf")
    finally:
        os.close(fd)
    return time.monotonic() - start


@pytest.fixture
def parents():
    """Parent processes started by a test; killed at the end, with any child they left alive."""
    started: list[tuple[subprocess.Popen, list[int]]] = []
    yield started
    for proc, children in started:
        proc.kill()
        proc.wait()
        for child in children:
            if not is_dead(child):
                os.kill(child, signal.SIGKILL)


def test_child_dies_when_its_parent_is_killed(parents):
    parent = parent_running(timeout=600, grace=5)
    child = ready_child_of(parent.pid)
    parents.append((parent, [child]))
    parent.kill()
    waited = seconds_until_dead(child, limit=3)
    assert waited < 1.0, f"the child outlived its parent by {waited:.2f} s"


def test_child_ends_itself_at_its_wall_clock_limit_when_the_parent_is_frozen(parents):
    parent = parent_running(timeout=1, grace=0.5)
    child = ready_child_of(parent.pid)
    parents.append((parent, [child]))
    start = time.monotonic()
    parent.send_signal(signal.SIGSTOP)  # the parent can no longer stop the child at its timeout
    lived = seconds_until_dead(child, limit=6)
    assert lived < 3.0, f"the child lived {lived:.2f} s with a 1 s limit and a 0.5 s grace"
    assert time.monotonic() - start > 0.8  # it ran until its limit: the clock ended it, nothing else


def test_sleeping_code_is_stopped_at_the_timeout():
    start = time.monotonic()
    r = run_code(SLEEPER, timeout=1.5)
    assert r.timed_out and "stopped after 1.5 s" in r.error
    assert time.monotonic() - start < 4


def test_child_ending_itself_at_the_wall_clock_is_reported_as_a_timeout():
    """Were the parent slow to notice the deadline, the child's own clock ends it; that reads as a timeout."""
    r = run_code(SLEEPER, timeout=0.5, limits=Limits(wall_grace_s=-0.3))
    assert r.timed_out and "stopped after 0.5 s (its time limit)" in r.error, r.error
