"""A model that answers from a script file: for tests, demos and reproducing a run without a provider.

A script is YAML or JSONL. Either a list of entries, or a mapping {replies: [...], default: "..."}.
An entry is a reply string, or a mapping:
    {reply: "text", match: "regex", times: 1}
Entries without `match` are used one after another. Entries with `match` answer whenever the last user
message matches the pattern (case-insensitive search), `times` times (default 1; 0 = every time); they are
tried before the sequential ones. When nothing is left, `default` answers, or the call fails with ModelError.
Everything the model is sent is recorded in `calls`.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserFileError
from ..userfiles import read_user_file, read_user_text
from .base import ChatModel, ModelError, Usage
from .tokens import count_messages, count_tokens


@dataclass
class ScriptEntry:
    """One scripted reply: an optional pattern it answers, and how many times it may be used."""

    reply: str
    pattern: re.Pattern | None = None
    times: int = 1  # 0: unlimited
    used: int = 0

    @property
    def available(self) -> bool:
        return self.times == 0 or self.used < self.times


def _entry(raw: Any, where: str) -> ScriptEntry:
    if isinstance(raw, str):
        return ScriptEntry(reply=raw)
    if isinstance(raw, dict) and isinstance(raw.get("reply"), str):
        unknown = set(raw) - {"reply", "match", "times"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)} (allowed: reply, match, times)")
        pattern = None
        if raw.get("match") is not None:
            try:
                pattern = re.compile(str(raw["match"]), re.IGNORECASE | re.DOTALL)
            except re.error as exc:
                raise ValueError(f"{where}: bad pattern {raw['match']!r}: {exc}") from None
        times = int(raw.get("times", 1))
        return ScriptEntry(reply=raw["reply"], pattern=pattern, times=times)
    raise ValueError(f"{where}: an entry must be a string or a mapping with a 'reply' string")


def load_script(path: str | Path) -> tuple[list[ScriptEntry], str | None]:
    """Read a replay script; errors name the file and the entry."""
    path = Path(path)
    try:
        if path.suffix != ".jsonl":
            return parse_script(read_user_file(path, "replay script"), str(path))
        text = read_user_text(path, "replay script")
    except UserFileError as exc:
        raise ModelError(str(exc)) from None
    try:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    except Exception as exc:
        raise ModelError(f"replay script {path}: not valid JSONL: {exc}") from None
    return parse_script(data, str(path))


def parse_script(data: Any, where: str = "replay script") -> tuple[list[ScriptEntry], str | None]:
    """The entries and the default reply of an already loaded script; raises ModelError if malformed."""
    default = None
    if isinstance(data, dict):
        default = data.get("default")
        data = data.get("replies", [])
    if not isinstance(data, list):
        raise ModelError(f"{where}: expected a list of replies or a mapping with 'replies'")
    try:
        return [_entry(raw, f"{where}: entry {i + 1}") for i, raw in enumerate(data)], default
    except ValueError as exc:
        raise ModelError(str(exc)) from None


def last_user_message(messages: list[dict]) -> str:
    """The content of the last user message (of the last message when there is none)."""
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content", ""))
    return str(messages[-1].get("content", "")) if messages else ""


class ReplayModel(ChatModel):
    """A chat model that answers from a script (see the module doc) and records its calls."""

    api = "replay"

    def __init__(self, script: str | Path | list | dict, default: str | None = None):
        if isinstance(script, (str, Path)):
            entries, file_default = load_script(script)
            name = str(script)
        else:
            entries, file_default = parse_script(script)
            name = "inline"
        super().__init__(name)
        self.entries = entries
        self.default = default if default is not None else file_default
        self.calls: list[dict] = []  # {"system": str, "messages": [...], "reply": str}
        self._pick_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec) -> ReplayModel:
        return cls(spec.model)

    def _pick(self, messages: list[dict]) -> str:
        last = last_user_message(messages)
        with self._pick_lock:
            for e in self.entries:
                if e.pattern is not None and e.available and e.pattern.search(last):
                    e.used += 1
                    return e.reply
            for e in self.entries:
                if e.pattern is None and e.available:
                    e.used += 1
                    return e.reply
        if self.default is not None:
            return self.default
        raise ModelError(f"replay script {self.model} has no reply left for: {last[:120]!r}")

    @property
    def remaining(self) -> int:
        return sum(1 for e in self.entries if e.pattern is None and e.available)

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        record = {"system": str(system), "messages": [dict(m) for m in messages], "reply": None}
        self.calls.append(record)
        reply = self._pick(messages)
        record["reply"] = reply
        usage = Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                      estimated=True)
        return reply, usage
