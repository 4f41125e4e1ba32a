"""The message transport between Python and Node, installed under JSPyBridge's proxies.

JSPyBridge (the `javascript` package) gives Python proxies of JS objects; we keep those, and its Node process and
its pipe reader, and replace the three parts that route messages, because they fail under load:

- A reply that arrives after its caller gave up (a Python-side time limit) was handed over with a two-party
  barrier that nobody joined: the barrier broke after 5 s and killed the one thread that receives every reply, so
  every bot of the process went dead with it. Here a caller that gives up withdraws its request, and a late reply
  is dropped and logged.
- Handing a reply over blocked the receiving thread until the caller woke up, so one slow caller held up the
  replies of all others. Here a reply is stored and its caller woken; the thread moves on.
- Request ids were taken with `self.i += 1` from several threads (two calls could get one id), and the inbound and
  outbound lists were swapped in a way that could lose a message. Here ids come from a lock, and the inbound
  queue is thread-safe.
- A number that is NaN or infinite made a request Node could not read: it was lost, and its caller waited out its
  time limit. Here it is refused at once (ValueError).
- When Node died, every caller waited out its time limit (10 s for a property read, up to the call's limit for a
  call) for a reply that could not come. Here the runtime tells the transport (`node_stopped`), and every waiting
  and later request fails at once with NodeExited.

The wire format is JSPyBridge's own (see its bridge.js): a call is `{r, action, ffid, key, args, p}`, where `p`
counts the references in `args`; Node answers on `r`, and first on `r + 1` with the ids of the proxies it made
for Python objects among the arguments, which must be registered before Node can call them back.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("mindpy.bridge")

# Event.wait() raises OverflowError past threading.TIMEOUT_MAX; no bridge call needs more than a day.
LONGEST_WAIT_S = 24 * 3600.0
# JSPyBridge's own limit for property reads and other small requests.
SMALL_REQUEST_S = 10.0


class _Inbox:
    """Replies and calls from Node, in arrival order. JSPyBridge's pipe reader appends to it from its thread."""

    def __init__(self) -> None:
        self._items: queue.SimpleQueue = queue.SimpleQueue()

    def append(self, item: dict) -> None:
        self._items.put(item)

    def drain(self) -> list[dict]:
        items = []
        while True:
            try:
                items.append(self._items.get_nowait())
            except queue.Empty:
                return items


@dataclass
class _Waiter:
    """One request waiting for its reply. `on_reply` (if any) runs on the receiving thread, before the next
    message is read: that is where proxies made for our arguments are registered."""

    done: threading.Event = field(default_factory=threading.Event)
    reply: dict | None = None
    on_reply: Any = None


