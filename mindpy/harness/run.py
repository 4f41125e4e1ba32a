"""`mindpy run --profile profiles/andy.yaml [--profile ...] [--server embedded|HOST:PORT]`: start bots and keep
them playing until Ctrl-C. The main CLI calls `register(subparsers)`.

With --max-usd / --max-rpm / --max-tpm (or the settings' `budget`) every bot's models (its chat model and a
profile's code_model and vision_model) go through one shared budget (mindpy.models.budget); once the dollars are
spent the run stops and prints the spend."""

from __future__ import annotations

import contextlib
import signal
import sys
from pathlib import Path


def _cmd_run(args) -> int:
    if getattr(args, "replay", None):
        if getattr(args, "task", None) or args.profile:
            print("mindpy run --replay RUN_DIR plays that episode's own task: leave out --task and --profile",
                  file=sys.stderr)
            return 2
        from .replay import replay_command

        return replay_command(args)
    if getattr(args, "task", None) and getattr(args, "processes", None) not in (None, 1):
        print("mindpy run: --processes is for runs from profiles (--profile); a task plays in one process",
              file=sys.stderr)
        return 2
    if getattr(args, "task", None) and getattr(args, "world", None):
        print("mindpy run: --world is for free play; a task plays in its own flat world", file=sys.stderr)
        return 2
    if getattr(args, "task", None):
        from .cli import run_task_command  # the task harness (mindpy run --task)

        return run_task_command(args)
    if not args.profile:
        print("mindpy run: give at least one --profile FILE (or --task FILE --task-id ID)", file=sys.stderr)
        return 2
    if args.team:
        print("mindpy run: --team is for tasks (--task); a profile names its own model", file=sys.stderr)
        return 2
    if args.processes is not None and args.processes < 1:
        print(f"mindpy run: --processes must be at least 1, got {args.processes}", file=sys.stderr)
        return 2
    from ..agent.processes import ProcessRunner, share_limits
    from ..agent.runner import REJOIN_WAITS_S, AgentRunner, ConsoleLog
    from ..models.budget import release_budget, shared_budget
    from ..profiles import load_profile
    from ..server.address import parse_server
    from ..settings import load_settings
    from .cli import budget_limits
    from .options import cache_folder

    overrides: dict = {"profiles": list(args.profile)}
    if cache_folder(args):
        overrides["response_cache"] = cache_folder(args)
    if getattr(args, "mc_version", None):  # the flag wins over the settings file and MINDPY_MINECRAFT_VERSION
        overrides["minecraft_version"] = args.mc_version
    settings = load_settings(args.settings, None, **overrides)
    profiles = [load_profile(p, settings=settings) for p in args.profile]
    limits = budget_limits(args, settings.budget)
    address = parse_server(args.server)
    problem = refusal_before_start(profiles, settings, address)
    if problem:
        print(f"mindpy run: {problem}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        if address is None:
            from ..server import EmbeddedServer
            from ..server.worlds import world_choice, world_summary

            world, folder = world_choice(getattr(args, "world", None) or "normal")  # free play: generated unless told
            server = stack.enter_context(EmbeddedServer(run_dir=Path(args.run_dir) / "server",
                                                        version=settings.minecraft_version, world=world,
                                                        world_folder=folder, seed=args.seed or None))
            host, port = "127.0.0.1", server.address.port
            print(f"Embedded server on {host}:{port}, {world_summary(server)} (join with a Minecraft "
                  f"{settings.minecraft_version} client; log: {server.log_path})", flush=True)
        else:
            host, port = address.host, address.port
        processes = args.processes or settings.processes
        # one budget for all the bots of this process (with --processes, this process's share of it)
        budget = shared_budget(args.run_dir, share_limits(limits, min(processes, len(profiles))))
        stack.callback(release_budget, args.run_dir)
        def budgeted(name: str, model, role: str = "chat"):  # every model of every bot: chat, code and vision
            return budget.wrap(model)

        runner: AgentRunner | ProcessRunner
        if processes > 1:  # the agents spread over worker processes (mindpy.agent.processes)
            runner = stack.enter_context(ProcessRunner(settings, profiles, host, port, processes=processes,
                                                       console=ConsoleLog(), budget_limits=limits,
                                                       wrap_model=budgeted))
            runner.on_budget_exceeded.append(runner.stop)
        else:
            runner = stack.enter_context(AgentRunner(settings, profiles, host, port, console=ConsoleLog(),
                                                     wrap_model=budgeted, rejoin_waits=REJOIN_WAITS_S))
        budget.on_exceeded.append(lambda exc: runner.stop())  # no bot can think any more: the run is over
        signal.signal(signal.SIGTERM, lambda *_: runner.stop())
        runner.start()
        names = ", ".join(p.name for p in profiles)
        print(f"{names} joined {host}:{port} (Minecraft {settings.minecraft_version}). Talk to them in the game chat; "
              f"Ctrl-C stops.", flush=True)
        try:
            runner.wait()
        except KeyboardInterrupt:
            print("\nStopping...", flush=True)
        spent = budget.summary()
        if isinstance(runner, ProcessRunner):  # the workers report their spend as they stop
            runner.stop()
            for part in runner.spent():
                spent["usd"] += part.get("usd", 0.0)
                spent["requests"] += part.get("requests", 0)
                spent["exceeded"] = spent["exceeded"] or part.get("exceeded", False)
            if limits is not None and limits.max_usd is not None:
                spent["max_usd"] = limits.max_usd
        if spent["exceeded"]:
            print(f"Stopped: the model budget is spent (${spent['usd']:.4f} of ${spent['max_usd']:g})", flush=True)
        elif spent["requests"]:
            print(f"Models spent ${spent['usd']:.4f} on {spent['requests']} requests", flush=True)
        failure = getattr(runner, "failure", None)
    if failure:  # the run did not end by the user's hand: scripts around it must see that
        print(f"mindpy run: stopped: {failure}", file=sys.stderr, flush=True)
        return 3
    return 0


def refusal_before_start(profiles, settings, address) -> str | None:
    """Why the run cannot go on, found before a server starts or a bot joins (None: nothing found): a profile
    whose chat model needs an API key that is not set, or a Minecraft version that cannot be played on the server
    at `address` (None: the embedded one). Sets the settings' `minecraft_version` to the version played (`auto`:
    the server's own)."""
    from ..errors import ServerError, UnsupportedVersion
    from ..models import missing_key
    from ..server.versions import resolve_version

    for profile in profiles:
        problem = missing_key(profile.model) if profile.model is not None else None
        if problem:
            return f"{profile.name}: {problem}"
    try:
        settings.minecraft_version = resolve_version(settings.minecraft_version, address)
    except (UnsupportedVersion, ServerError) as exc:
        return f"setting 'minecraft_version': {exc}"
    return None


def register(sub) -> None:
    """Add the `run` command to the CLI's subparsers."""
    from ..server.versions import add_version_option
    from .ablations import add_ablation_options
    from .options import add_budget_options, add_cache_options, add_method_options, add_round_options, add_team_option
    run = sub.add_parser("run", help="start bots from profiles (or play one task) and keep them playing")
    run.add_argument("--profile", action="append", default=[], metavar="FILE",
                     help="a bot's profile (YAML, or a MINDcraft JSON profile); repeat for several bots")
    run.add_argument("--server", default="embedded", help="'embedded' (default) or HOST:PORT of a real server")
    run.add_argument("--settings", default=None, metavar="FILE", help="settings file (YAML); MINDPY_* variables "
                                                                      "override it")
    run.add_argument("--run-dir", default="runs/run", help="where logs go (default runs/run)")
    run.add_argument("--task", default=None, metavar="FILE", help="play one task from a task file")
    run.add_argument("--task-id", default=None, metavar="ID", help="which task of --task to play")
    run.add_argument("--model", default=None, help="model for every bot of a task (default: the oracle)")
    run.add_argument("--seed", type=int, default=0, help="seed of a task's set-up (where the agents stand); in free "
                                                         "play, the generated world's seed (default 0: a random one)")
    run.add_argument("--world", default=None, metavar="normal|flat|DIR",
                     help="free play's embedded world: 'normal' (generated, the default), 'flat', or a folder to keep "
                          "it in (tasks always play in the flat world)")
    run.add_argument("--replay", default=None, metavar="RUN_DIR",
                     help="play the episode of RUN_DIR again in a fresh world (same task, seed and options), each "
                          "agent answered by its recorded replies (RUN_DIR/calls); ends in one line where the "
                          "recording runs out")
    run.add_argument("--options", default=None, metavar="JSON",
                     help="a task episode's options as one JSON object (how mindpy eval starts each episode; "
                          "replaces --model, --server, --seed, the round, method, team and budget flags)")
    run.add_argument("--processes", type=int, default=None, metavar="N",
                     help="spread the agents over N Python processes, each with its own Node process for its bots "
                          "(default: the settings' processes, 1)")
    add_version_option(run)
    add_round_options(run)
    add_method_options(run)
    add_ablation_options(run)
    add_team_option(run)
    add_budget_options(run)
    add_cache_options(run)
    run.set_defaults(func=_cmd_run)
