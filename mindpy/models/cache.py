"""A response cache: a model call whose exact request (the model, its URL and sampling parameters, the system
prompt and the messages) was answered before is answered from disk, so a rerun of an evaluation with the same model
and seed costs nothing. Only successful replies are kept.

    model = create_model("gpt-4o-mini", cache="~/.cache/mindpy/responses")   # CachedModel around the provider
    model.send(messages, system)       # the first time: the provider; then: the recorded reply, usage.from_cache

One file per request (DIR/<first 2 hex>/<sha256>.json), written to a temporary name and renamed into place, so
several episode processes can share a folder: two that miss together both ask and one answer stays. A reply from
the cache has no tokens (nothing was spent) and `usage.from_cache` set; the call log and the budget say so.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from .base import ChatModel, Message, Reply, Usage

log = logging.getLogger(__name__)

FORMAT = 1  # bumped when the key or the file changes: old entries are then simply not found


def default_cache_dir() -> Path:
    """Where replies are kept unless a folder is given: MINDPY_CACHE (or ~/.cache/mindpy), then responses/."""
    from .local import cache_dir

    return cache_dir() / "responses"


def request_key(identity: dict[str, Any], system: str, messages: list[Message], image: bytes | None = None) -> str:
    """The hex digest naming one request: what decides the reply, written canonically (sorted keys)."""
    request = {"format": FORMAT, "model": identity, "system": str(system),
               "messages": [{"role": str(m.get("role")), "content": m.get("content")} for m in messages]}
    if image is not None:
        request["image_sha256"] = hashlib.sha256(image).hexdigest()
    text = json.dumps(request, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ResponseCache:
    """The folder of recorded replies: `get` one by key, `put` one atomically."""

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder).expanduser() if folder else default_cache_dir()

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The recorded entry ({raw, usage, ...}), or None when there is none or it cannot be read."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and isinstance(entry.get("raw"), str) else None

    def put(self, key: str, entry: dict) -> None:
        """Record `entry` under `key`: written whole to a temporary file, then renamed into place."""
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}-", suffix=".tmp", dir=target.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, ensure_ascii=True)
            os.replace(tmp, target)
        except OSError as exc:  # a full or read-only disk costs the saving, never the run
            log.warning("response cache: could not write %s: %s", target, exc)


class CachedModel(ChatModel):
    """`inner` with a response cache in front: a request seen before is answered from the cache. Usage is the
    wrapped model's log (one log, not two); everything else is the wrapped model's."""

    def __init__(self, inner: ChatModel, cache: ResponseCache, identity: dict[str, Any] | None = None):
        super().__init__(inner.model)
        self.inner = inner
        self.cache = cache
        self.api = inner.api
        self.usage_log = inner.usage_log
        self._lock = inner._lock
        self.identity = identity if identity is not None else model_identity(inner)
        self.hits = 0
        self.misses = 0

    def __getattr__(self, name: str) -> Any:  # provider extras (url, calls, ...) are the wrapped model's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def answers_from_cache(self, messages: list[Message], system: str = "") -> bool:
        """Whether this request has a recorded reply (a budget does not count such a call)."""
        return self.cache.path(request_key(self.identity, system, list(messages))).exists()

    def send(self, messages: list[Message], system: str = "") -> Reply:
        return self._answer(request_key(self.identity, system, list(messages)), system,
                            lambda: self.inner.send(messages, system))

    @property
    def takes_images(self) -> bool:  # type: ignore[override]  # the wrapped model's, read-only here
        return bool(self.inner.takes_images)

    def send_image(self, png: bytes, prompt: str, system: str = "") -> Reply:
        if not self.inner.takes_images:
            return self.inner.send_image(png, prompt, system)  # its refusal
        key = request_key(self.identity, system, [{"role": "user", "content": str(prompt)}], bytes(png))
        return self._answer(key, system, lambda: self.inner.send_image(png, prompt, system))

    def _answer(self, key: str, system: str, ask) -> Reply:
        start = time.perf_counter()
        entry = self.cache.get(key)
        if entry is not None:
            self.hits += 1
            usage = Usage(model=self.inner.describe(), attempts=0, from_cache=True)
            return self._reply(entry["raw"], usage, start, system)
        self.misses += 1
        reply = ask()  # a failure raises here: nothing is recorded
        self.cache.put(key, {"format": FORMAT, "model": self.identity, "raw": reply.raw_text or reply.text,
                             "usage": reply.usage.to_dict(), "recorded_at": time.time()})
        return reply

    def _complete(self, messages: list[Message], system: str) -> tuple[str, Usage]:
        raise NotImplementedError("CachedModel answers through the model it wraps")

    def describe(self) -> str:
        return self.inner.describe()

    def close(self) -> None:
        self.inner.close()


def model_identity(model: ChatModel, params: dict | None = None) -> dict[str, Any]:
    """What names a model for the cache: its api and name, the URL it calls, and its sampling parameters."""
    url = getattr(model, "endpoint", None) or getattr(model, "url", None)
    chosen = params if params is not None else getattr(model, "params", None)
    return {"model": model.describe(), "url": str(url) if isinstance(url, str) else None,
            "params": dict(chosen) if isinstance(chosen, dict) else {}}


def with_cache(model: ChatModel, folder: str | Path | None, params: dict | None = None) -> ChatModel:
    """`model` with the response cache of `folder` in front (None or "": no cache, the model itself)."""
    if not folder:
        return model
    return CachedModel(model, ResponseCache(folder), model_identity(model, params))
