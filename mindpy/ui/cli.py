"""`mindpy dashboard [RUN_DIR]` and the `--ui` option of `mindpy run` and `mindpy eval`.

    mindpy run --profile profiles/andy.yaml --ui        # the agents' cards, steering, the map, the 3D view
    mindpy run --task FILE --task-id ID --ui            # the same for one episode, with a button to end it
    mindpy eval tasks/crafting_test.json --ui           # live progress and the episodes' transcripts
    mindpy dashboard runs/eval                          # a finished evaluation (or one episode's folder)
    mindpy dashboard                                    # the runs found under ./runs, to pick from
    mindpy dashboard --server embedded                  # no agents yet: create them from the page (or over HTTP)

The main CLI calls `register(subparsers)`, `add_ui_options(parser)` on run and eval, and wraps their command in
`ui_session(args)`. Nothing here imports the web libraries until a dashboard starts, so a missing `ui` extra costs
only the dashboard.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import ConfigError

DEFAULT_RUNS = Path("runs")
UI_PACKAGES = ("fastapi", "uvicorn", "websockets")
ALLOWED_HOST_HELP = ("another name the dashboard answers to, besides its own address: NAME (any port) or NAME:PORT, "
                     "e.g. a reverse proxy's name or localhost:9000 for an SSH tunnel; repeatable. Requests to other "
                     "names, and from other sites' pages, are refused")


def require_ui_extra() -> None:
    """ConfigError (one line) unless the web libraries of the `ui` extra are installed."""
    missing = [name for name in UI_PACKAGES if not _importable(name)]
    if missing:
        raise ConfigError(f"the dashboard needs the ui extra ({', '.join(missing)} missing): "
                          f"pip install 'mindpy[ui]' (make setup installs it)")


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a package left half-installed, or blocked
        return False


def add_ui_options(parser) -> None:
    """--ui, --ui-host, --ui-port and --ui-allowed-host, for the commands that can show a dashboard while they
    run."""
    from .server import DEFAULT_HOST, DEFAULT_PORT

    parser.add_argument("--ui", action="store_true",
                        help="open the web dashboard while this runs (prints its address)")
    parser.add_argument("--ui-host", default=DEFAULT_HOST, metavar="ADDRESS",
                        help=f"address the dashboard listens on (default {DEFAULT_HOST}; any other asks for a "
                             f"token, printed with the address)")
    parser.add_argument("--ui-port", type=int, default=DEFAULT_PORT, metavar="PORT",
                        help=f"dashboard port (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--ui-allowed-host", action="append", default=[], metavar="NAME",
                        help=ALLOWED_HOST_HELP)


@contextlib.contextmanager
def ui_session(args) -> Iterator[None]:
    """While the command runs: a dashboard showing every agent runner and evaluation this process starts (when
    `--ui` was given; else nothing)."""
    if not getattr(args, "ui", False):
        yield
        return
    require_ui_extra()
    from ..agent.processes import REMOTE_WATCHERS
    from ..agent.runner import RUNNER_WATCHERS
    from ..harness.evaluate import EVALUATION_WATCHERS
    from ..view import OneViewer
    from .app import DashboardState
    from .evalfeed import EvalFeed
    from .manage import AgentManager
    from .server import Dashboard

    state = DashboardState(viewers=OneViewer(), note="live: the agents and evaluations of this command")
    if getattr(args, "command", None) == "run" and not getattr(args, "task", None):
        # agents you play with: the page creates, destroys and reconfigures them too
        state.manager = AgentManager(state.feed, Path(args.run_dir) / "profiles")

    def add_evaluation(evaluation) -> None:
        state.evals.append(EvalFeed.live(evaluation))

    dashboard = Dashboard(state, host=args.ui_host, port=args.ui_port,
                          allowed_hosts=getattr(args, "ui_allowed_host", None) or ()).start()
    RUNNER_WATCHERS.append(state.feed.add_runner)
    REMOTE_WATCHERS.append(state.feed.add_remote)  # the worker processes' agents of `mindpy run --processes N`
    EVALUATION_WATCHERS.append(add_evaluation)
    print(f"Dashboard: {dashboard.url}", flush=True)
    try:
        yield
        if sys.stdin.isatty() and sys.stdout.isatty():  # someone is watching: let them read the end of it
            print(f"Done. The dashboard stays open until Ctrl-C: {dashboard.url}", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    finally:
        RUNNER_WATCHERS.remove(state.feed.add_runner)
        REMOTE_WATCHERS.remove(state.feed.add_remote)
        EVALUATION_WATCHERS.remove(add_evaluation)
        dashboard.stop()


def find_runs(root: Path = DEFAULT_RUNS, depth: int = 3) -> list[Path]:
    """The run directories under `root` a dashboard can show: evaluations (results.csv) and single episodes
    (result.json) not inside an evaluation, newest first."""
    found: list[Path] = []

    def walk(folder: Path, level: int) -> None:
        if (folder / "results.csv").is_file() or (folder / "result.json").is_file():
            found.append(folder)
            return  # an evaluation's own episodes are shown in it
        if level >= depth:
            return
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            return
        for child in children:
            walk(child, level + 1)

    if root.is_dir():
        walk(root, 0)
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def is_run_dir(folder: Path) -> bool:
    """Whether `folder` holds an evaluation (results.csv, or episode folders of one stopped early) or an episode."""
    return ((folder / "results.csv").is_file() or (folder / "result.json").is_file()
            or (folder / "episodes").is_dir())


def runs_page(url: str) -> str:
    """The runs page's address on a dashboard whose address is `url` (its token kept)."""
    base, sep, query = url.partition("?")
    return f"{base}runs{sep}{query}"


