"""An agent whose bot loses its connection: one console line with the reason at once; in free play (rejoin waits
given) it comes back on a new bot with its memory, a bounded number of tries, and says so when it gives up."""

from __future__ import annotations

from agent_helpers import listen, make_profile, make_settings
from conftest import unique_name, wait_until
from mindpy.agent.runner import AgentRunner
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile
from mindpy.server import EmbeddedServer


def connection_lines(events, name: str) -> list[str]:
    return [text for who, kind, text in list(events) if who == name and kind == "connection"]


def start_runner(tmp_path, host, port, model, **options):
    """A runner of one agent (a replay model) whose console lines land in the returned list."""
    name = unique_name("lost")
    settings = make_settings(tmp_path)
    profile = load_profile(make_profile(tmp_path, name), settings=settings)
    events: list[tuple[str, str, str]] = []
    runner = AgentRunner(settings, [profile], host, port, models={name: model},
                         console=lambda who, kind, text: events.append((who, kind, text)), **options)
    runner.start()
    return runner, name, events


def test_a_kicked_agent_says_why_and_comes_back(server, make_bot, tmp_path):
    model = ReplayModel([], default="Still here.")
    runner, name, events = start_runner(tmp_path, server.host, server.port, model, rejoin_waits=(0.5, 1.0, 2.0))
    with runner:
        first = runner.agents[name]
        server.command(f"kick {name} Too much noise")
        wait_until(lambda: connection_lines(events, name), timeout=15, message="a line about the lost bot")
        assert connection_lines(events, name)[0] == \
            "lost its bot: kicked by the server: Too much noise; rejoining in 0.5 s (try 1 of 3)"
        wait_until(lambda: len(connection_lines(events, name)) >= 2, timeout=30, message="the rejoin")
        assert connection_lines(events, name)[1] == f"rejoined {server.host}:{server.port} (try 1 of 3)"
        second = runner.agents[name]
        assert second is not first and second.bot.connected and first.bot.closed
        player = make_bot("caller")
        heard = listen(player)
        player.chat(f"{name}, are you back?")
        wait_until(lambda: (name, "Still here.") in heard, timeout=20, message="the agent answering on its new bot")


def test_without_rejoin_waits_the_loss_is_only_reported(server, tmp_path):
    """An episode's runner: the lost bot is an infrastructure error for the episode, not something to mend."""
    runner, name, events = start_runner(tmp_path, server.host, server.port, ReplayModel([], default="Hi."))
    with runner:
        first = runner.agents[name]
        server.command(f"kick {name}")
        wait_until(lambda: connection_lines(events, name), timeout=15, message="a line about the lost bot")
        assert connection_lines(events, name) == ["lost its bot: kicked by the server: no reason given"]
        assert runner.agents[name] is first and not first.bot.connected


def test_rejoining_gives_up_after_its_tries_when_the_server_is_gone(tmp_path):
    """A server of its own, since it dies (killed: no kick, the sockets end): each try is refused, the last line
    says so."""
    with EmbeddedServer(run_dir=tmp_path / "server") as own:
        runner, name, events = start_runner(tmp_path, own.host, own.port, ReplayModel([], default="Hi."),
                                            rejoin_waits=(0.2, 0.2))
        with runner:
            assert own.process is not None
            own.process.kill()
            wait_until(lambda: any("gave up" in line for line in connection_lines(events, name)), timeout=60,
                       message=lambda: f"the line giving up; lines: {connection_lines(events, name)}")
    lines = connection_lines(events, name)
    assert len(lines) == 3, lines
    assert lines[0].startswith("lost its bot: its connection ended (") and \
        lines[0].endswith("; rejoining in 0.2 s (try 1 of 2)"), lines
    assert lines[1].startswith("could not rejoin: ") and lines[1].endswith("; next try in 0.2 s (2 of 2)"), lines
    assert lines[2].startswith("gave up rejoining after 2 tries (last: ") and "connection refused" in lines[2], lines
