"""`mindpy run --replay RUN_DIR`: play an episode again in a fresh world, with the same task, seed and options, each
agent answered by its own recorded replies (RUN_DIR/calls/<agent>.jsonl) instead of a model, to reproduce what
happened (a failure, a crash) without spending anything.

Replies are handed out in order per agent and per kind of prompt (conversing, coding, vision...: the call log's
`kind`). When the episode goes another way than the recording, an agent asks for a reply of a kind whose recorded
replies are used up: the replay ends there, in one line saying who asked for what (exit code 4), not a crash.

Every episode of `mindpy run --task` (and so of `mindpy eval`) records where its task came from and its options in
RUN_DIR/episode.json; the replay reads them there.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..models.base import ChatModel, Message, ModelUnreachable, Usage
from ..userfiles import one_line, read_json_record
from .calls import call_kind, read_calls

EPISODE_RECORD = "episode.json"
EXIT_DIVERGED = 4  # the replay ran out of recorded replies: the episode went another way


def write_episode_record(run_dir: Path, task_file: str | Path, task_id: str, options: Any) -> None:
    """RUN_DIR/episode.json: the task file (absolute), the task id and the episode's options (EpisodeOptions)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    record = {"task_file": str(Path(task_file).resolve()), "task_id": task_id,
              "options": json.loads(options.to_json())}
    (run_dir / EPISODE_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True))


def read_episode_record(run_dir: Path) -> dict:
    """What write_episode_record wrote; ConfigError (one line) when RUN_DIR has none."""
    path = run_dir / EPISODE_RECORD
    record = read_json_record(path, f"--replay {one_line(str(run_dir), 80)}",
                              f"no {EPISODE_RECORD} there (an episode folder of mindpy run --task or mindpy eval)")
    if not isinstance(record, dict) or not record.get("task_file") or not record.get("task_id"):
        raise ConfigError(f"--replay: {path} does not name a task file and task id")
    return record


class ReplayEnded(ModelUnreachable):
    """The recording has no reply left for what an agent asked: the replay ends (as an outage ends an episode at
    once), saying why in one line."""

    def __init__(self, reason: str):
        super().__init__("replay", reason, "replay")
        self.args = (f"replay ended: {self.cause}",)

    def __reduce__(self):
        return type(self), (self.cause,)


class RecordedReplies:
    """The replies of a recorded episode, by agent and kind, handed out in order. Thread-safe. `ended` holds the
    reason the replay ran out, once it has."""

    def __init__(self, calls_dir: Path):
        self.queues: dict[tuple[str, str], deque[dict]] = {}
        self.total = 0
        for path in sorted(calls_dir.glob("*.jsonl")):
            for line in read_calls(path):
                self.queues.setdefault((path.stem, str(line.get("kind"))), deque()).append(line)
                self.total += 1
        self.used = 0
        self.handed: dict[tuple[str, str], int] = {}
        self.ended: str | None = None
        self._lock = threading.Lock()

    @property
    def agents(self) -> list[str]:
        return sorted({agent for agent, _ in self.queues})

    def kinds(self, agent: str) -> set[str]:
        return {kind for who, kind in self.queues if who == agent}

    def next(self, agent: str, kind: str) -> dict:
        """The next recorded call of `agent` of `kind`; ReplayEnded when there is none left."""
        with self._lock:
            queue = self.queues.get((agent, kind))
            if queue:
                self.used += 1
                self.handed[(agent, kind)] = self.handed.get((agent, kind), 0) + 1
                return queue.popleft()
            recorded = self.handed.get((agent, kind), 0)
            left = {k: len(q) for (a, k), q in self.queues.items() if a == agent and q}
            rest = ", ".join(f"{n} {k}" for k, n in sorted(left.items())) or "none"
            reason = (f"{agent} asked for a {kind} reply after its {recorded} recorded ones (replies left: {rest}); "
                      f"the episode went another way than the recording")
            self.ended = self.ended or reason
            raise ReplayEnded(reason)


class ReplayedModel(ChatModel):
    """Agent `agent`'s model in a replay: each call gets the agent's next recorded reply of the call's kind."""

    api = "replay"

    def __init__(self, replies: RecordedReplies, agent: str):
        super().__init__(agent)
        self.replies = replies
        self.agent = agent
        self.takes_images = "vision" in replies.kinds(agent)

    def _complete(self, messages: list[Message], system: str) -> tuple[str, Usage]:
        line = self.replies.next(self.agent, call_kind(str(system)))
        return str(line.get("reply", "")), Usage(estimated=True, attempts=0)

    def _complete_image(self, png: bytes, prompt: str, system: str) -> tuple[str, Usage]:
        line = self.replies.next(self.agent, "vision")
        return str(line.get("reply", "")), Usage(estimated=True, attempts=0)


def replay_command(args) -> int:
    """`mindpy run --replay RUN_DIR [--run-dir DIR] [--server S]`: the episode again from its recorded replies;
    last line `score: X`, or one line saying where the replay ran out (exit code 4)."""
    from ..models.budget import BudgetLimits
    from ..tasks.loader import read_task_file
    from .episode import run_episode
    from .options import EpisodeOptions
    from .session import EpisodeInfraError

    source = Path(args.replay)
    record = read_episode_record(source)
    report = read_task_file(record["task_file"], only=[record["task_id"]])
    task = report.task(record["task_id"])
    options = EpisodeOptions.from_json(json.dumps(record.get("options") or {}))
    replies = RecordedReplies(source / "calls")
    if not replies.total:
        raise ConfigError(f"--replay {one_line(str(source), 80)}: no recorded model calls in its calls/ folder")
    # the recorded replies stand for every agent's model: nothing is created, budgeted or cached
    options = replace(options, model=None, team={}, budget=BudgetLimits(), cache=None,
                      server=getattr(args, "server", None) or "embedded")
    run_dir = Path(args.run_dir) if args.run_dir != "runs/run" else Path("runs") / f"replay-{source.name}"
    print(f"replaying {replies.total} recorded replies of {source} ({task.id}, seed {options.seed})", flush=True)
    models = {agent: ReplayedModel(replies, agent) for agent in replies.agents}
    try:
        result = run_episode(task, run_dir, models=models, progress=lambda text: print(text, flush=True),
                             **options.episode_kwargs())
    except EpisodeInfraError as exc:
        if replies.ended:
            print(f"replay ended: {replies.ended}", flush=True)
            print(f"Results in {run_dir}", flush=True)
            return EXIT_DIVERGED
        print(f"infrastructure error (not scored): {exc}", file=sys.stderr, flush=True)
        return 3
    print(f"replayed {replies.used} of {replies.total} recorded replies; results in {run_dir}", flush=True)
    print(f"score: {result['score']}", flush=True)
    return 0
