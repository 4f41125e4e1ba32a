"""An SFT export (`mindpy sft export`: one {"messages": [...]} chat per line) as training pairs: the prompt (every
message but the last) and the reply (the last, the assistant's), the loss taken on the reply only. A prompt longer
than the training length loses its oldest conversation turns (never the system part, the state or the reply).

    pairs = read_pairs("sft.jsonl")          # Pairs(rows, problems): a malformed line is a problem, not an end
    fit_length(pairs.rows, tokenizer, 1024)  # drop old turns until each pair fits: (pairs, dropped, tokens)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..userfiles import one_line

ROLES = ("system", "user", "assistant")


@dataclass
class Pairs:
    """The training pairs of a file and the lines that gave none ("line 7: ..."), in file order."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def pair_of(example: Any) -> dict[str, Any]:
    """{"prompt": messages, "completion": [reply]} from one export line; ValueError saying what is wrong."""
    if not isinstance(example, dict) or not isinstance(example.get("messages"), list):
        raise ValueError('expected an object with a "messages" list')
    messages = example["messages"]
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise ValueError(f"message {i + 1}: expected {{\"role\": one of {', '.join(ROLES)}, \"content\": text}}")
    if len(messages) < 2 or messages[-1]["role"] != "assistant":
        raise ValueError("the last message must be the assistant's reply, after at least one prompt message")
    # an empty reply stays: it is the demonstrator keeping quiet (a partner's update needs no answer), which a
    # tuned model must learn as well, or two of them talk in circles
    return {"prompt": [{"role": m["role"], "content": m["content"]} for m in messages[:-1]],
            "completion": [{"role": "assistant", "content": messages[-1]["content"]}]}


def read_pairs(path: str | Path, limit: int | None = None) -> Pairs:
    """The pairs of an export file (the first `limit` of them); a line that is no chat is listed, not fatal.
    OSError when the file cannot be read, UnicodeDecodeError when it is not text."""
    pairs = Pairs()
    with Path(path).open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                pairs.rows.append(pair_of(json.loads(line)))
            except ValueError as exc:  # json's errors are ValueErrors too
                pairs.problems.append(f"line {number}: {one_line(str(exc), 160)}")
            if limit is not None and len(pairs.rows) >= limit:
                break
    return pairs


def pair_tokens(row: dict[str, Any], tokenizer: Any) -> int:
    """The tokens of a pair as the model is trained on it (its chat template)."""
    encoded = tokenizer.apply_chat_template(row["prompt"] + row["completion"], tokenize=True)
    ids = encoded["input_ids"] if hasattr(encoded, "keys") else encoded  # newer tokenizers give a mapping
    return len(ids)


def fit_length(rows: list[dict[str, Any]], tokenizer: Any,
               max_length: int) -> tuple[list[dict[str, Any]], int, int]:
    """Each pair cut to `max_length` tokens by dropping its oldest turns (the messages after the system part,
    keeping the last one, the state); pairs that still do not fit are left out. Returns (pairs, turns dropped,
    tokens of the pairs kept)."""
    fitted, dropped, total = [], 0, 0
    for row in rows:
        prompt = list(row["prompt"])
        head = 1 if prompt and prompt[0]["role"] == "system" else 0
        tokens = pair_tokens(row, tokenizer)
        while tokens > max_length and len(prompt) > head + 1:
            del prompt[head]
            dropped += 1
            tokens = pair_tokens({**row, "prompt": prompt}, tokenizer)
        if tokens <= max_length:
            fitted.append({**row, "prompt": prompt})
            total += tokens
    return fitted, dropped, total
