"""What a dispatcher decided at one step, and the short record of it kept as history.

    decision = Decision(step=3, commands={"andy": '!collectBlocks("wheat", 3)'}, problems=[], reply="...")
    decision.record()      # {"step": 3, "system": ..., "user": ..., "reply": ..., "commands": {...}, ...}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HistoryEntry:
    """One past step: the commands accepted and the problems found."""

    step: int
    commands: dict[str, str]
    problems: tuple[str, ...] = ()

    def text(self) -> str:
        given = "; ".join(f"{name}: {cmd}" for name, cmd in self.commands.items()) or "no command accepted"
        issues = f" (problems: {'; '.join(self.problems)})" if self.problems else ""
        return f"step {self.step}: {given}{issues}"


@dataclass
class Decision:
    """The valid commands per agent (canonical `!name(args)` text), the problems to show next step, the model's
    raw reply and the prompt it answered (system and user parts)."""

    step: int
    commands: dict[str, str]
    problems: list[str]
    reply: str
    system: str = ""
    user: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def history_entry(self) -> HistoryEntry:
        return HistoryEntry(self.step, dict(self.commands), tuple(self.problems))

    def record(self) -> dict[str, Any]:
        """A JSON-ready record of the step (prompt, reply and outcome), for fine-tuning exports."""
        return {"step": self.step, "system": self.system, "user": self.user, "reply": self.reply,
                "commands": dict(self.commands), "problems": list(self.problems), **self.extra}
