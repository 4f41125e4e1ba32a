"""The bots' 3D view and what the bots see: the system browser (`browser.py`), prismarine-viewer pages of a bot
(`viewer.py`) and first-person snapshots (`snapshot.py`)."""

from .browser import BrowserMissing, SharedBrowser, headless_browser, launch_browser, launch_options, shared_browser
from .snapshot import Snapshot, SnapshotError, pixel_stddev, snapshot
from .viewer import BotViewer, OneViewer, ViewerError, open_viewer

__all__ = [
    "BotViewer",
    "BrowserMissing",
    "OneViewer",
    "SharedBrowser",
    "Snapshot",
    "SnapshotError",
    "ViewerError",
    "headless_browser",
    "launch_browser",
    "launch_options",
    "open_viewer",
    "pixel_stddev",
    "shared_browser",
    "snapshot",
]
