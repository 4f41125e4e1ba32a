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

In game steps (the orders family's default, the paper's discrete steps), a command started at step t for k
steps (`start(cook, command, t=t, steps=k)`) keeps its cook busy through step t+k-1 whatever the wall clock:

    cooks.start("andy", '!smeltItem("beef", 1)', t=4, steps=3)
    cooks.wait_due(4)        # every command whose last step is 4 has ended in the world (none here)
    cooks.busy_at(5)         # {"andy": '!smeltItem("beef", 1)'}: busy at steps 5 and 6, free at 7
    cooks.take_due(7)        # its Ended, once step 7 comes (even if it ended in the world at step 4)
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
    free_at: int = 0  # the game step its cook is free again (game steps only)


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
        self._free_at: dict[str, tuple[str, int]] = {}  # game steps: cook -> (command, the step it is free at)

    def on_event(self, cook: str, kind: str, text: str) -> None:
        if kind == "command failed":
            with self._lock:
                self._failed.add(cook)

    def start(self, cook: str, command: str, *, t: int | None = None, steps: int = 1) -> None:
        """Run `command` on `cook`'s thread; with `t`, in game steps: its cook is busy at steps t .. t+steps-1."""
        if steps < 1:
            raise ValueError(f"a command takes at least 1 step, got {steps}")
        with self._lock:
            if cook in self._running:
                raise ValueError(f"{cook} is still running {self._running[cook][0]}")
            if t is not None and self._free_at.get(cook, ("", 0))[1] > t:
                raise ValueError(f"{cook} is busy with {self._free_at[cook][0]} until step {self._free_at[cook][1]}")
            self._failed.discard(cook)
            if t is not None:
                self._free_at[cook] = (command, t + steps)
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
            free_at = self._free_at.get(cook, (command, 0))[1]
            self._ended.append(Ended(cook, command, " ".join(str(output).split()), ok, free_at))
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

    def wait_for(self, cooks: list[str], limit_s: float) -> None:
        """Until none of `cooks` is running a command in the world, or `limit_s` seconds."""
        deadline = time.monotonic() + limit_s
        with self._changed:
            while any(c in self._running for c in cooks) and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)

    def busy_at(self, t: int) -> dict[str, str]:
        """Game steps: the command each cook is busy with at step t (started before t, free at a later step)."""
        with self._lock:
            return {cook: command for cook, (command, free_at) in self._free_at.items() if free_at > t}

    def wait_due(self, t: int, limit_s: float) -> dict[str, str]:
        """Game steps: wait until every command whose last step is t or earlier has ended in the world, at most
        `limit_s` seconds; returns those still running then ({} when the step is done)."""
        deadline = time.monotonic() + limit_s

        def late() -> dict[str, str]:
            return {cook: command for cook, (command, _) in self._running.items()
                    if self._free_at.get(cook, (command, 0))[1] <= t + 1}

        with self._changed:
            while (left_over := late()) and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)
            return left_over

    def take_due(self, t: int) -> list[Ended]:
        """Game steps: the ended commands whose cook is free at step t (its last step is over), in the order the
        cooks were listed; the rest wait for their step."""
        with self._lock:
            due = [e for e in self._ended if e.free_at <= t]
            self._ended = [e for e in self._ended if e.free_at > t]
        order = list(self.agents)
        return sorted(due, key=lambda e: (e.free_at, order.index(e.cook) if e.cook in order else len(order)))

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