def _cmd_dashboard(args) -> int:
    require_ui_extra()
    from .app import DashboardState
    from .evalfeed import EvalFeed
    from .server import Dashboard

    if args.mc_version and args.server is None:
        raise ConfigError("--mc-version is for agents created on a server: give --server embedded|HOST:PORT too")
    if args.server is not None:
        if args.run_dir:
            raise ConfigError("give RUN_DIR (a finished run to show) or --server (agents to create), not both")
        from .empty_run import serve_empty_run

        return serve_empty_run(args)
    if args.run_dir:
        runs = [Path(r) for r in dict.fromkeys(args.run_dir)]
        for run_dir in runs:
            if not is_run_dir(run_dir):
                raise ConfigError(f"{run_dir} is no run directory: give the --out folder of `mindpy eval` (it holds "
                                  f"results.csv or episodes/) or the folder of `mindpy run --task` (result.json)")
        note = (f"finished run: {runs[0]}" if len(runs) == 1 else
                f"{len(runs)} runs: {', '.join(str(r) for r in runs)}; Search runs lists all their episodes")
    else:
        runs = find_runs()
        if not runs:
            print("Nothing to show: no runs under ./runs. `mindpy dashboard RUN_DIR` opens the folder of a "
                  "`mindpy eval` (results.csv) or of a `mindpy run --task` episode (result.json); to watch agents "
                  "as they play, add --ui to `mindpy run` or `mindpy eval`.", file=sys.stderr)
            return 2
        note = f"{len(runs)} runs found under {DEFAULT_RUNS}/ (newest first); `mindpy dashboard RUN_DIR` opens one"
    state = DashboardState(evals=[EvalFeed.from_dir(r) for r in runs], note=note)
    with Dashboard(state, host=args.host, port=args.port, allowed_hosts=args.allowed_host) as dashboard:
        print(f"Dashboard of {note}: {dashboard.url}", flush=True)
        print(f"Search their episodes and transcripts: {runs_page(dashboard.url)}", flush=True)
        print("Ctrl-C stops.", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("\nStopped.")
    return 0


def register(sub) -> None:
    """Add `mindpy dashboard` to the CLI's subparsers."""
    from ..server.versions import add_version_option
    from .server import DEFAULT_HOST, DEFAULT_PORT

    dash = sub.add_parser("dashboard", help="web dashboard of a finished run directory (live runs: --ui on run and "
                                            "eval)")
    dash.add_argument("run_dir", nargs="*", default=[], metavar="RUN_DIR",
                      help="`mindpy eval` --out folders or `mindpy run --task` folders, one or several (default: the "
                           "runs under ./runs); /runs on the page filters and searches all their episodes")
    dash.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}; any other "
                                                          f"asks for a token, printed with the address)")
    dash.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)")
    dash.add_argument("--allowed-host", action="append", default=[], metavar="NAME", help=ALLOWED_HOST_HELP)
    dash.add_argument("--server", default=None, metavar="embedded|HOST:PORT",
                      help="start with no agents on this server ('embedded': start one) and create them from the "
                           "page or over HTTP (POST /api/agents)")
    dash.add_argument("--settings", default=None, metavar="FILE",
                      help="with --server: the agents' settings file (YAML); MINDPY_* variables override it")
    add_version_option(dash)
    dash.add_argument("--agents-dir", default="runs/dashboard", metavar="DIR",
                      help="with --server: where the embedded server's log and the profiles written from the page "
                           "go (default runs/dashboard)")
    dash.set_defaults(func=_cmd_dashboard)
