"""What a dashboard may do to a running agent: say something to it as a player would, stop its action, restart
it, turn a mode on or off, and end the task episode it plays.

A message reaches the agent as a whisper from the player `sender` (default "dashboard") would: the model answers
it, and a `!command` runs at once when the `player_commands` setting lets that player give commands. Stopping
runs the agent's own `!stop` on its behalf (the card and the console show it like any other command); restarting
and modes do what `!restart` and `!setMode` do, even where a task blocks those commands for the model. Ending an
episode is what an agent's `!endTask` does: the episode checks the task once more and ends (reason "ended" unless
the task is complete).
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


def end_episode(runner: Any) -> str:
    """End the task episode `runner` plays, as an agent's !endTask would (its first agent ends it)."""
    if getattr(runner, "task", None) is None:
        raise ControlError("this run plays no task episode")
    first = next(iter(runner.agents.values()), None)
    if first is None:
        raise ControlError("the episode has no agent")
    first.context.task_finished.set()
    return f"ending the episode of {runner.task.id}"
