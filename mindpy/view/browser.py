"""The system's Chromium, found and launched headless through Playwright.

mindpy never downloads a browser (no ``playwright install``): it drives Debian's ``chromium`` package, which
``make setup`` installs when missing. ``MINDPY_CHROMIUM`` names another executable. The flags keep a headless
Chromium quiet on a machine without a network or a GPU (WebGL still works, in software).

Sync API::

    with headless_browser() as browser:
        page = browser.new_page()

Async API (or any Playwright object)::

    browser = await playwright.chromium.launch(**launch_options())
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from mindpy.errors import SetupError

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

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
