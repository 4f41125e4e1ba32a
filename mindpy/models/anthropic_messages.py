"""Claude through Anthropic's Messages API, over plain HTTP (no SDK), with retries and prompt caching.

    model = AnthropicModel("claude-3-5-sonnet-latest")          # needs ANTHROPIC_API_KEY
    reply = model.send([{"role": "user", "content": "hi"}], system="You are a Minecraft bot.")
    reply.usage.cached_tokens, reply.usage.cache_write_tokens    # what the prompt cache read and wrote

The system prompt goes in the top-level `system` field as one block marked `cache_control: ephemeral`: mindpy's
prompter keeps the front of it stable, so later calls read it from the cache. The Messages API wants turns that
alternate, starting with the user's, and knows no system turns: `to_turns` reshapes mindpy's history to fit.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any

from ..userfiles import one_line, visible_text
from .base import ChatModel, Message, ModelError, ModelUnreachable, Usage, estimated_usage
from .presets import base_url, key_variable, require_key, scrub
from .retry import RetryPolicy, Transient, call_or_fail

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # the API refuses a request without max_tokens
RETRIED_STATUSES = {408, 409, 429, 500, 502, 503, 504, 529}  # 529: Anthropic is overloaded
# Refusals no retry changes that say the endpoint cannot be used as set up (key, URL, model name)
UNREACHABLE_STATUSES = {401: "the key was refused", 403: "the key was refused",
                        404: "not found: check the model name and the URL"}
SYSTEM_TURN_PREFIX = "[system] "
_RENAMED: dict[str, str] = {"stop": "stop_sequences"}  # OpenAI-style names profiles may use


class AnthropicModel(ChatModel):
    """A Claude model behind `POST {url}/v1/messages`."""

    api = "anthropic"

    def __init__(self, model: str, url: str | None = None, key_env: str | None = None, params: dict | None = None,
                 attempts: int = 4, timeout: float = 60.0, base_delay: float = 1.0, max_delay: float = 30.0):
        super().__init__(model)
        self.url = (base_url(self.api, url) or "").rstrip("/")
        self.key_env = key_variable(self.api, key_env)
        self.params = dict(params or {})
        self.timeout = float(timeout)
        self.policy = RetryPolicy(attempts=int(attempts), base_delay=float(base_delay), max_delay=float(max_delay))
        self._key = require_key(model, self.api, key_env, url)

    @classmethod
    def from_spec(cls, spec) -> AnthropicModel:
        return cls(spec.model, url=spec.url, key_env=spec.key_env, params=spec.params, **spec.options)

    @property
    def endpoint(self) -> str:
        # a base URL that already ends in /v1 (as OpenAI-style URLs do) is accepted as well
        return self.url + ("/messages" if self.url.endswith("/v1") else "/v1/messages")

    def request_body(self, messages: list[Message], system: str) -> dict[str, Any]:
        """The JSON body of one call."""
        body: dict[str, Any] = {"model": self.model, "max_tokens": DEFAULT_MAX_TOKENS,
                                "messages": to_turns(messages)}
        if str(system):
            body["system"] = [{"type": "text", "text": str(system), "cache_control": {"type": "ephemeral"}}]
        for key, value in self.params.items():
            name = str(key)
            body[_RENAMED.get(name, name)] = [value] if name == "stop" and isinstance(value, str) else value
        return body

    def _scrub(self, text: str) -> str:
        return scrub(text, self._key)

    def _once(self, data: bytes) -> dict:
        request = urllib.request.Request(self.endpoint, data=data, method="POST", headers={
            "content-type": "application/json", "x-api-key": self._key, "anthropic-version": API_VERSION})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            detail = self._scrub(f"HTTP {exc.code}: {_error_message(exc)}")
            if exc.code in RETRIED_STATUSES:
                raise Transient(detail, _retry_after(exc)) from None
            if exc.code in UNREACHABLE_STATUSES:
                raise ModelUnreachable(self.url, f"{detail} ({UNREACHABLE_STATUSES[exc.code]})",
                                       self.describe()) from None
            raise ModelError(f"{self.describe()} at {self.url} refused the request: {detail}") from None
        except TimeoutError:
            raise Transient(f"no answer within {self.timeout:g} s") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise Transient(f"no answer within {self.timeout:g} s") from None
            raise Transient(self._scrub(f"cannot connect: {exc.reason}")) from None
        except (json.JSONDecodeError, ConnectionError) as exc:
            raise Transient(self._scrub(f"bad answer: {exc}")) from None
        if not isinstance(payload, dict):  # JSON, but not the API's (a wrong URL): no retry changes that
            raise ModelUnreachable(self.url, self._scrub(f"it answers with {type(payload).__name__} "
                                                         f"{str(payload)[:60]!r}, not a message"), self.describe())
        return payload

    def _complete(self, messages: list[Message], system: str) -> tuple[str, Usage]:
        return self._call(self.request_body(messages, system), messages, system)

    takes_images = True  # Claude reads pictures sent as base64 image blocks

    def _complete_image(self, png: bytes, prompt: str, system: str) -> tuple[str, Usage]:
        text_turn = [{"role": "user", "content": prompt}]
        body = self.request_body(text_turn, system)
        body["messages"] = [{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(png).decode("ascii")}},
            {"type": "text", "text": prompt},
        ]}]
        return self._call(body, text_turn, system)

    def _call(self, body: dict[str, Any], messages: list[Message], system: str) -> tuple[str, Usage]:
        data = json.dumps(body).encode()
        payload, attempts = call_or_fail(lambda: self._once(data), self.policy, self.describe(), self.url)
        text = "".join(block.get("text", "") for block in payload.get("content") or []
                       if isinstance(block, dict) and block.get("type") == "text")
        return text, read_usage(payload.get("usage"), attempts) or estimated_usage(messages, system, text, attempts)


def read_usage(raw: Any, attempts: int = 1) -> Usage | None:
    """mindpy's Usage from the API's: `input_tokens` leaves out the cached parts, so they are added back in."""
    if not isinstance(raw, dict):
        return None
    read = int(raw.get("cache_read_input_tokens") or 0)
    written = int(raw.get("cache_creation_input_tokens") or 0)
    return Usage(prompt_tokens=int(raw.get("input_tokens") or 0) + read + written, cached_tokens=read,
                 cache_write_tokens=written, completion_tokens=int(raw.get("output_tokens") or 0),
                 attempts=attempts)


def to_turns(messages: list[Message]) -> list[dict[str, str]]:
    """Messages the Messages API accepts: only user and assistant turns, alternating, the first from the user.
    A system message inside the history becomes a marked user turn; neighbours of one role are joined."""
    turns: list[dict[str, str]] = []
    for m in messages:
        role = "assistant" if m.get("role") == "assistant" else "user"
        text = str(m.get("content", ""))
        if m.get("role") == "system":
            text = SYSTEM_TURN_PREFIX + text
        if not text.strip():
            continue  # the API refuses empty turns
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n\n" + text
        else:
            turns.append({"role": role, "content": text})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "(the conversation so far)"})
    if turns[-1]["role"] == "assistant":  # a trailing assistant turn is a prefill, which may not end in whitespace
        turns[-1]["content"] = turns[-1]["content"].rstrip()
    return turns


def _error_message(exc: urllib.error.HTTPError) -> str:
    """The server's own words for an error, on one line, with what a terminal would act on shown as escapes."""
    try:
        body = json.loads(exc.read() or b"{}")
    except (json.JSONDecodeError, OSError):
        body = str(exc.reason)
    err = body.get("error", body) if isinstance(body, dict) else body
    text = str(err["message"]) if isinstance(err, dict) and err.get("message") else str(err)
    return one_line(visible_text(text[:300]), 300)


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("retry-after") if exc.headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
