"""The data loop, measured: the oracle plays training tasks, its successful calls are exported in the compact
prompt, SmolLM2-135M is fine-tuned on them, and the base and the tuned model play held-out test tasks.

    python benchmarks/bench_sft.py --out runs/bench_sft [--train-tasks 80] [--test-tasks 27] [--epochs 1]
                                   [--fractions 1.0] [--mixed] [--parallel 2] [--extra-test FILE]

Steps (each skipped when its output is already in --out, so a killed run resumes):
  1. `mindpy tasks generate crafting --split train`, its first N 2-agent tasks played by the oracle
  2. `mindpy sft export --prompt compact --kinds conversing,bot_responder` of those episodes
  3. `mindpy sft train` on each fraction of the export (--fractions 0.25,0.5,1.0: the learning curve)
  4. `mindpy eval` of the first M 2-agent tasks of tasks/crafting_test.json (no test task is in the train split)
     with each tuned model (both agents), the base model on the first --base-tasks of them (it plays every one to
     its time limit), and with --mixed the tuned one beside the oracle. `--extra-test FILE` adds the 2-agent tasks
     of another task file (MINDcraft's tasks/crafting_tasks/test_tasks/2_agent.json, from a path you give) whose
     target no training task has and that can be solved at all
Prints per model: success; of its replies, the share with a command and the share of those that are valid (parse
and may be used), the share of valid commands that worked, and commands per episode; and per training: pairs,
tokens, wall time, tokens/s, device (a GPU when torch sees one).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MINDPY = Path(sys.executable).with_name("mindpy")
TEST_SPLIT = ROOT / "tasks" / "crafting_test.json"


def mindpy(*args: str) -> None:
    print("$ mindpy " + " ".join(args), flush=True)
    subprocess.run([str(MINDPY), *args], check=True)


def two_agent_subset(source: Path, target: Path, count: int) -> Path:
    """The first `count` 2-agent tasks of a task file, as a file of their own."""
    tasks = json.loads(source.read_text())
    chosen = dict([(k, v) for k, v in tasks.items() if v.get("agent_count") == 2][:count])
    target.write_text(json.dumps(chosen, indent=1))
    return target


def held_out_extra(sources: list[str], train_tasks: Path, target: Path) -> Path | None:
    """The 2-agent tasks of other task files that are held out from training (no training task has their target)
    and solvable, as a file of their own; None without sources. Says how many of each file it kept and why not the
    others."""
    from mindpy.tasks.loader import read_task_file
    from mindpy.tasks.solvable import unsolvable_reason

    if not sources:
        return None
    trained = {task["target"] for task in json.loads(train_tasks.read_text()).values()}
    kept: dict = {}
    for source in sources:
        raw = json.loads(Path(source).read_text())
        report = read_task_file(source)
        counts = {"kept": 0, "not 2 agents": 0, "target trained": 0, "unsolvable": 0, "invalid": len(report.problems)}
        for task_id, task in report.tasks.items():
            reason = ("not 2 agents" if task.agent_count != 2 else "target trained" if raw[task_id].get("target")
                      in trained else "unsolvable" if unsolvable_reason(task) else "kept")
            counts[reason] += 1
            if reason == "kept":
                kept[task_id] = raw[task_id]
        print(f"{source}: " + ", ".join(f"{n} {why}" for why, n in counts.items()), flush=True)
    target.write_text(json.dumps(kept, indent=1))
    return target


def reply_stats(eval_dir: Path) -> dict:
    """From an evaluation's results and call logs: success; of the model's conversing replies, the share that try a
    command and the share of those that are valid (the command parses and may be used: `valid_command_rate`), the
    share of valid commands that worked, and commands per episode. A reply without a command is a message (or
    keeping quiet), neither valid nor invalid."""
    from mindpy.commands.catalog import default_registry
    from mindpy.commands.parser import parse_reply
    from mindpy.harness.calls import read_calls

    registry = default_registry()
    episodes = successes = replies = attempts = valid = worked = 0
    for result_path in sorted(eval_dir.rglob("result.json")):
        result = json.loads(result_path.read_text())
        if result.get("end_reason") not in ("success", "timeout"):
            continue  # an error is the infrastructure's, not the model's
        episodes += 1
        successes += result.get("score", 0) >= 1.0
        for log in sorted((result_path.parent / "calls").glob("*.jsonl")):
            for call in read_calls(log):
                if call.get("kind") != "conversing" or str(call.get("model", "")).startswith("oracle"):
                    continue
                replies += 1
                parsed = parse_reply(call.get("reply", ""), registry)
                if parsed.command is None and parsed.error is None:
                    continue  # words only
                attempts += 1
                if parsed.ok:
                    valid += 1
                    worked += bool(call.get("command_ok", True))
    return {"episodes": episodes, "success": successes / episodes if episodes else None, "replies": replies,
            "command_share": attempts / replies if replies else None,
            "valid_command_rate": valid / attempts if attempts else None,
            "commands_worked": worked / valid if valid else None,
            "commands_per_episode": valid / episodes if episodes else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/bench_sft")
    parser.add_argument("--train-tasks", type=int, default=80, help="2-agent crafting train tasks the oracle plays")
    parser.add_argument("--test-tasks", type=int, default=27, help="2-agent crafting test tasks each model plays")
    parser.add_argument("--epochs", default="1")
    parser.add_argument("--lr", default="1e-4")
    parser.add_argument("--fractions", default="1.0", help="shares of the export to train on, e.g. 0.25,0.5,1.0")
    parser.add_argument("--max-length", default="768")
    parser.add_argument("--parallel", default="2")
    parser.add_argument("--mixed", action="store_true", help="also play the tuned model beside the oracle")
    parser.add_argument("--extra-test", action="append", default=[], metavar="FILE",
                        help="another task file whose held-out, solvable 2-agent tasks every model plays too")
    parser.add_argument("--base-tasks", type=int, default=6,
                        help="test tasks the base model plays (0: none; it times out on each, 300 s)")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)

    train_file = out / "crafting_train.json"
    if not train_file.exists():
        mindpy("tasks", "generate", "crafting", "--split", "train", "--out", str(train_file))
    train_subset = two_agent_subset(train_file, out / "train_tasks.json", args.train_tasks)
    test_subset = two_agent_subset(TEST_SPLIT, out / "test_tasks.json", args.test_tasks)
    assert not set(json.loads(train_subset.read_text())) & set(json.loads(test_subset.read_text()))
    extra = held_out_extra(args.extra_test, train_subset, out / "extra_tasks.json")
    mindpy("eval", str(train_subset), "--model", "oracle", "--parallel", args.parallel, "--out", str(out / "oracle"))
    export = out / "sft_compact.jsonl"
    mindpy("sft", "export", str(out / "oracle"), "--out", str(export), "--prompt", "compact",
           "--kinds", "conversing,bot_responder")
    lines = export.read_text().splitlines()

    trainings = {}
    for fraction in (float(f) for f in args.fractions.split(",")):
        model_dir = out / f"tuned_{fraction:g}"
        if not (model_dir / "training.json").exists():
            part = out / f"sft_compact_{fraction:g}.jsonl"
            part.write_text("\n".join(lines[:max(1, round(len(lines) * fraction))]) + "\n")
            mindpy("sft", "train", str(part), "--out", str(model_dir), "--epochs", args.epochs,
                   "--max-length", args.max_length, "--lr", args.lr)
        trainings[fraction] = json.loads((model_dir / "training.json").read_text())

    models: dict[str, list[str]] = {}
    for fraction in trainings:
        models[f"tuned_{fraction:g}"] = ["--model", f"local:{out / f'tuned_{fraction:g}'}"]
    if args.mixed:
        best = max(trainings)
        models[f"tuned_{best:g}+oracle"] = ["--model", f"local:{out / f'tuned_{best:g}'}", "--team", "1=oracle"]
    if args.base_tasks:
        models["base"] = ["--model", "local:smollm2-135m"]
    stats = {}
    for name, model_args in models.items():
        started = time.monotonic()
        tasks = [two_agent_subset(TEST_SPLIT, out / "base_tasks.json", args.base_tasks)] if name == "base" \
            else [test_subset, *([extra] if extra else [])]
        mindpy("eval", *map(str, tasks), *model_args, "--prompt", "compact", "--parallel", args.parallel,
               "--out", str(out / f"eval_{name}"))
        summary = json.loads((out / f"eval_{name}" / "summary.json").read_text())
        depth = {d: f"{v['successes']}/{v['episodes']}"
                 for d, v in sorted((summary.get("by_breakdown") or {}).get("plan_depth", {}).items())}
        stats[name] = {**reply_stats(out / f"eval_{name}"), "by_depth": depth,
                       "wall_min": (time.monotonic() - started) / 60}

    print("\ntraining (fraction of the export: pairs, tokens, steps, minutes, tokens/s, loss first -> last, device)")
    for fraction, t in trainings.items():
        print(f"  {fraction:>5g}  {t['pairs']:>5}  {t['tokens']:>8}  {t['steps']:>5}  {t['wall_s'] / 60:>6.1f}  "
              f"{t['tokens_per_s'] or 0:>6.0f}  {t['loss_first']:.3f} -> {t['loss_last']:.3f}  {t['device']}")
    extra_count = len(json.loads(extra.read_text())) if extra else 0
    print(f"\nheld-out: {args.test_tasks} 2-agent crafting test tasks" + (f" and {extra_count} of --extra-test"
          if extra else "") + ", --prompt compact")
    print(f"  {'model':<22}{'episodes':>9}{'success':>9}{'replies':>9}{'w/ cmd':>8}{'valid':>8}{'worked':>8}"
          f"{'cmd/ep':>8}{'min':>7}")
    for name, s in stats.items():
        print(f"  {name:<22}{s['episodes']:>9}{_pct(s['success']):>9}{s['replies']:>9}{_pct(s['command_share']):>8}"
              f"{_pct(s['valid_command_rate']):>8}{_pct(s['commands_worked']):>8}{s['commands_per_episode'] or 0:>8.1f}"
              f"{s['wall_min']:>7.1f}  by depth " + ", ".join(f"{d}: {n}" for d, n in s["by_depth"].items()))
    (out / "bench_sft.json").write_text(json.dumps({"trainings": {str(k): v for k, v in trainings.items()},
                                                    "models": stats}, indent=1))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


if __name__ == "__main__":
    main()
