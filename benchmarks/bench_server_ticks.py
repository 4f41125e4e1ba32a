"""Server tick rate under load: 10 bots connected and 50 animals wandering.

Prints the tick rate the server reports (/mindpy_tps), its event-loop lag, and the server process's share of
one CPU over the measurement window. Asserts nothing.
    .venv/bin/python benchmarks/bench_server_ticks.py [--bots 10] [--animals 50] [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import threading
import time

from mindpy.bridge import create_bots
from mindpy.server import EmbeddedServer


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ask_tps(bot) -> str:
    answer = []
    done = threading.Event()

    def listen(message, *rest):
        if "TPS" in message:
            answer.append(message)
            done.set()

    bot.on("messagestr", listen)
    bot.chat("/mindpy_tps")
    done.wait(10)
    bot.off("messagestr", listen)
    return answer[0] if answer else "(no answer)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=10)
    parser.add_argument("--animals", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as run_dir, EmbeddedServer(run_dir=run_dir, options={"maxEntities": 500}) as server:
        bots = create_bots([f"load{i}" for i in range(args.bots)], server.host, server.port)
        kinds = ["cow", "sheep", "pig", "chicken", "rabbit"]
        for i in range(args.animals):
            bots[0].chat(f"/summon {kinds[i % len(kinds)]} {10 + (i % 10) * 2} -60 {10 + (i // 10) * 2}")
        time.sleep(3)
        print(f"idle warm-up: {ask_tps(bots[0])}")
        pid = server.process.pid
        cpu0, wall0 = cpu_seconds(pid), time.monotonic()
        time.sleep(args.seconds)
        cpu1, wall1 = cpu_seconds(pid), time.monotonic()
        report = ask_tps(bots[0])
        tps = re.search(r"TPS ([\d.]+)", report)
        print(f"{args.bots} bots, {args.animals} animals, {args.seconds:.0f} s:")
        print(f"  server tick rate: {tps.group(1) if tps else '?'} ticks/s (target 20)   [{report}]")
        print(f"  server CPU share: {100 * (cpu1 - cpu0) / (wall1 - wall0):.1f}% of one core "
              f"({os.cpu_count()} cores on this machine)")
        for bot in bots:
            bot.close()


if __name__ == "__main__":
    main()
