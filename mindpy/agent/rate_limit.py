"""How many messages each player may send an agent's model: a token bucket per player.

    limit = MessageRateLimit(per_window=5)        # 5 messages at once, then one every 2 s; 0: no limit
    verdict = limit.check("mallory")              # PASS, FIRST_DROPPED (tell them once) or DROPPED

Every player has a bucket of `per_window` tokens that refills at `per_window` tokens per `window_s` seconds; a
message takes one. A message finding the bucket empty is dropped, and the first one dropped in a burst says so
(FIRST_DROPPED), so that the player is told once, not once a message. The burst ends when a message passes again.
Players are apart: one player's burst takes nothing from another's bucket.

The clock is a parameter (`time.monotonic` by default) so that a test can move time itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

PASS = "pass"
FIRST_DROPPED = "first dropped"
DROPPED = "dropped"

WINDOW_S = 10.0
# Players whose buckets are kept: beyond this the full ones (or the fullest) are forgotten, so that a stream of new
# names cannot grow the table without end. A forgotten player comes back with a full bucket, as after a pause.
MAX_PLAYERS = 1024


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    told: bool = False  # whether this burst's notice went out


class MessageRateLimit:
    """A token bucket of `per_window` messages per `window_s` seconds for each sender (see the module's docstring)."""

    def __init__(self, per_window: int, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic):
        if per_window < 0:
            raise ValueError(f"per_window must be 0 (no limit) or more, got {per_window}")
        self.per_window = per_window
        self.window_s = window_s
        self.clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.per_window > 0

    def check(self, sender: str) -> str:
        """Take a token for a message from `sender`: PASS, or FIRST_DROPPED / DROPPED when they are too fast."""
        if not self.enabled:
            return PASS
        with self._lock:
            now = self.clock()
            bucket = self._bucket(sender, now)
            bucket.tokens = min(float(self.per_window),
                                bucket.tokens + (now - bucket.stamp) * self.per_window / self.window_s)
            bucket.stamp = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                bucket.told = False
                return PASS
            if bucket.told:
                return DROPPED
            bucket.told = True
            return FIRST_DROPPED

    def _bucket(self, sender: str, now: float) -> _Bucket:
        bucket = self._buckets.get(sender)
        if bucket is None:
            if len(self._buckets) >= MAX_PLAYERS:
                self._forget_idle(now)
            bucket = self._buckets[sender] = _Bucket(float(self.per_window), now)
        return bucket

    def _forget_idle(self, now: float) -> None:
        """Drop the buckets that have refilled by now (their players are as if new); if none has, the fullest one:
        forgetting it changes least, and a player kept busy is never the one forgotten."""
        tokens = {name: b.tokens + (now - b.stamp) * self.per_window / self.window_s
                  for name, b in self._buckets.items()}
        full = [name for name, t in tokens.items() if t >= self.per_window]
        for name in full or [max(tokens, key=lambda n: tokens[n])]:
            del self._buckets[name]
