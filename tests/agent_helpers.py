"""Helpers for tests that run whole agents (a real bot, a replay model) on the embedded server."""

from __future__ import annotations

import yaml

from conftest import unique_name
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
