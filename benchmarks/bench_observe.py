"""The modes' per-tick observation alone: the way it was (mineflayer findBlock for hot blocks within 2 and torches
within 6, five passes over the entities) against the way it is (block-state ids of the chunk sections, one pass).

Same bots, same world, same positions, in one run: each bot stands in an area of its own, some beside a torch or a
magma block, among animals and the other bots. Prints ms per call inside Node (parts and whole observation) and
ms per observe() from Python (the bridge round trips included). Asserts nothing; compare the ratios.
    .venv/bin/python benchmarks/bench_observe.py [--bots 8] [--animals 40] [--rounds 100]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

from mindpy.bridge import create_bots, js_module
from mindpy.server import EmbeddedServer
from mindpy.world.observe import observe

TIMING_JS = Path(__file__).resolve().parent / "js" / "observe_timing.js"
ANIMALS = ["cow", "sheep", "pig", "chicken"]


def wait_for(predicate, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


def place_bots(bots, animals: int) -> None:
    """Bot i stands at x = 1000 + 48 i; even bots have a torch 3 blocks away, every third a magma block under a
    neighbouring cell; animals stand around the first bots; all bots but the spread-out ones see each other."""
    for i, bot in enumerate(bots):
        x, z = 1000 + 48 * i, 1000
        bot.js.look(0, 0, True)
        bot.command(f"/tp {bot.name} {x + 0.5} -60 {z + 0.5}")
        wait_for(lambda b=bot, x=x: abs(b.position[0] - x - 0.5) < 1, f"{bot.name} to arrive")
        if i % 2 == 0:
            bot.command(f"/setblock {x + 3} -60 {z} torch")
        if i % 3 == 0:
            bot.command(f"/setblock {x + 1} -61 {z + 1} magma_block")
        for k in range(animals // max(1, len(bots))):
            angle = 2 * math.pi * k / max(1, animals // len(bots))
            bot.command(f"/summon {ANIMALS[k % len(ANIMALS)]} {x + round(5 * math.cos(angle))} -60 "
                     f"{z + round(5 * math.sin(angle))}")
    for bot in bots:  # chunks in every direction the scans reach
        wait_for(lambda b=bot: b.js.blockAt(b.js.entity.position.offset(8, -1, 8)) is not None, "chunks")


def python_side(bots, rounds: int) -> tuple[list[float], list[float]]:
    """ms per observation from Python: as it was (module attribute read + call, old JS) and now."""
    timing = js_module(TIMING_JS)
    before, now = [], []
    for _ in range(rounds):
        for bot in bots:
            t = time.perf_counter()
            json.loads(timing.oldObserveJson(bot.js))
            before.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            observe(bot)
            now.append((time.perf_counter() - t) * 1000)
    return before, now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--animals", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir) as server:
        bots = create_bots([f"obs{i}" for i in range(args.bots)], server.host, server.port, timeout=60)
        place_bots(bots, args.animals)
        time.sleep(2)  # animals land
        print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs); {args.bots} bots, "
              f"{args.animals} animals, {args.rounds} rounds")
        result = json.loads(js_module(TIMING_JS).timeParts([b.js for b in bots], args.rounds, timeout=600))
        print(f"entities each bot sees: {min(result['entities'])}-{max(result['entities'])}")
        print("inside Node (ms per call):")
        parts = result["msPerCall"]
        for name, ms in parts.items():
            print(f"  {name:<36} {ms:8.4f}")
        ratio = parts["observation, before"] / parts["observation, now"]
        print(f"  whole observation: {ratio:.0f}x cheaper now")
        print(f"  bots whose answers differ between before and now: {result['differ'] or 'none'}")
        before, now = python_side(bots, max(1, args.rounds // 4))
        print("from Python, bridge included (median / p95 ms per observation):")
        for label, values in (("before (2 round trips)", before), ("now (1 round trip)", now)):
            p95 = sorted(values)[int(0.95 * (len(values) - 1))]
            print(f"  {label:<36} {statistics.median(values):8.3f} / {p95:.3f}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        for bot in bots:
            bot.close()


if __name__ == "__main__":
    main()
