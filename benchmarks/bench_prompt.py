"""Prompt size of the real agent, measured on the requests it sends to its model.

A small OpenAI-compatible server (benchmarks/prompt_recorder.py) records every request and answers with
scripted replies; real agents run on the embedded server with their model pointed at it:
- free play: profiles/andy.yaml on the survival base; a player asks for wood, then what it can craft;
- crafting, cooking, construction: the agents of a task episode of each family (a two-agent task of its test
  split), cut short after a few calls.
Printed per scenario and docs form: tokens of the first call and the median call (cl100k), system, command docs
and examples tokens of the first call, and the share of each call's tokens that start identically to the same
agent's previous call. `--docs full` renders the docs as they were before (every command in full, whatever
the situation), so one run shows before and after. Goal: first call <= 1550 tokens, shared prefix >= 85%.

    .venv/bin/python benchmarks/bench_prompt.py                   # both forms (about 3 minutes)
    .venv/bin/python benchmarks/bench_prompt.py --docs short      # only the prompt as it is now
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

from prompt_recorder import PromptRecorder, Recorded, measure, shared_shares  # noqa: E402

from mindpy.commands import AgentCommands, command_docs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# family: (task file, task, what the model answers)
TASKS = {
    "crafting": ("crafting_test.json",
                 "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents",
                 ("Let me check my inventory. !inventory", '!getCraftingPlan("wooden_sword", 1)',
                  "Let me see. !craftable", "I have a crafting table and one plank. What do you have?")),
    "cooking": ("cooking_test.json", "multiagent_cooking_2_agents_cooked_beef_golden_carrot",
                ("Let me check my inventory. !inventory", "What is around? !nearbyBlocks",
                 "Let me see. !craftable", "I have gold nuggets. Can you find a cow?")),
    "construction": ("construction_test.json", "materials_0_rooms_0_window_0_carpet_0_variant_0",
                     ("Let me check my inventory. !inventory", "Let me check the blueprint. !checkBlueprint",
                      "Which level is first? !getBlueprintLevel(0)", "I hold the stone. What do you hold?")),
}
MINDCRAFT_FIRST_CALL = 2216  # MINDcraft's first call on the same kind of state (measured on its own prompts)
GOAL_FIRST, GOAL_SHARED = 1550, 0.85
CALLS = 6                    # conversing calls looked at per agent

# What the model answers: queries first (their output comes back as the next call), then plain chat.
FREE_PLAY_REPLIES = ("Sure! Let me check what I have. !inventory", "Let me look around. !nearbyBlocks",
                     "No trees right here, let me see where I am. !stats", "There are no trees nearby, sorry.",
                     "Let me see. !craftable", "Nothing yet: I need logs first.")


def scripted(replies: tuple[str, ...]):
    return lambda agent, n: replies[min(n, len(replies)) - 1] if n else "respond"


def full_docs(layer: AgentCommands, context=None) -> str:
    """The docs as they were: every command the agent may use, in full, whatever the situation."""
    return command_docs(layer.registry, layer.blocked, "full", layer.only_bound and layer._any_bound())


def docs_form(form: str):
    return mock.patch.object(AgentCommands, "docs", full_docs) if form == "full" else contextlib.nullcontext()


def free_play(host: str, port: int, work: Path) -> list[Recorded]:
    from mindpy.agent.runner import AgentRunner
    from mindpy.bridge import create_bot
    from mindpy.models import create_model
    from mindpy.profiles import load_profile
    from mindpy.settings import load_settings

    settings = load_settings(None, bots_dir=str(work / "bots"), load_memory=False, narrate_behavior=False)
    profile = dataclasses.replace(load_profile(ROOT / "profiles" / "andy.yaml", base="survival", settings=settings),
                                  cooldown=0)  # the profile's pause between calls changes no prompt
    with PromptRecorder(scripted(FREE_PLAY_REPLIES)) as recorder:
        model = create_model({"api": "vllm", "model": "recorder", "url": recorder.url})
        with AgentRunner(settings, [profile], host, port, models={profile.name: model}) as runner:
            runner.start()
            player = create_bot("steve", host, port)
            try:
                player.chat("andy, can you get me some wood?")
                recorder.wait_for("andy", 4, timeout=60)
                player.chat("andy, what can you craft right now?")
                return recorder.wait_for("andy", CALLS, timeout=60)
            finally:
                player.close()


def task_episode(family: str, host: str, port: int, work: Path) -> list[Recorded]:
    from mindpy.harness.episode import run_episode
    from mindpy.tasks.loader import load_task

    file, task_id, replies = TASKS[family]
    task = dataclasses.replace(load_task(ROOT / "tasks" / file, task_id), timeout=25)  # a few calls are enough
    with PromptRecorder(scripted(replies)) as recorder:
        run_episode(task, work / "episode", model={"api": "vllm", "model": "recorder", "url": recorder.url},
                    server=f"{host}:{port}", profile_options={"cooldown": 0})
        return recorder.calls("andy")[:CALLS]


def report(label: str, calls: list[Recorded], show: bool = False) -> None:
    if show and calls:
        print(f"---- {label}: the first request ----")
        for message in calls[0].messages:
            print(f"[{message['role']}]\n{message.get('content', '')}")
        print("----")
    if not calls:
        print(f"{label:28s} no calls were recorded")
        return
    first, sizes = measure(calls[0]), [measure(c).tokens for c in calls]
    shares = shared_shares(calls)
    shared = f"{statistics.median(shares):6.1%} (min {min(shares):.1%})" if shares else "   n/a"
    print(f"{label:28s} first {first.tokens:5d}  median {statistics.median(sizes):6.0f}  system {first.system:5d}  "
          f"docs {first.docs:5d}  examples {first.examples:4d}  shared prefix {shared}  n={len(calls)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", choices=("short", "full", "both"), default="both",
                        help="the docs form: short (now), full (before), or both")
    parser.add_argument("--family", nargs="+", choices=sorted(TASKS), default=list(TASKS),
                        help="task families to measure (default: all)")
    parser.add_argument("--show", action="store_true", help="also print the first request of each scenario")
    args = parser.parse_args()
    forms = ("full", "short") if args.docs == "both" else (args.docs,)

    from mindpy.server import EmbeddedServer

    with tempfile.TemporaryDirectory(prefix="bench_prompt_") as tmp, \
            EmbeddedServer(run_dir=Path(tmp) / "server") as server:
        host, port = server.address.host, server.address.port
        print(f"tokens per request (cl100k); goal: first call <= {GOAL_FIRST}, shared prefix >= {GOAL_SHARED:.0%}; "
              f"MINDcraft's first call: {MINDCRAFT_FIRST_CALL}")
        for form in forms:
            started = time.monotonic()
            with docs_form(form):
                report(f"free play, {form} docs", free_play(host, port, Path(tmp) / f"free_{form}"), args.show)
                for family in args.family:
                    report(f"{family}, {form} docs", task_episode(family, host, port, Path(tmp) / f"{family}_{form}"),
                           args.show)
            print(f"  ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
