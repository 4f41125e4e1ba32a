"""A handle on one Mineflayer bot that has joined a server and spawned."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import DEFAULT_MINECRAFT_VERSION
from ..errors import BridgeTimeout, UnsupportedVersion
from .events import EventDispatcher
from .plain_chat import check_player_name, plain_chat_pieces, sayable, utf16_units, whisper_header
from .runtime import call_js, js_module, runtime


class Bot:
    """Wraps the JS bot. `bot.js` is the raw mineflayer object for anything not wrapped here."""

    def __init__(self, name: str, js_bot: Any, host: str, port: int):
        self.name = name
        self.js = js_bot
        self.host = host
        self.port = port
        self._runtime = runtime()
        self._events = EventDispatcher(name)
        self._forwarded: set[str] = set()
        self._forward_lock = threading.Lock()
        self._plugins: set[Path] = set()
        self._plugin_lock = threading.Lock()
        self._chat_limit: int | None = None
        self.closed = False

    # ---- events -------------------------------------------------------------------------------
    def on(self, event: str, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Call `callback(*args)` for every `event` of the mineflayer bot; args arrive as plain data.

        Callbacks run on this bot's event thread, in order; they may call back into the bot.
        """
        self._events.subscribe(event, callback)
        with self._forward_lock:
            if event not in self._forwarded:
                call_js(lambda: self._runtime.host.forwardEvents(self.js, [event], self._events.deliver),
                        f"listening to '{event}' of bot {self.name}")
                self._forwarded.add(event)
        return callback

    def off(self, event: str, callback: Callable[..., Any]) -> None:
        self._events.unsubscribe(event, callback)

    def wait_for(self, event: str, predicate: Callable[..., bool] | None = None, timeout: float = 10.0) -> tuple:
        """Block until `event` fires (and `predicate(*args)` holds); return its args. Raises BridgeTimeout."""
        done = threading.Event()
        result: list[tuple] = []

        def listener(*args):
            if not done.is_set() and (predicate is None or predicate(*args)):
                result.append(args)
                done.set()

        self.on(event, listener)
        try:
            if not done.wait(timeout):
                raise BridgeTimeout(f"Bot {self.name}: no '{event}' event within {timeout} s")
            return result[0]
        finally:
            self.off(event, listener)

    # ---- plugins --------------------------------------------------------------------------------
    def load_plugin(self, path: str | Path) -> Any:
        """Inject the mineflayer plugin of the JS file `path` into this bot, once; return the file's module.

        The file exports `inject(bot)` (as `module.exports` or `module.exports.inject`), like mineflayer's own
        plugins; later calls for the same file only return the module.
        """
        path = Path(path).resolve()
        module = js_module(path)
        with self._plugin_lock:
            if path not in self._plugins:
                call_js(lambda: self._runtime.host.loadPlugin(self.js, str(path)),
                        f"loading plugin {path.name} into bot {self.name}")
                self._plugins.add(path)
        return module

    # ---- common actions -----------------------------------------------------------------------
    def chat(self, text: str) -> None:
        """Say `text` in public chat, as chat only: whatever it holds, no part of it runs as a server command
        (line breaks become spaces, characters servers refuse are replaced, a long text goes out as several
        messages, and one that would start with "/" starts with "./"; see plain_chat). Commands go through
        `command`."""
        pieces = plain_chat_pieces(str(text), self.chat_limit)
        if pieces:
            call_js(lambda: self._runtime.host.chatPlain(self.js, json.dumps(pieces)), f"bot {self.name} chat")

    @property
    def chat_limit(self) -> int:
        """UTF-16 code units of one chat message for this bot's Minecraft version (256; 100 before 1.11)."""
        if self._chat_limit is None:
            self._chat_limit = int(call_js(lambda: self._runtime.host.chatLimit(self.js),
                                           f"bot {self.name} chat limit"))
        return self._chat_limit

    def command(self, line: str) -> None:
        """Run one server command as this bot, e.g. `bot.command("give alice stick 1")` (the "/" is optional).

        The server runs it with the bot's permissions: set-up commands need an operator bot. No reply comes
        back; check the command's effect. Raises ValueError for an empty line, one holding a line break, one
        longer than a chat message, or one holding a character servers kick for."""
        line = line.strip().lstrip("/")
        if not line or len(line.splitlines()) > 1:
            raise ValueError(f"a server command is one non-empty line, got {line[:80]!r}")
        if utf16_units("/" + line) > self.chat_limit:  # servers disconnect the sender of a longer one
            raise ValueError(f"a server command is at most {self.chat_limit - 1} UTF-16 code units, got "
                             f"{utf16_units(line)}: {line[:80]!r}...")
        if sayable(line) != line:
            raise ValueError(f"a server command cannot hold control characters, '§' or lone surrogates: {line[:80]!r}")
        call_js(lambda: self.js.chat("/" + line), f"bot {self.name} command /{line.split()[0]}")

    def whisper(self, player: str, text: str) -> None:
        """Say `text` to `player` alone (mineflayer sends "/tell player piece"), cut and cleaned as `chat` cuts
        it, each piece fitting one message with the "/tell" before it. Raises ValueError for a name no player
        can have."""
        check_player_name(player)
        pieces = plain_chat_pieces(str(text), self.chat_limit - utf16_units(whisper_header(player)))
        if pieces:
            call_js(lambda: self._runtime.host.whisperPlain(self.js, player, json.dumps(pieces)),
                    f"bot {self.name} whisper")

    def inventory(self) -> dict[str, int]:
        """Item name -> total count in the bot's inventory."""
        return json.loads(call_js(lambda: self._runtime.host.inventoryCountsJson(self.js),
                                  f"bot {self.name} inventory"))

    @property
    def position(self) -> tuple[float, float, float]:
        pos = json.loads(call_js(lambda: self._runtime.host.plainJson(self.js.entity.position),
                                 f"bot {self.name} position"))
        return (pos["x"], pos["y"], pos["z"])

    @property
    def connected(self) -> bool:
        """Whether the bot is still on the server (False once kicked, disconnected or closed)."""
        if self.closed or not self._runtime.is_alive():
            return False
        return not call_js(lambda: bool(self.js._client.ended), f"bot {self.name} connection")

    def close(self) -> None:
        """Leave the server. Safe to call twice."""
        if self.closed:
            return
        self.closed = True
        try:
            if self._runtime.is_alive():
                call_js(lambda: self._runtime.host.quit(self.js, timeout=5), f"bot {self.name} quit", timeout=5)
        finally:
            self._events.close()

    def __repr__(self) -> str:
        return f"<Bot {self.name} at {self.host}:{self.port}>"


