"""`mindpy probe run FILE --model M [--trials N] [--out DIR]`: ask a model a probe set and write the scores.

    mindpy probe run tasks/probes_example.jsonl --model replay:answers.yaml --trials 3 --out runs/probes/demo

Prints the table (accuracy per category, mean ± std over trials, beside random guessing) and writes report.json,
report.txt and, when matplotlib is installed, report.png. Malformed lines of FILE are listed and skipped.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..models import create_model
from .record import read_probes
from .run import format_table, run_probes, write_report


def default_out(file: str, model: str) -> Path:
    """runs/probes/<file stem>-<model>, the model name made safe for a folder name."""
    return Path("runs") / "probes" / f"{Path(file).stem}-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}"


def _cmd_run(args: argparse.Namespace) -> int:
    if args.trials < 1:
        raise SystemExit(f"mindpy probe run: --trials must be at least 1, got {args.trials}")
    try:
        loaded = read_probes(args.file)
    except ValueError as exc:
        print(f"mindpy probe run: {exc}", file=sys.stderr)
        return 1
    for error in loaded.errors:
        print(f"skipped {error}", file=sys.stderr)
    if not loaded.probes:
        print(f"mindpy probe run: {args.file} has no usable probes", file=sys.stderr)
        return 1
    try:
        model = create_model(args.model)
    except ValueError as exc:  # a spec that does not parse (a missing key is a ModelError, reported by the CLI)
        print(f"mindpy probe run: --model: {exc}", file=sys.stderr)
        return 1
    try:
        report = run_probes(loaded.probes, model, trials=args.trials)
    finally:
        model.close()
    report.source, report.skipped_lines = str(args.file), loaded.errors
    written = write_report(report, args.out or default_out(args.file, args.model))
    print(format_table(report))
    print("wrote " + ", ".join(str(p) for p in written))
    if not any(p.suffix == ".png" for p in written):
        print("(no chart: matplotlib is not installed)")
    return 0


def register(subparsers) -> None:
    """Add `probe` with its `run` subcommand to the main CLI's subparsers."""
    probe = subparsers.add_parser("probe", help="ask a model multiple-choice coordination probes and score it")
    sub = probe.add_subparsers(dest="probe_command", metavar="PROBE_COMMAND")
    sub.required = True
    run = sub.add_parser("run", help="ask every probe of a JSONL file and score the answers per category")
    run.add_argument("file", help="probe file (.jsonl, one probe per line)")
    run.add_argument("--model", required=True, help="model spec, e.g. gpt-4o-mini or replay:answers.yaml")
    run.add_argument("--trials", type=int, default=1, help="how many times to ask each question (default 1)")
    run.add_argument("--out", help="output folder (default runs/probes/<file>-<model>)")
    run.set_defaults(func=_cmd_run)
