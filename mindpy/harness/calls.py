"""A record of every model call of an episode: what the model was sent, what it answered, whether the command in
its answer worked. One JSONL file per agent (`calls/<agent>.jsonl`); SFT export reads them.

    logged = CallLog(model, path, "andy")   # a ChatModel itself: hand it to the agent in its place
    coder = logged.wrap(code_model, "code") # the agent's other models write to the same file (one writer)
    logged.on_agent_event(kind, text)       # an agent event hook: marks the call whose command failed
(mindpy.harness.episode gives both to build_agent: wrap_model and on_event.)

A line answered from the response cache (mindpy.models.cache) has `from_cache: true` and no tokens.
A line's `kind` says which prompt it answered: "conversing", "coding", "saving_memory", "bot_responder" (read from
the system prompt), every call of a profile's code_model "coding", and every picture sent (send_image, from the
agent's own model or its vision_model) "vision". `model` names the model that answered. A vision line holds the
prompt as its one user message and `image` ({"format": "png", "bytes": size, "file": path}); the picture itself is
saved beside the log (`calls/<agent>-pictures/0001.png`, `file` relative to the run directory), so a transcript can
show what the agent saw. A picture that cannot be saved is left out (no `file`); the call is logged all the same.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

from ..memory.state import json_text
from ..models.prices import Price, price_for

log = logging.getLogger(__name__)

ROLES = ("chat", "code", "vision")  # what an agent uses a model for (see mindpy.agent.factory.build_agent)


class CallLog:
    """One agent's call log. Wraps its chat model (and, through `wrap`, its other models); writes each call's line
    when the agent's next call starts or the log is closed (so a command's failure, reported after the call, can
    still be marked on it). Vision calls are written in order but never marked: the failure is the call's before."""

    def __init__(self, model: Any, path: str | Path, agent: str):
        self.model = model
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.agent = agent
        self.calls = 0
        self.pictures = 0  # saved so far, numbering the files
        self._pending: list[dict] = []
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # everything else is the model's (usage_log, describe, ...)
        if name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)

    def wrap(self, model: Any, role: str = "chat") -> LoggedModel:
        """`model` with its calls written to this log: `role` "chat" (kinds read from the prompt), "code" (every
        call "coding") or "vision" (pictures; any call of a chat or code model with send_image is "vision")."""
        if role not in ROLES:
            raise ValueError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        return LoggedModel(self, model, role)

    def send(self, messages: list[dict], system: str = ""):
        reply = self.model.send(messages, system)
        self.record(self.model, call_kind(str(system)), str(system), messages, reply)
        return reply

    def send_image(self, png: bytes, prompt: str, system: str = ""):
        return _send_image(self, self.model, png, prompt, system)

    def record(self, model: Any, kind: str, system: str, messages: list[dict], reply: Any,
               **extra: Any) -> None:
        """Log one finished call of `model` (the agent's models call this through their wrappers)."""
        usage = getattr(reply, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        line = {"agent": self.agent, "time": time.time(), "kind": kind, "model": _describe(model),
                "system": system, "messages": [dict(m) for m in messages], "reply": getattr(reply, "text", ""),
                "prompt_tokens": prompt, "completion_tokens": completion, "command_ok": True, **extra}
        if getattr(usage, "from_cache", False):  # answered from the response cache: nothing spent
            line["from_cache"] = True
        with self._lock:
            self._pending.append(line)
            markable = [i for i, p in enumerate(self._pending) if p["kind"] != "vision"]
            if markable:  # everything before the last markable call is settled
                self._write(self._pending[:markable[-1]])
                del self._pending[:markable[-1]]
            self.calls += 1

    def save_picture(self, png: bytes) -> str | None:
        """Save a picture the agent's model was sent; its path relative to the run directory (the calls folder's
        parent), or None when it could not be written (a full disk must not stop the agent)."""
        with self._lock:
            self.pictures += 1
            number = self.pictures
        folder = self.path.parent / f"{self.path.stem}-pictures"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{number:04d}.png").write_bytes(png)
        except OSError as exc:
            log.warning("picture %d of %s not saved: %s", number, self.agent, exc)
            return None
        return f"{self.path.parent.name}/{folder.name}/{number:04d}.png"

    def on_agent_event(self, kind: str, text: str) -> None:
        if kind == "command failed":
            with self._lock:
                for line in reversed(self._pending):
                    if line["kind"] != "vision":
                        line["command_ok"] = False
                        break

    def close(self) -> None:
        """Write the lines still held. The log stays usable: a later call is written when the next one starts
        or at the next close."""
        with self._lock:
            self._write(self._pending)
            self._pending = []

    def _write(self, lines: list[dict]) -> None:
        if not lines:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.writelines(json_text(line) + "\n" for line in lines)  # a reply may hold lone surrogates


class LoggedModel:
    """A model of an agent whose calls (send and send_image) go to its CallLog; everything else is the model's."""

    def __init__(self, log: CallLog, model: Any, role: str):
        self.log = log
        self.model = model
        self.role = role

    def __getattr__(self, name: str) -> Any:  # describe, takes_images, usage_log, close, ...
        if name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)

    def send(self, messages: list[dict], system: str = ""):
        reply = self.model.send(messages, system)
        kind = {"code": "coding", "vision": "vision"}.get(self.role) or call_kind(str(system))
        self.log.record(self.model, kind, str(system), messages, reply)
        return reply

    def send_image(self, png: bytes, prompt: str, system: str = ""):
        return _send_image(self.log, self.model, png, prompt, system)

    def __repr__(self) -> str:
        return f"<LoggedModel {self.role} {self.model!r}>"


def _send_image(calls: CallLog, model: Any, png: bytes, prompt: str, system: str):
    reply = model.send_image(png, prompt, system)
    saved = calls.save_picture(png)
    calls.record(model, "vision", str(system), [{"role": "user", "content": str(prompt)}], reply,
                 image={"format": "png", "bytes": len(png), **({"file": saved} if saved else {})})
    return reply


def _describe(model: Any) -> str:
    describe = getattr(model, "describe", None)
    try:
        return str(describe()) if callable(describe) else type(model).__name__
    except Exception:
        return type(model).__name__


def model_price(model: Any) -> Price | None:
    """The price the model's calls are counted at: its budget's (mindpy.models.budget), else the price table's."""
    price = getattr(model, "price", None)
    return price if isinstance(price, Price) else price_for(_describe(model))


def call_kind(system: str) -> str:
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
