"""`mindpy probe build` makes a probe set from oracle episodes; `mindpy probe run FILE --model M [--trials N]
[--out DIR]` asks a model a probe set and writes the scores.

    mindpy probe build --tasks tasks/crafting_test.json --limit 10 --out probes.jsonl   # plays the episodes first
    mindpy probe build --runs runs/eval --out probes.jsonl                               # recorded episodes
    mindpy probe run tasks/probes_example.jsonl --model replay:answers.yaml --trials 3 --out runs/probes/demo
    mindpy probe import coordqa single_turn_trials.csv --out coordqa.jsonl    # LLM-Coordination's CoordQA sheet
    mindpy probe refresh old.jsonl --out probes.jsonl     # fair wrong options for probes built before they were
    mindpy probe run probes.jsonl --model feasible        # the feasibility-only answerer (mindpy.probes.feasible)

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


def _read_or_report(path: str, command: str):
    """The probes of `path`, each unreadable line reported as skipped; None (reported) when the file cannot be
    read at all."""
    try:
        loaded = read_probes(path)
    except ValueError as exc:
        print(f"mindpy probe {command}: {exc}", file=sys.stderr)
        return None
    for error in loaded.errors:
        print(f"skipped {error}", file=sys.stderr)
    return loaded


def _cmd_run(args: argparse.Namespace) -> int:
    if args.trials < 1:
        raise SystemExit(f"mindpy probe run: --trials must be at least 1, got {args.trials}")
    loaded = _read_or_report(args.file, "run")
    if loaded is None:
        return 1
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


def _cmd_build(args: argparse.Namespace) -> int:
    from .build import build_probes, recorded_runs
    from .record import CATEGORIES, write_probes

    if not args.runs and not args.tasks:
        print("mindpy probe build: give --tasks FILE... (oracle episodes are played) or --runs DIR... (recorded "
              "episodes)", file=sys.stderr)
        return 2
    folders = list(args.runs or [])
    if args.tasks:
        from ..harness.evaluate import Evaluation

        episodes = Path(args.episodes_dir)
        print(f"playing oracle episodes of {', '.join(args.tasks)} into {episodes}", flush=True)
        Evaluation(args.tasks, out=episodes, model="oracle", parallel=args.parallel, limit=args.limit).run()
        folders.append(str(episodes))
    runs = [r for r in recorded_runs(folders) if _succeeded(r)]
    if not runs:
        print(f"mindpy probe build: no successful recorded episode in {', '.join(folders)}", file=sys.stderr)
        return 1
    probes = build_probes(runs, per_category=args.per_category, seed=args.seed)
    write_probes(args.out, probes)
    counts = {c: sum(p.category == c for p in probes) for c in CATEGORIES}
    print(f"wrote {len(probes)} probes from {len(runs)} episodes to {args.out}: "
          + ", ".join(f"{c} {n}" for c, n in counts.items()))
    short = [c for c, n in counts.items() if args.per_category and n < args.per_category]
    if short:
        print(f"fewer than {args.per_category} for {', '.join(short)}: play more episodes (--limit)")
    return 0


def _cmd_refresh(args: argparse.Namespace) -> int:
    from .record import CATEGORIES, write_probes
    from .refresh import refresh_probes

    loaded = _read_or_report(args.file, "refresh")
    if loaded is None:
        return 1
    probes, dropped = refresh_probes(loaded.probes, seed=args.seed)
    header = [line for line in Path(args.file).read_text(encoding="utf-8-sig").splitlines() if line.startswith("#")]
    write_probes(args.out, probes)
    if header:  # the file's own comment lines (how it was made) stay on top
        Path(args.out).write_text("\n".join(header) + "\n" + Path(args.out).read_text(encoding="utf-8"),
                                  encoding="utf-8")
    counts = ", ".join(f"{c} {sum(p.category == c for p in probes)}" for c in CATEGORIES)
    print(f"wrote {len(probes)} probes to {args.out} ({counts}); dropped {len(dropped)} whose state gives too few "
          f"wrong options the actor can carry out" + (f": {', '.join(dropped)}" if dropped else ""))
    return 0


IMPORT_EPILOG = """\
coordqa: LLM-Coordination's CoordQA sheets (the 66 scenarios of its single_turn_trials.csv), one probe per
scenario and category (EC, TOM -> ToM, JP). Each question cell must end with lettered options ("A. ...") and its
"... Answer Ordinal" cell name the right letter(s); the game's description is kept as the probe's context and the
category's directive as its system message. The probes are scored by the paper's answer rule (matching
"coordqa").

