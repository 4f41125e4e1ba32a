"""Shared fixtures: one real embedded server per test session, and real Mineflayer bots on it.

Nothing is mocked: `server` is a flying-squid Node process, `make_bot` joins real bots through the bridge.
"""

from __future__ import annotations

import itertools
import time

import pytest

from mindpy.bridge import create_bot
from mindpy.server import EmbeddedServer

_names = itertools.count(1)
_areas = itertools.count(1)


def unique_name(prefix: str = "bot") -> str:
    """Player names must be unique on a server and at most 16 characters."""
    return f"{prefix[:10]}{next(_names)}"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The embedded server shared by the session's tests (fast smelting for tests)."""
    run_dir = tmp_path_factory.mktemp("server")
    with EmbeddedServer(run_dir=run_dir, options={"smeltSpeed": 20}) as srv:
        yield srv


@pytest.fixture
def make_bot(server):
    """Factory: `make_bot("alice")` returns a spawned Bot; every bot is closed after the test."""
    bots = []

    def factory(prefix: str = "bot", exact_name: str | None = None, **kwargs):
        bot = create_bot(exact_name or unique_name(prefix), server.host, server.port, **kwargs)
        bots.append(bot)
        return bot

    yield factory
    for bot in bots:
        bot.close()


def teleport(bot, x: float, y: float, z: float) -> None:
    """Teleport `bot` with an operator command and wait until it stands there with the chunks loaded."""
    bot.js.look(0, 0, True)  # the server finishes its login sequence on the first look packet
    time.sleep(0.2)
    bot.chat(f"/tp {bot.name} {x} {y} {z}")
    wait_until(lambda: abs(bot.position[0] - x) < 1.5 and abs(bot.position[2] - z) < 1.5,
               timeout=10, message=f"{bot.name} to arrive at x={x} z={z}")
    bot.js.waitForChunksToLoad(timeout=20)
    wait_until(lambda: bot.js.blockAt(bot.js.entity.position.offset(0, -1, 0)) is not None, timeout=10,
               message="the ground under the bot to load")


def isolate(bot, spacing: int = 200) -> tuple[int, int, int]:
    """Teleport `bot` to a fresh area of the flat world (so tests do not see each other's blocks);
    returns the block position it stands on, once the chunks there have loaded."""
    k = next(_areas)
    x, z = 100 + spacing * k, 100
    teleport(bot, x, -60, z)
    return x, -60, z


def wait_until(predicate, timeout: float = 5.0, interval: float = 0.05, message: str = "condition"):
    """Poll `predicate()` until it is truthy; return its value or fail the test with `message`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {message}")
        time.sleep(interval)
