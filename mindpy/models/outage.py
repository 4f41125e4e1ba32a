"""Noticing that a run's model endpoint is down: every model of a run goes through one watch, which hears of the
first call that raised ModelUnreachable (the endpoint refused, unknown, failing every retry, or refusing the key or
the model) and tells its listeners once. An episode ends as an infrastructure error on it, not scored.

    watch = OutageWatch()
    model = watch.wrap(model)            # calls and everything else are the model's; ModelUnreachable is noted
    watch.listen(lambda exc: ...)        # the first outage; a listener added later hears of one at once
    watch.down                           # that ModelUnreachable, or None
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .base import ModelUnreachable, Reply

Listener = Callable[[ModelUnreachable], None]


class OutageWatch:
    """The first ModelUnreachable of any model it wraps, and who to tell of it. Thread-safe."""

    def __init__(self) -> None:
        self.down: ModelUnreachable | None = None
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def wrap(self, model: Any) -> WatchedModel:
        return WatchedModel(model, self)

    def listen(self, listener: Listener) -> None:
        """Call `listener(exc)` at the first outage (at once when there has been one already)."""
        with self._lock:
            self._listeners.append(listener)
            down = self.down
        if down is not None:
            listener(down)

    def note(self, exc: ModelUnreachable) -> None:
        """A call found the endpoint down: the first one is kept and told to the listeners."""
        with self._lock:
            if self.down is not None:
                return
            self.down = exc
            listeners = list(self._listeners)
        for listener in listeners:
            listener(exc)


class WatchedModel:
    """A model whose calls that raise ModelUnreachable are noted by its watch (then raised on, as before);
    everything else is the wrapped model's."""

    def __init__(self, inner: Any, watch: OutageWatch):
        self.inner = inner
        self.watch = watch

    def __getattr__(self, name: str) -> Any:  # describe, usage_log, takes_images, model, close, ...
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def send(self, messages: list[dict], system: str = "") -> Reply:
        try:
            return self.inner.send(messages, system)
        except ModelUnreachable as exc:
            self.watch.note(exc)
            raise

    def send_image(self, png: bytes, prompt: str, system: str = "") -> Reply:
        try:
            return self.inner.send_image(png, prompt, system)
        except ModelUnreachable as exc:
            self.watch.note(exc)
            raise

    def __repr__(self) -> str:
        return f"<WatchedModel {self.inner!r}>"
