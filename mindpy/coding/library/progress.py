"""Which `!newAction` code is saved as a skill: code that ran without error and was followed by progress.

The rule, per agent (one candidate at a time: the latest clean run):

1. The code must have run to its end without an error (the attempt that ran clean; refused, failed, stopped and
   timed-out code is never saved).
2. With a task (the agent can read the task's score): the score must go up from the moment `!newAction` began,
   by the end of the run or by the end of the agent's next command (or its next reply without one, or the
   agent's close, whichever comes first). If it has not gone up by then, the code is dropped.
3. Without a task: the agent's next command must not fail (a reply without a command counts as no failure; a
   next `!newAction` fails when its code does). The code is dropped when it fails, and when the agent closes
   before its next command.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .files import SavedSkill
from .store import SkillLibrary

log = logging.getLogger(__name__)

ScoreReader = Callable[[], "float | None"]  # the task's score now; None when there is no task


@dataclass
class _Candidate:
    request: str
    code: str
    before: float | None  # the task's score when !newAction began (None: no task)
    own_command_open: bool = True  # the !newAction command itself has not ended yet


class SkillRecorder:
    """Applies the rule of the module's doc to one agent's runs and saves what passes in its library.

    The agent calls `begin()` when !newAction starts, `ran(...)` with its outcome, `command_ended(failed)` after
    every command (the !newAction's own end included), `replied()` for a reply without a command, `close()` last.
    `on_saved(skill)` hears of each saved skill."""

    def __init__(self, library: SkillLibrary, score: ScoreReader | None = None,
                 on_saved: Callable[[SavedSkill], None] | None = None):
        self.library = library
        self.score = score
        self.on_saved = on_saved
        self._pending: _Candidate | None = None
        self._lock = threading.Lock()

    def begin(self) -> float | None:
        """The task's score as !newAction begins (None without a task)."""
        return self._read_score()

    def ran(self, request: str, outcome: Any, before: float | None) -> SavedSkill | None:
        """!newAction ended with `outcome` (a CodingOutcome); saved at once when the task's score went up."""
        with self._lock:
            ok = bool(getattr(outcome, "success", False))
            if self._pending is not None and not self._pending.own_command_open:
                self._judge(failed=not ok)  # this !newAction was the earlier run's next command
            self._pending = None
            if not ok or not getattr(outcome, "code", None):
                return None
            candidate = _Candidate(request, outcome.code, before)
            if before is not None and self._went_up(before):
                return self._save(candidate)
            self._pending = candidate
            return None

    def command_ended(self, failed: bool) -> SavedSkill | None:
        """A command ended; the first end after a run is the !newAction's own, the next one decides."""
        with self._lock:
            pending = self._pending
            if pending is None:
                return None
            if pending.own_command_open:
                pending.own_command_open = False
                return None
            return self._judge(failed)

    def replied(self) -> SavedSkill | None:
        """The agent replied without a command: no failure followed the run."""
        with self._lock:
            return self._judge(False) if self._pending is not None else None

    def close(self) -> SavedSkill | None:
        """The agent stops: with a task, the score decides once more; without one, the run is left unconfirmed."""
        with self._lock:
            pending, self._pending = self._pending, None
            if pending is not None and pending.before is not None and self._went_up(pending.before):
                return self._save(pending)
            return None

    # ---- inside the lock ---------------------------------------------------------------------------------------
    def _judge(self, failed: bool) -> SavedSkill | None:
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        if pending.before is not None:  # a task: the score decides
            return self._save(pending) if self._went_up(pending.before) else None
        return None if failed else self._save(pending)

    def _went_up(self, before: float) -> bool:
        now = self._read_score()
        return now is not None and now > before

    def _read_score(self) -> float | None:
        if self.score is None:
            return None
        try:
            value = self.score()
        except Exception as exc:  # a checker that fails now must not cost the agent its turn
            log.warning("reading the task's score failed (%s); the code is judged without it", exc)
            return None
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def _save(self, candidate: _Candidate) -> SavedSkill | None:
        try:
            skill = self.library.save(candidate.request, candidate.code)
        except OSError as exc:  # a full disk or a read-only folder: the agent goes on without this skill
            log.warning("%s: the skill could not be saved (%s)", self.library.folder, exc)
            return None
        if skill is not None and self.on_saved is not None:
            self.on_saved(skill)
        return skill
