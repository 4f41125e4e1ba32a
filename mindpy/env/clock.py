"""The game's clock for stepping: server ticks, read from the embedded server's tick count, or (on another server,
whose ticks the process cannot read) the wall clock at the game's 20 ticks a second.

The embedded server reports its count every 5 ticks; between reports the clock counts on at 20 ticks a wall-clock
second from the moment it saw the last one, at most 4 ticks on (the next report would say 5). So a wait for n ticks
follows the server's own pace, and is off by at most a report's 5 ticks when the server is slow.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

TICKS_PER_SECOND = 20
POLL_S = 0.005  # how often the tick count is read while waiting for it
REPORT_EVERY = 5  # the embedded server writes its tick count every 5 ticks


class GameClock:
    """Ticks of the game since the clock was made: `now()`, `wait(n)`."""

    def __init__(self, server: Any = None):
        self.server = server  # an EmbeddedServer, or None: the wall clock
        self._start_wall = time.monotonic()
        self._last = 0
        self._reported: int | None = None  # the server's last report, and when it was first seen
        self._seen = 0.0

    def now(self) -> int:
        """The game's tick count (the embedded server's, or wall-clock ticks); never goes back."""
        clock = time.monotonic()
        if self.server is None:
            ticks = int((clock - self._start_wall) * TICKS_PER_SECOND)
        else:
            reported = self.server.ticks()
            if reported is not None and reported != self._reported:
                self._reported, self._seen = reported, clock
            ticks = self._last if self._reported is None else \
                self._reported + min(int((clock - self._seen) * TICKS_PER_SECOND), REPORT_EVERY - 1)
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
