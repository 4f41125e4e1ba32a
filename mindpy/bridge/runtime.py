"""The one Node process of this Python process, reached through JSPyBridge (`javascript` on PyPI).

`javascript` starts Node when it is imported, with the binary named by NODE_BIN, so it is imported here
lazily, after NODE_BIN and NODE_PATH point at the project's pinned Node side. Modules are loaded from
node_modules_setup/; JSPyBridge's own auto-install is never reached because we check first.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import BridgeError, BridgeTimeout, NodeStopped, SetupError
from ..nodejs import check_node_side, node_environment
from .transport import NodeExited, Transport

log = logging.getLogger(__name__)

NODE_WATCH_INTERVAL_S = 0.2  # how soon the death of Node is noticed

HOST_SCRIPT = Path(__file__).resolve().parent / "js" / "host.js"

_lock = threading.RLock()
_runtime: NodeRuntime | None = None


def _point_javascript_at_our_node() -> None:
    """Set NODE_BIN / NODE_PATH as soon as mindpy.bridge is imported, so that code importing `javascript`
    afterwards (before the first bot) still starts the project's Node with the project's modules."""
    if "javascript" in sys.modules:
        return
    try:
        env = node_environment()
    except SetupError:
        return  # reported properly when the runtime starts
    os.environ.setdefault("NODE_BIN", env["NODE_BIN"])
    os.environ.setdefault("NODE_PATH", env["NODE_PATH"])


_point_javascript_at_our_node()


class NodeRuntime:
    """Owns the JSPyBridge connection and our host.js module inside it. A thread watches Node: if it stops (killed,
    crashed), calls waiting for it fail at once and `on_exit` listeners hear why."""

    def __init__(self):
        binary = check_node_side()
        env = node_environment()
        started_elsewhere = "javascript" in sys.modules
        os.environ.update({k: env[k] for k in ("NODE_PATH", "NODE_BIN")})
        try:
            import javascript  # noqa: F401 (importing it starts Node)
        except ImportError as exc:
            raise SetupError("The Python package `javascript` (JSPyBridge) is missing. Run `make setup`.") from exc
        from javascript import config, connection

        if started_elsewhere and connection.NODE_BIN != str(binary):
            raise SetupError(
                "`javascript` was imported before mindpy.bridge, so Node started without mindpy's runtime and "
                "modules. Import mindpy.bridge (or call mindpy.bridge.runtime()) before importing `javascript`."
            )
        self._config = config
        self._connection = connection
        self.transport = Transport(config, connection)
        self.transport.install()
        self.closed = False
        self.exit_reason: str | None = None  # why Node stopped, once it has (not set by close())
        self._exit_listeners: list[Callable[[str], None]] = []
        self._exit_lock = threading.Lock()
        threading.Thread(target=self._watch_node, name="mindpy-node-watch", daemon=True).start()
        self.host = self.require(HOST_SCRIPT)

    # ---- Node's death ---------------------------------------------------------------------------------------
    def on_exit(self, listener: Callable[[str], None]) -> Callable[[str], None]:
        """Call `listener(reason)` once if Node stops without close() (killed, crashed); at once if it already
        has. It runs on a thread of its own; returns the listener (for off_exit)."""
        with self._exit_lock:
            reason = self.exit_reason
            if reason is None:
                self._exit_listeners.append(listener)
        if reason is not None:
            self._tell(listener, reason)
        return listener

    def off_exit(self, listener: Callable[[str], None]) -> None:
        with self._exit_lock:
            if listener in self._exit_listeners:
                self._exit_listeners.remove(listener)

    def _watch_node(self) -> None:
        while not self.closed:
            time.sleep(NODE_WATCH_INTERVAL_S)
            proc = self._connection.proc
            if proc is not None and proc.poll() is not None and not self.closed:
                self._node_exited(f"the bots' Node process stopped (exit code {proc.returncode})")
                return

    def _node_exited(self, reason: str) -> None:
        with self._exit_lock:
            if self.closed or self.exit_reason is not None:
                return
            self.exit_reason = reason
            listeners, self._exit_listeners = self._exit_listeners, []
        self.transport.node_stopped(reason)  # the callers waiting for Node hear it now, not at their time limits
        for listener in listeners:
            self._tell(listener, reason)

    @staticmethod
    def _tell(listener: Callable[[str], None], reason: str) -> None:
        def run() -> None:
            try:
                listener(reason)
            except Exception:
                log.exception("a listener to the end of Node failed")

        threading.Thread(target=run, name="mindpy-node-exit", daemon=True).start()

    def require(self, path: str | Path):
        """Load a JS file of ours with Node's own require (never JSPyBridge's installer)."""
        path = Path(path).resolve()
        return call_js(lambda: self._config.global_jsi._require(str(path), timeout=60), f"loading {path.name}",
                       timeout=60)

    @property
    def pid(self) -> int | None:
        proc = self._connection.proc
        return proc.pid if proc is not None else None

    def is_alive(self) -> bool:
        proc = self._connection.proc
        return proc is not None and proc.poll() is None

    def close(self) -> None:
        """Stop Node. JSPyBridge cannot start again in the same Python process after this."""
        if self.closed:
            return
        self.closed = True
        loop = self._config.event_loop
        if loop is not None:
            # JSPyBridge's exit hook waits for registered callbacks to go away: drop them.
            loop.callbacks.clear()
        proc = self._connection.proc
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.close()  # host.js exits when its stdin ends
                proc.wait(timeout=3)
            except Exception:
                proc.terminate()
                try:
                    proc.wait(timeout=3)
                except Exception:
                    proc.kill()


def runtime() -> NodeRuntime:
    """The process-wide Node runtime, started on first use."""
    global _runtime
    with _lock:
        if _runtime is None:
            _runtime = NodeRuntime()
            atexit.register(_runtime.close)
        elif _runtime.closed:
            raise BridgeError("The Node bridge of this process was closed; start a new Python process to use it again.")
        return _runtime


_modules: dict[Path, Any] = {}
_modules_lock = threading.Lock()


def js_module(path: str | Path) -> Any:
    """The JS file at `path`, loaded once into this process's Node; later calls return the same module.

    Loading takes a bridge round trip, and two threads asking at once must not load the file twice.
    """
    path = Path(path).resolve()
    with _modules_lock:
        if path not in _modules:
            _modules[path] = runtime().require(path)
        return _modules[path]


_functions: dict[tuple[Path, str], Any] = {}


def js_function(path: str | Path, name: str) -> Any:
    """The function `name` of the JS file at `path`, looked up once. Reading a function off a module proxy is a
    bridge round trip of its own, so a call made many times a second (the modes' observation) keeps the proxy
    and costs one round trip instead of two."""
    key = (Path(path).resolve(), name)
    function = _functions.get(key)
    if function is None:
        module = js_module(key[0])
        function = call_js(lambda: getattr(module, name), f"looking up {name} in {key[0].name}")
        _functions[key] = function
    return function


def shutdown() -> None:
    """Stop the Node process of this Python process, if it was started."""
    with _lock:
        if _runtime is not None:
            _runtime.close()


_JS_MESSAGE = re.compile(r"^(?:\w*Error|Error)(?: \[\w+\])?: (.+)$", re.MULTILINE)


def js_message(error: BaseException) -> str:
    """The JavaScript error message inside a JSPyBridge exception (falls back to its text)."""
    text = getattr(error, "js", None) or str(error)
    if not isinstance(text, str):
        text = str(text)
    match = _JS_MESSAGE.search(text)
    return match.group(1).strip() if match else text.strip().splitlines()[0] if text.strip() else repr(error)


def call_js(fn, what: str, timeout: float | None = None):
    """Run fn (which calls into JS) and turn JSPyBridge's failures into BridgeError / BridgeTimeout."""
    try:
        return fn()
    except BridgeError:
        raise
    except NodeExited as exc:
        raise NodeStopped(f"{what}: {exc}") from None
    except Exception as exc:  # JSPyBridge raises bare Exception for timeouts
        text = str(exc)
        if "timed out" in text.lower():
            limit = f"{timeout} s" if timeout is not None else "JSPyBridge's default time limit"
            raise BridgeTimeout(f"{what}: no answer from Node within {limit}") from None
        raise BridgeError(f"{what}: {js_message(exc)}") from None
