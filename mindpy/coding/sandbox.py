"""Run checked generated code in a separate, locked-down Python process.

The child (child.py) gets the code, stub `skills`/`world` namespaces and a few safe builtins. Each API call
travels over a pipe to this process, which runs the real skill and answers with its JSON-able result. The
child can be killed at any moment (its own process group), so a timeout or a stop really stops it; it also
dies with the thread that started it and ends itself a little after its time limit, so it never outlives
this process. This process, the bridge and the bot are never reachable from it. See docs/sandbox.md for
what is guaranteed.
"""

from __future__ import annotations

import json
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .api import PRELOAD, SAFE_BUILTINS, CodeApi, allowed_modules, cached_members, jsonable
from .checker import check_code
from .child import EXIT_WALL_CLOCK

CHILD = Path(__file__).resolve().parent / "child.py"
DEFAULT_TIMEOUT = 120.0
MAX_ERROR_CHARS = 4_000  # of the error text the child reports (the code's own exception message can be huge)
# The only runtime audit events generated code may cause (see child.install_audit_hook).
AUDIT_ALLOWED = ("time.sleep",)
# System calls the kernel refuses to the child (if libseccomp is installed): files, sockets, processes,
# signals to others, privileges. Everything the child needs after set-up (read/write on its pipes, memory,
# sleeping) stays allowed.
SECCOMP_DENY = (
    "open", "openat", "openat2", "creat", "open_by_handle_at", "name_to_handle_at",
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "sendmmsg",
    "execve", "execveat", "fork", "vfork", "clone", "clone3", "ptrace", "process_vm_readv", "process_vm_writev",
    "kill", "tkill", "tgkill", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat",
    "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
    "truncate", "ftruncate", "mknod", "mknodat", "utime", "utimes", "utimensat", "futimesat",
    "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "memfd_create",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups", "capset", "prctl",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "init_module", "finit_module", "delete_module", "kexec_load",
    "reboot", "swapon", "swapoff", "sethostname", "setdomainname", "personality",
)


@dataclass
class Limits:
    """Resource limits of a sandboxed run (memory, output, system-call filter)."""
    memory_mb: int = 256          # address space of the child (the interpreter itself needs ~30 MB)
    max_output_chars: int = 1_000_000  # printing more than this stops the code
    keep_output_chars: int = 6_000     # what is kept of the output (head and tail)
    seccomp: bool = True          # add the system-call filter when libseccomp is available
    max_calls: int = 10_000       # skills.*/world.* calls one run may make
    # The child ends itself this long after `timeout` if this process has not stopped it by then (it is
    # stuck, or stopped with SIGSTOP); normally this process kills it at `timeout`.
    wall_grace_s: float = 5.0
    # Runtime audit events to let through besides AUDIT_ALLOWED. Only for tests that check that the
    # kernel layers (rlimits, seccomp) hold on their own; never needed by generated code.
    extra_audit_events: tuple[str, ...] = ()


@dataclass
class RunResult:
    """How a sandboxed run ended: output, error, timeout, refusal and statistics."""
    ok: bool
    output: str = ""
    error: str = ""
    timed_out: bool = False
    refused: bool = False         # failed the static checks: nothing ran
    stopped: bool = False         # stopped from outside (cancel)
    duration: float = 0.0
    calls: int = 0                # API calls answered
    seccomp: bool = False         # whether the system-call filter was in place

    def report(self) -> str:
        """The outcome in words for the model."""
        if self.refused:
            return self.error
        parts = [f"Code output:\n{self.output.rstrip()}" if self.output.strip() else "The code printed nothing."]
        if self.timed_out:
            parts.append(self.error)
        elif self.stopped:
            parts.append("The code was stopped before it finished.")
        elif not self.ok:
            parts.append(f"The code stopped with an error:\n{self.error}")
        else:
            parts.append("The code finished.")
        return "\n".join(parts)


class _Output:
    """Collected output: the first and last `keep` characters, and how much was left out between them."""

    def __init__(self, keep: int):
        self.half = keep // 2
        self.head: list[str] = []
        self.head_len = 0
        self.tail: deque[str] = deque()
        self.tail_len = 0
        self.total = 0
        self.lock = threading.Lock()

    def add(self, text: str) -> None:
        with self.lock:
            self.total += len(text)
            if self.head_len < self.half:
                take = text[: self.half - self.head_len]
                self.head.append(take)
                self.head_len += len(take)
                text = text[len(take):]
            if not text:
                return
            self.tail.append(text)
            self.tail_len += len(text)
            while self.tail and self.tail_len - len(self.tail[0]) >= self.half:
                self.tail_len -= len(self.tail.popleft())

    def text(self) -> str:
        with self.lock:
            head = "".join(self.head)
            tail = "".join(self.tail)
            if len(tail) > self.half:
                tail = tail[-self.half:]
            skipped = self.total - len(head) - len(tail)
            if skipped > 0:
                return f"{head}\n...({skipped} characters of output left out)...\n{tail}"
            return head + tail


