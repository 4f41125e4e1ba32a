"""Bytes per second the dashboard's websocket sends one page while N idle agents play (replay models that answer
nothing, default modes), over a window that starts once the page has its first full picture (every card and the
map); then the same while one of them is spoken to every 2 s (its card changes, the others do not). Prints
numbers; asserts nothing.

    python benchmarks/bench_dashboard.py [--agents 32] [--window 20] [--processes 1]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

import yaml
from websockets.sync.client import connect

from mindpy.agent.processes import REMOTE_WATCHERS, ProcessRunner
from mindpy.agent.runner import RUNNER_WATCHERS
from mindpy.profiles import load_profile
from mindpy.server import EmbeddedServer
from mindpy.settings import load_settings
from mindpy.ui.app import DashboardState
from mindpy.ui.server import Dashboard


def count(url: str, seconds: float, poke=None) -> dict:
    """Messages and bytes the page's websocket gets over `seconds`, after the first full picture (every card and
    the map) has come."""
    received = {"messages": 0, "bytes": 0, "first_bytes": 0}
    with connect(url, max_size=None) as socket:
        seen = {"cards": False, "map": False}
        deadline = time.monotonic() + 60
        while not all(seen.values()) and time.monotonic() < deadline:
            message = socket.recv(timeout=30)
            received["first_bytes"] += len(message)
            data = json.loads(message)
            seen["cards"] = seen["cards"] or (data["type"] == "agents" and bool(data["agents"]))
            seen["map"] = seen["map"] or data["type"] == "map"
        end = time.monotonic() + seconds
        next_poke = time.monotonic()
        while (left := end - time.monotonic()) > 0:
            if poke is not None and time.monotonic() >= next_poke:
                poke()
                next_poke += 2.0
            try:
                message = socket.recv(timeout=min(left, max(0.01, next_poke - time.monotonic())))
            except TimeoutError:
                continue
            received["messages"] += 1
            received["bytes"] += len(message)
    return received


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--window", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--processes", type=int, default=1, help="as mindpy run --processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(run_dir=Path(tmp) / "server") as server:
        work = Path(tmp)
        settings = load_settings(None, env={}, bots_dir=str(work / "bots"), cache_dir=str(work / "cache"),
                                 narrate_behavior=False, chat_bot_messages=False)
        script = work / "idle.yaml"
        script.write_text(yaml.safe_dump({"replies": [], "default": ""}))
        profiles = []
        for i in range(args.agents):
            path = work / f"dash{i}.yaml"
            path.write_text(yaml.safe_dump({"name": f"dash{i}", "model": f"replay:{script}", "cooldown": 0,
                                            "embedding": "none"}))
            profiles.append(load_profile(path, settings=settings))
        state = DashboardState()
        dashboard = Dashboard(state, port=0).start()
        RUNNER_WATCHERS.append(state.feed.add_runner)
        REMOTE_WATCHERS.append(state.feed.add_remote)
        runner = ProcessRunner(settings, profiles, server.host, server.port, processes=args.processes,
                               report=lambda line: None)
        try:
            t = time.perf_counter()
            runner.start()
            print(f"{args.agents} agents in {runner.processes} processes joined in {time.perf_counter() - t:.1f} s")
            time.sleep(5)  # the join settles
            url = f"ws://127.0.0.1:{dashboard.port}/ws"
            idle = count(url, args.window)
            said = {"n": 0}

            def poke() -> None:
                said["n"] += 1
                name = profiles[0].name
                threading.Thread(target=lambda: _say(dashboard.port, name, f"ping {said['n']}"), daemon=True).start()

            spoken = count(url, args.window, poke)
            for label, r in (("idle", idle), ("one agent spoken to every 2 s", spoken)):
                print(f"{label}: {r['bytes'] / args.window:.0f} bytes/s ({r['messages'] / args.window:.1f} messages/s;"
                      f" before that, the first full picture of cards and map: {r['first_bytes']} bytes)")
            print(f"load average: {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
        finally:
            RUNNER_WATCHERS.remove(state.feed.add_runner)
            REMOTE_WATCHERS.remove(state.feed.add_remote)
            runner.stop()
            dashboard.stop()


def _say(port: int, name: str, text: str) -> None:
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/agents/{name}/say", method="POST",
                                     data=json.dumps({"text": text}).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()


if __name__ == "__main__":
    main()
