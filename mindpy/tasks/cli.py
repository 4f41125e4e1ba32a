"""`mindpy tasks ...`: show, validate, generate and convert task files. The main CLI calls `register(subparsers)`."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from ..userfiles import shown_name, visible_text


def _cmd_show(args) -> int:
    from .describe import describe_file, describe_task
    from .loader import read_task_file

    if args.id:
        report = read_task_file(args.file, check_names=not args.no_name_check, only=[args.id])
        _print_lines(report.warnings.get(args.id, []))
        _print_text(describe_task(report.task(args.id)))
        return 0
    report = read_task_file(args.file, check_names=not args.no_name_check)
    if report.file_problems:
        report.raise_for_problems()
    _print_lines(_first_lines(report.messages()))
    if args.all:
        _print_text("\n\n".join(describe_task(t) for t in report.tasks.values()))
    else:
        _print_text(describe_file(report.tasks, str(args.file), invalid=list(report.problems)))
    return 0


def _cmd_validate(args) -> int:
    from collections import Counter

    from .loader import read_task_file, task_paths
    from .schema import TaskFileError, counted

    totals: Counter[str] = Counter()
    for pattern in args.files:
        try:
            paths = task_paths(pattern)
        except TaskFileError as exc:
            _print_lines(exc.problems)
            totals.update(files=1, unread=1)
            continue
        for path in paths:
            report = read_task_file(path, check_names=not args.no_name_check)
            _print_lines(_first_lines(report.messages()))
            unsolvable = _unsolvable_lines(path, report.tasks.values())
            _print_lines(_first_lines(unsolvable, "unsolvable tasks"))
            _print_text(report.summary() + (f", {len(unsolvable)} unsolvable" if unsolvable else ""))
            totals.update(files=1, unread=int(bool(report.file_problems)), tasks=len(report.task_ids),
                          valid=len(report.tasks), invalid=len(report.problems), warnings=report.warning_count,
                          unsolvable=len(unsolvable))
    if totals["files"] > 1:
        unread = f" ({totals['unread']} not read)" if totals["unread"] else ""
        print(f"total: {totals['files']} files{unread}, {counted(totals['tasks'], 'task')}, {totals['valid']} valid, "
              f"{totals['invalid']} invalid, {counted(totals['warnings'], 'warning')}, "
              f"{totals['unsolvable']} unsolvable")
    return 1 if totals["invalid"] or totals["unread"] else 0


def _unsolvable_lines(path, tasks) -> list[str]:
    """One line for each valid task that cannot be solved as given (mindpy.tasks.solvable)."""
    from .solvable import unsolvable_reason

    lines = []
    for task in tasks:
        reason = unsolvable_reason(task)
        if reason:
            lines.append(f"{path}: task '{shown_name(task.id)}': unsolvable: {reason}")
    return lines


def _first_lines(lines: list[str], noun: str = "problems and warnings") -> list[str]:
    from .schema import first_lines

    return first_lines(lines, noun=noun)


def _print_lines(lines: list[str]) -> None:
    """Problems and warnings go to standard error, one a line (what a file holds shown visibly: see _print_text)."""
    for line in lines:
        print(visible_text(line), file=sys.stderr, flush=True)


def _print_text(text: str) -> None:
    """Text with ids, goals and names from a task file: its control and format characters are shown as escapes,
    so a file cannot clear the terminal, retitle it or turn a line around."""
    print("\n".join(visible_text(line) for line in text.split("\n")), flush=True)


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


def _cmd_convert(args) -> int:
    from .family import family_named, load_entry
    from .loader import dumps_tasks
    from .schema import Task, TaskFileError

    entry = family_named(args.family).convert_entry
    assert entry is not None  # the parser offers only families with a converter
    try:
        result = load_entry(entry)(args.src)
    except TaskFileError as exc:
        _print_lines(_first_lines(exc.problems))
        return 1
    problems, warnings = result.problem_lines(), result.warning_lines()
    _print_lines(_first_lines(problems + warnings))
    refused = len(result.refused)
    if not result.tasks or (refused and not args.skip_bad):
        also = "" if not result.tasks else " (--skip-bad writes the others)"
        print(f"mindpy: nothing written: {refused} of {refused + len(result.tasks)} tasks refused{also}",
              file=sys.stderr)
        return 1
    if refused:
        print(f"skipped {refused} of {refused + len(result.tasks)} tasks: "
              f"{', '.join(result.refused)}", file=sys.stderr)
    fmt = "yaml" if Path(args.out).suffix.lower() in (".yaml", ".yml") else "json"
    text = dumps_tasks({task_id: Task.from_dict(task_id, data) for task_id, data in result.tasks.items()}, fmt)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        from ..memory.state import atomic_write_text

        atomic_write_text(args.out, text)  # whole or not at all
        print(f"wrote {len(result.tasks)} {args.family} tasks to {args.out}", file=sys.stderr)
    return 0


def _cmd_families(args) -> int:
    from .family import families, family_source

    for family in families():
        names = ", ".join(dict.fromkeys(n for n in (family.file_type(), *family.aliases) if n != family.name))
        sizes = "/".join(str(n) for n in family.split_sizes.values()) or "-"
        print(f"{family.name:<13} {family.summary}")
        print(f"{'':<13} files say: {names or family.name}; splits (train/test): {sizes}; from "
              f"{family_source(family.name)}")
    return 0


def register(subparsers) -> None:
    """Add `tasks` with its sub-subcommands to the main CLI's subparsers."""
    from .family import families
    from .splits import SEEDS, generated_families, split_size

    tasks = subparsers.add_parser("tasks", help="show, validate, generate and convert MineCollab task files")
    sub = tasks.add_subparsers(dest="tasks_command", metavar="TASKS_COMMAND")
    sub.required = True

    show = sub.add_parser("show", help="describe a task file, or one task in it")
    show.add_argument("file", help="task file (.json, or .yaml/.yml)")
    show.add_argument("id", nargs="?", help="a task id: describe that task in full")
    show.add_argument("--all", action="store_true", help="describe every task in full")
    show.add_argument("--no-name-check", action="store_true",
                      help="do not check item and block names against minecraft-data")
    show.set_defaults(func=_cmd_show)

    validate = sub.add_parser("validate", help="check task files task by task; every problem and warning is listed",
                              description="Lists every problem and warning with its file and task id, then one "
                                          "line per file: tasks, valid, invalid, warnings. Exits 1 when a task is "
                                          "invalid or a file cannot be read.")
    validate.add_argument("files", nargs="+", metavar="FILE",
                          help="task files, folders (their .json/.yaml/.yml files, recursively) or globs")
    validate.add_argument("--no-name-check", action="store_true",
                          help="do not check item and block names against minecraft-data")
    validate.set_defaults(func=_cmd_validate)

    sizes = "; ".join(f"{f} {split_size(f, 'train')}/{split_size(f, 'test')}" for f in generated_families())
    generate = sub.add_parser(
        "generate", help="generate a train or test split (same seed, same bytes)",
        description=f"Default sizes (train/test): {sizes}. Default seeds: train {SEEDS['train']}, "
                    f"test {SEEDS['test']}.")
    generate.add_argument("family", choices=generated_families())
    generate.add_argument("--split", choices=("train", "test"), default="test")
    generate.add_argument("--seed", type=int, default=None, help="random seed (default: the split's standard seed)")
    generate.add_argument("--count", type=int, default=None, help="number of tasks (default: the paper's size)")
    generate.add_argument("--agents", default=None,
                          help="agent counts to draw from, e.g. '2-5' or '1,2' (crafting and cooking; "
                               "default 2-5)")
    generate.add_argument("--out", default=None, help="output file (.json or .yaml); default: standard output")
    generate.set_defaults(func=_cmd_generate)

    converters = {f.name: f.convert_source for f in families() if f.convert_entry}
    convert = sub.add_parser(
        "convert", help="convert another system's task file into a task file of a family",
        description="Sources: " + "; ".join(f"{f}: {text}" for f, text in converters.items()) + ". Each "
                    "refused task gets its problems, one a line, and nothing is written (exit 1) unless "
                    "--skip-bad is given; the converted tasks pass `mindpy tasks validate`.")
    convert.add_argument("family", choices=sorted(converters))
    convert.add_argument("src", metavar="SRC", help="the file to convert")
    convert.add_argument("-o", "--out", required=True, help="output task file (.json or .yaml; - for standard "
                                                            "output)")
    convert.add_argument("--skip-bad", action="store_true",
                         help="write the tasks that convert, and list those skipped, instead of writing nothing")
    convert.set_defaults(func=_cmd_convert)

    listed = sub.add_parser("families", help="list the task families: name, other names, splits, where from",
                            description="Every registered task family (mindpy's own and those other packages add "
                                        "through the mindpy.families entry point; docs/adding-a-family.md).")
    listed.set_defaults(func=_cmd_families)
