"""Retrieval: few-shot examples and skill docs chosen by similarity to the conversation."""

from .background import BackgroundEmbedder
from .embeddings import (
    DEFAULT_MODEL,
    CachedEmbedder,
    EmbeddingCache,
    FastEmbedder,
    SentenceEmbedder,
    WordOverlap,
    load_embedder,
    rank,
    ready_within,
    top_k,
)
from .examples import ExampleSelector, load_examples

__all__ = ["DEFAULT_MODEL", "BackgroundEmbedder", "CachedEmbedder", "EmbeddingCache", "FastEmbedder",
           "SentenceEmbedder", "WordOverlap", "load_embedder", "rank", "ready_within", "top_k", "ExampleSelector",
           "load_examples"]