def _child_env() -> dict[str, str]:
    return {"LC_ALL": "C.UTF-8"}


def run_code(code: str, api: CodeApi | None = None, timeout: float = DEFAULT_TIMEOUT, *,
             limits: Limits | None = None, cancel: threading.Event | None = None, check: bool = True,
             library: Mapping[str, str] | None = None) -> RunResult:
    """Check `code`, then run it in a fresh sandboxed process for at most `timeout` seconds.

    `api` answers the code's `skills.*`/`world.*` calls (None: the names exist but every call fails).
    `library` ({name: code}, the agent's saved skills, each checked when it was loaded) become functions the code
    can call by name: `name()` runs that code in the same sandbox. Setting `cancel` stops the run at once. Never
    raises for anything the code does.
    """
    limits = limits or Limits()
    library = dict(library or {})
    members = api.members if api is not None else cached_members()
    if check:
        checked = check_code(code, members, extra_names=library)
        if not checked.ok:
            return RunResult(False, error=checked.message(), refused=True)
    return _Run(code, api, members, timeout, limits, cancel, library).execute()


class _Run:
    def __init__(self, code, api, members, timeout, limits, cancel, library):
        self.code = code
        self.library = library
        self.api = api
        # every documented name gets a stub; the parent answers for the ones this api binds
        self.namespaces = {ns: sorted(names) for ns, names in members.items()}
        self.timeout = timeout
        self.limits = limits
        self.cancel = cancel
        self.output = _Output(limits.keep_output_chars)
        self.result = RunResult(False)
        self.worker: threading.Thread | None = None
        self.call_pending = False
        self.stdin_lock = threading.Lock()
        self.done: dict | None = None
        self.kill_reason = ""
        self.nonce = secrets.token_hex(16)  # the child's real "done" carries it; the code cannot read it

    def init_message(self) -> dict:
        return {
            "code": self.code,
            "library": self.library,
            "namespaces": self.namespaces,
            "modules": allowed_modules(),
            "preload": list(PRELOAD),
            "builtins": list(SAFE_BUILTINS),
            "limits": {"memory_mb": self.limits.memory_mb, "cpu_seconds": int(self.timeout) + 2,
                       "wall_seconds": self.timeout + self.limits.wall_grace_s},
            "parent_pid": os.getpid(),
            "audit_allow": list(AUDIT_ALLOWED) + list(self.limits.extra_audit_events),
            "seccomp_deny": list(SECCOMP_DENY) if self.limits.seccomp else [],
            "nonce": self.nonce,
        }

    def execute(self) -> RunResult:
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="mindpy-code-") as cwd:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", str(CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=_child_env(), cwd=cwd, start_new_session=True, close_fds=True)
            try:
                self._send(self.init_message())
                self._loop(start + self.timeout)
            finally:
                self._kill()
                self._finish_worker()
                stderr = self._drain_stderr()
                for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                    try:
                        if pipe is not None:
                            pipe.close()
                    except OSError:
                        pass
        self.result.duration = time.monotonic() - start
        self._conclude(stderr)
        self.result.output = self.output.text()
        return self.result

    # ---- the conversation with the child ------------------------------------------------------------
    def _send(self, msg: dict) -> None:
        data = json.dumps(msg).encode() + b"\n"
        stdin = self.proc.stdin
        assert stdin is not None, "the child is started with stdin=PIPE"
        with self.stdin_lock:
            try:
                stdin.write(data)
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the child is gone; the loop notices

    def _loop(self, deadline: float) -> None:
        sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None and self.proc.stderr is not None, "the child is started with PIPEs"
        out_fd = self.proc.stdout.fileno()
        sel.register(out_fd, selectors.EVENT_READ)
        self.stderr_buf = bytearray()
        err_fd = self.proc.stderr.fileno()
        sel.register(err_fd, selectors.EVENT_READ)
        pending = b""
        open_fds = 2
        try:
            while open_fds:
                now = time.monotonic()
                if now >= deadline:
                    self.result.timed_out = True
                    self.kill_reason = "timeout"
                    return
                if self.cancel is not None and self.cancel.is_set():
                    self.result.stopped = True
                    self.kill_reason = "stopped"
                    return
                for key, _ in sel.select(min(0.1, deadline - now)):
                    data = os.read(key.fd, 65536)
                    if not data:
                        sel.unregister(key.fd)
                        open_fds -= 1
                        continue
                    if key.fd == err_fd:
                        if len(self.stderr_buf) < 16_384:
                            self.stderr_buf += data
                        continue
                    pending += data
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        if not self._handle(line):
                            return
                    if len(pending) > 4 * self.limits.max_output_chars:
                        self.kill_reason = "protocol"
                        return
        finally:
            sel.close()

    def _handle(self, line: bytes) -> bool:
        """Act on one message; False ends the run."""
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
            msg = None
        if not isinstance(msg, dict):
            self.kill_reason = "protocol"
            return False
        kind = msg.get("t")
        if kind == "out":
            self.output.add(str(msg.get("text", "")))
            if self.output.total > self.limits.max_output_chars:
                self.kill_reason = "output"
                return False
        elif kind == "call":
            if self.call_pending:  # the child waits for each answer: two at once is not our child talking
                self.kill_reason = "protocol"
                return False
            if self.result.calls >= self.limits.max_calls:  # every earlier call has been answered by now
                self._send({"t": "err", "type": "RuntimeError", "text": f"the code made more than "
                            f"{self.limits.max_calls} skills/world calls, the most one run may make; do the task "
                            f"in fewer calls"})
                return True
            self.call_pending = True
            self.worker = threading.Thread(target=self._serve, args=(msg,), name="sandbox-call", daemon=True)
            self.worker.start()
        elif kind == "ready":
            self.result.seccomp = bool(msg.get("seccomp"))
        elif kind == "done":
            if msg.get("nonce") != self.nonce:  # written by the code, not by the child at the end
                self.kill_reason = "forged"
                return False
            self.done = msg
            return False
        return True

    def _serve(self, msg: dict) -> None:
        """Answer one API call (on a worker thread, so the loop keeps watching the clock)."""
        ns, name = str(msg.get("ns")), str(msg.get("name"))
        args = msg.get("args") if isinstance(msg.get("args"), list) else []
        kwargs = msg.get("kwargs") if isinstance(msg.get("kwargs"), dict) else {}
        if self.api is None:
            reply = {"t": "err", "type": "RuntimeError", "text": f"{ns}.{name}: no bot is connected"}
        else:
            try:
                reply = {"t": "ret", "value": jsonable(self.api.call(ns, name, args, kwargs))}
            except (TypeError, ValueError, LookupError) as exc:
                reply = {"t": "err", "type": type(exc).__name__, "text": str(exc)}
            except Exception as exc:  # a failing skill is an error in the code's output, not a crash here
                reply = {"t": "err", "type": "RuntimeError", "text": f"{ns}.{name} failed: {exc}"}
            if self.api.take_log is not None:
                try:
                    logged = self.api.take_log()
                except Exception:
                    logged = ""
                if logged:
                    self.output.add(logged.rstrip("\n") + "\n")
        self.result.calls += 1
        self.call_pending = False
        self._send(reply)

    # ---- ending ---------------------------------------------------------------------------------------
    def _kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _finish_worker(self) -> None:
        """A skill still running when the code was stopped is interrupted, so the bot stops too."""
        if self.worker is None or not self.worker.is_alive():
            return
        if self.api is not None and self.api.interrupt is not None:
            try:
                self.api.interrupt()
            except Exception:
                pass
        self.worker.join(timeout=10)

    def _drain_stderr(self) -> str:
        try:
            rest = self.proc.stderr.read(16_384) if self.proc.stderr else b""
        except (OSError, ValueError):
            rest = b""
        return (bytes(getattr(self, "stderr_buf", b"")) + (rest or b"")).decode(errors="replace")

    def _conclude(self, stderr: str) -> None:
        r = self.result
        if self.done is not None:
            r.ok = bool(self.done.get("ok"))
            r.error = str(self.done.get("error") or "")
            if len(r.error) > MAX_ERROR_CHARS:
                r.error = r.error[:MAX_ERROR_CHARS] + f"...({len(r.error) - MAX_ERROR_CHARS} characters cut)"
            return
        r.ok = False
        code = self.proc.returncode
        if self.kill_reason == "timeout" or code == EXIT_WALL_CLOCK:
            r.timed_out = True
            r.error = f"The code was stopped after {self.timeout:g} s (its time limit)."
        elif self.kill_reason == "stopped":
            r.error = "The code was stopped."
        elif self.kill_reason == "output":
            r.error = (f"The code printed more than {self.limits.max_output_chars} characters and was stopped; "
                       f"print less.")
        elif self.kill_reason == "protocol":
            r.error = "The code's process broke the protocol and was stopped."
        elif self.kill_reason == "forged":
            r.error = "The code tried to send its own result instead of finishing, and was stopped."
        elif code == -signal.SIGXCPU:
            r.error = "The code used too much CPU time and was stopped."
        elif code == -signal.SIGKILL:
            r.error = "The code's process was killed (probably out of memory)."
        else:
            tail = stderr.strip().splitlines()[-3:]
            r.error = f"The code's process ended unexpectedly (exit status {code})." + \
                      (" " + " ".join(tail) if tail else "")
