"""Many agents joining at once through the real join path (AgentRunner -> create_bots): every bot comes up with
the world around it loaded, stays connected, and every agent's update tick runs."""

from __future__ import annotations

import mindpy.agent.runner as runner_module
from agent_helpers import make_profile, make_settings
from conftest import unique_name, wait_until, world_js
from mindpy.agent.runner import AgentRunner
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile

AGENTS = 16
# Columns each way every bot has loaded when create_bots returns, whatever the crowd on the shared test server: the
# server sends the columns within its view distance around a player (one fewer on one side), 6 or, while more than
# 32 are online, 4 (mindpy/server/plugins/07_crowd_view.js). The view can change while the bots join, as other tests'
# bots come and go: a bot that finished joining at 4 gets the rest of 6 later.
SURE_VIEW = 3


def count_ticks(agent, ticks: list[int], i: int) -> None:
    """Count the agent's update ticks (the tick loop looks `update` up on the agent every time)."""
    update = agent.update

    def counted():
        update()
        ticks[i] += 1

    agent.update = counted


def missing_columns_on_return(monkeypatch) -> dict[str, int]:
    """Watch the runner's create_bots: as it returns, how many columns of its view each bot still lacks."""
    create_bots, missing = runner_module.create_bots, {}

    def watched(*args, **kwargs):
        bots = create_bots(*args, **kwargs)
        missing.update({bot.name: world_js().missingColumns(bot.js, SURE_VIEW) for bot in bots})
        return bots

    monkeypatch.setattr(runner_module, "create_bots", watched)
    return missing


def test_sixteen_agents_joined_at_once_all_come_up_and_tick(server, tmp_path, monkeypatch):
    missing = missing_columns_on_return(monkeypatch)
    settings = make_settings(tmp_path)
    names = [unique_name("crowd") for _ in range(AGENTS)]
    profiles = [load_profile(make_profile(tmp_path, name), settings=settings) for name in names]
    models = {name: ReplayModel([], default="") for name in names}
    with AgentRunner(settings, profiles, server.host, server.port, models=models) as runner:
        runner.start()
        bots = [runner.agents[name].bot for name in names]
        # create_bots returns once each bot's view is loaded (a bot that has only spawned has a few columns)
        assert len(missing) == AGENTS and all(count == 0 for count in missing.values()), {n: c for n, c in missing.items() if c}
        ticks = [0] * AGENTS
        for i, name in enumerate(names):
            count_ticks(runner.agents[name], ticks, i)
        wait_until(lambda: min(ticks) >= 3, timeout=20, message=f"3 update ticks of every agent (ticks: {ticks})")
        assert all(bot.connected for bot in bots)