_versions: list[str] = []


def _supported_versions(rt) -> list[str]:
    if not _versions:
        _versions.extend(json.loads(call_js(lambda: rt.host.supportedVersionsJson(), "reading supported versions")))
    return _versions


def create_bot(
    name: str,
    host: str = "127.0.0.1",
    port: int = 25565,
    version: str | None = DEFAULT_MINECRAFT_VERSION,
    timeout: float = 30.0,
    auth: str = "offline",
) -> Bot:
    """Join a server as `name` and return once the bot has spawned.

    Raises BridgeError with the reason (connection refused, kicked, unsupported version) or BridgeTimeout.
    """
    return create_bots([name], host, port, version, timeout, auth)[0]


def create_bots(
    names: list[str],
    host: str = "127.0.0.1",
    port: int = 25565,
    version: str | None = DEFAULT_MINECRAFT_VERSION,
    timeout: float = 30.0,
    auth: str = "offline",
    at_once: int | None = None,
) -> list[Bot]:
    """Join several bots (a few at a time on the Node side, see js/joining.js); all spawned, or none stays
    connected. `timeout` is each bot's limit, counted from the start of its own join. `at_once`: how many join at
    the same time (default: joining.js's JOINING_AT_ONCE)."""
    rt = runtime()
    if version:
        supported = _supported_versions(rt)
        if version not in supported:
            raise UnsupportedVersion(f"Minecraft version '{version}' is not supported by mineflayer. "
                                     f"Supported: {', '.join(supported)}")
    options = [{"host": host, "port": int(port), "username": n, "version": version, "auth": auth} for n in names]
    # Node joins them a few at a time (js/joining.js), each with `timeout` from the start of its own join: the
    # call as a whole may take as long as all of them one after another.
    whole = timeout * len(names) + 5
    js_bots = call_js(
        lambda: rt.host.createBots(options, int(timeout * 1000), int(at_once or 0), timeout=whole),
        f"creating bot{'s' if len(names) > 1 else ''} {', '.join(names)}",
        timeout=whole,
    )
    return [Bot(name, js_bots[i], host, int(port)) for i, name in enumerate(names)]
