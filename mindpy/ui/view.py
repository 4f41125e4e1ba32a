"""The 3D view of one bot at a time (prismarine-viewer, from mindpy.view), opened when the page asks for it and
closed when another bot is chosen or the dashboard stops."""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any

from ..errors import MindpyError

log = logging.getLogger(__name__)


class Viewers:
    """Opens `mindpy.view.open_viewer(bot, first_person=False, port=0)` lazily, one bot at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bot: Any = None
        self._viewer: Any = None

    @staticmethod
    def available() -> bool:
        """Whether this installation has the 3D view (mindpy.view's open_viewer)."""
        try:
            return hasattr(importlib.import_module("mindpy.view"), "open_viewer")
        except ImportError:
            return False

    def open(self, agent: Any) -> str:
        """The address of the view of `agent`'s bot, opening it (and closing the one before) if needed."""
        with self._lock:
            if self._viewer is not None and self._bot is agent.bot:
                return str(self._viewer.url)
            self._close()
            try:
                view = importlib.import_module("mindpy.view")
                self._viewer = view.open_viewer(agent.bot, first_person=False, port=0)
            except MindpyError:
                raise
            except Exception as exc:
                raise MindpyError(f"the 3D view of {agent.name} could not open: {exc}") from exc
            self._bot = agent.bot
            return str(self._viewer.url)

    def _close(self) -> None:
        if self._viewer is not None:
            try:
                self._viewer.close()
            except Exception:
                log.exception("closing the 3D view")
        self._viewer = self._bot = None

    def close(self) -> None:
        with self._lock:
            self._close()
