"""What a command may use: the `AgentContext`, built completely by whoever owns the bot.

An agent builds its context once, from the parts it was given (see mindpy.agent.factory); a bot without an agent
(tools, tests, benchmarks) gets `AgentContext.for_bot(bot)`, whose agent parts are None. Commands about the agent
itself answer plainly that they are not available then, instead of failing.

    context = AgentContext.for_bot(bot, version="1.21.1")
    registry.run(context, "inventory")
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .. import DEFAULT_MINECRAFT_VERSION
from ..bridge import Bot
from ..skills import Skills

if TYPE_CHECKING:  # the types of the agent's parts, for readers and the type checker
    from ..agent.actions import ActionManager
    from ..agent.conversation import ConversationManager
    from ..agent.modes import ModeController
    from ..agent.self_prompt import SelfPrompter
    from ..coding.library import SkillLibrary
    from ..memory import History
    from ..tasks.schema import Task


class AgentControls(Protocol):
    """What the commands about the agent itself ask of the agent (the loop owns these)."""

    def shut_up_now(self) -> None: ...
    def request_restart(self) -> None: ...
    def new_action(self, prompt: str) -> str: ...
    def set_goal(self, goal: str) -> str: ...


class Unavailable(Exception):
    """A command needs a part of the agent this context does not have; its text is the answer to the model."""


@dataclass(frozen=True)
class AgentContext:
    """Everything commands act on. Agent parts are None for a bare bot."""

    name: str
    bot: Bot
    skills: Skills
    version: str = DEFAULT_MINECRAFT_VERSION
    task: Task | None = None
    actions: ActionManager | None = None
    modes: ModeController | None = None
    self_prompter: SelfPrompter | None = None
    conversations: ConversationManager | None = None
    history: History | None = None
    controls: AgentControls | None = None
    agent_index: int | None = None  # which player of the task this agent is (its goal, inventory...), if known
    vision: Any = None  # commands.vision.Vision when the profile allows vision: the look commands describe the view
    library: SkillLibrary | None = None  # the agent's saved skills (code that worked), when it writes code
    # set by !endTask when the agent declares the task finished (the task's checker reads it)
    task_finished: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)

    @classmethod
    def for_bot(cls, bot: Bot, version: str | None = None, task: Any = None,
                skills: Skills | None = None, agent_index: int | None = None) -> AgentContext:
        """A context for a bot that runs without an agent: world commands work, agent commands say they cannot."""
        return cls(name=bot.name, bot=bot, skills=skills or Skills(bot), version=version or DEFAULT_MINECRAFT_VERSION,
                   task=task, agent_index=agent_index)

    def need(self, part: str, what: str) -> Any:
        """The agent part called `part`, or `Unavailable` saying that `what` needs an agent."""
        found = getattr(self, part)
        if found is None:
            raise Unavailable(f"{what} is not available here (this bot runs without an agent).")
        return found
