"""The sandboxed process: runs one piece of generated code, then exits.

Started by sandbox.py as `python -I -S child.py` with an empty environment, so it imports only the standard
library (never mindpy, never site-packages). Protocol, one JSON object per line:

  parent -> child  first line: {"code", "library": {name: code}, "namespaces": {ns: [names]},
                                "modules": {name: [names]}, "preload": [modules], "builtins": [names], "parent_pid",
                                "limits": {"memory_mb", "cpu_seconds", "wall_seconds"},
                                "audit_allow": [events], "seccomp_deny": [system calls], "nonce"}
                   then one reply per call: {"t": "ret", "value"} or {"t": "err", "type", "text"}
  child -> parent  {"t": "ready", "seccomp"}                    set-up done, the code starts
                   {"t": "out", "text"}                         printed output
                   {"t": "call", "ns", "name", "args", "kwargs"}  an API call; the child waits for the reply
                   {"t": "done", "ok", "error", "nonce"}         the end

Order of set-up matters: everything that needs a file (imports, the seccomp library) happens before the
resource limits, because afterwards no file descriptor can be opened at all; the parent-death signal and the
watchdog thread come before the seccomp filter, which refuses `prctl` and `clone`.

The code can reach the pipe to the parent (the closures of `print` and the stubs hold the channel, and `os.write`
is reachable through any function's globals), so it can write any line. It cannot write the end: the "done" line
carries a per-run nonce that only `make_result_writer`'s closure holds, written by functions bound before the code
runs (never `json` or `Channel`, which the code can change), and the parent stops a run whose "done" has another.

Once the generated code has started, nothing in this process runs with the audit hook relaxed, except the few
lines that read the traceback's frames for the error report (`make_frame_reader`). Everything those lines and
the hook use is bound before the code runs, in closures the code cannot reach, because the code can reach and
change this module's globals, the builtins module and every module loaded here (`print.__globals__`).
"""

import _signal  # type: ignore[import-not-found]  # the C functions: signal.py's wrappers use globals the code can change
import _thread
import builtins
import gc
import json
import os
import resource
import signal
import sys
import time
import types

try:
    from _json import encode_basestring_ascii as _quote_json  # C: nothing the code changes runs in it
except ImportError:  # an interpreter built without the accelerator
    from json.encoder import py_encode_basestring_ascii as _quote_json

FILENAME = "<generated>"
MAX_PRINT_CHARS = 100_000
_ERROR_TYPES = {"TypeError": TypeError, "ValueError": ValueError, "LookupError": LookupError}
# Exit statuses the parent reads (sandbox.py).
EXIT_PARENT_GONE = 3      # the parent died or closed the pipe: nobody to report to
EXIT_WALL_CLOCK = 124     # the child's own wall-clock limit (the parent should have stopped it earlier)
WATCH_INTERVAL = 0.25     # how often the watchdog thread looks at the parent and the clock
PR_SET_PDEATHSIG = 1
# object.__getattr__ events the error report needs while it reads the traceback (tb.tb_frame.f_code).
FRAME_READS = frozenset({"tb_frame", "f_code"})


class Channel:
    """The pipe pair to the parent. fd 1 is moved aside so stray writes cannot corrupt the protocol."""

    def __init__(self):
        self.inp = os.fdopen(0, "rb", closefd=False)
        self.out = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)

    def send(self, msg: dict) -> None:
        self.out.write(json.dumps(msg).encode() + b"\n")
        self.out.flush()

    def receive(self) -> dict:
        line = self.inp.readline()
        if not line:
            os._exit(EXIT_PARENT_GONE)
        return json.loads(line)


def make_print(channel: Channel):
    """A `print` replacement that sends (capped) text to the parent instead of stdout."""
    def print(*args, sep=" ", end="\n", file=None, flush=False):  # noqa: A001 - replaces the builtin
        text = str(sep).join(str(a) for a in args) + str(end)
        if len(text) > MAX_PRINT_CHARS:
            text = text[:MAX_PRINT_CHARS] + "...(cut)\n"
        channel.send({"t": "out", "text": text})
    return print


