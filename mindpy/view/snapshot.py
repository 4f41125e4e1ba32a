"""What a bot sees, as a PNG: its first-person viewer page drawn in headless Chromium, then a screenshot.

    shot = snapshot(bot)                 # Snapshot(png=b"\\x89PNG...", seconds=..., stddev=...)
    open("seen.png", "wb").write(shot.png)

The page is photographed once the world has drawn, not after a fixed wait: every chunk column in view has reached
the page's mesh workers, no section is waiting to be meshed, at least one mesh is shown, and two frames have been
drawn since the last one (see `window.mindpyView` in js/page.js).
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import MindpyError
from .browser import chromium_path, shared_browser
from .viewer import open_viewer

if TYPE_CHECKING:
    from ..bridge import Bot

DEFAULT_SIZE = (640, 360)
DEFAULT_VIEW_DISTANCE = 2  # 3x3 chunk columns: 24 blocks each way, and the fewest sections to mesh
BLANK_STDDEV = 2.0  # a canvas of one colour (the sky, or nothing drawn) has a spread of 0


class SnapshotError(MindpyError):
    """The view could not be drawn or photographed; the message is one line saying why."""


@dataclass
class Snapshot:
    """A rendered first-person view: the PNG bytes, how long it took, and the spread of its grey levels."""

    png: bytes
    seconds: float
    stddev: float
    width: int
    height: int

    @property
    def blank(self) -> bool:
        return self.stddev < BLANK_STDDEV


def pixel_stddev(png: bytes) -> float:
    """The standard deviation of a PNG's grey levels (0-255): 0 for a picture of one colour."""
    from PIL import Image, ImageStat

    with Image.open(io.BytesIO(png)) as image:
        return float(ImageStat.Stat(image.convert("L")).stddev[0])


def snapshot(bot: Bot, *, size: tuple[int, int] = DEFAULT_SIZE, view_distance: int = DEFAULT_VIEW_DISTANCE,
             timeout: float = 60.0, browser: Any = None) -> Snapshot:
    """Render what `bot` sees now to a PNG of `size` (width, height) pixels.

    `browser`: a Playwright sync Browser of the calling thread to use (default: the process's shared headless
    Chromium, started on first use and stopped after a minute unused; see browser.SharedBrowser). Raises
    BrowserMissing when there is no browser, SnapshotError when the world does not draw within `timeout` seconds.
    """
    width, height = (int(v) for v in size)
    if not (16 <= width <= 4096 and 16 <= height <= 4096):
        raise SnapshotError(f"snapshot size must be 16-4096 pixels a side, got {width}x{height}")
    if browser is None:
        chromium_path()  # no browser: say so before opening anything
    started = time.monotonic()
    with open_viewer(bot, first_person=True, view_distance=view_distance) as viewer:
        columns = int((viewer.status() or {}).get("columns", 1))  # in view and sent: the page must draw them all

        def photograph(on: Any) -> bytes:
            return _photograph(on, viewer.url, bot.name, columns, width, height, timeout)

        if browser is not None:
            png = photograph(browser)
        else:
            try:
                png = shared_browser().run(photograph, timeout=timeout + 30)
            except TimeoutError as exc:
                raise SnapshotError(str(exc)) from None
    return Snapshot(png, time.monotonic() - started, pixel_stddev(png), width, height)


def _photograph(browser: Any, url: str, name: str, columns: int, width: int, height: int, timeout: float) -> bytes:
    from playwright.sync_api import Error as PlaywrightError

    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(url, timeout=timeout * 1000)
        try:
            page.wait_for_function("n => window.mindpyView && window.mindpyView.drawn(n)", arg=columns,
                                   timeout=timeout * 1000, polling=100)
        except PlaywrightError:
            seen = page.evaluate("window.mindpyView ? window.mindpyView.summary() : null") or {}
            raise SnapshotError(
                f"the view of {name} did not finish drawing within {timeout:.0f} s "
                f"({seen.get('columns', 0)} of {columns} chunk columns, {seen.get('waiting', '?')} sections waiting, "
                f"{seen.get('meshes', 0)} meshes)") from None
        return page.locator("canvas").screenshot(timeout=timeout * 1000)
    except PlaywrightError as exc:
        raise SnapshotError(f"the browser failed while drawing the view: {str(exc).splitlines()[0]}") from None
    finally:
        context.close()
