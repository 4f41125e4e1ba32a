"""Few-shot examples picked by similarity between the current conversation and each example.

An example is a short conversation: a list of {role, content} turns (MINDcraft's JSON examples have the same
shape). An example is matched on its non-assistant text, what the bot would be reacting to.
Examples are embedded once (cached on disk), held in a faiss index, and searched per prompt.

    selector = ExampleSelector(load_examples("profiles/conversation_examples.yaml"), embedder)
    selector.render(history_turns, k=2, name="andy")      # "Examples of how to respond: ..."

With an embedder still loading in the background (mindpy.rag.background) the index is built on the first query
after the load. The first query waits for the model at most `wait_s` (MODEL_WAIT_S); if the model is still not
there, that query and the ones until the load ends are ranked by word overlap (logged once), so the first
command is never held up for long, and nothing changes when the model is ready in time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import UserFileError
from ..userfiles import read_user_file
from .embeddings import MODEL_WAIT_S, Embedder, VectorIndex, WordOverlap, _embed_query, ready_within

log = logging.getLogger(__name__)

ROLES = ("user", "assistant", "system")
QUERY_TURNS = 4    # the latest non-assistant turns make the query: what the bot must react to now
QUERY_CHARS = 600  # and at most this much of their end: embedding time grows with the query's length


def validate_examples(data: Any, where: str) -> list[list[dict]]:
    """Check the shape of a list of examples; errors name `where` and the example number."""
    if not isinstance(data, list):
        raise ValueError(f"{where}: examples must be a list of conversations")
    out = []
    for i, example in enumerate(data, 1):
        if not isinstance(example, list) or not example:
            raise ValueError(f"{where}: example {i} must be a non-empty list of {{role, content}} turns")
        turns = []
        for j, turn in enumerate(example, 1):
            if not isinstance(turn, dict) or turn.get("role") not in ROLES or not isinstance(turn.get("content"), str):
                raise ValueError(f"{where}: example {i}, turn {j}: needs 'role' (one of {', '.join(ROLES)}) and "
                                 f"'content' (a string), got {turn!r}")
            turns.append({"role": turn["role"], "content": turn["content"]})
        out.append(turns)
    return out


def load_examples(path: str | Path) -> list[list[dict]]:
    """Examples from a YAML or JSON file (a list of conversations); ValueError naming the file if it cannot be
    read or is malformed."""
    try:
        data = read_user_file(path, "examples file")
    except UserFileError as exc:
        raise ValueError(str(exc)) from None
    return validate_examples(data, str(path))


def example_key(example: list[dict]) -> str:
    """The text an example is retrieved by: its non-assistant turns."""
    return "\n".join(t["content"] for t in example if t["role"] != "assistant")


def conversation_query(turns: Sequence[dict]) -> str:
    """The latest non-assistant turns up to the newest user message. Command output that came after it is left
    out, so the examples stay the same through one command loop (and the prompt prefix stays cacheable)."""
    turns = list(turns)
    last_user = max((i for i, t in enumerate(turns) if t.get("role") == "user"), default=len(turns) - 1)
    relevant = [t for t in turns[:last_user + 1] if t.get("role") != "assistant"]
    return "\n".join(t["content"] for t in relevant[-QUERY_TURNS:])[-QUERY_CHARS:]


def render_example(example: list[dict], name: str = "") -> str:
    """The example as lines of a prompt, with `$NAME` replaced by the bot's name."""
    lines = []
    for t in example:
        content = t["content"].replace("$NAME", name) if name else t["content"]
        if t["role"] == "user":
            lines.append(f"Player says: {content}")
        elif t["role"] == "assistant":
            lines.append(f"You reply: {content}")
        else:
            lines.append(f"System: {content}")
    return "\n".join(lines)


class ExampleSelector:
    """Chooses the examples most like the conversation. `embedder=None` uses word overlap."""

    def __init__(self, examples: list[list[dict]], embedder: Embedder | None = None,
                 title: str = "Examples of how to respond:", wait_s: float = MODEL_WAIT_S):
        self.examples = examples
        self.keys = [example_key(e) for e in examples]
        self.embedder = embedder
        self.title = title
        self.wait_s = wait_s
        self.index: VectorIndex | None = None
        self._waited = False  # the bounded wait is spent once; later queries only look whether the model is there
        self._lock = threading.Lock()
        if embedder is not None and examples and ready_within(embedder, 0):
            self._build_index()

    def _build_index(self) -> None:
        embedder = self.embedder
        if embedder is None:
            return
        try:
            self.index = VectorIndex(embedder.embed(self.keys))
        except Exception as exc:  # e.g. the model failed to load after all
            log.warning("embedding the examples failed (%s); using word overlap", exc)
            self.embedder = None

    def _model_ready(self) -> bool:
        """The index is there, or the model is and the index could be built now."""
        if self.index is not None or self.embedder is None:
            return self.index is not None
        with self._lock:
            if self.index is None and self.embedder is not None:
                if ready_within(self.embedder, 0 if self._waited else self.wait_s):
                    self._build_index()
                elif not self._waited:
                    self._waited = True
                    log.info("embedding model not loaded after %.1f s: examples ranked by word overlap until it is",
                             self.wait_s)
        return self.index is not None

    def select(self, turns: Sequence[dict], k: int = 2) -> list[list[dict]]:
        """The `k` examples nearest the conversation, best first."""
        return [self.examples[i] for i, _ in self.scored(conversation_query(turns), k)]

    def scored(self, query: str, k: int) -> list[tuple[int, float]]:
        if not self.examples or k <= 0:
            return []
        if query.strip() and self._model_ready() and self.index is not None and self.embedder is not None:
            return self.index.search(_embed_query(self.embedder, query), k)
        scores = WordOverlap.scores(query, self.keys)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [(i, scores[i]) for i in order[:k]]

    def render(self, turns: Sequence[dict], k: int = 2, name: str = "") -> str:
        chosen = self.select(turns, k)
        if not chosen:
            return ""
        parts = [self.title]
        for n, example in enumerate(chosen, 1):
            parts.append(f"Example {n}:\n{render_example(example, name)}")
        return "\n\n".join(parts)
