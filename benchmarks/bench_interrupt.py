"""Interrupt latency: from `Skills.interrupt()` to the interrupted skill's return in Python, for a skill that waits
(`stay(-1)`) and one that walks (`go_to_position` 150 blocks away), on a fresh embedded server with one bot.
Goal: under 1 s (the JS side checks its flag every 100 ms).

Prints numbers; asserts nothing. Machines are shared and noisy: compare numbers from one run.
    .venv/bin/python benchmarks/bench_interrupt.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time

from mindpy.bridge import create_bot
from mindpy.server import EmbeddedServer
from mindpy.skills import Skills


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def one_interrupt(skills: Skills, skill: str, js_name: str, args: tuple) -> float:
    """Start `skill`, wait until the JS side runs it, interrupt it; seconds from the interrupt to its return."""
    returned = threading.Event()
    ended = [0.0]

    def run() -> None:
        getattr(skills, skill)(*args)
        ended[0] = time.perf_counter()
        returned.set()

    threading.Thread(target=run, daemon=True).start()
    deadline = time.monotonic() + 20
    while skills.runner.running() != js_name:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{js_name} did not start")
        time.sleep(0.02)
    started = time.perf_counter()
    skills.interrupt()
    if not returned.wait(30):
        raise RuntimeError(f"{skill} did not stop within 30 s of its interrupt")
    return ended[0] - started


def bench(runs: int) -> None:
    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir) as server:
        bot = create_bot("benchstop", server.host, server.port)
        try:
            bot.js.waitForChunksToLoad(timeout=20)
            skills = Skills(bot)
            x, y, z = bot.position
            cases = {"stay(-1)": ("stay", "stay", (-1,)),
                     "go_to_position(150 blocks)": ("go_to_position", "goToCoordinates", (x + 150, y, z + 150, 1))}
            for label, (skill, js_name, args) in cases.items():
                ms = [one_interrupt(skills, skill, js_name, args) * 1000 for _ in range(runs)]
                print(f"{label:<28} median {statistics.median(ms):7.1f} ms   p95 {percentile(ms, 95):7.1f} ms   "
                      f"max {max(ms):7.1f} ms   (n={len(ms)})")
        finally:
            bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    bench(args.runs)


if __name__ == "__main__":
    main()
