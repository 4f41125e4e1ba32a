"""`mindpy dashboard --server embedded|HOST:PORT`: a run with no agents yet and a dashboard to create them from.

The agents are created from the page (or by programs over HTTP, mindpy.ui.agents_api) into one AgentRunner of
this process, as `mindpy run` would have started them (the same console, the same rejoin after a lost
connection); Ctrl-C stops them and the dashboard, their memory saved.
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path


def serve_empty_run(args) -> int:
    """Start the server (when embedded), an AgentRunner with no agents and the dashboard; wait for Ctrl-C."""
    from ..agent.runner import REJOIN_WAITS_S, AgentRunner, ConsoleLog
    from ..server.address import parse_server
    from ..server.versions import resolve_version
    from ..settings import load_settings
    from ..view import OneViewer
    from .app import DashboardState
    from .manage import AgentManager
    from .server import Dashboard

    version = getattr(args, "mc_version", None)  # the flag wins over the settings file
    settings = load_settings(args.settings, **({"minecraft_version": version} if version else {}))
    address = parse_server(args.server)
    # an unsupported version stops here, before a server starts; `auto` asks a real server for its own
    settings.minecraft_version = resolve_version(settings.minecraft_version, address)
    folder = Path(args.agents_dir)
    with contextlib.ExitStack() as stack:
        if address is None:
            from ..server import EmbeddedServer
            from ..server.worlds import world_summary

            # agents made on the page play freely: in the generated world, as `mindpy run --profile` does
            server = stack.enter_context(EmbeddedServer(run_dir=folder / "server", world="normal",
                                                        version=settings.minecraft_version))
            host, port = "127.0.0.1", server.address.port
            print(f"Embedded server on {host}:{port}, {world_summary(server)} (log: {server.log_path})", flush=True)
        else:
            host, port = address.host, address.port
        runner = stack.enter_context(AgentRunner(settings, [], host, port, console=ConsoleLog(),
                                                 rejoin_waits=REJOIN_WAITS_S))
        runner.start()
        state = DashboardState(viewers=OneViewer(), note=f"agents on {host}:{port}: create them with Add agent")
        state.manager = AgentManager(state.feed, folder / "profiles")
        state.feed.add_runner(runner)
        dashboard = stack.enter_context(Dashboard(state, host=args.host, port=args.port,
                                                  allowed_hosts=args.allowed_host))
        signal.signal(signal.SIGTERM, lambda *_: runner.stop())
        print(f"Dashboard: {dashboard.url}", flush=True)
        print("No agents yet: add them on the page (or POST /api/agents). Ctrl-C stops.", flush=True)
        try:
            runner.wait()
        except KeyboardInterrupt:
            print("\nStopping...", flush=True)
    return 0
