"""The game's clock for stepping: server ticks, read from the embedded server's tick count, or (on another server,
whose ticks the process cannot read) the wall clock at the game's 20 ticks a second.

The embedded server reports its count every 5 ticks, so a wait for n ticks lasts n to n + 5 ticks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

TICKS_PER_SECOND = 20
POLL_S = 0.01  # how often the tick count is read while waiting for it (the server writes it every 5 ticks)


class GameClock:
    """Ticks of the game since the clock was made: `now()`, `wait(n)`."""

    def __init__(self, server: Any = None):
        self.server = server  # an EmbeddedServer, or None: the wall clock
        self._start_wall = time.monotonic()
        self._last = 0

    def now(self) -> int:
        """The game's tick count (the embedded server's, or wall-clock ticks); never goes back."""
        ticks = self.server.ticks() if self.server is not None else None
        if ticks is None:
            ticks = int((time.monotonic() - self._start_wall) * TICKS_PER_SECOND) if self.server is None \
                else self._last
        self._last = max(self._last, ticks)
        return self._last

    def wait_until(self, tick: int, done: Callable[[], bool] = lambda: False,
                   changed: threading.Condition | None = None) -> None:
        """Until the clock reaches `tick` or `done()` says so; `changed` is notified when `done()` may have become
        true (it is held while `done` is called)."""
        while self.now() < tick:
            if changed is None:
                if done():
                    return
                time.sleep(POLL_S)
                continue
            with changed:
                if done():
                    return
                changed.wait(POLL_S)
