"""Provider registry and model spec parser.

A spec names a model the way profiles do:
    "gpt-4o-mini"                          -> api guessed from the name (openai)
    "openai/gpt-4o", "ollama/llama3.2"     -> api before the first slash, when it is a registered api
    "replay:path/to/script.yaml"           -> the replay provider
    {"api": "vllm", "model": "...", "url": "http://...", "params": {...}}  (MINDcraft's form)
Providers register a factory under an api name; later ones (e.g. an `oracle`) plug in with `register_provider`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .base import ChatModel, ModelError

log = logging.getLogger(__name__)

Factory = Callable[["ModelSpec"], ChatModel]
_PROVIDERS: dict[str, Factory] = {}

# Names whose api is clear from the name itself; anything else is taken for a local Ollama model.
_NAME_RULES: list[tuple[str, str]] = [
    (r"^(gpt-|o\d|chatgpt|text-|davinci)", "openai"),
    (r"^deepseek", "deepseek"),
    (r"^grok", "xai"),
    (r"^(mistral|open-mistral|codestral|ministral|pixtral|magistral)", "mistral"),
    (r"^claude", "anthropic"),
    (r"^gemini", "google"),
    (r"^(qwen-|qwen2\.5-max|qwq-plus)", "qwen"),
]
_GUESS_DEFAULT = "ollama"


@dataclass
class ModelSpec:
    api: str
    model: str
    url: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    key_env: str | None = None     # the NAME of the environment variable holding the key, never the key
    options: dict[str, Any] = field(default_factory=dict)  # provider options: attempts, timeout, base_delay

    def __str__(self) -> str:
        return f"{self.api}/{self.model}" + (f" at {self.url}" if self.url else "")


def register_provider(api: str, factory: Factory, replace: bool = False) -> None:
    if api in _PROVIDERS and not replace:
        raise ValueError(f"a provider for api '{api}' is already registered")
    _PROVIDERS[api] = factory


def available_apis() -> list[str]:
    _load_builtin()
    return sorted(_PROVIDERS)


def guess_api(name: str) -> str:
    lowered = name.lower()
    for pattern, api in _NAME_RULES:
        if re.match(pattern, lowered):
            return api
    return _GUESS_DEFAULT


_OPTION_KEYS = ("attempts", "timeout", "base_delay", "max_delay")


def parse_model_spec(spec: Any) -> ModelSpec:
    """Turn a profile's `model` field into a ModelSpec. Raises ValueError with what is wrong."""
    _load_builtin()
    if isinstance(spec, ModelSpec):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise ValueError("model name is empty")
        if text.startswith("replay:"):
            return ModelSpec(api="replay", model=text[len("replay:"):].strip())
        if text == "oracle" or text.startswith("oracle:"):
            return ModelSpec(api="oracle", model=text.partition(":")[2] or "oracle")
        head, sep, rest = text.partition("/")
        if sep and rest and head.lower() in _PROVIDERS:
            return ModelSpec(api=head.lower(), model=rest)
        return ModelSpec(api=guess_api(text), model=text)
    if isinstance(spec, dict):
        unknown = set(spec) - {"api", "model", "url", "params", "key_env", *_OPTION_KEYS}
        if unknown:
            raise ValueError(f"unknown key(s) {sorted(unknown)} in model spec (allowed: api, model, url, params, "
                             f"key_env, {', '.join(_OPTION_KEYS)})")
        model = spec.get("model")
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model spec needs a 'model' name (a string)")
        if spec.get("api"):
            parsed = ModelSpec(api=str(spec["api"]).lower(), model=model.strip())
        elif spec.get("url"):  # a server named by URL alone speaks the OpenAI API
            parsed = ModelSpec(api="openai", model=model.strip())
        else:
            parsed = parse_model_spec(model)
        params = spec.get("params") or {}
        if not isinstance(params, dict):
            raise ValueError("model 'params' must be a mapping (e.g. {temperature: 0.7})")
        parsed.url = spec.get("url") or parsed.url
        parsed.params = dict(params)
        parsed.key_env = spec.get("key_env")
        parsed.options = {k: spec[k] for k in _OPTION_KEYS if k in spec}
        return parsed
    raise ValueError(f"model must be a name or a mapping, not {type(spec).__name__}")


def create_model(spec: Any, **options) -> ChatModel:
    """Build the chat model a spec names. `options` (attempts, timeout, base_delay) go to the provider."""
    parsed = parse_model_spec(spec)
    parsed.options = {**parsed.options, **options}
    factory = _PROVIDERS.get(parsed.api)
    if factory is None:
        raise ModelError(f"no provider for api '{parsed.api}' (model '{parsed.model}'); available: "
                         f"{', '.join(available_apis())}. Name one explicitly, e.g. "
                         f"{{api: openai, model: ..., url: http://host/v1}} for any OpenAI-compatible server.")
    return factory(parsed)


_loaded = False


def _load_builtin() -> None:
    """Register the providers that ship with mindpy (imported lazily: the openai client is slow to import)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import openai_compat, replay

    for api in openai_compat.PRESETS:
        register_provider(api, openai_compat.OpenAICompatModel.from_spec, replace=True)
    register_provider("replay", replay.ReplayModel.from_spec, replace=True)

    def oracle(spec: ModelSpec) -> ChatModel:  # imported on use: it loads the recipe data
        from ..oracle import OracleModel

        return OracleModel.from_spec(spec)

    register_provider("oracle", oracle, replace=True)
