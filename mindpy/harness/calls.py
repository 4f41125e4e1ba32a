"""A record of every model call of an episode: what the model was sent, what it answered, whether the command in
its answer worked. One JSONL file per agent (`calls/<agent>.jsonl`); SFT export reads them.

    logged = CallLog(model, path, "andy")   # a ChatModel itself: hand it to the agent in its place
    logged.on_agent_event(kind, text)       # an agent event hook: marks the call whose command failed
(mindpy.harness.episode gives both to build_agent: wrap_model and on_event.)
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any


class CallLog:
    """Wraps a chat model; writes one line per call when the next call starts or the log is closed (so a
    command's failure, reported after the call, can still be marked on it)."""

    def __init__(self, model: Any, path: str | Path, agent: str):
        self.model = model
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.agent = agent
        self.calls = 0
        self._pending: dict | None = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # everything else is the model's (usage_log, describe, ...)
        return getattr(self.model, name)

    def send(self, messages: list[dict], system: str = ""):
        reply = self.model.send(messages, system)
        usage = getattr(reply, "usage", None)
        record = {"agent": self.agent, "time": time.time(), "kind": _kind(str(system)),
                  "system": str(system), "messages": [dict(m) for m in messages], "reply": reply.text,
                  "prompt_tokens": getattr(usage, "prompt_tokens", 0),
                  "completion_tokens": getattr(usage, "completion_tokens", 0), "command_ok": True}
        with self._lock:
            self._flush()
            self._pending = record
            self.calls += 1
        return reply

    def on_agent_event(self, kind: str, text: str) -> None:
        if kind == "command failed":
            with self._lock:
                if self._pending is not None:
                    self._pending["command_ok"] = False

    def close(self) -> None:
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        if self._pending is None:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(self._pending, ensure_ascii=False) + "\n")
        self._pending = None


def _kind(system: str) -> str:
    """Which prompt a call answered: the conversation, code, memory or respond-or-ignore."""
    lowered = system[:400].lower()
    if "writing python code" in lowered or "write python" in lowered or "python code" in lowered:
        return "coding"
    if "respond or ignore" in system:
        return "bot_responder"
    if "memory" in lowered and "note" in lowered:
        return "saving_memory"
    return "conversing"


def read_calls(path: str | Path) -> list[dict]:
    """The model calls logged in a JSONL file, one dict per non-empty line."""
    out = []
    with Path(path).open(encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out
