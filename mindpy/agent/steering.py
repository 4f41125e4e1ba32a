"""What a dashboard may do to a running agent of this process: say something to it as a player would, stop its
action, restart it, turn a mode on or off. The dashboard (mindpy.ui.controls) calls these on its own process's
agents; a worker process of a multi-process run calls them on its agents when the run's process relays a control
(mindpy.agent.remote), so both get the same checks.

A message reaches the agent as a whisper from the player `sender` would: the model answers it, and a `!command`
runs at once when the `player_commands` setting lets that player give commands. Stopping runs the agent's own
`!stop` on its behalf; restarting and modes do what `!restart` and `!setMode` do, even where a task blocks those
commands for the model.
"""

from __future__ import annotations

from typing import Any

from ..errors import MindpyError

DASHBOARD_PLAYER = "dashboard"


class ControlError(MindpyError):
    """A control that cannot be carried out (unknown agent, unknown mode, empty message...)."""


def say(agent: Any, text: str, sender: str = DASHBOARD_PLAYER) -> str:
    """Hand `text` to the agent as `sender`'s message."""
    text = " ".join(text.split())
    if not text:
        raise ControlError("the message is empty")
    if len(text) > 2000:
        raise ControlError("the message is longer than 2000 characters")
    agent.hear(sender, text, via="dashboard")
    return f"{sender} to {agent.name}: {text}"


def stop(agent: Any) -> str:
    """Stop the running action (the goal stays, as with !stop)."""
    return agent.run_command("!stop") or "stopped"


def restart(agent: Any) -> str:
    """Close the agent and its bot and start them again with the saved memory (as with !restart)."""
    if getattr(agent, "_on_restart", None) is None:
        raise ControlError(f"{agent.name} was started without a runner that could restart it")
    agent.request_restart()
    return f"{agent.name} is restarting"


def set_mode(agent: Any, mode: str, on: bool) -> str:
    """Turn one of the agent's modes on or off."""
    if mode not in agent.modes.names():
        raise ControlError(f"no mode {mode!r}; the modes are {', '.join(agent.modes.names())}")
    agent.modes.set_on(mode, on)
    return f"mode {mode} of {agent.name} is now {'on' if on else 'off'}"


def steer(agent: Any, what: str, args: dict) -> str:
    """One control by name ("say", "stop", "restart", "mode"), as the dashboard's routes call them."""
    if what == "say":
        return say(agent, str(args.get("text", "")), str(args.get("sender") or DASHBOARD_PLAYER))
    if what == "stop":
        return stop(agent)
    if what == "restart":
        return restart(agent)
    if what == "mode":
        return set_mode(agent, str(args.get("mode", "")), bool(args.get("on")))
    raise ControlError(f"no control {what!r}")
