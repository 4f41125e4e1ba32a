"""What a dashboard may do to a running agent: say something to it as a player would, stop its action, restart
it, turn a mode on or off (mindpy.agent.steering, where a worker process of a multi-process run finds them too),
and end the task episode it plays.

Ending an episode is what an agent's `!endTask` does: the episode checks the task once more and ends (reason
"ended" unless the task is complete).
"""

from __future__ import annotations

from typing import Any

from ..agent.steering import DASHBOARD_PLAYER, ControlError, restart, say, set_mode, steer, stop

__all__ = ["DASHBOARD_PLAYER", "ControlError", "end_episode", "restart", "say", "set_mode", "steer", "stop"]


def end_episode(runner: Any) -> str:
    """End the task episode `runner` plays, as an agent's !endTask would (its first agent ends it)."""
    if getattr(runner, "task", None) is None:
        raise ControlError("this run plays no task episode")
    first = next(iter(runner.agents.values()), None)
    if first is None:
        raise ControlError("the episode has no agent")
    first.context.task_finished.set()
    return f"ending the episode of {runner.task.id}"
