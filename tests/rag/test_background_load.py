"""The embedding model loading in the background: retrieval ranks by word overlap while it loads (after a bounded
wait) and by the model from the first query after it is ready; a model ready in time is used at once."""

from __future__ import annotations

import logging
import threading

import pytest

from conftest import REPO_ROOT, wait_until
from mindpy.rag import BackgroundEmbedder, CachedEmbedder, ExampleSelector, FastEmbedder, load_examples, rank

EXAMPLES = load_examples(REPO_ROOT / "profiles" / "conversation_examples.yaml")
# Word overlap and the model disagree on these: the model finds the example that means the same.
HUNGRY = [{"role": "user", "content": "nora: I'm starving, got anything to eat?"}]
LUMBER = [{"role": "user", "content": "olaf: fetch me some lumber"}]


def first_line(example) -> str:
    return next(t["content"] for t in example if t["role"] != "assistant")


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory):
    """One ONNX graph for the module: built by the first load, read by the others."""
    return tmp_path_factory.mktemp("graph")


def gated(graph_dir):
    """A background load that starts only when the returned gate is set."""
    gate = threading.Event()

    def load():
        gate.wait(30)
        return FastEmbedder(cache_dir=graph_dir)

    return BackgroundEmbedder(load), gate


def test_word_overlap_until_the_model_is_loaded_then_the_model(graph_dir, tmp_path, caplog):
    loading, gate = gated(graph_dir)
    selector = ExampleSelector(EXAMPLES, CachedEmbedder(loading, tmp_path), wait_s=0.05)
    assert selector.index is None and not loading.ready

    with caplog.at_level(logging.INFO, logger="mindpy.rag"):
        early = selector.select(HUNGRY, k=1)
    assert loading.calls == 0, "the query waited for the model instead of falling back"
    assert not first_line(early[0]).startswith("felix: I'm hungry")  # word overlap misses it
    assert "word overlap" in caplog.text  # the fallback is said, not silent

    gate.set()
    wait_until(lambda: loading.ready, timeout=60, message="the background load to end")
    assert loading.load_seconds is not None and loading.backend in ("onnxruntime", "numpy")
    late = selector.select(HUNGRY, k=1)
    assert first_line(late[0]).startswith("felix: I'm hungry"), first_line(late[0])
    assert loading.calls >= 1 and selector.index is not None


def test_model_ready_within_the_wait_is_used_for_the_first_query(graph_dir, tmp_path, caplog):
    loading, gate = gated(graph_dir)
    selector = ExampleSelector(EXAMPLES, CachedEmbedder(loading, tmp_path), wait_s=60)
    gate.set()  # the load runs now; the first query waits for it rather than falling back
    with caplog.at_level(logging.INFO, logger="mindpy.rag"):
        best = selector.select(LUMBER, k=1)
    assert first_line(best[0]).startswith("quill: get me some wood"), first_line(best[0])
    assert "word overlap" not in caplog.text


def test_a_failed_load_falls_back_to_word_overlap(tmp_path):
    def broken():
        raise OSError("weights file unreadable")

    loading = BackgroundEmbedder(broken)
    assert loading.wait(10) is False and "weights file unreadable" in loading.error
    selector = ExampleSelector(EXAMPLES, CachedEmbedder(loading, tmp_path), wait_s=10)
    best = selector.select([{"role": "user", "content": "max: what do you have in your inventory?"}], k=1)
    assert first_line(best[0]).startswith("benji: what do you have")
    assert rank("smelt iron in a furnace", ["plant wheat", "use a furnace to smelt"],
                embedder=CachedEmbedder(loading, tmp_path)) == [1, 0]
    with pytest.raises(RuntimeError, match="not available"):
        loading.embed(["anything"])
