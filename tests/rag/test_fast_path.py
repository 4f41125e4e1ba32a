"""The fast query path (ONNX Runtime, or numpy without it) against the reference path (sentence-transformers): the
same vectors and the same examples chosen; and the ONNX graph cached on disk by the weights' content."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import REPO_ROOT
from mindpy.rag import ExampleSelector, FastEmbedder, SentenceEmbedder, load_examples
from mindpy.rag.minilm import MiniLM, shipped_model_path
from mindpy.rag.onnx_minilm import OnnxMiniLM, content_key

EXAMPLES = load_examples(REPO_ROOT / "profiles" / "conversation_examples.yaml")
EXAMPLES += load_examples(REPO_ROOT / "profiles" / "coding_examples.yaml")
QUERIES = ["nora: I'm starving, got anything to eat?", "zed: a skeleton is shooting arrows at me, save me",
           "pia: quit it, halt right now", "olaf: fetch me some lumber", "ada: come over to where I am",
           "kim: build a small house out of cobblestone", "rey: what's in your inventory?",
           "max: write code to collect 10 oak logs and craft planks", "lia: go to sleep, it is night",
           "bo: can you smelt the iron ore you have?", "jo: hi!", "jo: !!! ??? ..."]
# Longer than the model's 256 tokens: both paths must cut it at the same place.
LONG = " ".join(f"step {i}: collect {i} oak logs, craft planks and sticks, then place a chest;" for i in range(60))


@pytest.fixture(scope="module")
def reference():
    embedder = SentenceEmbedder()
    embedder.load()
    return embedder


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("graph")


@pytest.fixture(scope="module")
def fast(graph_dir):
    embedder = FastEmbedder(cache_dir=graph_dir)
    embedder.load()
    return embedder


def test_vectors_agree_with_the_reference(fast, reference):
    texts = QUERIES + ExampleSelector(EXAMPLES).keys + [LONG]
    got, want = fast.embed(texts), reference.embed(texts)
    assert got.shape == want.shape == (len(texts), 384)
    cosine = np.sum(got * want, axis=1)
    assert cosine.min() >= 0.999, [(texts[i][:40], float(cosine[i])) for i in np.argsort(cosine)[:3]]
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_same_two_examples_as_the_reference(fast, reference):
    by_fast, by_reference = ExampleSelector(EXAMPLES, fast), ExampleSelector(EXAMPLES, reference)
    for query in QUERIES:
        turns = [{"role": "user", "content": query}]
        assert by_fast.select(turns, k=2) == by_reference.select(turns, k=2), query


def test_numpy_forward_pass_agrees_with_onnx(fast):
    texts = QUERIES[:2]
    cosine = np.sum(MiniLM.load().embed(texts) * fast.embed(texts), axis=1)
    assert cosine.min() >= 0.999


def test_graph_is_built_once_and_read_after(fast, graph_dir):
    first = fast.load()  # the fixture's load, into an empty folder
    assert isinstance(first, OnnxMiniLM) and first.built and first.path.parent == graph_dir
    assert first.path.name == f"minilm-{content_key(shipped_model_path() / 'model.safetensors')}.onnx"
    written = first.path.stat().st_mtime_ns

    second = OnnxMiniLM.load(cache_dir=graph_dir)
    assert not second.built and second.path == first.path and first.path.stat().st_mtime_ns == written
    assert [p.name for p in graph_dir.iterdir()] == [first.path.name]  # no temporary file left behind
    assert np.allclose(first.embed(["cook the beef"]), second.embed(["cook the beef"]), atol=1e-6)


def test_a_damaged_cached_graph_is_built_again(fast, graph_dir, tmp_path):
    damaged = tmp_path / fast.load().path.name  # the name this machine's weights are cached under
    damaged.write_bytes(b"not a graph")
    again = OnnxMiniLM.load(cache_dir=tmp_path)
    assert again.built and again.path == damaged and damaged.stat().st_size > 1_000_000
    assert np.allclose(again.embed(["cook the beef"]), fast.embed(["cook the beef"]), atol=1e-6)


def test_cache_key_follows_the_content(tmp_path):
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    a.write_bytes(b"weights one")
    b.write_bytes(b"weights two")
    assert content_key(a) != content_key(b)
    b.write_bytes(b"weights one")
    assert content_key(a) == content_key(b)  # the name and the time do not matter, the bytes do


def test_missing_weights_are_named(tmp_path):
    with pytest.raises(ValueError, match="model.safetensors is missing"):
        OnnxMiniLM.load(tmp_path, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="model.safetensors is missing"):
        MiniLM.load(tmp_path)
