"""AgentRunner: bots joined from profiles; !restart brings an agent back with its memory."""

from __future__ import annotations

from agent_helpers import make_profile, make_settings
from conftest import unique_name, wait_until
from mindpy.agent.runner import AgentRunner
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile


def test_restart_rejoins_with_the_saved_history(server, make_bot, tmp_path):
    name = unique_name("phoenix")
    settings = make_settings(tmp_path)
    profile = load_profile(make_profile(tmp_path, name), settings=settings)
    model = ReplayModel(["Hello there!"], default="Back again.")
    events = []
    with AgentRunner(settings, [profile], server.host, server.port, models={name: model},
                     console=lambda who, kind, text: events.append((who, kind, text))) as runner:
        runner.start()
        first = runner.agents[name]
        player = make_bot("player")
        heard = []
        player.on("chat", lambda username, message, *rest: heard.append((username, message)))
        player.chat(f"{name}, hi")
        wait_until(lambda: (name, "Hello there!") in heard, timeout=15, message="the first answer")
        player.chat("!restart")
        wait_until(lambda: runner.agents[name] is not first, timeout=30, message="a new agent")
        second = runner.agents[name]
        assert first.restart_requested.is_set()
        assert second.history.get()[:2] == [{"role": "user", "content": f"{player.name}: {name}, hi"},
                                           {"role": "assistant", "content": "Hello there!"}]
        player.chat(f"{name}, are you back?")
        wait_until(lambda: (name, "Back again.") in heard, timeout=20, message="the restarted agent answering")
        assert (name, "heard", f"<{player.name}> {name}, are you back?") in events
