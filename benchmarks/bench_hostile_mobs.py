"""Server cost of hostile mobs: N monsters spawned at night around one player in survival, chasing it.

Fills the area with monsters (fast spawning up to a cap of N), then measures over a window the server's ticks per
second, its event-loop delay and the CPU share of the server process (1.00 is one whole core). The player dies and
respawns now and then (keepInventory); the monsters follow or spawn anew. Prints numbers; asserts nothing.
    .venv/bin/python benchmarks/bench_hostile_mobs.py [--monsters 50] [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from bench_server_ticks import TickRate, cpu_seconds

from mindpy.bridge import create_bot
from mindpy.server import EmbeddedServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--monsters", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    options = {"hostileMobs": True, "mobSpawnRate": 50, "mobSpawnDistance": [24, 40], "mobCap": args.monsters,
               "keepInventory": True, "maxEntities": args.monsters + 100}
    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir, options=options) as server:
        watcher = create_bot("watcher", server.host, server.port)
        bait = create_bot("bait", server.host, server.port)
        watcher.command("/gamemode spectator watcher")
        bait.js.look(0, 0, True)
        rate = TickRate(watcher)
        hurt = []
        bait.on("health", lambda *rest: hurt.append(bait.js.health) if bait.js.health < 20 else None)
        watcher.command("/time set 14000")
        start = time.monotonic()
        report = rate.read()
        while report["monsters"] < args.monsters and time.monotonic() - start < 60:
            time.sleep(1)
            report = rate.read()
        print(f"{report['monsters']} monsters after {time.monotonic() - start:.1f} s")
        rate.read(reset=True)
        cpu_before, began = cpu_seconds(server.process.pid), time.monotonic()
        time.sleep(args.seconds)
        report = rate.read()
        cpu = (cpu_seconds(server.process.pid) - cpu_before) / (time.monotonic() - began)
        print(json.dumps(report))
        print(f"ticks/s {report['tps10']:.1f}, loop delay p99 {report['loopDelayP99Ms']:.1f} ms, "
              f"server CPU {cpu:.2f} of a core, monsters {report['monsters']}, the player hurt {len(hurt)} times")


if __name__ == "__main__":
    main()
