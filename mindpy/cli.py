"""The `mindpy` command line."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time

from . import DEFAULT_MINECRAFT_VERSION, __version__
from .errors import MindpyError
from .server.versions import add_version_option
from .userfiles import visible_log_handler


def _cmd_server(args) -> int:
    from .server import EmbeddedServer
    from .server.versions import resolve_version
    from .server.worlds import world_choice, world_summary

    args.version = resolve_version(args.version, None)  # `auto`: the default; an unsupported one: one line
    world, folder = world_choice(args.world)
    server = EmbeddedServer(port=args.port, version=args.version, run_dir=args.run_dir, host=args.host,
                            world_folder=folder, world=world, seed=args.seed)
    server.start()
    print(f"mindpy embedded server (Minecraft {args.version}, offline mode, {world_summary(server)}, everyone op)")
    print(f"Join with your own Minecraft {args.version} client: Multiplayer -> Direct Connection -> "
          f"{args.host}:{server.port}")
    print(f"Log: {server.log_path}. Press Ctrl-C to stop.", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while server.is_running():
            time.sleep(0.5)
        print("The server process ended; see the log.", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, SystemExit):
        return 0
    finally:
        server.stop()
        print("Server stopped.")


def _cmd_doctor(args) -> int:
    from .doctor import main

    return main(args.server)


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(server=args.server, run_dir=args.run_dir, mc_version=args.mc_version)


def build_parser() -> argparse.ArgumentParser:
    """The `mindpy` argument parser, with every subcommand registered."""
    parser = argparse.ArgumentParser(prog="mindpy", description="LLM agents that play Minecraft together.")
    parser.add_argument("--version", action="version", version=f"mindpy {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    server = sub.add_parser("server", help="run the embedded server in the foreground for people to join")
    server.add_argument("--port", type=int, default=25565, help="port to listen on (0 = any free port; default 25565)")
    server.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    server.add_argument("--mc-version", dest="version", default=DEFAULT_MINECRAFT_VERSION,
                        help=f"Minecraft version (default and 'auto': {DEFAULT_MINECRAFT_VERSION}; `mindpy doctor` "
                             f"lists the others)")
    server.add_argument("--run-dir", default="runs/server", help="where the server log goes")
    server.add_argument("--world", default="normal",
                        help="'normal' (generated, the default), 'flat' (the tasks' superflat world), or a folder to "
                             "keep the world in (a new folder gets a normal world)")
    server.add_argument("--seed", type=int, default=None,
                        help="world seed, a non-zero 32-bit integer (default: random)")
    server.set_defaults(func=_cmd_server)

    doctor = sub.add_parser("doctor", help="check that Node, npm packages, Python packages and the model are installed")
    doctor.add_argument("--server", default=None, help="also check a server: 'embedded' or HOST:PORT")
    doctor.set_defaults(func=_cmd_doctor)

    demo = sub.add_parser("demo", help="start the embedded server and two bots (no API key, no Java needed)")
    demo.add_argument("--server", default="embedded", help="'embedded' (default) or HOST:PORT of a real server")
    demo.add_argument("--run-dir", default="runs/demo", help="where logs go")
    add_version_option(demo)
    demo.set_defaults(func=_cmd_demo)

    _register_optional(sub)
    return parser


def _register_optional(sub) -> None:
    """Subcommands whose modules register themselves (`register(subparsers)`)."""
    import importlib

    for module in ("mindpy.tasks.cli", "mindpy.commands.cli", "mindpy.harness.run", "mindpy.harness.cli",
                   "mindpy.probes.cli", "mindpy.ui.cli"):
        try:
            importlib.import_module(module).register(sub)
        except ModuleNotFoundError as exc:
            if exc.name != module and not module.startswith(exc.name or "\0"):
                raise
    from .ui.cli import add_ui_options  # the dashboard beside a run or an evaluation (--ui)

    for command in ("run", "eval"):
        if command in sub.choices:
            add_ui_options(sub.choices[command])


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code (2 for a mindpy error)."""
    args = build_parser().parse_args(argv)
    # Ctrl-C stops every command, even when we were started in the background of a script (`cmd &`), which
    # leaves SIGINT ignored, a setting that Python and our child processes would otherwise inherit
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # log lines quote players and models (heard messages, model errors): shown as text, never as escapes
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        handlers=[visible_log_handler("%(asctime)s %(levelname)s %(name)s: %(message)s")])
    try:
        from .ui.cli import ui_session

        with ui_session(args):
            return int(args.func(args) or 0)
    except MindpyError as exc:
        print(f"mindpy: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
