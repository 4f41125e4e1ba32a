"""The record of one task episode, written as a JSON result file when the episode ends.

    recorder = EpisodeRecorder(task, ["alice", "bob"], results_dir="runs/x/results")
    recorder.record_command("alice", "!collectBlocks")   # from the agent loop, as things happen
    recorder.record_message("bob")
    recorder.record_tokens("alice", 1234)
    recorder.record_failed_command("alice", "!placeBlock")  # a command that was refused or failed
    recorder.record_round(3)                              # round mode: after each round
    recorder.on_history(lambda agent, line: ...)          # gets "Task ended with score : X" for each agent
    monitor = TaskMonitor(task, bots, on_end=[recorder.on_end])

The file (`<task id>_<start time>.json`) holds: task_id, type, score, end_reason (success, timeout, error), error,
started_at, duration_s, timeout_s, and per agent: commands (name -> count), commands_used, messages_sent, tokens.

A task's family may add fields of its own (`Family.result_fields`). Coblock tasks add:
- timesteps: the paper's task completion timesteps, "the total number of actions", its actions being place,
  remove, send a message, wait and end (section 2.1): every agent's successful places, breaks, waits (round mode's
  !wait; real time has none) and ends, and its messages. build_actions: the
  successful !placeBlock and !breakBlock actions of all agents; refused_actions: those that failed; messages: the
  messages of all agents. A command's successes are the times it was recorded minus the times it failed, per
  agent and command.
- placed_by_agent and broken_by_agent: {agent: successful placements / breaks}; per agent, commands_failed.
- gamma: the workload balance (mindpy.tasks.families.coblock.workload) of the successful placements of agents 0
  and 1, against the optimal split their initial inventories' colours allow for the structure; null when it is
  undefined, with gamma_note saying why (else gamma_note is null). Breaks are left out: the optimal split counts
  placements.
- rounds: the last round recorded (round mode), or null when the episode was not played in rounds.
- coblock_settings: the agents' prompt settings (the paper's partner_modelling and reflection, and our options
  summarize_history, check_goal, retrieved_examples, review_detail; "mixed" where agents differ), or null.
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
from .family import family_named, is_family
from .schema import Task

HistoryCallback = Callable[[str, str], None]  # (agent name, line)
NO_CAUSE = "the episode ended with an error whose cause was not recorded"
PLACE, BREAK = "placeBlock", "breakBlock"  # a coblock episode's timesteps


def command_key(name: str) -> str:
    """'!placeBlock', 'placeBlock' or '!placeBlock("red_wool", 1, 2, 3)' -> 'placeBlock'."""
    return name.split("(", 1)[0].strip().lstrip("!")


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
        self.failed: dict[str, Counter] = {name: Counter() for name in self.agent_names}
        self.rounds: int | None = None
        self.history_callbacks: list[HistoryCallback] = []
        self.error: str | None = None
        self.result: dict | None = None
        self.path: Path | None = None
        self._lock = threading.Lock()

    # ----- counting, from the agent loop -----
    def record_command(self, agent: str, name: str) -> None:
        with self._lock:
            self.commands.setdefault(agent, Counter())[name] += 1

    def record_failed_command(self, agent: str, name: str) -> None:
        """A command of `agent` that was refused or failed (it was also recorded by `record_command`)."""
        with self._lock:
            self.failed.setdefault(agent, Counter())[command_key(name)] += 1

    def record_round(self, n: int) -> None:
        """Round `n` has been played (round mode); the result keeps the last one."""
        with self._lock:
            self.rounds = int(n)

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
        result = {
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
        if self.rounds is not None:  # played in round mode (any family; coblock results always say)
            result["rounds"] = self.rounds
        if is_family(self.task.type):  # what the task's family adds (coblock: timesteps, gamma...)
            result.update(family_named(self.task.type).result_fields(self, agents))
        return result

    def succeeded(self, agent: str) -> Counter:
        """Command (without '!') -> how many times it succeeded for `agent`: recorded minus failed."""
        recorded: Counter = Counter()
        for name, n in self.commands.get(agent, Counter()).items():
            recorded[command_key(name)] += n
        return recorded - self.failed.get(agent, Counter())  # Counter subtraction drops what falls to 0 or below

    def order(self, name: str) -> tuple[int, str]:
        """The task's agents in task order, then anyone else by name."""
        return (self.agent_names.index(name), "") if name in self.agent_names else (len(self.agent_names), name)

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
