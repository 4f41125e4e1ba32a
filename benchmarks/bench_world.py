"""The generated normal world: how fast it is made, and what bots exploring it cost the server.

1. Generation alone: columns per second of normal_world.js (and flat_world.js for scale) in a Node process.
2. The server with N bots (8 by default) flying out from the spawn in N directions (creative mode, a teleport of
   STEP blocks every PERIOD s, so each step needs a fresh band of columns): the server's ticks per second (20 when it
   keeps up), the distinct columns the bots received (all generated on the way), the server's RSS.
Prints numbers; asserts nothing.
    .venv/bin/python benchmarks/bench_world.py [--chunks 400] [--bots 8] [--steps 12] [--step 32] [--period 2]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import tempfile
import time
from pathlib import Path

from mindpy import DEFAULT_MINECRAFT_VERSION
from mindpy.bridge import create_bots
from mindpy.nodejs import check_node_side, node_environment
from mindpy.server import EmbeddedServer

HERE = Path(__file__).resolve().parent
WORLDS = HERE.parent / "mindpy" / "server" / "js"


def generation_rate(world: str, seed: int, chunks: int) -> dict:
    out = subprocess.run([str(check_node_side()), str(HERE / "js" / "generate_chunks.js"),
                          str(WORLDS / f"{world}_world.js"), DEFAULT_MINECRAFT_VERSION, str(seed), str(chunks)],
                         env=node_environment(), capture_output=True, text=True, check=True, timeout=600).stdout
    result = json.loads(out)
    return {**result, "per_second": result["chunks"] / result["seconds"],
            "ms_each": 1000 * result["seconds"] / result["chunks"]}


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def explore(seed: int, bots_count: int, steps: int, step: int, period: float, view: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(run_dir=tmp, world="normal", seed=seed,
                                                              options={"viewDistance": view}) as server:
        assert server.process is not None
        pid = server.process.pid
        started = time.monotonic()
        bots = create_bots([f"explorer{i}" for i in range(bots_count)], server.host, server.port)
        joined = time.monotonic() - started
        seen: set[tuple[int, int]] = set()

        def note_columns():
            for bot in bots:
                for column in bot.js.world.getColumns():
                    seen.add((int(column.chunkX), int(column.chunkZ)))

        try:
            for bot in bots:
                bot.command(f"/gamemode creative {bot.name}")  # no fall damage from the teleports' heights
            time.sleep(1)
            note_columns()
            rss_start = rss_mb(pid)
            ticks0, t0 = server.ticks() or 0, time.monotonic()
            worst = 20.0
            for n in range(1, steps + 1):
                ticks_before, before = server.ticks() or 0, time.monotonic()
                for i, bot in enumerate(bots):
                    angle = 2 * math.pi * i / len(bots)
                    x, z = round(8 + n * step * math.cos(angle)), round(8 + n * step * math.sin(angle))
                    bot.command(f"/tp {bot.name} {x} 140 {z}")
                time.sleep(period)
                worst = min(worst, ((server.ticks() or 0) - ticks_before) / (time.monotonic() - before))
                note_columns()
            ticks = (server.ticks() or 0) - ticks0
            seconds = time.monotonic() - t0
            return {"joined_s": joined, "tps": ticks / seconds, "worst_step_tps": worst, "columns": len(seen),
                    "columns_per_s": len(seen) / seconds, "rss_start_mb": rss_start, "rss_end_mb": rss_mb(pid),
                    "seconds": seconds}
        finally:
            for bot in bots:
                bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=400, help="columns to generate in the generation test")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--steps", type=int, default=12, help="teleports per bot")
    parser.add_argument("--step", type=int, default=32, help="blocks per teleport")
    parser.add_argument("--period", type=float, default=2.0, help="seconds between teleports")
    parser.add_argument("--view", type=int, default=6, help="server view distance (columns)")
    args = parser.parse_args()
    for world in ("normal", "flat"):
        r = generation_rate(world, args.seed, args.chunks)
        print(f"generation, {world}: {r['chunks']} columns in {r['seconds']:.2f} s = {r['per_second']:.0f} columns/s "
              f"({r['ms_each']:.1f} ms each)", flush=True)
    r = explore(args.seed, args.bots, args.steps, args.step, args.period, args.view)
    print(f"server, {args.bots} bots exploring ({args.steps} steps of {args.step} blocks every {args.period} s, view "
          f"{args.view}): joined in {r['joined_s']:.1f} s; {r['tps']:.1f} ticks/s "
          f"(worst step {r['worst_step_tps']:.1f}); "
          f"{r['columns']} columns received ({r['columns_per_s']:.0f}/s); server RSS {r['rss_start_mb']:.0f} -> "
          f"{r['rss_end_mb']:.0f} MB over {r['seconds']:.0f} s")


if __name__ == "__main__":
    main()