def make_stub(channel: Channel, ns: str, name: str):
    """A function that forwards the call to the parent and returns its answer."""
    def call(*args, **kwargs):
        try:
            msg = json.dumps({"t": "call", "ns": ns, "name": name, "args": args, "kwargs": kwargs})
        except (TypeError, ValueError):
            raise TypeError(f"{ns}.{name}: arguments must be plain values (str, int, float, bool, None, and "
                            f"lists or dicts of them)") from None
        channel.out.write(msg.encode() + b"\n")
        channel.out.flush()
        reply = channel.receive()
        if reply.get("t") == "ret":
            return reply.get("value")
        raise _ERROR_TYPES.get(reply.get("type"), RuntimeError)(reply.get("text", "the call failed"))
    call.__name__ = name
    call.__qualname__ = f"{ns}.{name}"
    return call


def sanitized_module(name: str, names: list) -> types.ModuleType:
    """A fresh module holding only the allowed public names of the real one (no submodules, no privates)."""
    real = __import__(name)
    safe = types.ModuleType(name)
    for attr in names:
        value = getattr(real, attr, None)
        if value is not None and not isinstance(value, types.ModuleType) and not attr.startswith("_"):
            setattr(safe, attr, value)
    return safe


def make_globals(channel: Channel, init: dict) -> dict:
    """The globals the code runs with: allowed builtins and modules, API stubs, a safe import."""
    modules = {name: sanitized_module(name, names) for name, names in init["modules"].items()}

    def safe_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in modules:
            return modules[name]
        raise ImportError(f"import of {name} is not allowed (allowed: {', '.join(sorted(modules))})")

    safe_builtins = {n: getattr(builtins, n) for n in init["builtins"] if hasattr(builtins, n)}
    safe_builtins["__import__"] = safe_import
    print_fn = make_print(channel)
    env = {"__builtins__": safe_builtins, "__name__": "generated", "print": print_fn, "log": print_fn}
    for ns, names in init["namespaces"].items():
        env[ns] = types.SimpleNamespace(**{n: make_stub(channel, ns, n) for n in names})
    return env


def compile_library(sources) -> dict:
    """{name: code object} of the saved skills (checked by the parent when they were loaded); one that does not
    compile is left out, and calling it is a NameError in the code."""
    compiled: dict = {}
    if not isinstance(sources, dict):
        return compiled
    for name, source in sources.items():
        if isinstance(name, str) and name.isidentifier() and not name.startswith("_") and isinstance(source, str):
            try:
                compiled[name] = compile(source, f"<skill {name}>", "exec", dont_inherit=True)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
    return compiled


def add_library(env: dict, compiled: dict) -> None:
    """Make each saved skill a function of the code's globals: `name()` runs that skill's code, as its own
    top-level code, in fresh globals like the code's (the other skills included, so one skill can call
    another). Everything a call uses is bound now, before the code runs and can change builtins."""
    base = dict(env)
    run, fresh = exec, base.copy

    def make(name: str, code):
        def skill():
            run(code, fresh())
        skill.__name__ = skill.__qualname__ = name
        return skill

    for name, code in compiled.items():
        env[name] = base[name] = make(name, code)


def lowest_free_fd() -> int:
    """The lowest descriptor number not in use (probed with fstat, which opens nothing)."""
    fd = 0
    while True:
        try:
            os.fstat(fd)
        except OSError:
            return fd
        fd += 1


