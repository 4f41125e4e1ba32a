"""The system's Chromium, found and launched headless through Playwright.

mindpy never downloads a browser (no ``playwright install``): it drives Debian's ``chromium`` package, which
``make setup`` installs when missing. ``MINDPY_CHROMIUM`` names another executable. The flags keep a headless
Chromium quiet on a machine without a network or a GPU (WebGL still works, in software).

Sync API::

    with headless_browser() as browser:
        page = browser.new_page()

Async API (or any Playwright object)::

    browser = await playwright.chromium.launch(**launch_options())

One browser shared by a process's callers, on a thread of its own::

    png = shared_browser().run(lambda browser: ..., timeout=60)
"""

from __future__ import annotations

import atexit
import os
import queue
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from mindpy.errors import SetupError

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

T = TypeVar("T")

DEFAULT_CHROMIUM = "/usr/bin/chromium"
ENV_VAR = "MINDPY_CHROMIUM"

# Headless, no sandbox (containers run as root), software rendering, and nothing that reaches for the network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

INSTALL_HINT = (
    "install it with `apt-get install chromium` (or `make setup`), or set MINDPY_CHROMIUM to a Chromium executable"
)


class BrowserMissing(SetupError):
    """No Chromium executable where mindpy looks, or Playwright is not installed; the message is one line saying how
    to install it."""


def chromium_path() -> str:
    """The Chromium executable to use: ``MINDPY_CHROMIUM`` if set, else /usr/bin/chromium (or a ``chromium`` on
    PATH). Raises BrowserMissing when it is not an executable file."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured
        raise BrowserMissing(f"No browser at {configured} ({ENV_VAR}): {INSTALL_HINT}")
    if os.path.isfile(DEFAULT_CHROMIUM) and os.access(DEFAULT_CHROMIUM, os.X_OK):
        return DEFAULT_CHROMIUM
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    raise BrowserMissing(f"No browser at {DEFAULT_CHROMIUM}: {INSTALL_HINT}")


def launch_options(**overrides: Any) -> dict[str, Any]:
    """Keyword arguments for Playwright's ``chromium.launch`` (sync or async): the system Chromium, headless, with
    the flags above. Playwright gives every launch a fresh temporary user data directory and removes it on close.
    Raises BrowserMissing when there is no browser."""
    options: dict[str, Any] = {
        "executable_path": chromium_path(),
        "headless": True,
        "args": list(CHROMIUM_FLAGS),
    }
    options.update(overrides)
    return options


def launch_browser(playwright: Playwright, **overrides: Any) -> Browser:
    """Launch the system Chromium headless with a sync Playwright object (``sync_playwright().start()``)."""
    return playwright.chromium.launch(**launch_options(**overrides))


def _sync_playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise BrowserMissing(
            "The Python package playwright is missing: install it with `pip install 'mindpy[ui]'` (or `make setup`)"
        ) from exc
    return sync_playwright


@contextmanager
def headless_browser(**overrides: Any) -> Iterator[Browser]:
    """A headless system Chromium for the duration of the block (its own Playwright driver; sync API, so call it
    from a thread without a running asyncio loop). Raises BrowserMissing, before starting anything, when there is
    no browser."""
    options = launch_options(**overrides)
    sync_playwright = _sync_playwright()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**options)
        try:
            yield browser
        finally:
            browser.close()


class SharedBrowser:
    """One headless Chromium that a process's snapshots take turns on, so that a look does not start a browser of
    its own (about a second, and 600 MB each when several agents look at once). Playwright's sync API belongs to
    the thread that started it, so the browser lives on a thread of its own and `run(job)` hands it jobs one at a
    time. After `idle_s` seconds without a job the browser and its driver stop; the next job starts them again."""

    def __init__(self, idle_s: float = 60.0):
        self.idle_s = float(idle_s)
        self.launches = 0  # how many times a browser was started (for tests and logs)
        self.running = False  # whether a browser is up now
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[Browser], T], timeout: float = 120.0) -> T:
        """`job(browser)` on the browser's thread; its result, or the exception it raised. Raises BrowserMissing
        (before queueing) when there is no browser, TimeoutError when no answer came within `timeout` seconds."""
        chromium_path()
        done = _Job(job)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="mindpy-browser", daemon=True)
                self._thread.start()
            self._jobs.put(done)
        if not done.finished.wait(timeout):
            raise TimeoutError(f"the shared browser did not finish a job within {timeout:.0f} s")
        if done.error is not None:
            raise done.error
        return done.result

    def close(self, timeout: float = 10.0) -> None:
        """Stop the browser and its thread (a later `run` starts them again)."""
        with self._lock:
            thread = self._thread
            self._thread = None
            if thread is not None and thread.is_alive():
                self._jobs.put(None)
        if thread is not None:
            thread.join(timeout)

    def _serve(self) -> None:
        playwright: Any = None
        browser: Any = None

        def stop() -> None:
            nonlocal playwright, browser
            try:
                if browser is not None:
                    browser.close()
            except Exception:  # a browser that already died: nothing left to close
                pass
            try:
                if playwright is not None:
                    playwright.stop()
            except Exception:
                pass
            playwright = browser = None
            self.running = False

        try:
            while True:
                try:
                    job = self._jobs.get(timeout=self.idle_s if browser is not None else None)
                except queue.Empty:
                    stop()
                    continue
                if job is None:
                    return
                try:
                    if browser is None or not browser.is_connected():
                        stop()
                        playwright = _sync_playwright()().start()
                        browser = launch_browser(playwright)
                        self.launches += 1
                        self.running = True
                    job.result = job.fn(browser)
                except BaseException as exc:  # handed to the caller, whatever it is
                    job.error = exc
                finally:
                    job.finished.set()
        finally:
            stop()


class _Job:
    def __init__(self, fn: Callable[[Any], Any]):
        self.fn = fn
        self.result: Any = None
        self.error: BaseException | None = None
        self.finished = threading.Event()


_shared: SharedBrowser | None = None
_shared_lock = threading.Lock()


def shared_browser() -> SharedBrowser:
    """This process's SharedBrowser (made on first use; stopped at exit)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SharedBrowser()
            atexit.register(_shared.close)
        return _shared
