"""What a model call costs in US dollars: list prices per million tokens, and the cost of one call's Usage.

    price = price_for("anthropic/claude-3-5-sonnet-20241022")     # Price(input=3.0, output=15.0, ...)
    price.cost(reply.usage)                                       # dollars, cache reads and writes priced apart
    price_for("gpt-4o", override={"input": 1, "output": 2})       # a price of your own beats the table

The table holds vendors' list prices (USD per million tokens) as published when it was written; prices change, so
a run that must be exact gives `usd_per_mtok`. A name matches the longest key it starts with, after the api before
the last slash is dropped and dots become dashes ("openrouter/anthropic/claude-3.5-sonnet" -> claude-3-5-sonnet).
Local servers and scripted models cost nothing; a hosted model missing from the table has no price (None).
For scale: MINDcraft's closed models spent one to two dollars per agent per cooking or crafting task, two to three
on construction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .base import Usage


@dataclass(frozen=True)
class Price:
    """USD per million tokens. Cache prices default to the input price when a vendor has none."""

    input: float
    output: float
    cached_input: float | None = None  # tokens read from the prompt cache
    cache_write: float | None = None   # tokens written to it (Anthropic charges extra for those)

    def cost(self, usage: Usage) -> float:
        """Dollars one call cost: cached and cache-written prompt tokens at their own prices, the rest at input."""
        read, written = usage.cached_tokens, usage.cache_write_tokens
        fresh = max(0, usage.prompt_tokens - read - written)
        read_price = self.input if self.cached_input is None else self.cached_input
        write_price = self.input if self.cache_write is None else self.cache_write
        total = fresh * self.input + read * read_price + written * write_price + usage.completion_tokens * self.output
        return total / 1_000_000


FREE = Price(0.0, 0.0)
FREE_APIS = {"local", "vllm", "ollama", "lmstudio", "llamacpp", "transformers", "replay", "chaos", "oracle", "random",
             "feasible"}

# (input, output, cache read, cache write) USD per million tokens.
PRICES: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-4-1": Price(2.00, 8.00, 0.50),
    "gpt-4-1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4-1-nano": Price(0.10, 0.40, 0.025),
    "o1": Price(15.00, 60.00, 7.50),
    "o1-mini": Price(1.10, 4.40, 0.55),
    "o3": Price(2.00, 8.00, 0.50),
    "o3-mini": Price(1.10, 4.40, 0.55),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "claude-3-5-sonnet": Price(3.00, 15.00, 0.30, 3.75),
    "claude-3-7-sonnet": Price(3.00, 15.00, 0.30, 3.75),
    "claude-sonnet-4": Price(3.00, 15.00, 0.30, 3.75),
    "claude-3-5-haiku": Price(0.80, 4.00, 0.08, 1.00),
    "claude-3-haiku": Price(0.25, 1.25, 0.03, 0.30),
    "claude-3-opus": Price(15.00, 75.00, 1.50, 18.75),
    "claude-opus-4": Price(15.00, 75.00, 1.50, 18.75),
    "gemini-2-0-flash": Price(0.10, 0.40, 0.025),
    "gemini-2-0-flash-lite": Price(0.075, 0.30),
    "gemini-2-5-flash": Price(0.30, 2.50, 0.075),
    "gemini-2-5-pro": Price(1.25, 10.00, 0.31),
    "gemini-1-5-flash": Price(0.075, 0.30),
    "gemini-1-5-pro": Price(1.25, 5.00),
    "deepseek-chat": Price(0.27, 1.10, 0.07),
    "deepseek-reasoner": Price(0.55, 2.19, 0.14),
    "mistral-large": Price(2.00, 6.00),
    "mistral-medium": Price(0.40, 2.00),
    "mistral-small": Price(0.10, 0.30),
    "grok-2": Price(2.00, 10.00),
    "grok-3": Price(3.00, 15.00, 0.75),
    "grok-3-mini": Price(0.30, 0.50, 0.075),
    "grok-4": Price(3.00, 15.00, 0.75),
    "qwen-max": Price(1.60, 6.40),
    "qwen-plus": Price(0.40, 1.20),
    "qwen-turbo": Price(0.05, 0.20),
}
_PRICE_KEYS = {"input", "output", "cached_input", "cache_write"}


def parse_price(value: Any, where: str = "usd_per_mtok") -> Price:
    """A Price from a setting: one number (every token at that price) or a mapping with `input` and `output`
    (and optionally `cached_input`, `cache_write`). Raises ValueError saying what is wrong."""
    if isinstance(value, Price):
        return value
    if _is_price_number(value):
        return Price(float(value), float(value))
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected dollars per million tokens, a number or {{input: 3, output: 15}}, "
                         f"got {value!r}")
    unknown = set(value) - _PRICE_KEYS
    if unknown or not {"input", "output"} <= set(value):
        raise ValueError(f"{where}: needs 'input' and 'output' (optional: cached_input, cache_write), got keys "
                         f"{sorted(value)}")
    for key, number in value.items():
        if not _is_price_number(number):
            raise ValueError(f"{where}.{key}: expected dollars per million tokens (a number >= 0), got {number!r}")
    return Price(**{k: float(v) for k, v in value.items()})


def _is_price_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def price_key(described: str) -> str:
    """The table key form of a model name: no api prefix, lower case, dots as dashes."""
    return described.rsplit("/", 1)[-1].lower().replace(".", "-")


def price_for(described: str, override: Any = None, table: dict[str, Price] | None = None) -> Price | None:
    """The price of a model named `api/model` (as ChatModel.describe gives it): `override` if given, nothing for
    local servers, else the table's longest matching key; None when the model is not in the table."""
    if override is not None:
        return parse_price(override)
    if described.split("/", 1)[0] in FREE_APIS:
        return FREE
    name = price_key(described)
    table = PRICES if table is None else table
    # a key matches the whole name or its front up to a version: "-2024-08-06", ":free", "@20241022" (Vertex)
    matches = [key for key in table if name.startswith(key) and name[len(key):len(key) + 1] in ("", "-", ":", "@")]
    return table[max(matches, key=len)] if matches else None
