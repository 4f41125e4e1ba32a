"""How bots of a run send each other messages.

`InProcessBus` connects agents living in one Python process. The conversation manager only uses the
`MessageBus` interface (send, register, is_present), so a transport between processes can replace it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

Handler = Callable[[str, dict], None]  # (sender, payload)


class MessageBus(Protocol):
    """Delivers bot-to-bot messages by name (see InProcessBus)."""
    def register(self, name: str, handler: Handler) -> None: ...
    def unregister(self, name: str) -> None: ...
    def send(self, sender: str, recipient: str, payload: dict) -> bool: ...
    def is_present(self, name: str) -> bool: ...
    def names(self) -> list[str]: ...


class InProcessBus:
    """Delivers each message on a thread of its own, so a sender never waits for a receiver."""

    def __init__(self):
        self._handlers: dict[str, Handler] = {}
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._in_flight = 0  # messages sent whose handler has not returned yet

    def register(self, name: str, handler: Handler) -> None:
        with self._lock:
            self._handlers[name] = handler

    def unregister(self, name: str) -> None:
        with self._lock:
            self._handlers.pop(name, None)

    def is_present(self, name: str) -> bool:
        with self._lock:
            return name in self._handlers

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._handlers)

    def send(self, sender: str, recipient: str, payload: dict) -> bool:
        return self.deliver(sender, recipient, payload)

    def deliver(self, sender: str, recipient: str, payload: dict) -> bool:
        """Hand a message to a handler registered here, on a thread of its own; False if there is none. (A bus
        between processes sends on to other processes what it cannot deliver here.)"""
        with self._lock:
            handler = self._handlers.get(recipient)
            if handler is None:
                return False
            self._in_flight += 1
        threading.Thread(target=self._hand_over, args=(handler, sender, dict(payload)),
                         name=f"bus-{sender}-{recipient}", daemon=True).start()
        return True

    def _hand_over(self, handler: Handler, sender: str, payload: dict) -> None:
        try:
            handler(sender, payload)
        finally:
            with self._lock:
                self._in_flight -= 1
                self._settled.notify_all()

    def wait_settled(self, timeout: float) -> bool:
        """Wait until every message sent so far has been handed over (round mode: before the next round starts);
        returns False if some are still under way after `timeout` seconds."""
        with self._lock:
            return self._settled.wait_for(lambda: self._in_flight == 0, timeout)
