"""First-person pictures of the agents, taken when the page asks (a card's Picture button): what the bot sees now,
rendered as the vision commands render it (mindpy.view.snapshot), the last few kept in memory per agent.

    pictures = Pictures(keep=4)
    meta = pictures.take(agent)            # {"id": 3, "t": ..., "position": [x, y, z], "seconds": 1.9}
    pictures.png(agent.name, 3)            # the PNG bytes, or None once it is no longer kept

Nothing is rendered unless asked: a picture takes a headless Chromium a second or two.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from typing import Any

KEEP = 4  # pictures kept per agent (the oldest goes first)


class Pictures:
    """The last `keep` pictures of each agent, newest last."""

    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self._shots: dict[str, deque[dict]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def take(self, agent: Any) -> dict:
        """Render what `agent`'s bot sees now and keep it; its metadata (MindpyError, one line, when the view
        cannot be drawn or there is no browser)."""
        from ..view.snapshot import snapshot

        shot = snapshot(agent.bot)
        x, y, z = agent.bot.position
        entry = {"id": next(self._ids), "t": time.time(), "position": [round(x, 1), round(y, 1), round(z, 1)],
                 "seconds": round(shot.seconds, 2), "png": shot.png}
        with self._lock:
            self._shots.setdefault(agent.name, deque(maxlen=self.keep)).append(entry)
        return meta(entry)

    def list(self, name: str) -> list[dict]:
        """The metadata of the pictures of agent `name` kept now, oldest first."""
        with self._lock:
            return [meta(e) for e in self._shots.get(name, ())]

    def png(self, name: str, picture_id: int) -> bytes | None:
        with self._lock:
            return next((e["png"] for e in self._shots.get(name, ()) if e["id"] == picture_id), None)


def meta(entry: dict) -> dict:
    """A kept picture without its bytes (what the page lists)."""
    return {k: v for k, v in entry.items() if k != "png"}
