"""Running the dispatcher's commands on the cooks: one command at a time per cook, every cook at once, and what
the ended commands say for the next step.

    cooks = CookCommands(agents)             # agents: name -> mindpy.agent.Agent (anything with run_command)
    cooks.start("andy", '!attack("cow")')
    cooks.wait(10.0)                         # until every command has ended, or 10 s
    cooks.running()                          # {"andy": '!attack("cow")'} if it is still at it: andy stays busy
    ended = cooks.take_ended()               # [Ended("andy", '!attack("cow")', "Killed the cow.", ok=True)]
    feedback_lines(ended), killed_animals(ended)   # failures for the next prompt; animals to summon back

A command that outlasts the step keeps running on its thread; its cook is busy until it ends. A command failed
when its agent reported "command failed" while it ran (mindpy.agent's event), or when the bot went away.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from ..errors import MindpyError
from .kitchen import command_name
from .steps import MEAT_ANIMALS

OUTPUT_LIMIT = 200  # characters of a failed command's output kept in the feedback
PASTURE_ANIMALS = frozenset(MEAT_ANIMALS.values())


@dataclass
class Ended:
    """A cook's command that has ended: its output, and whether it worked."""

    cook: str
    command: str
    output: str
    ok: bool


class CookCommands:
    """One command at a time per cook, each on a thread of its own; a command that outlasts the step keeps its
    cook busy. Failures are read from the agents' "command failed" events (`on_event` is their hook)."""

    def __init__(self, agents: dict[str, Any]):
        self.agents = agents
        self._running: dict[str, tuple[str, threading.Thread]] = {}
        self._ended: list[Ended] = []
        self._failed: set[str] = set()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)

    def on_event(self, cook: str, kind: str, text: str) -> None:
        if kind == "command failed":
            with self._lock:
                self._failed.add(cook)

    def start(self, cook: str, command: str) -> None:
        with self._lock:
            if cook in self._running:
                raise ValueError(f"{cook} is still running {self._running[cook][0]}")
            self._failed.discard(cook)
            thread = threading.Thread(target=self._run, args=(cook, command), name=f"cook-{cook}", daemon=True)
            self._running[cook] = (command, thread)
        thread.start()

    def _run(self, cook: str, command: str) -> None:
        try:
            output, ok = self.agents[cook].run_command(command) or "", True
        except MindpyError as exc:  # the bot went away mid-command: reported, the episode goes on
            output, ok = f"the command could not run: {exc}", False
        with self._changed:
            ok = ok and cook not in self._failed
            del self._running[cook]
            self._ended.append(Ended(cook, command, " ".join(str(output).split()), ok))
            self._changed.notify_all()

    def running(self) -> dict[str, str]:
        """The command each busy cook is running."""
        with self._lock:
            return {cook: command for cook, (command, _) in self._running.items()}

    def wait(self, cap_s: float) -> None:
        """Until every running command has ended, or `cap_s` seconds."""
        deadline = time.monotonic() + cap_s
        with self._changed:
            while self._running and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)

    def take_ended(self) -> list[Ended]:
        """The commands that ended since the last call, in the order they ended."""
        with self._lock:
            ended, self._ended = self._ended, []
        return ended


def feedback_lines(ended: list[Ended]) -> list[str]:
    """The execution feedback of the commands that ended: a line per failure, with the game's reason."""
    lines = []
    for e in ended:
        if not e.ok:
            reason = e.output[:OUTPUT_LIMIT] or "no reason given"
            lines.append(f"{e.cook}: {e.command} failed: {reason}")
    return lines


def killed_animals(ended: list[Ended]) -> list[str]:
    """The animals killed by the commands that worked (!attack("cow") -> cow), to summon back."""
    kinds = []
    for e in ended:
        if e.ok and command_name(e.command) == "attack":
            animal = e.command.split('"')[1] if '"' in e.command else ""
            if animal in PASTURE_ANIMALS:
                kinds.append(animal)
    return kinds
