"""`mindpy sft export`: the model calls of successful episodes as chat fine-tuning data.

One JSONL line per model call: {"messages": [system, ...turns, assistant reply]} (roles system, user, assistant:
what OpenAI fine-tuning and Hugging Face TRL's SFTTrainer read), plus a "metadata" object (task, agent, family).
Successful episodes: score 1 for crafting, cooking and orders (every order that ended was served); for
construction the top 25% of scores among the construction episodes found (MINDcraft's rule). An orders episode
gives its dispatcher's calls (`dispatcher_calls.jsonl`), one per step.

`prompt` writes the calls in the prompt the model will be served with ("as-played": as each episode's agents saw
them; "compact": the compact prompt, mindpy.prompts.compact, also for episodes played with the full task prompt,
whose conversing calls turn into it by their system part and state). A call that cannot be written so is left out and
counted (`not_converted`).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..models.tokens import count_tokens
from ..prompts.compact import COMPACT_PROMPT, FULL_PROMPT, to_compact
from ..tasks.family import scores_partially
from ..tasks.records import EpisodeResult
from .calls import read_calls

TOP_SHARE = 0.25
AS_PLAYED = "as-played"
EXPORT_PROMPTS = (AS_PLAYED, FULL_PROMPT, COMPACT_PROMPT)


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


def played_prompt(result: EpisodeResult) -> str:
    """The conversing prompt an episode was played with (episodes from before the setting: the full one)."""
    ablations = result.extra.get("ablations")
    return str(ablations.get("prompt") or FULL_PROMPT) if isinstance(ablations, dict) else FULL_PROMPT


def _full_template(folder: Path, agent: str) -> Any:
    """The conversing template `agent` played with (from the episode's profiles/), or None."""
    from ..profiles import ProfileError, load_profile
    from ..prompts.prompter import default_prompts

    path = folder / "profiles" / f"{agent}.yaml"
    try:
        profile = load_profile(path)
    except (ProfileError, OSError):
        return None
    return profile.prompts.get("conversing") or default_prompts()["conversing"]


def in_prompt(call: dict, played: str, wanted: str, template: Callable[[], Any]) -> dict | None:
    """`call` as the `wanted` prompt has it (None when it cannot be: a compact call has no docs to put back)."""
    if wanted in (AS_PLAYED, played) or call.get("kind") != "conversing":
        return call
    if wanted == COMPACT_PROMPT and played == FULL_PROMPT:
        full = template()
        converted = to_compact(str(call.get("system", "")), list(call.get("messages", [])), full) if full else None
        return None if converted is None else {**call, "system": converted[0], "messages": converted[1]}
    return None


def export_sft(run_dirs: list[str | Path], out: str | Path, families: list[str] | None = None,
               exclude_failed_commands: bool = False, kinds: list[str] | None = None,
               prompt: str = AS_PLAYED) -> dict:
    """Write the examples; returns counts (episodes, examples, tokens, by family, calls not convertible to
    `prompt`)."""
    if prompt not in EXPORT_PROMPTS:
        raise ValueError(f"prompt {prompt!r}: expected one of {', '.join(EXPORT_PROMPTS)}")
    kinds = kinds or ["conversing", "coding"]
    episodes = find_episodes(run_dirs)
    chosen = [(f, r) for f, r in successful(episodes)
              if not families or r.family in families]
    counts: dict[str, Any] = {"episodes": 0, "examples": 0, "tokens": 0, "by_family": {},
                              "skipped_episodes": len(episodes) - len(chosen), "not_converted": 0}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for folder, result in chosen:
            family = result.family
            c = counts["by_family"].setdefault(family, {"episodes": 0, "examples": 0, "tokens": 0})
            c["episodes"] += 1
            counts["episodes"] += 1
            played = played_prompt(result)
            template = functools.lru_cache(maxsize=None)(functools.partial(_full_template, folder))
            for path in call_logs(folder):
                for call in read_calls(path):
                    if call.get("kind") not in kinds:
                        continue
                    if exclude_failed_commands and not call.get("command_ok", True):
                        continue
                    agent = str(call.get("agent") or path.stem)
                    converted = in_prompt(call, played, prompt, functools.partial(template, agent))
                    if converted is None:
                        counts["not_converted"] += 1
                        continue
                    example = call_example(converted, result)
                    tokens = sum(count_tokens(m["content"]) for m in example["messages"])
                    f.write(json.dumps(example, ensure_ascii=False) + "\n")
                    c["examples"] += 1
                    c["tokens"] += tokens
                    counts["examples"] += 1
                    counts["tokens"] += tokens
    return counts
