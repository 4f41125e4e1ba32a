"""`mindpy sft export`: the model calls of successful episodes as chat fine-tuning data.

One JSONL line per model call: {"messages": [system, ...turns, assistant reply]} (roles system, user, assistant:
what OpenAI fine-tuning and Hugging Face TRL's SFTTrainer read), plus a "metadata" object (task, agent, family).
Successful episodes: score 1 for crafting, cooking and orders (every order that ended was served); for
construction the top 25% of scores among the construction episodes found (MINDcraft's rule). An orders episode
gives its dispatcher's calls (`dispatcher_calls.jsonl`), one per step.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..models.tokens import count_tokens
from ..tasks.family import scores_partially
from ..tasks.records import EpisodeResult
from .calls import read_calls

TOP_SHARE = 0.25


def find_episodes(run_dirs: list[str | Path]) -> list[tuple[Path, EpisodeResult]]:
    """(episode folder, result) for every finished episode under the given folders."""
    found = []
    for root in run_dirs:
        for path in sorted(Path(root).rglob("result.json")):
            try:
                result = EpisodeResult.read(path)
            except ValueError:  # unreadable or malformed: not an episode to learn from
                continue
            if result.end_reason in ("success", "timeout") and "task_id" in result.key_order:
                found.append((path.parent, result))
    return found


def successful(episodes: list[tuple[Path, EpisodeResult]]) -> list[tuple[Path, EpisodeResult]]:
    """The episodes that count as successful: score 1, or, in a family judged by its mean score (construction),
    the top 25% of that family's scores."""
    cuts: dict[str, float] = {}
    for family in {r.family for _, r in episodes}:
        if scores_partially(family):
            scores = sorted((float(r.score) for _, r in episodes if r.family == family), reverse=True)
            cuts[family] = scores[max(1, math.ceil(len(scores) * TOP_SHARE)) - 1]
    chosen = []
    for folder, result in episodes:
        score = float(result.score)
        if result.family in cuts:
            if score >= cuts[result.family] and score > 0:
                chosen.append((folder, result))
        elif score >= 1.0:
            chosen.append((folder, result))
    return chosen


def call_example(call: dict, result: EpisodeResult) -> dict:
    """One fine-tuning line: the call's messages plus the reply, with the episode's metadata."""
    messages = [{"role": "system", "content": call["system"]}]
    messages += [{"role": m["role"], "content": m["content"]} for m in call["messages"]]
    messages.append({"role": "assistant", "content": call["reply"]})
    return {"messages": messages,
            "metadata": {"task_id": result.task_id, "family": result.family,
                         "agent": call.get("agent"), "kind": call.get("kind"), "score": result.score}}


def call_logs(folder: Path) -> list[Path]:
    """An episode's call logs: each agent's calls/<name>.jsonl and, in an orders episode, the dispatcher's
    dispatcher_calls.jsonl (one call per step: its prompt and reply; mindpy.tasks.families.orders.play)."""
    logs = sorted((folder / "calls").glob("*.jsonl"))
    dispatcher = folder / "dispatcher_calls.jsonl"
    return [*logs, dispatcher] if dispatcher.is_file() else logs


def export_sft(run_dirs: list[str | Path], out: str | Path, families: list[str] | None = None,
               exclude_failed_commands: bool = False, kinds: list[str] | None = None) -> dict:
    """Write the examples; returns counts (episodes, examples, tokens, by family)."""
    kinds = kinds or ["conversing", "coding"]
    episodes = find_episodes(run_dirs)
    chosen = [(f, r) for f, r in successful(episodes)
              if not families or r.family in families]
    counts: dict[str, Any] = {"episodes": 0, "examples": 0, "tokens": 0, "by_family": {},
                              "skipped_episodes": len(episodes) - len(chosen)}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for folder, result in chosen:
            family = result.family
            c = counts["by_family"].setdefault(family, {"episodes": 0, "examples": 0, "tokens": 0})
            c["episodes"] += 1
            counts["episodes"] += 1
            for path in call_logs(folder):
                for call in read_calls(path):
                    if call.get("kind") not in kinds:
                        continue
                    if exclude_failed_commands and not call.get("command_ok", True):
                        continue
                    example = call_example(call, result)
                    tokens = sum(count_tokens(m["content"]) for m in example["messages"])
                    f.write(json.dumps(example, ensure_ascii=False) + "\n")
                    c["examples"] += 1
                    c["tokens"] += tokens
                    counts["examples"] += 1
                    counts["tokens"] += tokens
    return counts
