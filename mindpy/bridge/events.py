"""Delivery of JavaScript events to Python callbacks.

JS forwards (event name, JSON of the arguments) to one Python function, which only queues it; a dispatcher
thread per bot calls the subscribers in order. A slow or failing callback never blocks the bridge.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Callback = Callable[..., Any]


class EventDispatcher:
    """Delivers a bot's JS events to Python subscribers on one worker thread, in the order they arrived."""

    def __init__(self, name: str):
        self._subscribers: dict[str, list[Callback]] = defaultdict(list)
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"events-{name}", daemon=True)
        self._thread.start()

    def subscribe(self, event: str, callback: Callback) -> None:
        with self._lock:
            self._subscribers[event].append(callback)

    def unsubscribe(self, event: str, callback: Callback) -> None:
        with self._lock:
            if callback in self._subscribers[event]:
                self._subscribers[event].remove(callback)

    def deliver(self, event: str, payload: str) -> None:
        """Called from the bridge thread: only enqueue."""
        self._queue.put((event, payload))

    def close(self) -> None:
        self._queue.put(None)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            event, payload = item
            try:
                args = json.loads(payload)
            except ValueError:
                args = []
            with self._lock:
                callbacks = list(self._subscribers.get(event, ()))
            for callback in callbacks:
                try:
                    callback(*args)
                except Exception:
                    log.exception("callback for event %r failed", event)
