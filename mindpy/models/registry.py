"""Provider registry and model spec parser.

A spec names a model the way profiles do:
    "gpt-4o-mini"                          -> api guessed from the name (openai)
    "claude-3-5-sonnet-latest"             -> anthropic (Messages API); gemini-* -> google, qwen-* -> qwen,
                                              deepseek-* -> deepseek, mistral-* -> mistral, grok-* -> xai
    "openai/gpt-4o", "ollama/llama3.2"     -> api before the first slash, when it is a registered api written in
    "anthropic/claude-...", "google/..."      lower case ("Qwen/Qwen2.5-7B" stays a model name, as on Hugging Face)
    "deepseek-r1:7b", "mistralai/Mistral-7B" -> ollama: a tag or an owner makes a name local, whatever it starts with
    "replay:path/to/script.yaml"           -> the replay provider
    "local:PATH", "local:smollm2-135m"     -> a model folder on this machine, served by `transformers serve`
                                              (mindpy.models.local_server)
    "chaos", "chaos:7"                     -> the careless model (mindpy.models.chaos), seeded
    "random", "random:7"                   -> defuse's random baseline team (mindpy.tasks.families.defuse), seeded
    "feasible", "feasible:7"               -> the coordination probes' feasibility-only answerer
                                              (mindpy.probes.feasible), seeded
    {"api": "vllm", "model": "...", "url": "http://...", "params": {...}}  (MINDcraft's form)
Providers register a factory under an api name with `register_provider`, or, from an installed package, with an
entry point of the group `mindpy.models` (the oracle and the random team do so in mindpy's own pyproject.toml):
    [project.entry-points."mindpy.models"]
    myapi = "mypackage.module:factory"     # factory(spec: ModelSpec) -> ChatModel
The entry point's name is the api; its module is imported only when a model of that api is created. Such a provider
is also named by its api alone or `api:model` ("oracle", "oracle:NAME").
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from . import presets
from .base import ChatModel, ModelError

log = logging.getLogger(__name__)
# scripted models named by api and an optional whole-number seed ("random:7")
SEEDED_APIS = ("chaos", "random", "feasible")

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
    (r"^(qwen-|qwen2\.5-max|qwen3-max|qwq-plus)", "qwen"),
]
_GUESS_DEFAULT = "ollama"
# Other words for an api before a slash ("gemini/gemini-2.0-flash").
_SLASH_ALIASES = {"gemini": "google", "dashscope": "qwen", "claude": "anthropic", "grok": "xai"}
KNOWN_PREFIXES = ("gpt-*, o1-*/o3-*/o4-*, claude-*, gemini-*, qwen-*, deepseek-*, mistral-*, grok-* "
                  "(any other bare name is an Ollama model), or api/model")


@dataclass
class ModelSpec:
    """Which model to use: the provider api, the model name, and its URL, parameters and options."""

    api: str
    model: str
    url: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    key_env: str | None = None     # the NAME of the environment variable holding the key, never the key
    options: dict[str, Any] = field(default_factory=dict)  # provider options: attempts, timeout, base_delay

    def __str__(self) -> str:
        return f"{self.api}/{self.model}" + (f" at {self.url}" if self.url else "")


def register_provider(api: str, factory: Factory, replace: bool = False) -> None:
    """Make `factory` build the models of `api`; raises ValueError if taken unless `replace`."""
    if api in _PROVIDERS and not replace:
        raise ValueError(f"a provider for api '{api}' is already registered")
    _PROVIDERS[api] = factory


def available_apis() -> list[str]:
    """The api names that have a provider, built-in or plugged in, sorted."""
    _load_builtin()
    return sorted(_PROVIDERS)


def guess_api(name: str) -> str:
    """The provider api a bare model name most likely belongs to, from its name. Vendors name their models
    without an owner before a slash ("deepseek-ai/DeepSeek-R1" is a Hugging Face name) and without a tag after a
    colon ("deepseek-r1:7b", "gpt-oss:20b" are Ollama's): such names are local models."""
    lowered = name.lower()
    if "/" in lowered or ":" in lowered:
        return _GUESS_DEFAULT
    for pattern, api in _NAME_RULES:
        if re.match(pattern, lowered):
            return api
    return _GUESS_DEFAULT


_OPTION_KEYS = ("attempts", "timeout", "base_delay", "max_delay")


def _refuse_a_misspelt_api(text: str, head: str, rest: str) -> None:
    """"opnai/gpt-4o" would be taken for a local Ollama model owned by "opnai" and fail much later, as a refused
    connection: a word before the slash that is one slip away from an api name is refused with the fix. Owners of
    local models are left alone: capitalised ("Qwen/...") or an api name with more after it ("mistralai/...",
    "deepseek-ai/...")."""
    known = [*_PROVIDERS, *_SLASH_ALIASES]
    close = difflib.get_close_matches(head, known, n=1, cutoff=0.75)
    if close and head not in known and head == head.lower() and not head.startswith(close[0]):
        api = _SLASH_ALIASES.get(close[0], close[0])
        raise ValueError(f"model {text!r}: no api {head!r}; did you mean '{api}/{rest}'? (a local Ollama model "
                         f"with an owner is written 'ollama/{text}')")


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
        if text == "local" or text.startswith("local:"):
            from .local_server import model_folder

            name = text[len("local:"):].strip() if ":" in text else ""
            model_folder(name)  # refused here, before any run starts, when it is no model folder
            return ModelSpec(api="local", model=name or "smollm2-135m")
        seeded = text.partition(":")[0]
        if seeded in SEEDED_APIS:
            if not re.fullmatch(rf"{seeded}(:-?\d+)?", text):
                raise ValueError(f"model {text!r}: a {seeded} model's seed is a whole number, as in {seeded}:7")
            return ModelSpec(api=seeded, model=text)
        api, _, name = text.partition(":")
        if api in _PLUGGED_IN:
            return ModelSpec(api=api, model=name or api)
        head, sep, rest = text.partition("/")
        api = _SLASH_ALIASES.get(head, head)
        if sep and api in _PROVIDERS:
            if not rest.strip():
                raise ValueError(f"model {text!r}: no model name after '{head}/' (e.g. {head}/<model>)")
            return ModelSpec(api=api, model=rest.strip())
        if sep:
            _refuse_a_misspelt_api(text, head, rest)
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


def create_model(spec: Any, cache: str | None = None, **options) -> ChatModel:
    """Build the chat model a spec names. `options` (attempts, timeout, base_delay) go to the provider; `cache`: a
    folder of recorded replies (mindpy.models.cache) put in front of it (None: none)."""
    from .cache import with_cache

    parsed = parse_model_spec(spec)
    parsed.options = {**parsed.options, **options}
    return with_cache(provider_for(parsed)(parsed), cache, parsed.params)


def provider_for(parsed: ModelSpec) -> Factory:
    """The factory of a parsed spec's api; ModelError (naming the apis and name prefixes there are) when none is
    registered."""
    factory = _PROVIDERS.get(parsed.api)
    if factory is None:
        raise ModelError(f"no provider for api '{parsed.api}' (model '{parsed.model}'); apis: "
                         f"{', '.join(available_apis())}; names: {KNOWN_PREFIXES}. Or name a server, e.g. "
                         f"{{api: openai, model: ..., url: http://host/v1}} for any OpenAI-compatible one.")
    return factory


def missing_key(spec: Any) -> str | None:
    """The one-line complaint when the model a spec names needs an API key that is not set (None when it can be
    called), so a run can refuse before it starts a server. Raises ValueError for a spec that does not parse."""
    parsed = parse_model_spec(spec)
    if parsed.api not in presets.PRESETS:
        return None  # replay, chaos, plugged-in providers: keys are theirs to check
    return presets.missing_key(parsed.model, parsed.api, parsed.key_env, parsed.url)


_loaded = False
_PLUGGED_IN: set[str] = set()  # apis that come from entry points
ENTRY_POINT_GROUP = "mindpy.models"


def _feasible(spec: ModelSpec) -> ChatModel:
    from ..probes.feasible import FeasibleModel  # imported when asked for: it loads the recipes

    return FeasibleModel.from_spec(spec)


def _local(spec: ModelSpec) -> ChatModel:
    from .local_server import local_model  # imported when asked for: it may start a server

    return local_model(spec)


def _load_builtin() -> None:
    """Register the providers that ship with mindpy, then those of the entry points (all imported lazily: the
    openai client is slow to import, and a plugged-in provider may load data, as the oracle does)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import anthropic_messages, chaos, openai_compat, replay

    by_protocol: dict[str, Factory] = {presets.OPENAI: openai_compat.OpenAICompatModel.from_spec,
                                       presets.ANTHROPIC: anthropic_messages.AnthropicModel.from_spec}
    builtin = {api: by_protocol[p.protocol] for api, p in presets.PRESETS.items()}
    builtin["replay"] = replay.ReplayModel.from_spec
    builtin["chaos"] = chaos.ChaosModel.from_spec
    builtin["feasible"] = _feasible
    builtin["local"] = _local
    for api, factory in builtin.items():
        register_provider(api, factory, replace=True)
    _PLUGGED_IN.clear()
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in builtin:
            log.warning("entry point %s = %s ignored: api '%s' is built in", entry.name, entry.value, entry.name)
            continue
        register_provider(entry.name, _lazy(entry), replace=True)
        _PLUGGED_IN.add(entry.name)


def _lazy(entry: metadata.EntryPoint) -> Factory:
    def factory(spec: ModelSpec) -> ChatModel:
        return entry.load()(spec)

    return factory
