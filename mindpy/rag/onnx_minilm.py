"""all-MiniLM-L6-v2 through ONNX Runtime: the fast query path (about 7 ms a query on one core, no torch).

    encoder = OnnxMiniLM.load(cache_dir=".cache/embeddings")   # builds the .onnx file once, then reads it
    vectors = encoder.embed(["collect oak logs"])              # (1, 384) float32, unit length
    encoder.built                                              # False when the cached file was read

The graph is written here from the shipped weights (mindpy.rag.minilm reads them) with onnx's helper API, so no
exporter, no torch and no download is involved. It is cached as `<cache_dir>/minilm-<key>.onnx`, the key a hash of
the weights file's content and of GRAPH_VERSION: other weights, or a change to the graph, get a file of their own.
It computes what MiniLM's numpy forward pass does (float32 throughout), so the vectors agree with
sentence-transformers' to float rounding and the on-disk vector cache is shared between the paths.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .minilm import HEADS, LAYER_NORM_EPS, MiniLM, shipped_model_path

log = logging.getLogger(__name__)

GRAPH_VERSION = "1"  # change when the graph below changes: cached files of the old graph are then not used
OPSET = 17           # LayerNormalization is in the standard domain from 17 on


def content_key(weights_file: Path) -> str:
    """The cache key of a weights file: a hash of its bytes and of the graph version."""
    digest = hashlib.sha256(GRAPH_VERSION.encode())
    with open(weights_file, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:24]


class _GraphWriter:
    """Collects nodes and weights (initializers) of one graph, naming intermediate values in order."""

    def __init__(self):
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes: list = []
        self.weights: list = []
        self._count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.weights.append(self.numpy_helper.from_array(np.require(value, requirements='C'), name))  # keeps 0-d
        return name

    def op(self, kind: str, *inputs: str, **attrs) -> str:
        self._count += 1
        out = f"{kind.lower()}_{self._count}"
        self.nodes.append(self.helper.make_node(kind, list(inputs), [out], **attrs))
        return out


def build_graph(encoder: MiniLM):
    """The ONNX model of `encoder`: input `ids` (int64, one text's token ids), output `pooled` (the mean of the
    last layer's token vectors, not yet unit length)."""
    from onnx import TensorProto, helper

    g = _GraphWriter()
    hidden = encoder.hidden
    head = hidden // HEADS
    n = g.op("Shape", "ids")
    x = g.op("Add", g.op("Gather", g.const("words", encoder.words), "ids"),
             g.op("Slice", g.const("positions", encoder.positions), g.const("zero", np.array([0], np.int64)), n,
                  g.const("axis0", np.array([0], np.int64))))
    x = g.op("Add", x, g.const("token_type", encoder.token_type))
    x = g.op("LayerNormalization", x, g.const("norm_w", encoder.norm_w), g.const("norm_b", encoder.norm_b),
             epsilon=LAYER_NORM_EPS)
    split_heads = g.const("split_heads", np.array([-1, 3, HEADS, head], np.int64))
    join_heads = g.const("join_heads", np.array([-1, hidden], np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(head), np.float32))
    half, root2 = g.const("half", np.array(0.5, np.float32)), g.const("root2", np.array(math.sqrt(2.0), np.float32))
    one = g.const("one", np.array(1.0, np.float32))
    for i, layer in enumerate(encoder.layers):
        def w(name: str, value: np.ndarray, i: int = i) -> str:
            return g.const(f"layer{i}.{name}", value)

        qkv = g.op("Add", g.op("MatMul", x, w("qkv_w", layer.qkv_w)), w("qkv_b", layer.qkv_b))
        qkv = g.op("Transpose", g.op("Reshape", qkv, split_heads), perm=[1, 2, 0, 3])   # (3, heads, n, head)
        q, k, v = (g.op("Gather", qkv, g.const(f"layer{i}.pick{j}", np.array(j, np.int64)), axis=0) for j in range(3))
        scores = g.op("Mul", g.op("MatMul", q, g.op("Transpose", k, perm=[0, 2, 1])), scale)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[1, 0, 2]), join_heads)
        attended = g.op("Add", g.op("MatMul", context, w("out_w", layer.out_w)), w("out_b", layer.out_b))
        x = g.op("LayerNormalization", g.op("Add", x, attended), w("norm1_w", layer.norm1_w),
                 w("norm1_b", layer.norm1_b), epsilon=LAYER_NORM_EPS)
        up = g.op("Add", g.op("MatMul", x, w("up_w", layer.up_w)), w("up_b", layer.up_b))
        up = g.op("Mul", g.op("Mul", up, half), g.op("Add", one, g.op("Erf", g.op("Div", up, root2))))  # exact GELU
        down = g.op("Add", g.op("MatMul", up, w("down_w", layer.down_w)), w("down_b", layer.down_b))
        x = g.op("LayerNormalization", g.op("Add", x, down), w("norm2_w", layer.norm2_w),
                 w("norm2_b", layer.norm2_b), epsilon=LAYER_NORM_EPS)
    g.nodes.append(helper.make_node("ReduceMean", [x], ["pooled"], axes=[0], keepdims=0))
    graph = helper.make_graph(g.nodes, "all-MiniLM-L6-v2",
                              [helper.make_tensor_value_info("ids", TensorProto.INT64, ["tokens"])],
                              [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [hidden])],
                              initializer=g.weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="mindpy")


class OnnxMiniLM:
    """The encoder as an ONNX Runtime session on one thread (see the module doc). `built` tells whether this load
    wrote the graph file (True) or read a cached one (False)."""

    def __init__(self, session, tokenizer, path: Path, built: bool):
        self.session = session
        self.tokenizer = tokenizer
        self.path = path
        self.built = built

    @classmethod
    def load(cls, model_dir: str | Path | None = None, cache_dir: str | Path = Path(".cache") / "embeddings",
             threads: int = 1) -> OnnxMiniLM:
        """The session for the weights in `model_dir` (the shipped model by default), from the cached graph file
        when there is one for these weights, otherwise built and written there first."""
        import onnxruntime as ort  # type: ignore[import-untyped]

        folder = Path(model_dir) if model_dir is not None else shipped_model_path()
        weights = folder / "model.safetensors"
        if not weights.is_file():
            raise ValueError(f"{weights} is missing: give the folder of a sentence-transformers BERT model")
        path = Path(cache_dir) / f"minilm-{content_key(weights)}.onnx"
        options = ort.SessionOptions()
        # One short query gains nothing from more threads, and on a busy machine they spin against each other.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        if path.is_file():
            try:
                session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
                return cls(session, MiniLM.load_tokenizer(folder), path, built=False)
            except Exception as exc:  # onnxruntime has no common error class; a damaged file is built anew
                log.warning("cached ONNX graph %s is unusable (%s); building it again", path, exc)
        encoder = MiniLM.load(folder)
        _write_atomically(path, build_graph(encoder).SerializeToString())
        tokenizer = encoder.tokenizer
        del encoder  # its numpy weights are not needed once the graph holds them
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        return cls(session, tokenizer, path, built=True)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        out = np.zeros((len(texts), 0), dtype=np.float32)
        rows = []
        for encoding in self.tokenizer.encode_batch(list(texts)):
            vector = self.session.run(["pooled"], {"ids": np.asarray(encoding.ids, dtype=np.int64)})[0]
            norm = float(np.linalg.norm(vector))
            rows.append(vector / norm if norm > 0 else vector)
        return np.stack(rows).astype(np.float32) if rows else out


def _write_atomically(path: Path, data: bytes) -> None:
    """Write the file under a temporary name and rename it: a reader never sees half a graph."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
