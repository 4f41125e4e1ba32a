"""Foundation benchmarks: server start to two bots spawned, bridge round trip, bot.chat.

Prints numbers; asserts nothing. Machines are shared and noisy: compare numbers from one run.
    .venv/bin/python benchmarks/bench_foundation.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time

from mindpy.bridge import create_bot, create_bots, runtime
from mindpy.server import EmbeddedServer


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def describe(label, seconds):
    ms = [s * 1000 for s in seconds]
    print(f"{label:<48} median {statistics.median(ms):8.2f} ms   p95 {percentile(ms, 95):8.2f} ms   (n={len(ms)})")


def bench_start_to_two_bots(runs: int, parallel: bool) -> None:
    totals, server_ready = [], []
    for i in range(runs):
        with tempfile.TemporaryDirectory() as run_dir:
            started = time.perf_counter()
            server = EmbeddedServer(run_dir=run_dir).start()
            server_ready.append(time.perf_counter() - started)
            names = [f"b{i}a", f"b{i}b"]
            if parallel:
                bots = create_bots(names, server.host, server.port)
            else:
                bots = [create_bot(n, server.host, server.port) for n in names]
            totals.append(time.perf_counter() - started)
            for bot in bots:
                bot.close()
            server.stop()
    describe("server start -> listening", server_ready)
    describe(f"server start -> two bots spawned ({'parallel' if parallel else 'one by one'})", totals)


def bench_bridge(samples: int) -> None:
    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir) as server:
        alice, bob = create_bots(["rtA", "rtB"], server.host, server.port)
        socket = alice.js._client.socket
        reads, seen = [], set()
        for _ in range(samples):
            t = time.perf_counter()
            seen.add(socket.bytesRead)  # one property read = one Python -> JS round trip
            reads.append(time.perf_counter() - t)
            time.sleep(0.001)
        describe("bridge round trip (one property read)", reads)
        print(f"  (the value read changed {len(seen) - 1} times: the reads reach the live JS object)")
        calls_fn = []
        for _ in range(samples):
            t = time.perf_counter()
            alice.inventory()  # one JS function call returning JSON
            calls_fn.append(time.perf_counter() - t)
        describe("bridge function call (inventory as JSON)", calls_fn)

        calls, delivered = [], []
        got = threading.Event()
        bob.on("chat", lambda user, message, *rest: got.set())
        for i in range(min(samples, 100)):
            got.clear()
            t = time.perf_counter()
            alice.chat(f"ping {i}")
            calls.append(time.perf_counter() - t)
            got.wait(5)
            delivered.append(time.perf_counter() - t)
        describe("bot.chat call", calls)
        describe("bot.chat until the other bot's callback runs", delivered)
        alice.close()
        bob.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--samples", type=int, default=500)
    args = parser.parse_args()
    t = time.perf_counter()
    runtime()
    print(f"bridge start (Node + mineflayer loaded): {(time.perf_counter() - t) * 1000:.0f} ms (once per process)")
    bench_start_to_two_bots(args.runs, parallel=True)
    bench_start_to_two_bots(args.runs, parallel=False)
    bench_bridge(args.samples)


if __name__ == "__main__":
    main()
