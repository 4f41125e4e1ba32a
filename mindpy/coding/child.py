"""The sandboxed process: runs one piece of generated code, then exits.

Started by sandbox.py as `python -I -S child.py` with an empty environment, so it imports only the standard
library (never mindpy, never site-packages). Protocol, one JSON object per line:

  parent -> child  first line: {"code", "namespaces": {ns: [names]}, "modules": {name: [names]},
                                "preload": [modules], "builtins": [names], "limits": {...},
                                "audit_allow": [events], "seccomp_deny": [system calls]}
                   then one reply per call: {"t": "ret", "value"} or {"t": "err", "type", "text"}
  child -> parent  {"t": "out", "text"}                         printed output
                   {"t": "call", "ns", "name", "args", "kwargs"}  an API call; the child waits for the reply
                   {"t": "done", "ok", "error"}                  the end

Order of set-up matters: everything that needs a file (imports, the seccomp library) happens before the
resource limits, because afterwards no file descriptor can be opened at all.
"""

import builtins
import json
import os
import resource
import signal
import sys
import types

FILENAME = "<generated>"
MAX_PRINT_CHARS = 100_000
_ERROR_TYPES = {"TypeError": TypeError, "ValueError": ValueError, "LookupError": LookupError}


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
            os._exit(3)  # the parent is gone: nothing to report to
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


def install_audit_hook(code, allowed_events: set, trusted: list) -> None:
    """Refuse every audited runtime event (open, import, socket, subprocess, frame access...) but the listed
    ones, while generated code runs. Audit hooks cannot be removed once added."""
    def hook(event, args):
        if trusted[0] or event in allowed_events or (event == "exec" and args and args[0] is code):
            return
        detail = f" ({args[0]})" if event in ("import", "open") and args else ""
        raise RuntimeError(f"blocked by the sandbox: {event}{detail}")
    sys.addaudithook(hook)


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


def describe_error(exc: BaseException, lines: list, memory_mb: int) -> str:
    """The error with the generated code's own frames only (line numbers and source lines)."""
    where = []
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename == FILENAME:
            n = tb.tb_lineno
            src = lines[n - 1].strip() if 0 < n <= len(lines) else ""
            name = frame.f_code.co_name
            where.append(f"  line {n}{'' if name == '<module>' else f', in {name}'}: {src}")
        tb = tb.tb_next
    where = _compress(where)
    if isinstance(exc, MemoryError):
        text = f"MemoryError: the code needed more than the {memory_mb} MB of memory it may use"
    elif isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return ("Traceback (generated code, most recent call last):\n" + "\n".join(where) + "\n" + text) if where \
        else text


def main() -> None:
    """Child process entry: read the code and limits from the parent, apply the limits, run it."""
    channel = Channel()
    init = channel.receive()
    # Import the allowed modules now: after the limits, no module file could be opened.
    for name in list(init["modules"]) + list(init.get("preload", [])):
        __import__(name)
    limits = init["limits"]
    source = init["code"]
    lines = source.splitlines()
    trusted = [True]
    try:
        code = compile(source, FILENAME, "exec", dont_inherit=True)
        env = make_globals(channel, init)
        free_fd = lowest_free_fd()
        seccomp = install_seccomp(init.get("seccomp_deny", []))
        apply_limits(limits, free_fd)
        install_audit_hook(code, set(init.get("audit_allow", [])), trusted)
        channel.send({"t": "ready", "seccomp": seccomp})
        trusted[0] = False
        exec(code, env)
        trusted[0] = True
        result = {"t": "done", "ok": True}
    except BaseException as exc:  # everything the code raises is output for the model
        trusted[0] = True
        try:
            result = {"t": "done", "ok": False, "error": describe_error(exc, lines, limits["memory_mb"])}
        except BaseException:  # e.g. memory still exhausted while formatting
            result = {"t": "done", "ok": False, "error": f"{type(exc).__name__} (details unavailable)"}
    try:
        channel.send(result)
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
