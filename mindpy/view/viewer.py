"""A 3D view of one bot in a web page: prismarine-viewer's three.js client, fed by our server in the bots' Node
process (`js/viewer.js`), on 127.0.0.1.

    viewer = open_viewer(bot, first_person=True)
    print(viewer.url)        # open it in a browser, or an iframe
    viewer.close()           # frees the port and stops the updates

The page at `.url` draws the chunk columns within `view_distance` of the bot (a square of 2 * view_distance - 1
columns a side) and follows the bot, its look (in first person) and the entities and block changes around it.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

from ..bridge import Bot, js_module
from ..bridge.runtime import call_js
from ..errors import MindpyError

VIEWER_JS = Path(__file__).parent / "js" / "viewer.js"
HOST = "127.0.0.1"
MAX_VIEW_DISTANCE = 16


class ViewerError(MindpyError):
    """A viewer could not be opened (a bad argument, a port in use, a bot that is gone); the message says why."""


class BotViewer:
    """An open viewer page of one bot. Use `.url`; `close()` (or a `with` block) stops it."""

    def __init__(self, bot: Bot, viewer_id: int, port: int, first_person: bool, view_distance: int):
        self.bot = bot
        self.id = viewer_id
        self.port = port
        self.first_person = first_person
        self.view_distance = view_distance
        self.url = f"http://{HOST}:{port}/"
        self._closed = False
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        return self._closed

    def status(self) -> dict[str, Any] | None:
        """The server's view of the page: `columns` (chunk columns in view and sent), `version`, `lift` (how far
        up y is shifted for the client); None once closed."""
        if self._closed:
            return None
        raw = call_js(lambda: js_module(VIEWER_JS).viewerStatusJson(self.id), f"viewer of bot {self.bot.name}")
        return json.loads(raw)

    def close(self) -> None:
        """Stop the page's server: its port is free and no more updates are sent when this returns. Safe twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            call_js(lambda: js_module(VIEWER_JS).closeViewer(self.id, timeout=10),
                    f"closing the viewer of bot {self.bot.name}", timeout=10)
        except MindpyError:
            if self.bot.closed:
                return  # the Node process or the bot is gone, and its viewer with it
            raise

    def __enter__(self) -> BotViewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        kind = "first person" if self.first_person else "third person"
        return f"<BotViewer of {self.bot.name} at {self.url} ({kind}{', closed' if self._closed else ''})>"


def open_viewer(bot: Bot, *, first_person: bool = False, port: int = 0, view_distance: int = 4) -> BotViewer:
    """Serve a 3D view of `bot` at http://127.0.0.1:PORT/ (port 0: a free port). `first_person` shows what the bot
    sees; otherwise the camera orbits above it (drag to turn). Raises ViewerError with the reason."""
    if not isinstance(bot, Bot):
        raise ViewerError(f"open_viewer needs a mindpy Bot, got {type(bot).__name__}")
    if bot.closed:
        raise ViewerError(f"bot {bot.name} has left the server")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ViewerError(f"port must be a whole number from 0 to 65535 (0: any free port), got {port!r}")
    if isinstance(view_distance, bool) or not isinstance(view_distance, int) or \
            not 1 <= view_distance <= MAX_VIEW_DISTANCE:
        raise ViewerError(f"view_distance must be a whole number of chunks from 1 to {MAX_VIEW_DISTANCE}, "
                          f"got {view_distance!r}")
    try:
        raw = call_js(lambda: js_module(VIEWER_JS).openViewer(bot.js, port, bool(first_person), view_distance,
                                                              timeout=30),
                      f"opening a viewer of bot {bot.name}", timeout=30)
    except MindpyError as exc:
        text = str(exc)
        if "EADDRINUSE" in text:
            raise ViewerError(f"port {port} is in use: choose another, or 0 for any free port") from None
        raise ViewerError(f"could not open a viewer of bot {bot.name}: {text}") from None
    opened = json.loads(raw)
    return BotViewer(bot, int(opened["id"]), int(opened["port"]), bool(first_person), view_distance)


class OneViewer:
    """The 3D view of one bot at a time: `open(agent)` opens it for the agent's bot (closing the one before) or
    gives the address of the one already open; `close()` closes it. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bot: Any = None
        self._viewer: BotViewer | None = None

    def open(self, agent: Any) -> str:
        """The address of the view of `agent`'s bot (`agent` has `.bot` and `.name`); a ViewerError says why not."""
        with self._lock:
            if self._viewer is not None and self._bot is agent.bot:
                return str(self._viewer.url)
            self._close()
            try:
                self._viewer = open_viewer(agent.bot, first_person=False, port=0)
            except MindpyError:
                raise
            except Exception as exc:
                raise ViewerError(f"the 3D view of {agent.name} could not open: {exc}") from exc
            self._bot = agent.bot
            return str(self._viewer.url)

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._viewer is not None:
            try:
                self._viewer.close()
            except Exception:
                logging.getLogger(__name__).exception("closing the 3D view")
        self._viewer = self._bot = None
