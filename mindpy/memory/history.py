"""The conversation history of one bot, and its memory: a short summary of what fell out of the history.

Turns are {role, content}: the bot's own replies are "assistant", command output and notices are "system",
and everyone else's messages are "user" turns written "name: message". When the history reaches
`max_messages` turns, the oldest `summarize_count` (and the assistant turns right after them, so the history
never starts with the bot talking) are folded with the old memory into a new memory of at most 500 characters.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .state import BotState

log = logging.getLogger(__name__)

MAX_MESSAGES = 15
SUMMARIZE_COUNT = 5
MEMORY_LIMIT = 500

# (old memory, turns to fold in) -> new memory
Summarizer = Callable[[str, list[dict]], str]


def summarize_span(turns: list[dict], count: int = SUMMARIZE_COUNT) -> int:
    """How many leading turns to summarize: `count`, plus the assistant turns that follow them."""
    n = min(count, len(turns))
    while n < len(turns) and turns[n]["role"] == "assistant":
        n += 1
    return n


class History:
    """A bot's conversation turns, summarized into a memory text when they grow too many, and saved."""
    def __init__(self, name: str, summarizer: Summarizer | None = None, max_messages: int = MAX_MESSAGES,
                 summarize_count: int = SUMMARIZE_COUNT, memory_limit: int = MEMORY_LIMIT,
                 state: BotState | None = None, extra_state: Callable[[], dict] | None = None):
        """`summarizer` is usually `lambda memory, turns: prompter.summarize(model, memory, turns)`.
        `extra_state()` supplies the rest of the bot's saved state (self-prompt, task start, last sender)."""
        self.name = name
        self.summarizer = summarizer
        self.max_messages = max_messages
        self.summarize_count = summarize_count
        self.memory_limit = memory_limit
        self.state = state
        self.extra_state = extra_state
        self.turns: list[dict] = []
        self.added = 0  # turns ever added (never lowered by summarizing): tells a reader which turns are new
        self.memory = ""
        self.restored: dict[str, Any] = {}  # what `load` found besides memory and turns
        self._lock = threading.RLock()

    # ---- adding -----------------------------------------------------------------------------------------
    def add(self, sender: str, message: str) -> None:
        """Record a message from `sender`: this bot's own name, "system", or anyone else."""
        if sender == self.name:
            turn = {"role": "assistant", "content": message}
        elif sender == "system":
            turn = {"role": "system", "content": message}
        else:
            turn = {"role": "user", "content": f"{sender}: {message}"}
        with self._lock:
            self.turns.append(turn)
            self.added += 1
            if len(self.turns) >= self.max_messages:
                self._summarize_oldest()
        self.save()

    def _summarize_oldest(self) -> None:
        n = summarize_span(self.turns, self.summarize_count)
        chunk, old_memory = self.turns[:n], self.memory
        new_memory = old_memory
        if self.summarizer is not None:
            try:
                new_memory = self.summarizer(old_memory, chunk)
            except Exception as exc:  # the model being down must not lose the turns: they go to the archive
                log.warning("%s: memory summary failed, keeping the old memory: %s", self.name, exc)
        self.memory = clip(new_memory, self.memory_limit)
        del self.turns[:n]
        if self.state is not None:
            try:
                self.state.append_archive({"turns": chunk, "memory_before": old_memory, "memory_after": self.memory})
            except (OSError, ValueError, TypeError) as exc:  # a full disk must not stop the agent that is talking
                log.warning("%s: could not archive the summarized turns: %s", self.name, exc)

    # ---- reading ----------------------------------------------------------------------------------------
    def get(self) -> list[dict]:
        with self._lock:
            return [dict(t) for t in self.turns]

    def since(self, added: int) -> tuple[list[dict], int]:
        """The turns added after the first `added` that are still kept, and the count of turns added so far."""
        with self._lock:
            new = min(max(self.added - added, 0), len(self.turns))
            return [dict(t) for t in self.turns[len(self.turns) - new:]], self.added

    def clear(self) -> None:
        """Forget the turns and the memory (`!clearChat`)."""
        with self._lock:
            self.turns.clear()
            self.memory = ""
        self.save()

    # ---- persistence ------------------------------------------------------------------------------------
    def save(self, **fields: Any) -> None:
        if self.state is None:
            return
        extra = self.extra_state() if self.extra_state else {}
        with self._lock:
            data = {"memory": self.memory, "turns": [dict(t) for t in self.turns]}
        try:
            self.state.save(**extra, **fields, **data)
        except (OSError, ValueError, TypeError) as exc:  # ValueError, TypeError: a value JSON cannot write
            log.warning("%s: could not save the state: %s", self.name, exc)

    def load(self) -> dict[str, Any]:
        """Restore memory and turns from the state file (`load_memory`); returns the whole saved state."""
        if self.state is None:
            return {}
        try:
            data = self.state.load()
        except OSError as exc:
            log.warning("%s: could not read the saved state, starting afresh: %s", self.name, exc)
            return {}
        with self._lock:
            self.memory = str(data.get("memory", "") or "")
            self.turns = _valid_turns(data.get("turns"))
        self.restored = {k: v for k, v in data.items() if k not in ("memory", "turns")}
        return data


def _valid_turns(saved: Any) -> list[dict]:
    """The saved turns that have a known role and text content; anything else in the file is left out."""
    if not isinstance(saved, list):
        return []
    return [{"role": t["role"], "content": t["content"]} for t in saved
            if isinstance(t, dict) and t.get("role") in ("user", "assistant", "system")
            and isinstance(t.get("content"), str)]


def clip(text: str, limit: int) -> str:
    """The stripped text cut to `limit` characters, at a word boundary when one is near the end."""
    text = (text or "").strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit * 0.8 else cut).rstrip()
