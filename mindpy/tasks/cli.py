"""`mindpy tasks ...`: show, validate and generate task files. The main CLI calls `register(subparsers)`."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def _cmd_show(args) -> int:
    from .describe import describe_file, describe_task
    from .loader import load_tasks
    from .schema import TaskFileError

    tasks = load_tasks(args.file, check_names=not args.no_name_check)
    if args.id:
        if args.id not in tasks:
            import difflib

            close = difflib.get_close_matches(args.id, list(tasks), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise TaskFileError([f"{args.file}: no task '{args.id}'{hint}"])
        print(describe_task(tasks[args.id]))
    elif args.all:
        print("\n\n".join(describe_task(t) for t in tasks.values()))
    else:
        print(describe_file(tasks, str(args.file)))
    return 0


def _cmd_validate(args) -> int:
    from .loader import load_tasks
    from .schema import TaskFileError

    failed = 0
    for path in args.files:
        try:
            tasks = load_tasks(path, check_names=not args.no_name_check)
        except TaskFileError as exc:
            failed += 1
            print(str(exc), file=sys.stderr)
        else:
            print(f"{path}: {len(tasks)} tasks, all valid")
    return 1 if failed else 0


def _cmd_generate(args) -> int:
    from .loader import dumps_tasks
    from .splits import generate

    fmt = "yaml" if args.out and Path(args.out).suffix.lower() in (".yaml", ".yml") else "json"
    try:
        tasks = generate(args.family, args.split, args.seed, args.count, args.agents)
    except ValueError as exc:
        print(f"mindpy: error: {exc}", file=sys.stderr)
        return 2
    text = dumps_tasks(tasks, fmt)
    digest = hashlib.sha256(text.encode()).hexdigest()
    if args.out and args.out != "-":
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {len(tasks)} {args.family} {args.split} tasks to {out} (sha256 {digest})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def register(subparsers) -> None:
    """Add `tasks` with its sub-subcommands to the main CLI's subparsers."""
    from .splits import FAMILIES, SEEDS, SIZES

    tasks = subparsers.add_parser("tasks", help="show, validate and generate MineCollab task files")
    sub = tasks.add_subparsers(dest="tasks_command", metavar="TASKS_COMMAND")
    sub.required = True

    show = sub.add_parser("show", help="describe a task file, or one task in it")
    show.add_argument("file", help="task file (.json, or .yaml/.yml)")
    show.add_argument("id", nargs="?", help="a task id: describe that task in full")
    show.add_argument("--all", action="store_true", help="describe every task in full")
    show.add_argument("--no-name-check", action="store_true",
                      help="do not check item and block names against minecraft-data")
    show.set_defaults(func=_cmd_show)

    validate = sub.add_parser("validate", help="check task files; every problem is listed")
    validate.add_argument("files", nargs="+", help="task files")
    validate.add_argument("--no-name-check", action="store_true",
                          help="do not check item and block names against minecraft-data")
    validate.set_defaults(func=_cmd_validate)

    sizes = "; ".join(f"{f} {SIZES[f]['train']}/{SIZES[f]['test']}" for f in FAMILIES)
    generate = sub.add_parser(
        "generate", help="generate a train or test split (same seed, same bytes)",
        description=f"Default sizes (train/test): {sizes}. Default seeds: train {SEEDS['train']}, "
                    f"test {SEEDS['test']}.")
    generate.add_argument("family", choices=FAMILIES)
    generate.add_argument("--split", choices=("train", "test"), default="test")
    generate.add_argument("--seed", type=int, default=None, help="random seed (default: the split's standard seed)")
    generate.add_argument("--count", type=int, default=None, help="number of tasks (default: the paper's size)")
    generate.add_argument("--agents", default=None,
                          help="agent counts to draw from, e.g. '2-5' or '1,2' (crafting and cooking; "
                               "default 2-5)")
    generate.add_argument("--out", default=None, help="output file (.json or .yaml); default: standard output")
    generate.set_defaults(func=_cmd_generate)
