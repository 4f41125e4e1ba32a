"""An embedder that loads on a thread of its own, so start-up goes on (bots join) while the model loads.

    embedder = BackgroundEmbedder(lambda: load_embedder(cache_dir=".cache/embeddings"))   # the load starts now
    embedder.wait(3.0)             # True once loaded; False while still loading after 3 s, or if the load failed
    embedder.embed(["a query"])    # waits for the load; RuntimeError if it failed
    embedder.load_seconds          # how long the load took (None until it ended)

Callers that must not hold up the first command wait with a bound (`ready_within`, ExampleSelector) and use word
overlap meanwhile; the first query after the load uses the model.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


class BackgroundEmbedder:
    """Runs `load()` (an embedder, or None when none can be had) on a daemon thread started at once."""

    def __init__(self, load: Callable[[], Any], name: str = "all-MiniLM-L6-v2"):
        self.name = name
        self.started_at = time.monotonic()
        self.ready_at: float | None = None
        self.error = ""
        self._load = load
        self._embedder: Any = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="embedding-model-load", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._embedder = self._load()
            if self._embedder is None:
                self.error = "no embedding model could be loaded"
            else:
                self._embedder.load()  # the slow part, here rather than in the first query
        except Exception as exc:  # the load is best effort: retrieval falls back to word overlap
            log.warning("loading the embedding model failed (%s: %s); using word overlap", type(exc).__name__, exc)
            self.error = f"{type(exc).__name__}: {exc}"
            self._embedder = None
        finally:
            self.ready_at = time.monotonic()
            self._done.set()

    @property
    def ready(self) -> bool:
        """Loaded and usable now."""
        return self._done.is_set() and self._embedder is not None

    @property
    def load_seconds(self) -> float | None:
        return None if self.ready_at is None else self.ready_at - self.started_at

    def wait(self, timeout: float | None) -> bool:
        """Wait at most `timeout` seconds (None: until the load ends); True when the model is usable."""
        self._done.wait(timeout)
        return self.ready

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not self.wait(None):
            raise RuntimeError(f"the embedding model is not available ({self.error})")
        return self._embedder.embed(texts)

    @property
    def calls(self) -> int:
        return getattr(self._embedder, "calls", 0)

    @property
    def texts_embedded(self) -> int:
        return getattr(self._embedder, "texts_embedded", 0)

    @property
    def backend(self) -> str:
        return getattr(self._embedder, "backend", "")
