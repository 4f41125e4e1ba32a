"""`mindpy run --task FILE --task-id ID`, `mindpy eval FILE...`, `mindpy eval compare RUN_DIR...` and
`mindpy sft export RUN_DIR...`.
The main CLI calls `register(subparsers)` (`mindpy run` itself is declared in run.py)."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from ..errors import ConfigError
from ..server.versions import add_version_option
from ..userfiles import one_line
from .ablations import ablations_from_args, add_ablation_options
from .options import (
    DEFUSE_OPTIONS,
    ORDERS_OURS,
    EpisodeOptions,
    _positive_int,
    _positive_number,
    _price,
    _whole_number,
    add_budget_options,
    add_cache_options,
    add_method_options,
    add_round_options,
    add_team_option,
    budget_limits,
    cache_folder,
    check_model_option,
    is_dispatching_player,
    method_options,
    resolved_mc_version,
    round_options,
)

EXIT_INFRA = 3  # the episode could not be played (server, network, set-up): retried, never scored


def run_task_command(args) -> int:
    """`mindpy run --task FILE --task-id ID [--model M] [--server S]`: one episode; last line `score: X`."""
    from ..tasks.family import family_of
    from ..tasks.loader import read_task_file
    from .episode import run_episode
    from .evaluate import folder_name
    from .replay import write_episode_record
    from .session import EpisodeInfraError, refuse_unplayable

    if not args.task_id:
        print("mindpy run --task needs --task-id ID (see `mindpy tasks show FILE` for the ids)", file=sys.stderr)
        return 2
    options = (EpisodeOptions.from_json(args.options) if getattr(args, "options", None)
               else EpisodeOptions.from_args(args))
    options = replace(options, mc_version=resolved_mc_version(options.mc_version, options.server))  # asked once
    # the file's other tasks may be bad: not our task; its item names are checked in the version played
    report = read_task_file(args.task, only=[args.task_id], version=options.mc_version)
    for warning in report.warnings.get(args.task_id, []):
        print(warning, file=sys.stderr, flush=True)
    task = report.task(args.task_id)
    refuse_unplayable(task, args.task)
    if not is_dispatching_player(options.model, task):
        check_model_option(options.model)
    family = family_of(task)
    for option in (*DEFUSE_OPTIONS, *ORDERS_OURS):
        if options.profile_options.get(option) and option not in family.episode_options:
            print(f"--{option.replace('_', '-')} is for {option.split('_')[0] if option in ORDERS_OURS else 'defuse'}"
                  f" tasks; {task.id} ({family.name}) plays without it", file=sys.stderr)
    run_dir = Path(args.run_dir) if args.run_dir != "runs/run" else Path("runs") / folder_name(task.id)
    write_episode_record(run_dir, args.task, task.id, options)  # what --replay and --retry-errors read
    try:
        result = run_episode(task, run_dir, progress=lambda text: print(text, flush=True),
                             **options.episode_kwargs())
    except EpisodeInfraError as exc:
        print(f"infrastructure error (not scored): {exc}", file=sys.stderr, flush=True)
        return EXIT_INFRA
    if result["end_reason"] == "budget":
        print(f"Stopped: the model budget is spent (${result['budget']['usd']:.4f} of "
              f"${result['budget']['max_usd']:g}); the episode is cut off, not failed", flush=True)
    print(f"Results in {run_dir}", flush=True)
    print(f"score: {result['score']}", flush=True)
    return 0


COMPARE = "compare"  # `mindpy eval compare RUN_DIR...`: the first word of the files is the subcommand
DEFAULT_EVAL_OUT = "runs/eval"
DEFAULT_COMPARE_OUT = "runs/compare.png"


def _cmd_eval(args, parser=None) -> int:
    import signal

    from .team import parse_team

    if args.files and args.files[0] == COMPARE:
        return _cmd_eval_compare(args, parser)
    if args.retry_errors:
        _refuse_settings_beside_retry_errors(args, parser)
    if not args.files and not args.retry_errors:
        raise ConfigError("mindpy eval needs task files (or --retry-errors OUT)")
    args.out = args.retry_errors or args.out or DEFAULT_EVAL_OUT

    def on_terminate(signum, frame):  # `kill PID` stops the episodes too, as Ctrl-C does
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_terminate)
    team = parse_team(args.team)
    if not args.retry_errors:  # a rerun plays the version OUT recorded
        args.mc_version = _eval_version(args)
    args.runner = _episode_runner(args)
    if args.retry_errors:
        evaluation = _errored_evaluation(args)
        if evaluation is None:
            print(f"no episode of {args.out} ended in an infrastructure error: nothing to play again")
            return 0
        model, team = evaluation.model, evaluation.team
    else:
        model = args.model
    if args.runner is None:  # episode processes of this machine share a local model's server
        _serve_local_models([model, *team.values(), *(args.pairings or "").split(",")])
    if args.pairings:
        return _cmd_eval_pairings(args, team)
    if not args.retry_errors:
        evaluation = _evaluation(args, Path(args.out), args.model, team)
    try:
        summary = evaluation.run()
    except KeyboardInterrupt:
        print(f"Stopped. Rerun the same command to play what is missing (results so far: "
              f"{Path(args.out) / 'results.csv'}).")
        return 130
    print(f"Results: {Path(args.out) / 'results.csv'}, {Path(args.out) / 'summary.json'}, "
          f"{Path(args.out) / 'summary.png'}")
    skipped = sum(summary["skipped"].values())
    budget = summary["budget"]
    print(f"success rate {summary['success_rate']:.2%} over {summary['episodes']} episodes "
          f"({summary['errors']} infrastructure errors, {skipped} tasks skipped)")
    if budget["max_usd"] is not None:
        print(f"models spent ${budget['spent_usd']:.4f} of ${budget['max_usd']:g}: {budget['ended']} episodes cut "
              f"off and {len(budget['not_played'])} not played for the budget (not failures; a rerun plays them)")
    return 0 if summary["errors"] == 0 and (summary["episodes"] or budget["not_played"]) else 1


def _eval_version(args) -> str:
    """The one Minecraft version of every episode (`auto`: each --servers server's own, which must agree)."""
    servers = args.servers.split(",") if args.servers else ["embedded"]
    versions = {server: resolved_mc_version(args.mc_version, server) for server in dict.fromkeys(servers)}
    if len(set(versions.values())) > 1:
        shown = ", ".join(f"{server} runs {version}" for server, version in versions.items())
        raise ConfigError(f"--servers run different Minecraft versions ({shown}): give servers of one version")
    return next(iter(versions.values()))


RETRY_ERRORS_TAKES = ("retry_errors", "parallel", "retries", "servers", "ray")  # the rest is OUT's own


def _refuse_settings_beside_retry_errors(args, parser) -> None:
    """--retry-errors OUT plays with OUT's recorded files and options: anything else given beside it is refused
    (it would be ignored), except where and how often episodes are played."""
    given = sorted(["files"] if args.files else [])
    if parser is not None:
        defaults = vars(parser.parse_args(["--retry-errors", "OUT"]))
        given += sorted(name for name, value in vars(args).items() if name in defaults and name != "files"
                        and name not in (*RETRY_ERRORS_TAKES, "func") and defaults[name] != value)
    if given:
        shown = ", ".join("task files" if name == "files" else "--" + name.replace("_", "-") for name in given)
        raise ConfigError(f"mindpy eval --retry-errors OUT plays OUT's episodes with OUT's recorded settings; leave "
                          f"out {shown} (it takes --parallel, --retries, --servers and --ray)")


def _errored_evaluation(args):
    """The Evaluation that plays the errored episodes of --retry-errors OUT again, with OUT's recorded settings
    (--parallel, --retries, --servers and --ray as given now)."""
    from .rerun import errored_evaluation

    runner = getattr(args, "runner", None)
    parallel = args.parallel if args.parallel is not None else (None if runner is not None else 1)
    return errored_evaluation(Path(args.out), parallel=parallel, runner=runner, retries=args.retries,
                              servers=args.servers.split(",") if args.servers else None)


def _serve_local_models(specs: list) -> None:
    """Start the servers of the `local:` models among `specs` in this process, so the episode processes it starts
    share them through the environment (each would otherwise load the model for itself)."""
    from ..models import parse_model_spec
    from ..models.local_server import model_folder, served_url

    for spec in {str(s): s for s in specs if s}.values():
        try:
            parsed = parse_model_spec(spec)
        except ValueError:
            continue  # refused, in one line, where the run checks its models
        if parsed.api == "local":
            folder = model_folder(parsed.model)
            print(f"serving {folder} with `transformers serve` for every episode ...", flush=True)
            print(f"  at {served_url(folder)}", flush=True)


def _evaluation(args, out: Path, model: str | None, team: dict):
    """The Evaluation the eval arguments ask for, into `out`, with `model` and `team`."""
    from .evaluate import Evaluation

    runner = getattr(args, "runner", None)
    # --parallel left out: one at a time here, as many as a Ray cluster has CPUs for
    parallel = args.parallel if args.parallel is not None else (None if runner is not None else 1)
    return Evaluation(args.files, out=out, model=model, parallel=parallel,
                      servers=args.servers.split(",") if args.servers else None, ids=args.task_id or None,
                      limit=args.limit, usd_per_mtok=args.usd_per_mtok or 0.0, trials=args.trials,
                      rounds=round_options(args), profile_options=method_options(args), budget=budget_limits(args),
                      team=team, runner=runner, ablations=ablations_from_args(args), cache=cache_folder(args),
                      mc_version=getattr(args, "mc_version", None),
                      **({} if args.retries is None else {"retries": args.retries}))


def _episode_runner(args):
    """The RayRunner `--ray ADDRESS` asks for, or None (episodes are played on this machine)."""
    if args.ray is None:
        return None
    from .ray_runner import RayRunner

    address = args.ray.strip()
    if not address:
        raise ConfigError("--ray needs 'auto' or HOST:PORT of the Ray cluster's head node")
    runner = RayRunner(address)
    runner.connect()  # before the episodes are planned: a wrong address costs nothing
    return runner


def _cmd_eval_pairings(args, team: dict) -> int:
    """`mindpy eval FILES --pairings A,B,...`: one evaluation per ordered pair of models (agent 0 plays the first,
    the others the second) in OUT/pair_A__B, then the cross-play matrix in OUT/summary.json and cross_play.png."""
    from .team import matrix_table, pairing_folder, pairings, write_cross_play

    models = [m.strip() for m in args.pairings.split(",") if m.strip()]
    if len(models) < 2 or len(set(models)) != len(models):
        raise ConfigError(f"--pairings {args.pairings!r}: give two or more different models, comma-separated")
    if team or args.model:
        raise ConfigError("--pairings sets every agent's model: leave out --model and --team")
    out = Path(args.out)
    summaries = {}
    for first, second in pairings(models):
        print(f"pairing: agent 0 plays {first}, the others {second}", flush=True)
        evaluation = _evaluation(args, out / pairing_folder(first, second), second, {"0": first})
        try:
            summaries[(first, second)] = evaluation.run()
        except KeyboardInterrupt:
            print("Stopped. Rerun the same command to play what is missing.")
            return 130
    summary = write_cross_play(out, models, summaries)
    print(matrix_table(summary["cross_play"], models))
    print(f"Results: {out / 'summary.json'}, {out / 'cross_play.png'} (each pairing in {out}/pair_*)")
    return 0 if all(s["errors"] == 0 for s in summaries.values()) else 1


def _cmd_eval_compare(args, parser) -> int:
    """`mindpy eval compare RUN_DIR... [--out FILE.png]`; the options that play episodes are refused."""
    from .compare import compare_runs

    if parser is not None:
        defaults = vars(parser.parse_args([COMPARE]))
        given = sorted(name for name, value in vars(args).items()
                       if name in defaults and name not in ("files", "out", "func") and defaults[name] != value)
        if given:
            parser.error(f"mindpy eval compare takes RUN_DIR... and --out FILE.png only, not "
                         f"{', '.join('--' + name.replace('_', '-') for name in given)}")
    if len(args.files) < 2:
        raise ConfigError("mindpy eval compare needs at least one RUN_DIR (the --out folders of `mindpy eval` runs)")
    out = Path(args.out or DEFAULT_COMPARE_OUT)
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ConfigError(f"mindpy eval compare --out {one_line(str(out), 80)}: the chart is written as .png, .svg "
                          f"or .pdf; give a file name with one of those endings")
    return compare_runs(args.files[1:], out)


def _cmd_sft_export(args) -> int:
    from .sft import export_sft

    started = time.monotonic()
    counts = export_sft(args.run_dirs, args.out, families=args.families.split(",") if args.families else None,
                        exclude_failed_commands=args.exclude_failed, kinds=args.kinds.split(","),
                        prompt=args.prompt)
    print(f"{'family':<14}{'episodes':>10}{'examples':>10}{'tokens':>12}")
    for family, c in counts["by_family"].items():
        print(f"{family:<14}{c['episodes']:>10}{c['examples']:>10}{c['tokens']:>12}")
    print(f"{'total':<14}{counts['episodes']:>10}{counts['examples']:>10}{counts['tokens']:>12}")
    print(f"Wrote {args.out} in {time.monotonic() - started:.1f} s "
          f"({counts['skipped_episodes']} episodes left out: failed or below the construction cut)")
    if counts["not_converted"]:
        print(f"{counts['not_converted']} calls left out: their prompt cannot be written as the {args.prompt} one")
    return 0


def _cmd_sft_train(args) -> int:
    from ..training.trainer import TrainOptions, train_model

    options = TrainOptions(base=args.base, epochs=args.epochs, learning_rate=args.lr, batch_size=args.batch_size,
                           grad_accum=args.grad_accum, max_length=args.max_length, lora_rank=args.lora,
                           max_steps=args.max_steps, limit=args.limit, seed=args.seed, save_steps=args.save_steps)
    report = train_model(args.data, args.out, options, say=lambda line: print(line, flush=True))
    print(f"Trained {report['steps']} steps on {report['pairs']} pairs in {report['wall_s'] / 60:.1f} min "
          f"(loss {report['loss_first']:.3f} -> {report['loss_last']:.3f}); the model is in {args.out}: "
          f"play it with --model local:{args.out} --prompt compact")
    return 0


def register(sub) -> None:
    """Add the `eval` subcommand (play a suite of task files, or `eval compare` finished runs) to `sub`."""
    from functools import partial

    ev = sub.add_parser("eval", help="play a suite of tasks and write results.csv, summary.json and a chart",
                        epilog=f"mindpy eval {COMPARE} RUN_DIR RUN_DIR... [--out FILE.png]: print finished runs side "
                               f"by side (success overall and by breakdown, tokens, cost, episodes, errors) and "
                               f"chart them (default {DEFAULT_COMPARE_OUT}); a task file named '{COMPARE}' is "
                               f"given as ./{COMPARE}")
    ev.add_argument("files", nargs="*", metavar="FILE",
                    help="task files (JSON or YAML), folders (their .json/.yaml/.yml files, recursively) or globs; "
                         "invalid tasks are skipped and listed in summary.json")
    ev.add_argument("--model", default=None, help="model for every agent (default: the oracle without an API key)")
    ev.add_argument("--parallel", type=_positive_int, default=None,
                    help="episodes at once, each with its own server (default 1; with --ray, the cluster's CPUs)")
    ev.add_argument("--ray", default=None, metavar="auto|HOST:PORT",
                    help="play each episode as a task on a Ray cluster (`ray start --head`; 'auto': the one on this "
                         "machine); the results land in --out as without it. Needs pip install 'mindpy[ray]'")
    ev.add_argument("--out", default=None, help=f"output folder (default {DEFAULT_EVAL_OUT}); rerun to resume "
                                                f"(with {COMPARE}: the chart file)")
    ev.add_argument("--servers", default=None, help="HOST:PORT,HOST:PORT... of external servers, one per slot "
                                                    "(default: an embedded server per episode)")
    ev.add_argument("--task-id", action="append", default=[], help="only these task ids (repeatable)")
    ev.add_argument("--limit", type=_positive_int, default=None, help="only the first N valid tasks of each file")
    ev.add_argument("--trials", type=_positive_int, default=None,
                    help="episodes per task (default: the task's paper's, 1 except orders: 3)")
    ev.add_argument("--usd-per-mtok", type=_price, default=None,
                    help="price per million tokens, for the cost column and the budget's dollars")
    add_budget_options(ev, usd_per_mtok=False)
    add_cache_options(ev)
    ev.add_argument("--retries", type=_whole_number, default=None, metavar="N",
                    help="play an episode that failed for infrastructure reasons (server, network, model endpoint) "
                         "up to N more times before it is reported as an error (default 1)")
    ev.add_argument("--retry-errors", default=None, metavar="OUT",
                    help="play again only the episodes of the evaluation in OUT that ended in an infrastructure "
                         "error, with the task files and settings OUT recorded; results.csv and summary.json are "
                         "written again")
    add_version_option(ev)
    add_round_options(ev)
    add_method_options(ev)
    add_ablation_options(ev)
    add_team_option(ev)
    ev.add_argument("--pairings", default=None, metavar="A,B,...",
                    help="cross-play: every ordered pair of these models (agent 0 plays the first, the others the "
                         "second), each in OUT/pair_A__B, with the matrix in OUT/summary.json and cross_play.png")
    ev.set_defaults(func=partial(_cmd_eval, parser=ev))

    sft = sub.add_parser("sft", help="fine-tuning data from successful runs, and training on it")
    sft_sub = sft.add_subparsers(dest="sft_command", metavar="COMMAND")
    sft_sub.required = True
    export = sft_sub.add_parser("export", help="write the model calls of successful episodes as chat JSONL")
    export.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="eval output folders or episode folders")
    export.add_argument("--out", required=True, metavar="FILE.jsonl")
    export.add_argument("--families", default=None, help="crafting,cooking,construction (default: all)")
    export.add_argument("--exclude-failed", action="store_true", help="leave out calls whose command failed")
    export.add_argument("--kinds", default="conversing,coding",
                        help="which prompts' calls: conversing,coding,saving_memory,bot_responder")
    export.add_argument("--prompt", default="as-played", choices=["as-played", "full", "compact"],
                        help="write the calls in this prompt: as the agents saw them, or the compact one a tuned "
                             "model is served with (full-prompt episodes are converted)")
    export.set_defaults(func=_cmd_sft_export)
    train = sft_sub.add_parser("train", help="fine-tune a model on an export (TRL; CPU, or a GPU when there is one)")
    train.add_argument("data", metavar="DATA.jsonl", help="what `mindpy sft export` wrote")
    train.add_argument("--out", required=True, metavar="DIR",
                       help="the model folder to write (rerun with the same DIR to resume)")
    train.add_argument("--base", default="smollm2-135m",
                       help="the model to start from: smollm2-135m (shipped by a package) or a model folder")
    train.add_argument("--epochs", type=_positive_number, default=2.0, help="passes over the data (default 2)")
    train.add_argument("--lr", type=_positive_number, default=None,
                       help="learning rate (default 5e-5, with --lora 2e-4)")
    train.add_argument("--batch-size", type=_positive_int, default=1,
                       help="pairs per forward pass (default 1: no padding, the fastest on a CPU)")
    train.add_argument("--grad-accum", type=_positive_int, default=8, help="forward passes per step (default 8)")
    train.add_argument("--max-length", type=_positive_int, default=1024,
                       help="tokens per pair; longer prompts lose their oldest turns (default 1024)")
    train.add_argument("--lora", type=_positive_int, default=0, metavar="RANK",
                       help="train LoRA adapters of this rank (1 or more) and merge them (default: full fine-tuning)")
    train.add_argument("--max-steps", type=_positive_int, default=-1,
                       help="stop after this many steps (default: none, the epochs decide)")
    train.add_argument("--limit", type=_positive_int, default=None, help="use only the first N pairs")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--save-steps", type=_positive_int, default=25,
                       help="keep a checkpoint every N steps, to resume from (default 25)")
    train.set_defaults(func=_cmd_sft_train)
