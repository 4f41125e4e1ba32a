"""The command layer one agent uses: its registry, its blocked commands, and the four calls the agent makes
(`parse`, `is_action`, `run`, `docs`; see mindpy.agent.agent.CommandLayer).

    layer = AgentCommands(registry, blocked=blocked)   # blocked from blocked_commands(...)
    parsed = layer.parse(reply)      # ParseResult: .command, .args, .error, .message
    layer.run(agent.context, parsed.command, parsed.args)

`!help` is answered here, from what is blocked for this agent: every command it may use, one line each, or with
a name (`!help("craftRecipe")`) that command in full.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from ..errors import MindpyError, NodeStopped
from .blocking import available, blocked_commands
from .context import AgentContext
from .docs import Situation, command_docs, help_text
from .parser import ParseResult, parse_command, parse_reply
from .registry import CommandRegistry

log = logging.getLogger(__name__)


class AgentCommands:
    """The commands one agent may use: its registry and what is blocked for it."""

    def __init__(self, registry: CommandRegistry, blocked: Iterable[str] = (), docs_form: str = "short",
                 only_bound: bool = True, may_block: Iterable[str] = ()):
        """`only_bound`: leave commands without a function out of the docs (the model should not be offered
        what cannot run). `may_block`: names that may be blocked although they are otherwise unblockable (a
        profile's own choice, see mindpy.commands.blocking)."""
        self.registry = registry
        self.blocked, self.warnings = blocked_commands(registry, blocked, may_block=may_block)
        self.docs_form = docs_form
        self.only_bound = only_bound

    def parse(self, text: str) -> ParseResult:
        return parse_reply(text, self.registry, self.blocked)

    def parse_command(self, text: str) -> ParseResult:
        """A player's `!...` message: a command, or a refusal saying how to write one (see parser.parse_command)."""
        return parse_command(text, self.registry, self.blocked)

    def is_action(self, name: str) -> bool:
        """Whether the command runs through the action manager (stopping the running action)."""
        command = self.registry.get(name)
        return bool(command and command.interrupts)

    def acts(self, name: str) -> bool:
        """Whether the command does something (an action: it takes the turn in round mode) rather than only
        looking (a query). Unlike `is_action`, this holds also for actions that leave the running one alone."""
        command = self.registry.get(name)
        return bool(command and command.is_action)

    def run(self, context: AgentContext | None, name: str, args: list | tuple = ()) -> str | None:
        """Run a command for `context`; its output text (or None). Blocked commands and failing queries answer
        with a sentence for the model instead of raising."""
        command = self.registry.get(name)
        if command is not None and command.name in self.blocked:
            return f"Command !{command.name} is blocked for you: you cannot use it."
        if command is not None and command.name == "help" and command.run is None:
            return help_text(self.registry, self.blocked, args[0] if args else None,
                             only_bound=self.only_bound and self._any_bound())
        if command is not None and command.interrupts:
            return _text(self.registry.run(context, name, args))  # the action manager reports errors
        try:
            return _text(self.registry.run(context, name, args))
        except MindpyError as exc:  # the bot or the world did not answer (a lost bot): one line, no traceback
            # with Node gone every bot is lost, and their owner says so once: no line per command as well
            log.log(logging.DEBUG if isinstance(exc, NodeStopped) else logging.WARNING, "command !%s failed: %s",
                    name, exc)
            return f"Command !{name} failed: {type(exc).__name__}: {exc}"
        except Exception as exc:  # a failing query is output for the model, not a crash of the agent loop
            log.exception("command !%s failed", name)
            return f"Command !{name} failed: {type(exc).__name__}: {exc}"

    def docs(self, context: AgentContext | None = None) -> str:
        """The command docs for the prompt: the commands this agent may use that its situation calls for (see
        docs.OFFERED; without a context, all of them)."""
        situation = Situation.of(context) if context is not None else None
        return command_docs(self.registry, self.blocked, self.docs_form, self.only_bound and self._any_bound(),
                            situation=situation)

    def available(self) -> list[str]:
        return [c.name for c in available(self.registry, self.blocked)]

    def _any_bound(self) -> bool:
        # with nothing bound at all (tests, tools), list everything rather than nothing
        return any(c.bound for c in self.registry if c.name != "help")


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return str(value)
