"""Self-prompting (`!goal`): the agent keeps prompting itself toward a goal until it is done or stopped.

States: stopped, active, paused. While active and idle, each update tick prompts the agent with the goal and
the instruction that the reply must hold a command; three replies in a row without a command stop it.
A conversation pauses it; it resumes (5 s after the conversation ends) only if it was paused, not stopped.

A goal remembers who set it (its origin: a player's name, or SELF_REQUESTER for the code that runs the agent),
and every prompt towards it carries that origin: a goal a player set keeps that player's trust, however many turns
the agent then takes on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import Enum

from ..coding.generator import SELF_REQUESTER

MAX_NO_COMMAND = 3


class SelfPromptState(str, Enum):
    """Whether self-prompting is off, running, or paused (e.g. during a conversation)."""
    STOPPED = "stopped"
    ACTIVE = "active"
    PAUSED = "paused"


def self_prompt_message(goal: str) -> str:
    """The message that prompts the agent to act on its own goal with a command."""
    return (f"You are self-prompting with the goal: '{goal}'. Your next response MUST contain a command "
            f"with this syntax: !commandName. Respond:")


class SelfPrompter:
    """Prompts the agent again and again towards a goal until stopped or out of commands."""
    def __init__(self, prompt_agent: Callable[[str, str], bool], stop_action: Callable[[], None] | None = None):
        """`prompt_agent(message, origin)` runs one turn of the agent's loop on behalf of `origin` and returns
        whether a command was used."""
        self._prompt_agent = prompt_agent
        self._stop_action = stop_action
        self.state = SelfPromptState.STOPPED
        self.goal = ""
        self.goal_origin = SELF_REQUESTER  # who set the goal
        self.no_command_count = 0
        self._busy = threading.Lock()

    def start(self, goal: str | None = None, origin: str = SELF_REQUESTER, paused: bool = False) -> str:
        """Work towards `goal` (None: the remembered one, whoever set it); `origin` is who sets it (by default the
        code that runs the agent: a task's goal). `paused`: the goal is set (and in the prompt) but no turn starts
        until `resume_if_paused`."""
        if goal is not None:
            self.goal = goal
            self.goal_origin = origin
        if not self.goal:
            return "No goal to self-prompt with."
        self.state = SelfPromptState.PAUSED if paused else SelfPromptState.ACTIVE
        self.no_command_count = 0
        return f"Self-prompting started with the goal: {self.goal}"

    def stop(self, stop_action: bool = True) -> str:
        self.state = SelfPromptState.STOPPED
        if stop_action and self._stop_action:
            self._stop_action()
        return "Self-prompting stopped."

    def pause(self) -> None:
        if self.state == SelfPromptState.ACTIVE:
            self.state = SelfPromptState.PAUSED

    def resume_if_paused(self) -> None:
        if self.state == SelfPromptState.PAUSED:
            self.state = SelfPromptState.ACTIVE

    @property
    def active(self) -> bool:
        return self.state == SelfPromptState.ACTIVE

    def update(self, agent_idle: bool) -> None:
        """Called every tick: prompt once when active and the agent has nothing running."""
        if not self.active or not agent_idle or not self._busy.acquire(blocking=False):
            return
        try:
            used_command = self._prompt_agent(self_prompt_message(self.goal), self.goal_origin)
            if used_command:
                self.no_command_count = 0
            else:
                self.no_command_count += 1
                if self.no_command_count >= MAX_NO_COMMAND:
                    self.state = SelfPromptState.STOPPED
        finally:
            self._busy.release()

    def to_dict(self) -> dict:
        return {"state": self.state.value, "goal": self.goal, "origin": self.goal_origin}

    def load(self, data: dict) -> None:
        self.goal = data.get("goal", "")
        state = data.get("state", "stopped")
        # an interrupted session comes back paused rather than racing off at once
        self.state = SelfPromptState.PAUSED if state == "active" else SelfPromptState(state)
        origin = data.get("origin")
        if isinstance(origin, str):
            self.goal_origin = origin
        elif self.goal:  # saved before goals kept their origin: nobody knows who set it, so it does not resume
            self.goal_origin = ""
            self.state = SelfPromptState.STOPPED
