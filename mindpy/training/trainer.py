"""`mindpy sft train`: fine-tune a chat model on an SFT export with Hugging Face TRL's SFTTrainer.

    report = train_model("sft.jsonl", "runs/tuned", TrainOptions(epochs=2), say=print)
    # runs/tuned/ is a model folder: `--model local:runs/tuned` plays with it (mindpy.models.local_server)

The loss is on the replies only (each pair's prompt is masked). Full fine-tuning by default (for a 135M model on a
CPU it is about as fast as LoRA and learns more); `lora_rank` trains LoRA adapters and merges them into the saved
model, so both serve the same way. A checkpoint is kept every `save_steps` steps under OUT/checkpoints, and a run
started again with the same OUT resumes from the last one; the finished model replaces them. The base model comes
from a folder or from the package that ships it (`smollm2-135m`): nothing is downloaded. A GPU is used when torch
sees one. OUT/training.json records the data, the settings and what the run measured (tokens per second, losses).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, SetupError
from ..userfiles import one_line
from .data import fit_length, read_pairs

FULL_LR, LORA_LR = 5e-5, 2e-4


@dataclass(frozen=True)
class TrainOptions:
    """How to train: the base model (`smollm2-135m` or a folder), passes over the data, learning rate (None: 5e-5
    for full fine-tuning, 2e-4 for LoRA), pairs per step (batch_size x grad_accum), the longest pair in tokens,
    LoRA's rank (0: full fine-tuning), a cap on steps (-1: none), how many pairs to use (None: all)."""

    base: str = "smollm2-135m"
    epochs: float = 2.0
    learning_rate: float | None = None
    batch_size: int = 1   # on a CPU one pair per pass wastes nothing on padding (110 tokens/s against 85 with 4)
    grad_accum: int = 8
    max_length: int = 1024
    lora_rank: int = 0
    max_steps: int = -1
    limit: int | None = None
    seed: int = 0
    save_steps: int = 25

    def lr(self) -> float:
        return self.learning_rate if self.learning_rate is not None else (LORA_LR if self.lora_rank else FULL_LR)


def _base_folder(base: str) -> Path:
    from ..models.local_server import model_folder

    try:
        return model_folder(base)
    except ValueError as exc:
        raise ConfigError(f"--base: {one_line(str(exc))}") from None


def _progress_callback(say: Callable[[str], None]):
    from transformers import TrainerCallback

    class Progress(TrainerCallback):
        """One line per logged step: loss, tokens per second since the start (or the resume) and time left."""

        def on_train_begin(self, args, state, control, **kwargs):
            self.start, self.first_step, self.first_tokens = time.monotonic(), state.global_step, None

        def on_log(self, args, state, control, logs=None, **kwargs):
            logs = logs or {}
            if "loss" not in logs:
                return
            tokens = float(logs.get("num_tokens", 0) or 0)
            if self.first_tokens is None:  # a resumed run counts from its first step, not from the checkpoint's 0
                self.first_tokens = 0.0 if self.first_step == 0 else tokens
            elapsed = max(time.monotonic() - self.start, 1e-6)
            done = max(state.global_step - self.first_step, 1)
            left = (state.max_steps - state.global_step) * elapsed / done
            rate = (tokens - (self.first_tokens or 0.0)) / elapsed
            say(f"step {state.global_step}/{state.max_steps}  loss {float(logs['loss']):.3f}  "
                f"{rate:.0f} tokens/s  {left / 60:.1f} min left")

    return Progress()


