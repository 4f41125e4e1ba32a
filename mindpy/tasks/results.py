"""The record of one task episode, written as a JSON result file when the episode ends.

    recorder = EpisodeRecorder(task, ["alice", "bob"], results_dir="runs/x/results")
    recorder.record_command("alice", "!collectBlocks")   # from the agent loop, as things happen
    recorder.record_message("bob")
    recorder.record_tokens("alice", 1234)
    recorder.on_history(lambda agent, line: ...)          # gets "Task ended with score : X" for each agent
    monitor = TaskMonitor(task, bots, on_end=[recorder.on_end])

The file (`<task id>_<start time>.json`) holds: task_id, type, score, end_reason (success, timeout, error), error,
started_at, duration_s, timeout_s, and per agent: commands (name -> count), commands_used, messages_sent, tokens.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from .checkers import ERROR, end_line
from .schema import Task

HistoryCallback = Callable[[str, str], None]  # (agent name, line)
NO_CAUSE = "the episode ended with an error whose cause was not recorded"


class EpisodeRecorder:
    """Counts an episode's commands, messages, tokens and errors, and writes its result."""
    def __init__(self, task: Task, agent_names: Sequence[str], results_dir: str | Path | None = None,
                 clock: Callable[[], float] = time.time):
        self.task = task
        self.agent_names = list(agent_names)
        self.results_dir = Path(results_dir) if results_dir is not None else None
        self.clock = clock
        self.started_at = clock()
        self.commands: dict[str, Counter] = {name: Counter() for name in self.agent_names}
        self.messages: Counter = Counter()
        self.tokens: Counter = Counter()
        self.history_callbacks: list[HistoryCallback] = []
        self.error: str | None = None
        self.result: dict | None = None
        self.path: Path | None = None
        self._lock = threading.Lock()

    # ----- counting, from the agent loop -----
    def record_command(self, agent: str, name: str) -> None:
        with self._lock:
            self.commands.setdefault(agent, Counter())[name] += 1

    def record_message(self, agent: str) -> None:
        with self._lock:
            self.messages[agent] += 1

    def record_tokens(self, agent: str, n: int) -> None:
        with self._lock:
            self.tokens[agent] += int(n)

    def record_error(self, message: str) -> None:
        """The error that ends (or will end) the episode; written to the result file."""
        self.error = message

    def on_history(self, callback: HistoryCallback) -> HistoryCallback:
        """`callback(agent_name, line)` gets the end-of-task line for each agent's history."""
        self.history_callbacks.append(callback)
        return callback

    # ----- the end -----
    def on_end(self, score: float, reason: str, error: str | None = None) -> dict:
        """End the episode: tell each agent's history, write the result file (once); returns the result."""
        with self._lock:
            if self.result is not None:
                return self.result
            self.result = self._result(score, reason, error or self.error)
        line = end_line(score)
        for name in self.agent_names:
            for callback in self.history_callbacks:
                callback(name, line)
        if self.results_dir is not None:
            self.path = self.write(self.results_dir)
        return self.result

    def _result(self, score: float, reason: str, error: str | None) -> dict:
        agents = {}
        for name in sorted(set(self.agent_names) | set(self.commands) | set(self.messages) | set(self.tokens)):
            used = self.commands.get(name, Counter())
            agents[name] = {"commands": dict(sorted(used.items())), "commands_used": sum(used.values()),
                            "messages_sent": self.messages[name], "tokens": self.tokens[name]}
        return {
            "task_id": self.task.id,
            "type": self.task.type,
            "score": score,
            "end_reason": reason,
            "error": error or (NO_CAUSE if reason == ERROR else None),  # a report without its cause helps nobody
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started_at)),
            "duration_s": round(self.clock() - self.started_at, 3),
            "timeout_s": self.task.timeout,
            "agents": agents,
        }

    def write(self, results_dir: str | Path) -> Path:
        """Write the result as JSON into `results_dir`; returns the file's path."""
        assert self.result is not None, "the episode has not ended"
        folder = Path(results_dir)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.started_at))
        safe_id = re.sub(r"[^A-Za-z0-9_.-]", "_", self.task.id)
        path = folder / f"{safe_id}_{stamp}.json"
        n = 1
        while path.exists():  # the same task twice in one second
            n += 1
            path = folder / f"{safe_id}_{stamp}_{n}.json"
        path.write_text(json.dumps(self.result, indent=2) + "\n")
        return path


def load_result(path: str | Path) -> dict:
    """An episode's result.json."""
    return json.loads(Path(path).read_text())
