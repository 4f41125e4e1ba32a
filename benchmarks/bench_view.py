"""How long a first-person snapshot takes (mindpy.view.snapshot): the first one (browser start included), then
with the shared browser up, and from several bots at once. Prints numbers; asserts nothing.

    python benchmarks/bench_view.py [--shots 5] [--bots 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time

from mindpy.bridge import create_bots
from mindpy.server import EmbeddedServer
from mindpy.view import snapshot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=5, help="snapshots in a row by one bot")
    parser.add_argument("--bots", type=int, default=3, help="bots taking one snapshot each at the same time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir) as server:
        bots = create_bots([f"eye{i}" for i in range(max(1, args.bots))], server.host, server.port)
        for i, bot in enumerate(bots):
            bot.command(f"tp {bot.name} {i * 40} -60 0")
        first = snapshot(bots[0])
        print(f"first snapshot (starts the shared browser): {first.seconds:.2f} s, {len(first.png) // 1024} KB, "
              f"grey-level spread {first.stddev:.1f}")
        times = [snapshot(bots[0]).seconds for _ in range(args.shots)]
        print(f"{args.shots} more, browser up: median {statistics.median(times):.2f} s, "
              f"min {min(times):.2f}, max {max(times):.2f}")
        together: list[float] = []
        started = time.monotonic()
        threads = [threading.Thread(target=lambda b=b: together.append(snapshot(b).seconds)) for b in bots]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"{len(bots)} bots at once: all done in {time.monotonic() - started:.2f} s "
              f"(each {', '.join(f'{s:.2f}' for s in sorted(together))} s; they take turns on one browser)")
        print(f"load average: {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
        for bot in bots:
            bot.close()


if __name__ == "__main__":
    main()
