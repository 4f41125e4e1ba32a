"""The oracle on construction tasks, built by hand (the paper's setting) and with building assistance (`--cheat`),
in one run: success, mean blueprint score and minutes per episode by rooms level, and every failure with its end
reason and the blocks its check still lists.

    python benchmarks/bench_construction_oracle.py                         # tasks/construction_test.json, all 30
    python benchmarks/bench_construction_oracle.py FILE --limit 6 --parallel 2 --out runs/bench_construction

Each setting is one `mindpy eval` with its own output folder under --out, so a rerun resumes where it stopped.
Timeouts are the task files' own (the splits give the paper's: 10 minutes plus 5 per room level).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

from mindpy.harness.evaluate import read_results

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"by hand": [], "cheat": ["--cheat"]}


def rooms_of(task_id: str) -> str:
    """The rooms level a MineCollab construction id names ("materials_1_rooms_2_..." -> "2"), else "?"."""
    found = re.search(r"rooms_(\d+)", task_id)
    return found.group(1) if found else "?"


def play(files: list[str], out: Path, flags: list[str], limit: int | None, parallel: int) -> list[dict]:
    """One `mindpy eval` with the oracle; its results.csv rows."""
    cmd = [sys.executable, "-m", "mindpy.cli", "eval", *files, "--model", "oracle", "--out", str(out),
           "--parallel", str(parallel), *flags, *(["--limit", str(limit)] if limit else [])]
    print("$ " + " ".join(cmd[2:]), flush=True)
    subprocess.run(cmd, check=False, cwd=ROOT)
    return [{**row, "success": row["success"] == "True"} for row in read_results(out / "results.csv")]


def last_check(run_dir: Path) -> str:
    """The newest blueprint check any agent of the episode was shown (its model calls' system turns)."""
    newest, text = float("-inf"), ""
    for calls in sorted((run_dir / "calls").glob("*.jsonl")):
        for line in calls.read_text(errors="replace").splitlines():
            try:
                call = json.loads(line)
            except ValueError:
                continue
            for message in call.get("messages", []):
                content = str(message.get("content", ""))
                when = float(call.get("time") or 0)
                if message.get("role") == "system" and "requires the following fixes" in content and when >= newest:
                    newest, text = when, content
    return text


def missing_blocks(row: dict) -> str:
    """What the episode's last blueprint check left, level by level ("level 1: 2 oak_door; level 8: 9 sandstone")."""
    levels = re.split(r"Level (\d+) requires the following fixes:", last_check(Path(row["run_dir"])))
    parts = []
    for level, fixes in zip(levels[1::2], levels[2::2], strict=True):
        blocks = re.findall(r"(?:Place|with an?) (\w+) at coordinates", fixes)
        removals = len(re.findall(r"^Remove ", fixes, re.M))
        kinds = ", ".join(f"{n} {b}" for b, n in sorted(Counter(blocks).items()))
        parts.append(f"level {level}: {kinds}{', ' if kinds and removals else ''}"
                     f"{f'{removals} to remove' if removals else ''}")
    return "; ".join(parts)


def table(name: str, rows: list[dict]) -> None:
    by_rooms: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_rooms[rooms_of(row["task_id"])].append(row)
    print(f"\n{name}: {len(rows)} episodes")
    print(f"{'rooms':>5} {'episodes':>8} {'success':>8} {'mean score':>10} {'minutes':>8}")
    for rooms in sorted(by_rooms):
        group = by_rooms[rooms]
        wins = sum(r["success"] for r in group)
        score = statistics.mean(float(r["score"] or 0) for r in group)
        minutes = statistics.mean(float(r["duration_s"] or 0) for r in group) / 60
        print(f"{rooms:>5} {len(group):>8} {wins:>4}/{len(group):<3} {score:>10.3f} {minutes:>8.1f}")
    for row in rows:
        if not row["success"]:
            print(f"  failed: {row['task_id']} ({row['end_reason']}, score {float(row['score'] or 0):.3f}) "
                  f"{missing_blocks(row)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", default=[str(ROOT / "tasks" / "construction_test.json")])
    parser.add_argument("--limit", type=int, default=None, help="the first N tasks of each file")
    parser.add_argument("--parallel", type=int, default=1, help="episodes at once")
    parser.add_argument("--out", default=str(ROOT / "runs" / "bench_construction_oracle"))
    parser.add_argument("--only", choices=sorted(SETTINGS), help="one setting instead of both")
    args = parser.parse_args()
    results = {}
    for name, flags in SETTINGS.items():
        if args.only and name != args.only:
            continue
        results[name] = play(args.files, Path(args.out) / name.replace(" ", "_"), flags, args.limit, args.parallel)
    for name, rows in results.items():
        table(name, rows)
    print(json.dumps({name: sum(r["success"] for r in rows) for name, rows in results.items()}))


if __name__ == "__main__":
    main()
