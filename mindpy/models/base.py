"""The chat model interface shared by every provider, and the record of one call's cost."""

from __future__ import annotations

import base64
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field

from ..errors import MindpyError
from ..userfiles import one_line, visible_text
from .tokens import count_messages, count_tokens

THINK_END = "</think>"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
IMAGE_TOKENS = 1000  # what a picture of a few hundred pixels a side costs in prompt tokens, at most, for budgets


class ModelError(MindpyError):
    """A model call failed for good (after retries). The agent reports it and carries on."""


class ModelUnreachable(ModelError):
    """The model's endpoint could not be used at all, whatever was asked: no connection (refused, unknown host, no
    answer in time) or server errors that outlasted the retries, or a refusal no retry changes (the key refused:
    HTTP 401/403; the model or the path not found: 404). Not the model's doing: an episode ends as an
    infrastructure error, and an agent in free play tells the player. `url` is the base URL really called."""

    def __init__(self, url: str, cause: str, model: str = "", attempts: int = 1):
        self.url = url
        self.cause = one_line(visible_text(cause), 300)  # a server's words: never escapes for a terminal
        self.model = model
        self.attempts = attempts
        who = f"{model} at {url}" if model else url
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        super().__init__(f"the model endpoint {who} is unreachable: {self.cause}{tries}")

    def __reduce__(self):  # pickled whole (worker processes send errors back)
        return type(self), (self.url, self.cause, self.model, self.attempts)


@dataclass
class Usage:
    """What one call cost. `stable_prefix_tokens` comes from the prompter: the prompt tokens laid out to stay
    the same from call to call (what a provider's prompt cache can reuse). `prompt_tokens` counts the whole
    prompt; `cached_tokens` (read from the cache) and `cache_write_tokens` (written to it) are parts of it."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    stable_prefix_tokens: int = 0
    model: str = ""
    attempts: int = 1
    estimated: bool = False  # True when the provider reported nothing and we counted ourselves
    from_cache: bool = False  # answered from the response cache (mindpy.models.cache): nothing was spent

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Reply:
    """A model's answer: the text (reasoning stripped), the token usage and the raw text."""

    text: str
    usage: Usage = field(default_factory=Usage)
    raw_text: str = ""  # the reply as the model wrote it, reasoning included

    def __str__(self) -> str:
        return self.text


def strip_thinking(text: str) -> str:
    """Drop everything up to the last `</think>`: reasoning models' scratchpad is not the answer."""
    if THINK_END in text:
        text = text.rsplit(THINK_END, 1)[1]
    return text.strip()


Message = dict  # {"role": "system" | "user" | "assistant", "content": str}


class ChatModel(ABC):
    """A chat model. Subclasses implement `_complete`; `send` adds timing, thinking removal and the usage log."""

    api: str = ""

    def __init__(self, model: str):
        self.model = model
        self.usage_log: list[Usage] = []
        self._lock = threading.Lock()

    @abstractmethod
    def _complete(self, messages: list[Message], system: str) -> tuple[str, Usage]:
        """Return the raw reply text and the usage reported for it (latency is filled in by `send`)."""

    def send(self, messages: list[Message], system: str = "") -> Reply:
        """One chat completion. Raises `ModelError` when the call failed for good."""
        start = time.perf_counter()
        raw, usage = self._complete(list(messages), system)
        return self._reply(raw, usage, start, system)

    # Providers whose API reads pictures set this and implement `_complete_image`.
    takes_images: bool = False

    def send_image(self, png: bytes, prompt: str, system: str = "") -> Reply:
        """Ask about one PNG picture: a single user turn holding `prompt` and the image. Raises `ModelError` for a
        provider that cannot take images, or when the call failed for good."""
        if not self.takes_images:
            raise ModelError(f"{self.describe()} cannot take images; name a model that can (an OpenAI-compatible "
                             f"or Anthropic one that reads pictures) as vision_model")
        if not isinstance(png, bytes | bytearray) or not bytes(png).startswith(PNG_SIGNATURE):
            raise ModelError("send_image takes the bytes of a PNG picture")
        start = time.perf_counter()
        raw, usage = self._complete_image(bytes(png), str(prompt), system)
        return self._reply(raw, usage, start, system)

    def _complete_image(self, png: bytes, prompt: str, system: str) -> tuple[str, Usage]:
        """Like `_complete`, for one user turn of `prompt` and a PNG (providers with `takes_images`)."""
        raise ModelError(f"{self.describe()} cannot take images")

    def _reply(self, raw: str, usage: Usage, start: float, system: str) -> Reply:
        usage.latency_s = round(time.perf_counter() - start, 4)
        usage.model = usage.model or self.describe()
        usage.stable_prefix_tokens = int(getattr(system, "stable_prefix_tokens", 0) or usage.stable_prefix_tokens)
        with self._lock:
            self.usage_log.append(usage)
        return Reply(text=strip_thinking(raw or ""), usage=usage, raw_text=raw or "")

    def describe(self) -> str:
        return f"{self.api}/{self.model}" if self.api else self.model

    def total_usage(self) -> Usage:
        """Sum of every call so far (latency summed too)."""
        with self._lock:
            log = list(self.usage_log)
        total = Usage(model=self.describe(), attempts=0)
        for u in log:
            total.prompt_tokens += u.prompt_tokens
            total.cached_tokens += u.cached_tokens
            total.cache_write_tokens += u.cache_write_tokens
            total.completion_tokens += u.completion_tokens
            total.latency_s += u.latency_s
            total.stable_prefix_tokens += u.stable_prefix_tokens
            total.attempts += u.attempts
        return total

    def answers_from_cache(self, messages: list[Message], system: str = "") -> bool:
        """Whether this request would be answered from a response cache, not the provider (a budget does not
        count such a call); only a cache's wrapper (mindpy.models.cache) says yes."""
        return False

    def close(self) -> None:  # noqa: B027 - optional hook: providers without connections keep this no-op
        """Release connections (nothing to do for most providers)."""

    def set_task_context(self, task_fields: dict, agent_name: str,
                         agent_index: int | None = None) -> None:
        """Told once, before an episode's first call: the task's fields as its file states them (plus "task_id")
        and which of its agents this model plays. The prompt stays what every model reads; models ignore this,
        except scripted players that plan from the task itself (the oracle). A wrapper passes it on to the model
        it wraps (its `inner`)."""
        inner = self.__dict__.get("inner")
        if isinstance(inner, ChatModel):
            inner.set_task_context(task_fields, agent_name, agent_index)

    def __repr__(self) -> str:  # never shows keys: providers keep only the name of the variable holding one
        return f"<{type(self).__name__} {self.describe()}>"


def estimated_usage(messages: list[Message], system: str, text: str, attempts: int) -> Usage:
    """The usage of a call whose server reported none, counted here so that budgets still work."""
    return Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(text),
                 attempts=attempts, estimated=True)


def png_data_url(png: bytes) -> str:
    """A PNG as a `data:` URL, as OpenAI-style APIs take pictures."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def with_system(messages: list[Message], system: str) -> list[Message]:
    """The message list a chat-completions API expects: the system prompt first (when there is one)."""
    out = [{"role": "system", "content": str(system)}] if system else []
    out.extend({"role": m["role"], "content": str(m["content"])} for m in messages)
    return out