class Transport:
    """Routes requests to Node and replies back to their callers; see the module docstring for why."""

    def __init__(self, config: Any, connection: Any):
        self.config = config
        self.connection = connection
        self.loop = config.event_loop
        self.inbox = _Inbox()
        self._waiters: dict[int, _Waiter] = {}
        self._lock = threading.Lock()
        self._next_id = 1
        self.dropped = 0  # late or unmatched replies, for tests and diagnostics
        self.thread: threading.Thread | None = None
        self.stopped: str | None = None  # why Node can answer no more (set by node_stopped)

    # ---- installing ------------------------------------------------------------------------------------------
    def install(self) -> None:
        """Stop JSPyBridge's receiving loop, take over its inbound queue and its executor's requests."""
        old_thread = self.config.event_thread
        self.loop.active = False
        self.loop.queue.put("stop")
        if old_thread is not None:
            old_thread.join(timeout=5)
        for item in self.connection.readAll():  # anything the old loop left unread
            self.inbox.append(item)
        self.connection.com_items = self.inbox
        executor = self.config.executor
        executor.ipc = self.ipc
        executor.pcall = self.pcall
        self.loop.active = True
        self.thread = threading.Thread(target=self._serve, name="mindpy-bridge", daemon=True)
        self.config.event_thread = self.thread
        self.thread.start()

    # ---- the receiving thread ------------------------------------------------------------------------------
    def _serve(self) -> None:
        while self.loop.active:
            self.loop.queue.get()
            try:
                self._pump()
            except Exception:  # never let one bad message end the thread every bot depends on
                log.exception("the bridge could not handle a message from Node; it goes on")

    def _pump(self) -> None:
        outbound, self.loop.outbound = self.loop.outbound, []
        if outbound:
            self.connection.writeAll(outbound)
        if len(self.loop.freeable) > 40:
            freeable, self.loop.freeable = self.loop.freeable, []
            self.loop.queue_payload({"r": 0, "action": "free", "ffid": "", "args": freeable})
        for inbound in self.inbox.drain():
            self._route(inbound)

    def _route(self, inbound: dict) -> None:
        r = inbound.get("r")
        if inbound.get("c") == "pyi":  # Node calling Python (events, callbacks)
            self.loop.callbackExecutor.add_job(r, inbound.get("cb"), self.loop.pyi.inbound, inbound)
            return
        with self._lock:
            waiter = self._waiters.pop(r, None) if isinstance(r, int) else None
        if waiter is None:
            self.dropped += 1
            log.warning("dropped a reply from Node for request %s: its caller gave up waiting", r)
            return
        if waiter.on_reply is not None:
            waiter.on_reply(inbound)
        waiter.reply = inbound
        waiter.done.set()

    def node_stopped(self, why: str) -> None:
        """Node has exited: every caller still waiting gets NodeExited at once (no reply can come any more; they
        would wait out their time limits), and so does every later request."""
        self.stopped = why
        with self._lock:
            waiters, self._waiters = list(self._waiters.values()), {}
        for waiter in waiters:
            waiter.done.set()

    def _check_running(self) -> None:
        if self.stopped is not None:
            raise NodeExited(self.stopped)

    # ---- requests --------------------------------------------------------------------------------------------
    def _take_ids(self, count: int) -> int:
        with self._lock:
            first = self._next_id
            self._next_id += count
            return first

    def _expect(self, r: int, on_reply: Any = None) -> _Waiter:
        waiter = _Waiter(on_reply=on_reply)
        with self._lock:
            self._waiters[r] = waiter
        return waiter

    def _withdraw(self, *ids: int) -> None:
        with self._lock:
            for r in ids:
                self._waiters.pop(r, None)

    @staticmethod
    def _wait_limit(timeout: float | None) -> float:
        if timeout is None or timeout != timeout or timeout <= 0:  # None, NaN: JSPyBridge's "no limit"
            return LONGEST_WAIT_S
        return min(float(timeout), LONGEST_WAIT_S)

    def ipc(self, action: str, ffid: Any, attr: Any, args: Any = None) -> dict:
        """A small request (read a property, list keys, inspect...); JSPyBridge's Executor.ipc."""
        if action not in ("get", "init", "inspect", "serialize", "blob", "set", "keys"):
            raise ValueError(f"unknown bridge action {action!r}")
        self._check_running()
        r = self._take_ids(1)
        packet: dict[str, Any] = {"r": r, "action": action, "ffid": ffid}
        if action in ("get", "init", "inspect", "set"):
            packet["key"] = attr
        if action in ("init", "set"):
            packet["args"] = args
        waiter = self._expect(r)
        self.loop.queue_payload(_json(packet, attr))
        if not waiter.done.wait(SMALL_REQUEST_S):
            self._withdraw(r)
            self._check_running()
            raise TimeoutError(f"Timed out accessing '{attr}'")
        self._check_running_for(waiter)
        return _checked(waiter.reply, attr)

    def pcall(self, ffid: Any, action: str, attr: Any, args: Any, *, timeout: float | None = 1000,
              forceRefs: bool = False) -> tuple[Any, Any]:  # noqa: N803 (JSPyBridge's keyword)
        """Call or set on a JS object with arguments that may hold Python objects; JSPyBridge's Executor.pcall."""
        self._check_running()
        r = self._take_ids(2)  # Node answers the call on r, and the proxies it made on r + 1
        new_objects: dict[int, Any] = {}
        refs = 0

        def reference(arg: Any) -> dict:
            nonlocal refs
            refs += 1
            if hasattr(arg, "ffid"):  # a JS object we already hold a proxy of
                return {"ffid": arg.ffid}
            new_objects[refs] = arg  # a Python object: Node makes a proxy of it
            return {"r": refs, "ffid": ""}

        if forceRefs:  # eval_js: [code, locals], each local inline if it is a plain value
            code, local_values = args
            encoded_locals = {k: v if v is None or type(v) in (bool, int, float) else reference(v)
                              for k, v in local_values.items()}
            args_text = _json([code, encoded_locals], attr)
        else:
            args_text = _json(args, attr, default=reference)
        head = json.dumps({"r": r, "action": action, "ffid": ffid, "key": attr})
        payload = f'{head[:-1]}, "args": {args_text}, "p": {refs}}}'

        if new_objects:
            self._expect(r + 1, on_reply=lambda reply: self._register(reply, new_objects))
        waiter = self._expect(r)
        self.loop.queue_payload(payload)
        if not waiter.done.wait(self._wait_limit(timeout)):
            self._withdraw(r, r + 1)
            self._check_running()
            raise TimeoutError(f"Call to '{attr}' timed out. Increase the timeout with the `timeout` keyword.")
        self._withdraw(r + 1)  # Node answers r + 1 before r; nothing more will come for it
        self._check_running_for(waiter)
        reply = _checked(waiter.reply, attr)
        return reply["key"], reply["val"]

    def _check_running_for(self, waiter: _Waiter) -> None:
        """A waiter woken without a reply was woken because Node stopped."""
        if waiter.reply is None:
            raise NodeExited(self.stopped or "the Node process stopped")

    def _register(self, reply: dict, new_objects: dict[int, Any]) -> None:
        """Record the ids Node gave to the proxies of our Python objects, so that it can call them."""
        if "error" in reply:
            return
        bridge = self.config.executor.bridge
        for ref, js_id in (reply.get("val") or {}).items():
            obj = new_objects.get(int(ref))
            bridge.m[js_id] = obj
            if callable(obj):
                try:
                    obj.iffid = js_id  # JSPyBridge's event emitters look for it
                except Exception:
                    pass


def _json(value: Any, attr: Any, default: Any = None) -> str:
    """JSON text for Node. NaN and infinities are refused here: Node's JSON.parse cannot read Python's NaN, so the
    request was lost and its caller waited out its time limit."""
    try:
        return json.dumps(value, default=default, allow_nan=False)
    except ValueError as exc:
        if "Out of range float" not in str(exc):
            raise
        raise ValueError(f"cannot send {attr!r} to Node: a number in it is NaN or infinite") from None


class NodeExited(Exception):
    """A request to Node that can get no answer: the Node process has exited."""


def _checked(reply: dict | None, attr: Any) -> dict:
    """The reply, or the JS error it carries raised as JSPyBridge raises it."""
    reply = reply or {}
    if "error" in reply:
        from javascript.errors import JavaScriptError  # javascript is imported (Node started) by now

        raise JavaScriptError(attr, reply["error"])
    return reply