def apply_limits(limits: dict, free_fd: int) -> None:
    """Kernel-enforced limits: memory, CPU time, no new files or sockets, no writing files, no children."""
    mem = int(limits["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write over the limit fails instead of killing us
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # not enforced for root, see docs/sandbox.md
    # every descriptor below `free_fd` is open, so the kernel can hand out no new one
    resource.setrlimit(resource.RLIMIT_NOFILE, (free_fd, free_fd))


def install_seccomp(denied: list) -> bool:
    """Make the kernel refuse (EPERM) the listed system calls, if libseccomp is there. Needs no privileges."""
    if not denied:
        return False
    try:
        import ctypes
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        return False
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    # the array form: seccomp_rule_add itself is variadic, which ctypes cannot describe
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    allow, errno_eperm = 0x7FFF0000, 0x00050000 | 1  # SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(EPERM)
    ctx = lib.seccomp_init(allow)
    if not ctx:
        return False
    try:
        for name in denied:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr >= 0 and lib.seccomp_rule_add_array(ctx, errno_eperm, nr, 0, None) != 0:
                return False
        return lib.seccomp_load(ctx) == 0
    finally:
        lib.seccomp_release(ctx)


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when the parent thread that started it ends (Linux prctl).
    Where prctl is not available, the watchdog thread notices the parent's death instead."""
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(EXIT_PARENT_GONE)


def start_watchdog(parent_pid: int, wall_seconds: float) -> None:
    """A thread that ends the process when the parent is gone or `wall_seconds` have passed, even if the code
    sleeps (the CPU limit only counts running time) and even if the parent is alive but stuck.

    Started before the seccomp filter and the process limits (which refuse new threads). It only calls
    functions bound here, so the code cannot change what it does by changing the os or time modules."""
    deadline = time.monotonic() + wall_seconds
    parent, clock, nap, end, anything = os.getppid, time.monotonic, time.sleep, os._exit, BaseException
    orphaned, too_long, interval = EXIT_PARENT_GONE, EXIT_WALL_CLOCK, WATCH_INTERVAL

    def watch() -> None:
        while True:
            try:
                if parent() != parent_pid:
                    end(orphaned)
                left = deadline - clock()
                if left <= 0:
                    end(too_long)
                nap(interval if left > interval else left)
            except anything:  # e.g. MemoryError while the code holds all memory: keep watching
                pass

    previous = _thread.stack_size(256 * 1024)  # the default 8 MB would count against RLIMIT_AS
    try:
        _thread.start_new_thread(watch, ())
    finally:
        _thread.stack_size(previous)


def make_frame_gate():
    """(open, close, admits): a gate that lets one thread read traceback frames while the audit hook is
    installed. Only the error report opens it. Closures, not an object: the code can change any class or
    module it reaches, but not the variables bound here."""
    reader: list = [None]  # the thread id allowed to read frames, or None
    this_thread, frame_reads = _thread.get_ident, FRAME_READS

    def open_gate() -> None:
        reader[0] = this_thread()

    def close_gate() -> None:
        reader[0] = None

    def admits(event: str, args: tuple) -> bool:
        allowed = reader[0]
        return (allowed is not None and event == "object.__getattr__" and args[1] in frame_reads
                and allowed == this_thread())
    return open_gate, close_gate, admits


def install_audit_hook(code, allowed_events: frozenset, admits, library_code: tuple = ()) -> None:
    """Refuse every audited runtime event (open, import, socket, subprocess, frame access...) but the listed
    ones, the `exec` of the code and of the saved skills' code (compiled before the hook), and the frame reads
    the gate `admits`. Hooks cannot be removed once added, and this one has no switch: its only state is the
    gate, which the code cannot reach."""
    refuse, kind, text = RuntimeError, type, str
    trusted = (code, *library_code)

    def runs_ours(args) -> bool:
        if not args:
            return False
        for known in trusted:  # identity, in a plain loop: no builtin the code could replace is called
            if args[0] is known:
                return True
        return False

    def hook(event, args):
        if kind(event) is not text:  # a str subclass could run the code's own __eq__/__hash__ here
            raise refuse("blocked by the sandbox: audit event with a non-str name")
        if event in allowed_events or (event == "exec" and runs_ours(args)) or admits(event, args):
            return
        detail = f" ({args[0]})" if event in ("import", "open") and args and kind(args[0]) is text else ""
        raise refuse(f"blocked by the sandbox: {event}{detail}")
    sys.addaudithook(hook)


def generated_code_objects(code: types.CodeType) -> tuple:
    """(code object, name) of everything compiled from the generated source: the module, its functions,
    lambdas and comprehensions. Compared by identity only (hashing a code object hashes its constants)."""
    found = []
    pending = [code]
    while pending:
        current = pending.pop()
        found.append((current, current.co_name))
        pending.extend(const for const in current.co_consts if isinstance(const, types.CodeType))
    return tuple(found)


def make_signal_reset():
    """A function that takes back every signal handler the code installed (signal.signal is not audited),
    so that none can run while the frame gate is open: the set-up handler comes back where there was one,
    else the signal is ignored (the code may have armed a timer that would otherwise kill the report)."""
    get_handler, set_handler, ignore, default = _signal.getsignal, _signal.signal, _signal.SIG_IGN, _signal.SIG_DFL
    errors = (OSError, ValueError, TypeError)
    originals = tuple((signum, get_handler(signum)) for signum in sorted(_signal.valid_signals()))

    def reset() -> None:
        for signum, original in originals:
            if get_handler(signum) is not original:
                try:
                    set_handler(signum, ignore if original is None or original is default else original)
                except errors:
                    pass
    return reset


def make_frame_reader(code: types.CodeType, open_gate, close_gate):
    """A function giving the generated code's own entries of an exception's traceback as (line, name).

    It opens the frame gate for its thread while it reads `tb.tb_frame.f_code` of each entry. In that window
    it touches only tracebacks, frames and code objects (built-in types nobody can change) and things bound
    here. Garbage collection is off and the code's signal handlers are taken back first, so none of the
    code's finalizers or handlers can run in the window; other threads are not admitted by the gate."""
    ours, kind, traceback_type = generated_code_objects(code), type, types.TracebackType
    traceback_of = BaseException.__dict__["__traceback__"].__get__
    reset_signals, stop_gc = make_signal_reset(), gc.disable

    def read(exc: BaseException) -> list:
        entries: list = []
        tb = traceback_of(exc)
        while tb is not None and kind(tb) is traceback_type:  # tb_next is not audited: no window needed
            entries.append(tb)
            tb = tb.tb_next
        stop_gc()
        reset_signals()
        where: list = []
        open_gate()
        try:
            for tb in entries:
                frame_code = tb.tb_frame.f_code
                for known, name in ours:
                    if known is frame_code:
                        where.append((tb.tb_lineno, name))
                        break
        finally:
            close_gate()
        return where
    return read


def _compress(lines: list, keep: int = 8) -> list:
    """Collapse repeats (deep recursion) and keep the outermost and innermost frames only."""
    out: list[list] = []  # [line, times seen in a row]
    for line in lines:
        if out and out[-1][0] == line:
            out[-1][1] += 1
        else:
            out.append([line, 1])
    text = []
    for line, count in out:
        text.append(line)
        if count > 1:
            text.append(f"  [the line above repeated {count - 1} more times]")
    if len(text) > keep + 1:
        text = text[:2] + [f"  ... {len(text) - keep} more lines ..."] + text[-(keep - 2):]
    return text


def error_summary(exc: BaseException, memory_mb: int) -> str:
    """`Type: message` of the error. May run the code's own __str__ (under the audit hook, like the code)."""
    if isinstance(exc, MemoryError):
        return f"MemoryError: the code needed more than the {memory_mb} MB of memory it may use"
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def describe_error(summary: str, where: list, lines: list) -> str:
    """The error with the generated code's own frames (line numbers and source lines) above it."""
    shown = []
    for n, name in where:
        src = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        shown.append(f"  line {n}{'' if name == '<module>' else f', in {name}'}: {src}")
    shown = _compress(shown)
    if not shown:
        return summary
    return "Traceback (generated code, most recent call last):\n" + "\n".join(shown) + "\n" + summary


def make_error_reporter(code: types.CodeType, lines: list, memory_mb: int, open_gate, close_gate):
    """A function turning what the code raised into the text for the model; it never raises. The frames are
    read first (the only step that needs the gate), then the message, which may run the code's own methods,
    is made with the gate closed: whatever those methods do is audited like the code itself. Each step has a
    fallback made only of names bound here (the code may have replaced builtins.BaseException)."""
    read_frames = make_frame_reader(code, open_gate, close_gate)
    summarize, describe, anything, kind = error_summary, describe_error, BaseException, type

    def fallback(exc: BaseException) -> str:
        try:
            return f"{kind(exc).__name__} (details unavailable)"
        except anything:
            return "the code failed (details unavailable)"

    def report(exc: BaseException) -> str:
        try:
            where = read_frames(exc)
        except anything:
            where = []
        try:
            summary = summarize(exc, memory_mb)
        except anything:
            summary = fallback(exc)
        try:
            return describe(summary, where, lines)
        except anything:
            return summary
    return report


def make_result_writer(fd: int, nonce: str):
    """A function that writes the "done" line with the run's nonce straight to the pipe `fd`. It uses only C
    functions and built-in types bound here: the code can replace `json.dumps`, `Channel.send` or `channel.out`,
    but not what this does, and it never sees the nonce (held in this closure, which only `main` can reach)."""
    write, quote, text, kind = os.write, _quote_json, str, type

    def finish(ok: bool, error: str) -> None:
        if kind(error) is not text:
            error = "the code failed (details unavailable)"
        line = '{"t": "done", "ok": ' + ("true" if ok is True else "false") + ', "error": ' + quote(error) + \
            ', "nonce": "' + nonce + '"}\n'
        data = line.encode()
        while data:
            data = data[write(fd, data):]
    return finish


def compile_or_report(finish, source: str):
    """The code object, or None after reporting a syntax error (possible when the checker was skipped)."""
    try:
        return compile(source, FILENAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        error = error_summary(exc, 0) if isinstance(exc, SyntaxError) else f"{type(exc).__name__}: {exc}"
        finish(False, error)
        return None


def main() -> None:
    """Child process entry: read the code and limits from the parent, apply the limits, run it."""
    channel = Channel()
    init = channel.receive()
    finish = make_result_writer(channel.out.fileno(), str(init.pop("nonce", "")))
    # Import the allowed modules now: after the limits, no module file could be opened.
    for name in list(init["modules"]) + list(init.get("preload", [])):
        __import__(name)
    limits = init["limits"]
    source = init["code"]
    code = compile_or_report(finish, source)
    if code is None:
        os._exit(0)
    env = make_globals(channel, init)
    library = compile_library(init.get("library"))
    add_library(env, library)
    die_with_parent(int(init["parent_pid"]))
    start_watchdog(int(init["parent_pid"]), float(limits["wall_seconds"]))
    seccomp = install_seccomp(init.get("seccomp_deny", []))
    apply_limits(limits, lowest_free_fd())
    open_gate, close_gate, admits = make_frame_gate()
    report = make_error_reporter(code, source.splitlines(), limits["memory_mb"], open_gate, close_gate)
    # bound now: the code can replace os._exit, Channel.send and even builtins.BaseException
    end, anything = os._exit, BaseException
    channel.send({"t": "ready", "seccomp": seccomp})
    install_audit_hook(code, frozenset(init.get("audit_allow", [])), admits, tuple(library.values()))
    try:
        exec(code, env)
        ok, error = True, ""
    except anything as exc:  # everything the code raises is output for the model
        ok, error = False, report(exc)
    try:
        finish(ok, error)
    finally:
        end(0)


if __name__ == "__main__":
    main()
