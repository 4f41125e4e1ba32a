"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, LM Studio, llama.cpp, OpenRouter, ...) by base URL.

Keys come from environment variables only; this module keeps the variable's name, and the key itself lives
only inside the openai client object. Error texts are scrubbed of it before they go anywhere. The hosted vendors
that offer an OpenAI-compatible endpoint (Gemini, DeepSeek, Mistral, xAI, Qwen on DashScope) are presets here
(mindpy.models.presets).

    model = OpenAICompatModel("gemini-2.0-flash", api="google")   # needs GEMINI_API_KEY
"""

from __future__ import annotations

import logging
from typing import Any

from ..userfiles import one_line, visible_text
from .base import ChatModel, ModelError, ModelUnreachable, Usage, estimated_usage, png_data_url, with_system
from .presets import LOCAL_KEY, PRESETS, base_url, key_variable, require_key, scrub
from .retry import RetryPolicy, Transient, call_or_fail

log = logging.getLogger(__name__)

__all__ = ["OpenAICompatModel", "PRESETS", "LOCAL_KEY"]  # PRESETS and LOCAL_KEY stay importable from here

# Chat-completions arguments the openai client takes by name; anything else goes in the request body as is.
# Refusals that no retry changes and that say the endpoint cannot be used as set up (the key, the URL, the model
# name): the endpoint is unreachable for this run, not the request wrong. Any other 4xx is about the request.
UNREACHABLE_STATUSES = {401: "the key was refused", 403: "the key was refused",
                        404: "not found: check the model name and the URL"}
_CLIENT_PARAMS = {"temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "seed", "n",
                  "presence_penalty", "frequency_penalty", "logit_bias", "response_format", "reasoning_effort",
                  "logprobs", "top_logprobs", "user"}


class OpenAICompatModel(ChatModel):
    """A chat model behind an OpenAI-compatible API (OpenAI, vLLM, Ollama, ...), with retries."""

    def __init__(self, model: str, api: str = "openai", url: str | None = None, key_env: str | None = None,
                 params: dict | None = None, attempts: int = 4, timeout: float = 60.0, base_delay: float = 1.0,
                 max_delay: float = 30.0):
        super().__init__(model)
        self.api = api
        self.url = base_url(api, url)
        self.key_env = key_variable(api, key_env)
        self.params = dict(params or {})
        self.timeout = float(timeout)
        self.policy = RetryPolicy(attempts=int(attempts), base_delay=float(base_delay), max_delay=float(max_delay))
        key = require_key(model, api, key_env, url)
        self._secret = key  # kept only to scrub it from error texts
        import openai  # imported here: it takes a while and many runs never need it

        self._openai = openai
        # max_retries=0: retries are ours (backoff with jitter, one policy for every provider)
        self._client = openai.OpenAI(api_key=key, base_url=self.url, timeout=self.timeout, max_retries=0)
        # the URL really called: the client's own default (api.openai.com) when neither the spec nor a variable moved it
        self.endpoint = str(self._client.base_url).rstrip("/")

    @classmethod
    def from_spec(cls, spec) -> OpenAICompatModel:
        return cls(spec.model, api=spec.api, url=spec.url, key_env=spec.key_env, params=spec.params,
                   **spec.options)

    def describe(self) -> str:
        return f"{self.api}/{self.model}"

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secret)

    def _request_args(self, messages: list[dict], system: str) -> dict[str, Any]:
        args: dict[str, Any] = {"model": self.model, "messages": with_system(messages, system)}
        extra: dict[str, Any] = {}
        for k, v in self.params.items():
            (args if k in _CLIENT_PARAMS else extra)[k] = v
        if extra:
            args["extra_body"] = extra
        return args

    def _once(self, args: dict[str, Any]):
        oa = self._openai
        try:
            response = self._client.chat.completions.create(**args)
        except oa.RateLimitError as exc:
            raise Transient(self._scrub(f"HTTP 429 (rate limited): {_message(exc)}"), _retry_after(exc)) from None
        except oa.InternalServerError as exc:
            raise Transient(self._scrub(f"HTTP {exc.status_code}: {_message(exc)}"), _retry_after(exc)) from None
        except oa.APITimeoutError:
            raise Transient(f"no answer within {self.timeout:g} s") from None
        except oa.APIConnectionError as exc:
            raise Transient(self._scrub(f"cannot connect: {_root_cause(exc)}")) from None
        except oa.APIStatusError as exc:  # 400, 401, 404...: trying again will not help
            detail = self._scrub(f"HTTP {exc.status_code}: {_message(exc)}")
            if exc.status_code in UNREACHABLE_STATUSES:
                raise ModelUnreachable(self.endpoint, f"{detail} ({UNREACHABLE_STATUSES[exc.status_code]})",
                                       self.describe()) from None
            raise ModelError(f"{self.describe()} at {self.endpoint} refused the request: {detail}") from None
        except ValueError as exc:  # the body is not JSON: a web page, another service
            raise self._not_the_api(f"a body that is not JSON ({exc})") from None
        if not hasattr(response, "choices"):  # JSON, but not an object (a string, a list)
            raise self._not_the_api(f"{type(response).__name__} {str(response)[:60]!r}")
        return response

    def _not_the_api(self, what: str) -> ModelUnreachable:
        """The endpoint answers, but not as the API does (a wrong URL): no retry changes that."""
        return ModelUnreachable(self.endpoint, self._scrub(f"it answers with {what}, not a chat completion (is this "
                                                           f"the API's base URL, often ending in /v1?)"),
                                self.describe())

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        return self._call(self._request_args(messages, system), messages, system)

    # The API takes pictures as content parts; a server whose model cannot read them refuses the request
    # (HTTP 400), which comes back as a ModelError naming the model.
    takes_images = True

    def _complete_image(self, png: bytes, prompt: str, system: str) -> tuple[str, Usage]:
        args = self._request_args([], system)
        args["messages"].append({"role": "user", "content": [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": png_data_url(png)}},
        ]})
        return self._call(args, [{"role": "user", "content": prompt}], system)

    def _call(self, args: dict[str, Any], messages: list[dict], system: str) -> tuple[str, Usage]:
        response, attempts = call_or_fail(lambda: self._once(args), self.policy, self.describe(), self.endpoint)
        if not response.choices:
            raise ModelError(f"{self.describe()} returned no choices")
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, TypeError):  # a choice without a message: a bad reply, not a dead endpoint
            raise ModelError(f"{self.describe()} returned a choice without a message") from None
        usage = _usage(response, attempts)
        return text, usage or estimated_usage(messages, system, text, attempts)  # some servers report nothing


def _usage(response, attempts: int) -> Usage | None:
    u = getattr(response, "usage", None)
    if u is None:
        return None
    cached = 0
    details = getattr(u, "prompt_tokens_details", None)
    if details is not None:
        cached = getattr(details, "cached_tokens", None) or 0
    if not cached:  # DeepSeek reports cache hits under its own name
        extra = getattr(u, "model_extra", None) or {}
        cached = extra.get("prompt_cache_hit_tokens") or 0
    return Usage(prompt_tokens=u.prompt_tokens or 0, cached_tokens=int(cached),
                 completion_tokens=u.completion_tokens or 0, attempts=attempts)


def _message(exc) -> str:
    """The server's own words for an error, on one line, with what a terminal would act on shown as escapes."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        text = str(err["message"]) if isinstance(err, dict) and err.get("message") else str(err)
    else:
        text = str(getattr(exc, "message", exc))
    return one_line(visible_text(text[:300]), 300)


def _root_cause(exc: BaseException) -> str:
    """The first cause of a connection error, in its own words ("[Errno 111] Connection refused", "[Errno -2] Name
    or service not known"): the client's own text is only "Connection error."."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return str(seen[-1]) or type(seen[-1]).__name__


def _retry_after(exc) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