A row that cannot give a probe is refused for that category and listed on stderr, one line naming the file, row
and category (a missing or empty cell, no options, an answer letter no option carries); the other probes are
written and the exit status is 0. With --strict any refused row writes nothing and exits 1. A file that is not
such a sheet (empty, not text, no question and ordinal columns) writes nothing and exits 1."""


def _cmd_import(args: argparse.Namespace) -> int:
    from .coordqa import CoordQAError, import_coordqa, summary
    from .record import write_probes

    try:
        result = import_coordqa(args.paths, game=args.game)
    except CoordQAError as exc:
        print(f"mindpy probe import: {exc}", file=sys.stderr)
        return 1
    for line in result.refused:
        print(f"refused {line}", file=sys.stderr)
    for line in result.duplicates:
        print(f"skipped {line}", file=sys.stderr)
    if args.strict and result.refused:
        print(f"mindpy probe import: {len(result.refused)} question(s) refused (--strict): nothing written",
              file=sys.stderr)
        return 1
    if not result.probes:
        print("mindpy probe import: no probe could be read: nothing written", file=sys.stderr)
        return 1
    write_probes(args.out, result.probes)
    print(f"read {result.rows} rows from {len(args.paths)} file(s); wrote {len(result.probes)} probes to {args.out}"
          f" ({len(result.refused)} refused, {len(result.duplicates)} repeated)")
    print(summary(result))
    return 0


def _succeeded(run_dir: Path) -> bool:
    """An episode the oracle finished: its choices are the answers."""
    from ..tasks.records import EpisodeResult

    return EpisodeResult.read(run_dir / "result.json").end_reason == "success"


def register(subparsers) -> None:
    """Add `probe` with its `run`, `build` and `import` subcommands to the main CLI's subparsers."""
    probe = subparsers.add_parser("probe", help="ask a model multiple-choice coordination probes and score it")
    sub = probe.add_subparsers(dest="probe_command", metavar="PROBE_COMMAND")
    sub.required = True
    run = sub.add_parser("run", help="ask every probe of a JSONL file and score the answers per category")
    run.add_argument("file", help="probe file (.jsonl, one probe per line)")
    run.add_argument("--model", required=True, help="model spec, e.g. gpt-4o-mini or replay:answers.yaml")
    run.add_argument("--trials", type=int, default=1, help="how many times to ask each question (default 1)")
    run.add_argument("--out", help="output folder (default runs/probes/<file>-<model>)")
    run.set_defaults(func=_cmd_run)
    build = sub.add_parser("build", help="make EC, ToM and JP probes from oracle episodes (played or recorded)")
    build.add_argument("--tasks", nargs="+", metavar="FILE", help="task files whose oracle episodes are played")
    build.add_argument("--runs", nargs="+", metavar="DIR", help="folders of recorded episodes (searched within)")
    build.add_argument("--out", required=True, help="the probe file to write (.jsonl)")
    build.add_argument("--limit", type=int, default=None, help="with --tasks: the first N tasks of each file")
    build.add_argument("--parallel", type=int, default=1, help="with --tasks: episodes played at once")
    build.add_argument("--episodes-dir", default="runs/probes/episodes",
                       help="with --tasks: where the episodes are written (rerunning resumes)")
    build.add_argument("--per-category", type=int, default=None, help="at most N probes per category")
    build.add_argument("--seed", type=int, default=0, help="the seed of option order and sampling")
    build.set_defaults(func=_cmd_build)
    refresh = sub.add_parser("refresh", help="draw again the wrong options of probes built before they were fair "
                             "(ones the actor can carry out), from each probe's state; right answers are kept")
    refresh.add_argument("file", help="probe file (.jsonl) made by `probe build`")
    refresh.add_argument("--out", required=True, help="the probe file to write (.jsonl; may be FILE)")
    refresh.add_argument("--seed", type=int, default=0, help="the seed of option choice and order")
    refresh.set_defaults(func=_cmd_refresh)
    imp = sub.add_parser("import", help="make probes from another benchmark's question files (coordqa)",
                         epilog=IMPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    imp.add_argument("format", choices=["coordqa"], help="the files' format")
    imp.add_argument("paths", nargs="+", metavar="PATH", help="the files to read (.csv)")
    imp.add_argument("--out", required=True, help="the probe file to write (.jsonl)")
    imp.add_argument("--game", default=None,
                     help="the game of rows without a 'Game' cell (default: the file's name)")
    imp.add_argument("--strict", action="store_true", help="write nothing (exit 1) when any row is refused")
    imp.set_defaults(func=_cmd_import)
