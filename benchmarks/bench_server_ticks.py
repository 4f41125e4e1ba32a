"""Server tick rate under load: 10 bots connected and 50 animals wandering on the embedded server.

Measures, over a window (20 s by default), the server's ticks per second (goal: 20), its longest gap between
two ticks, its event-loop delay, and the CPU share of the server process (from /proc/<pid>/stat; 1.00 is one
whole core) and of the bots' Node process. Prints numbers; asserts nothing.
    .venv/bin/python benchmarks/bench_server_ticks.py [--bots 10] [--animals 50] [--seconds 20] [--idle]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import tempfile
import threading
import time

from mindpy.bridge import create_bots, runtime
from mindpy.server import EmbeddedServer

ANIMALS = ["cow", "sheep", "pig", "chicken", "rabbit", "mooshroom"]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class TickRate:
    """Asks the server's /mindpy_ticks through a bot and waits for the JSON reply."""

    def __init__(self, bot):
        self.bot = bot
        self.replies: list[dict] = []
        self.arrived = threading.Event()
        bot.on("messagestr", self._on_message)

    def _on_message(self, text, *rest):
        if text.startswith("mindpy_ticks "):
            self.replies.append(json.loads(text[len("mindpy_ticks "):]))
            self.arrived.set()

    def read(self, reset: bool = False) -> dict:
        self.arrived.clear()
        self.bot.command("/mindpy_ticks reset" if reset else "/mindpy_ticks")
        if not self.arrived.wait(10):
            raise RuntimeError("no reply to /mindpy_ticks")
        return self.replies[-1]


def keep_walking(bots, stop: threading.Event) -> None:
    """Every bot turns to a random direction and walks or stands, changing every 2 s (like agents moving)."""
    while not stop.wait(2.0):
        for bot in bots:
            bot.js.look(random.uniform(-math.pi, math.pi), 0)
            bot.js.setControlState("forward", random.random() < 0.6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=10)
    parser.add_argument("--animals", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--idle", action="store_true", help="bots stand still instead of walking around")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir) as server:
        bots = create_bots([f"bench{i}" for i in range(args.bots)], server.host, server.port, timeout=60)
        tps = TickRate(bots[0])
        first = bots[0]
        first.js.look(0, 0, True)
        time.sleep(0.5)
        x0, y0, z0 = (math.floor(v) for v in first.position)
        for i in range(args.animals):  # a ring of animals around the bots, within everyone's sight
            angle, radius = 2 * math.pi * i / max(1, args.animals), 6 + (i % 5) * 2
            first.command(f"/summon {ANIMALS[i % len(ANIMALS)]} {x0 + round(radius * math.cos(angle))} {y0} "
                       f"{z0 + round(radius * math.sin(angle))}")
        time.sleep(3)  # let them land and start wandering
        before = tps.read(reset=True)
        print(f"server: {before['players']} players, {before['animals']} animals, {before['entities']} entities")

        stop = threading.Event()
        walker = threading.Thread(target=keep_walking, args=(bots, stop), daemon=True)
        if not args.idle:
            walker.start()
        server_pid, bots_pid = server.process.pid, runtime().pid
        cpu0, bots_cpu0, t0 = cpu_seconds(server_pid), cpu_seconds(bots_pid), time.monotonic()
        time.sleep(args.seconds)
        cpu1, bots_cpu1, t1 = cpu_seconds(server_pid), cpu_seconds(bots_pid), time.monotonic()
        after = tps.read()
        stop.set()

        ticks_per_second = (after["ticks"] - before["ticks"]) / ((after["at"] - before["at"]) / 1000)
        wall = t1 - t0
        print(f"window: {wall:.1f} s, bots {'idle' if args.idle else 'walking'}, {os.cpu_count()} CPUs")
        print(f"tick rate:          {ticks_per_second:6.2f} ticks/s (goal 20)")
        print(f"longest tick gap:   {after['tickGapMaxMs']:6.0f} ms (50 ms at 20 ticks/s)")
        print(f"event-loop delay:   p99 {after['loopDelayP99Ms']:6.1f} ms, max {after['loopDelayMaxMs']:6.1f} ms")
        print(f"server CPU share:   {(cpu1 - cpu0) / wall:6.2f} of one core")
        print(f"bots' Node CPU:     {(bots_cpu1 - bots_cpu0) / wall:6.2f} of one core ({args.bots} mineflayer bots)")
        print(f"animals alive:      {after['animals']}")
        for bot in bots:
            bot.close()


if __name__ == "__main__":
    main()