def train_model(data: str | Path, out: str | Path, options: TrainOptions = TrainOptions(),
                say: Callable[[str], None] = print) -> dict[str, Any]:
    """Train on the export `data` and save the model in `out`; returns what OUT/training.json records.
    ConfigError (one line) for data or options that cannot train; SetupError when the training extra is missing."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything is local; never ask a hub
    try:
        import torch
        from datasets import Dataset
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.trainer_callback import PrinterCallback
        from transformers.trainer_utils import get_last_checkpoint
        from trl import SFTConfig, SFTTrainer
    except ImportError as exc:
        raise SetupError(f"training needs the train extra ({exc.name} is missing): run `make setup`, or pip "
                         f"install 'mindpy[train]'") from None
    out = Path(out)
    try:
        pairs = read_pairs(data, options.limit)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{data}: cannot be read as an export ({one_line(str(exc))})") from None
    for problem in pairs.problems[:5]:
        say(f"{data}: {problem} (left out)")
    base = _base_folder(options.base)
    tokenizer = AutoTokenizer.from_pretrained(base)
    rows, dropped, tokens = fit_length(pairs.rows, tokenizer, options.max_length)
    if not rows:
        raise ConfigError(f"{data}: no training pairs (of {len(pairs.rows) + len(pairs.problems)} lines, "
                          f"{len(pairs.problems)} malformed, {len(pairs.rows) - len(rows)} longer than "
                          f"{options.max_length} tokens)")
    gpu = torch.cuda.is_available()
    say(f"{len(rows)} pairs, {tokens} tokens ({dropped} old turns dropped to fit {options.max_length}); base "
        f"{base.name}; {'LoRA rank ' + str(options.lora_rank) if options.lora_rank else 'full fine-tuning'} on "
        f"{'the GPU' if gpu else 'the CPU'}")
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.bfloat16 if gpu else torch.float32)
    checkpoints = out / "checkpoints"
    config = SFTConfig(output_dir=str(checkpoints), num_train_epochs=options.epochs, max_steps=options.max_steps,
                       learning_rate=options.lr(), per_device_train_batch_size=options.batch_size,
                       gradient_accumulation_steps=options.grad_accum, max_length=options.max_length,
                       completion_only_loss=True, logging_steps=1, save_strategy="steps",
                       save_steps=options.save_steps, save_total_limit=1, report_to=[], disable_tqdm=True,
                       use_cpu=not gpu, bf16=gpu, seed=options.seed, dataloader_num_workers=0,
                       lr_scheduler_type="cosine", warmup_steps=0.05)
    peft_config = None
    if options.lora_rank:
        from peft import LoraConfig

        peft_config = LoraConfig(r=options.lora_rank, lora_alpha=2 * options.lora_rank, lora_dropout=0.0,
                                 target_modules="all-linear", task_type="CAUSAL_LM")
    trainer = SFTTrainer(model=model, args=config, train_dataset=Dataset.from_list(rows),
                         processing_class=tokenizer, peft_config=peft_config,
                         callbacks=[_progress_callback(say)])
    trainer.remove_callback(PrinterCallback)  # our progress line says it once, in words
    resume = get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None
    if resume:
        say(f"resuming from {resume}")
    started = time.monotonic()
    result = trainer.train(resume_from_checkpoint=resume)
    wall = time.monotonic() - started
    trained = trainer.model
    if options.lora_rank:
        trained = trained.merge_and_unload()  # a plain model folder, served as the full one is
    trained.save_pretrained(out)
    tokenizer.save_pretrained(out)
    losses = [float(h["loss"]) for h in trainer.state.log_history if "loss" in h]
    seen = max((float(h.get("num_tokens", 0) or 0) for h in trainer.state.log_history), default=0.0)
    report = {"data": str(data), "base": str(base), "pairs": len(rows), "malformed_lines": len(pairs.problems),
              "left_out_too_long": len(pairs.rows) - len(rows), "turns_dropped": dropped, "tokens": tokens,
              "steps": trainer.state.global_step, "tokens_trained": seen, "wall_s": round(wall, 1),
              "tokens_per_s": round(seen / wall, 1) if wall > 0 and not resume else None,
              "loss_first": losses[0] if losses else None, "loss_last": losses[-1] if losses else None,
              "losses": losses, "train_loss": float(result.training_loss), "device": "gpu" if gpu else "cpu",
              "resumed_from": resume, "options": asdict(options) | {"learning_rate": options.lr()}}
    (out / "training.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    shutil.rmtree(checkpoints, ignore_errors=True)  # the finished model stands for them
    return report
