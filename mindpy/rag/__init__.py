"""Retrieval: few-shot examples and skill docs chosen by similarity to the conversation."""

from .embeddings import (
    DEFAULT_MODEL,
    CachedEmbedder,
    EmbeddingCache,
    SentenceEmbedder,
    WordOverlap,
    load_embedder,
    rank,
    top_k,
)
from .examples import ExampleSelector, load_examples

__all__ = ["DEFAULT_MODEL", "CachedEmbedder", "EmbeddingCache", "SentenceEmbedder", "WordOverlap",
           "load_embedder", "rank", "top_k", "ExampleSelector", "load_examples"]
