"""Helpers for tests that run whole agents (a real bot, a replay model) on the embedded server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import yaml

from conftest import isolate, teleport, unique_name, wait_until
from mindpy.agent.factory import build_agent
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile
from mindpy.settings import load_settings


def make_settings(tmp_path, **overrides):
    values = dict(bots_dir=str(tmp_path / "bots"), cache_dir=str(tmp_path / "cache"), narrate_behavior=False,
                  chat_bot_messages=False)
    values.update(overrides)
    return load_settings(None, env={}, **values)


def make_profile(tmp_path, name: str, **fields):
    data = {"name": name, "model": "replay", "cooldown": 0, "embedding": "none",
            "modes": {"idle_staring": False, "elbow_room": False, "hunting": False}}
    data.update(fields)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def start_agent(make_bot, tmp_path, replies, prefix="agent", settings=None, bus=None, default=None, **fields):
    """A started agent whose model answers `replies` in order; returns (agent, model)."""
    name = unique_name(prefix)
    settings = settings or make_settings(tmp_path)
    profile = load_profile(make_profile(tmp_path, name, **fields), settings=settings)
    bot = make_bot(exact_name=name)
    model = ReplayModel(list(replies), default=default)
    agent = build_agent(profile, bot, settings, model=model, bus=bus)
    agent.start()
    return agent, model


class RuleModel(ReplayModel):
    """A replay model that first asks `rule(system, messages)`: a string is the reply, None falls through to
    the script. Lets a test answer the small respond-or-ignore prompt apart from the conversation."""

    def __init__(self, replies, rule, default=None):
        super().__init__(list(replies), default=default)
        self.rule = rule

    def _complete(self, messages, system):
        decided = self.rule(str(system), messages)
        if decided is None:
            return super()._complete(messages, system)
        self.calls.append({"system": str(system), "messages": [dict(m) for m in messages], "reply": decided,
                           "rule": True})
        from mindpy.models.base import Usage

        return decided, Usage(estimated=True)


def start_agent_with_model(make_bot, tmp_path, model, prefix="agent", settings=None, bus=None, name=None,
                           **fields):
    """A started agent with a ready model (e.g. a RuleModel)."""
    name = name or unique_name(prefix)
    settings = settings or make_settings(tmp_path)
    profile = load_profile(make_profile(tmp_path, name, **fields), settings=settings)
    bot = make_bot(exact_name=name)
    agent = build_agent(profile, bot, settings, model=model, bus=bus)
    agent.start()
    return agent


@contextmanager
def closing_agents(start: Callable) -> Iterator[Callable]:
    """`start(...) -> (agent, model)`, wrapped to remember the agents it starts; they are closed on exit. A fixture
    yields the wrapper from inside the `with`."""
    started = []

    def factory(*args, **kwargs):
        agent, model = start(*args, **kwargs)
        started.append(agent)
        return agent, model

    try:
        yield factory
    finally:
        for agent in started:
            agent.close()


def listen(bot):
    """Chat lines `bot` receives, as (username, message)."""
    heard: list[tuple[str, str]] = []
    bot.on("chat", lambda username, message, *rest: heard.append((username, message)))
    return heard


def side_by_side(player, agent):
    """Put `player` in an area of its own and the agent two blocks east of it; returns where the player stands."""
    x, y, z = isolate(player)
    teleport(agent.bot, x + 2, y, z)
    return x, y, z


def system_turns(agent) -> list[str]:
    """The system turns of the agent's history (command outputs, refusals, notes), oldest first."""
    return [t["content"] for t in agent.history.get() if t["role"] == "system"]


def beside_a_log(agent, *players):
    """Put the agent in an area of its own with an oak log two blocks east of it, and the players west of it."""
    x, y, z = isolate(agent.bot)
    for i, player in enumerate(players):
        teleport(player, x - 2, y, z + i)
    agent.bot.command(f"setblock {x + 2} {y} {z} oak_log")  # set-up by the test, as an operator would
    wait_until(lambda: (agent.bot.js.blockAt(agent.bot.js.entity.position.offset(2, 0, 0)) or {}).name == "oak_log",
               timeout=5, message="the log block")
