"""Where each provider api lives: its base URL, the variable naming its key, and the protocol it speaks.

    from mindpy.models.presets import PRESETS, base_url, require_key
    PRESETS["google"].url                                # Gemini's OpenAI-compatible endpoint
    base_url("google", None)                             # GEMINI_BASE_URL when set (a proxy, a test), else that
    require_key("claude-3-5-sonnet", "anthropic", None)  # the key, or ModelError naming ANTHROPIC_API_KEY

Keys are read from the environment only; callers keep the variable's name, never the key. A URL given in the model
spec beats the `*_BASE_URL` variable, which beats the preset.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .base import ModelError

OPENAI = "openai"        # chat completions (/chat/completions, Bearer key)
ANTHROPIC = "anthropic"  # Anthropic's Messages API (/v1/messages, x-api-key)


@dataclass(frozen=True)
class Preset:
    """Defaults of one provider api."""

    url: str | None             # None: the openai client's default (api.openai.com)
    key_env: str | None         # variable holding the key
    key_required: bool          # hosted services need one; local servers accept anything
    url_env: str | None = None  # variable that moves the base URL (proxies, test servers)
    protocol: str = OPENAI


PRESETS: dict[str, Preset] = {
    "openai": Preset(None, "OPENAI_API_KEY", True, "OPENAI_BASE_URL"),
    "vllm": Preset("http://localhost:8000/v1", "VLLM_API_KEY", False),
    "ollama": Preset("http://localhost:11434/v1", "OLLAMA_API_KEY", False),
    "lmstudio": Preset("http://localhost:1234/v1", "LMSTUDIO_API_KEY", False),
    "llamacpp": Preset("http://localhost:8080/v1", "LLAMACPP_API_KEY", False),
    "transformers": Preset("http://localhost:8000/v1", "TRANSFORMERS_API_KEY", False),  # `transformers serve`
    "openrouter": Preset("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", True, "OPENROUTER_BASE_URL"),
    "groq": Preset("https://api.groq.com/openai/v1", "GROQ_API_KEY", True, "GROQ_BASE_URL"),
    "together": Preset("https://api.together.xyz/v1", "TOGETHER_API_KEY", True, "TOGETHER_BASE_URL"),
    "deepseek": Preset("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", True, "DEEPSEEK_BASE_URL"),
    "mistral": Preset("https://api.mistral.ai/v1", "MISTRAL_API_KEY", True, "MISTRAL_BASE_URL"),
    "xai": Preset("https://api.x.ai/v1", "XAI_API_KEY", True, "XAI_BASE_URL"),
    "google": Preset("https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY", True,
                     "GEMINI_BASE_URL"),
    "qwen": Preset("https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY", True,
                   "DASHSCOPE_BASE_URL"),
    "anthropic": Preset("https://api.anthropic.com", "ANTHROPIC_API_KEY", True, "ANTHROPIC_BASE_URL", ANTHROPIC),
}
LOCAL_KEY = "not-needed"  # local servers ignore the key, but clients insist on one


def preset(api: str) -> Preset:
    """The preset of `api`; an api without one (a plugged-in provider named by URL) is treated as OpenAI's."""
    return PRESETS.get(api, PRESETS["openai"])


def base_url(api: str, given: str | None) -> str | None:
    """The URL to call: the spec's own, else the api's `*_BASE_URL` variable, else the preset's."""
    if given:
        return given
    p = preset(api)
    moved = os.environ.get(p.url_env or "", "").strip()
    return moved or p.url


def key_variable(api: str, key_env: str | None) -> str | None:
    """The name of the variable holding the key: the spec's own, else the api's."""
    return key_env or preset(api).key_env


def missing_key(model: str, api: str, key_env: str | None, url: str | None = None) -> str | None:
    """The one-line complaint when a hosted api's key is not set, or None when calling is possible. A URL named
    in the spec is taken for a server of the user's own, which may need no key."""
    variable = key_variable(api, key_env)
    if os.environ.get(variable or ""):
        return None
    if preset(api).key_required and not url:
        return f"{model} needs {variable}; set it or pick another model"
    return None


def require_key(model: str, api: str, key_env: str | None, url: str | None = None) -> str:
    """The key to send (LOCAL_KEY for servers that need none); ModelError naming the variable when it is missing."""
    problem = missing_key(model, api, key_env, url)
    if problem:
        raise ModelError(problem)
    return os.environ.get(key_variable(api, key_env) or "", "") or LOCAL_KEY


def scrub(text: str, key: str) -> str:
    """`text` with the key replaced by *** (servers may repeat it in their errors)."""
    return text.replace(key, "***") if key and key != LOCAL_KEY else text
