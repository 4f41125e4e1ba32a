"""Command-layer benchmark: the overhead of a query command from the model's text to its output (parse + run),
on a fresh embedded server with one bot. Goal: under 20 ms median per query.

Prints numbers; asserts nothing. Machines are shared and noisy: compare numbers from one run.
    .venv/bin/python benchmarks/bench_commands.py [--runs N] [--profile]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from mindpy.bridge import create_bot
from mindpy.commands import AgentCommands, AgentContext, default_registry
from mindpy.server import EmbeddedServer

QUERIES = {
    "!stats": "Let me check how I am doing. !stats",
    "!inventory": "Checking my stuff: !inventory",
    "!nearbyBlocks": "What is around me? !nearbyBlocks",
}
WARM_UP = 20


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def describe(label, seconds):
    ms = [s * 1000 for s in seconds]
    print(f"{label:<32} median {statistics.median(ms):8.2f} ms   p95 {percentile(ms, 95):8.2f} ms   (n={len(ms)})")


def query_once(layer, ctx, text):
    parsed = layer.parse(text)
    assert parsed.error is None, parsed.error
    return layer.run(ctx, parsed.command, parsed.args)


def bench(runs: int, profile: bool) -> None:
    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir) as server:
        bot = create_bot("benchcmd", server.host, server.port)
        try:
            bot.js.waitForChunksToLoad(timeout=20)
            bot.command(f"/give {bot.name} oak_log 12")
            bot.command(f"/give {bot.name} iron_pickaxe 1")
            time.sleep(0.5)
            layer = AgentCommands(default_registry())
            ctx = AgentContext.for_bot(bot)
            for label, text in QUERIES.items():
                for _ in range(WARM_UP):
                    query_once(layer, ctx, text)
                times = []
                for _ in range(runs):
                    started = time.perf_counter()
                    out = query_once(layer, ctx, text)
                    times.append(time.perf_counter() - started)
                describe(f"{label} (parse + run)", times)
                print("  " + out.splitlines()[0] + f" ... ({len(out.splitlines())} lines)")
            parse_times = []
            for _ in range(runs):
                started = time.perf_counter()
                layer.parse(QUERIES["!stats"])
                parse_times.append(time.perf_counter() - started)
            us = [t * 1e6 for t in parse_times]
            print(f"{'parse only (!stats)':<32} median {statistics.median(us):8.1f} us   "
                  f"p95 {percentile(us, 95):8.1f} us")
            if profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                profiler.enable()
                for _ in range(50):
                    for text in QUERIES.values():
                        query_once(layer, ctx, text)
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)
        finally:
            bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="also profile 50 rounds of the three queries")
    args = parser.parse_args()
    bench(args.runs, args.profile)


if __name__ == "__main__":
    main()
