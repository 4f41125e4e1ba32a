"""`mindpy demo`: the embedded server, two bots that join and greet each other, and a report.

It needs no API key and no Java. (When the oracle players exist, the demo plays a real task with them.)
"""

from __future__ import annotations

import threading
import time

from .bridge import create_bot
from .server import EmbeddedServer, parse_server


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def run_demo(server: str = "embedded", run_dir: str = "runs/demo") -> int:
    target = parse_server(server)
    embedded = None
    started = time.monotonic()
    if target is None:
        _say("starting the embedded Minecraft server (flying-squid, 1.21.1, offline, superflat)...")
        embedded = EmbeddedServer(run_dir=run_dir).start()
        target = embedded.address
        _say(f"server ready at {target} in {time.monotonic() - started:.1f} s (log: {embedded.log_path})")
    bots = []
    try:
        heard: list[str] = []
        greeted = threading.Event()
        for name in ("Andy", "Jill"):
            bots.append(create_bot(name, target.host, target.port))
            x, y, z = bots[-1].position
            _say(f"{name} joined and spawned at ({x:.0f}, {y:.0f}, {z:.0f})")
        andy, jill = bots

        def on_chat(listener):
            def handler(username, message, *rest):
                if username != listener.name:
                    heard.append(f"{listener.name} heard <{username}> {message}")
                    if len(heard) >= 2:
                        greeted.set()
            return handler

        andy.on("chat", on_chat(andy))
        jill.on("chat", on_chat(jill))
        andy.chat("Hi Jill! Ready to build something?")
        time.sleep(0.3)
        jill.chat("Hello Andy! Let's gather some wood.")
        ok = greeted.wait(10)
        for line in heard:
            _say(line)
        if not ok:
            _say("FAILED: the bots did not hear each other within 10 s")
            return 1
        _say(f"demo finished in {time.monotonic() - started:.1f} s; shutting down")
        return 0
    finally:
        for bot in bots:
            bot.close()
        if embedded is not None:
            embedded.stop()
