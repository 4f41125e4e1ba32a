"""Running each agent's action text as the agent would run a model's reply (Agent.act_on_reply): its command is
parsed by mindpy's parser and run by the command layer, its words are sent, a refusal is the agent's usual error
text. Each action runs on a thread of its own; one that outlasts its step keeps running, and its output comes
with the step in which it ends (a new command stops it, as a new command of the agent's always does).

    running = StepActions(agents)
    running.start("andy", '!craftRecipe("stick", 1)')   # parsed now: valid or not
    running.wait(until_tick, clock)                      # every action ended, or the clock reached the tick
    running.take("andy")                                 # StepOutcome(command, valid, finished, output)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ..agent.turns import TurnRules
from ..errors import MindpyError
from .clock import GameClock

# Words beside a command are sent with it (a message is no action of its own here), as in free play.
RULES = TurnRules(message_is_action=False)


@dataclass
class _Running:
    text: str
    command: str  # the command as parsed, in its canonical form ("" when the text holds none)
    valid: bool
    outputs: list[str] = field(default_factory=list)
    finished: bool = False
    taken: bool = False  # its output was reported in a step's info


@dataclass
class StepOutcome:
    """What one agent's action did in a step."""

    command: str = ""      # the command this step's text held, canonical ("" when none or refused)
    valid: bool = True     # the text parsed: no command refused (malformed, unknown, blocked, bad arguments)
    finished: bool = True  # this step's action ended within the step
    output: str = ""       # what the agent was told back in this step: refusals, notes and outputs, including
                           # those of earlier steps' actions that ended in it

    def as_info(self) -> dict[str, Any]:
        return {"command": self.command, "valid": self.valid, "finished": self.finished, "output": self.output}


class StepActions:
    """The actions the agents were given, running (see the module's docstring)."""

    def __init__(self, agents: dict[str, Any]):
        self.agents = agents
        self._runs: dict[str, list[_Running]] = {name: [] for name in agents}
        self._latest: dict[str, _Running | None] = dict.fromkeys(agents)
        self.changed = threading.Condition()

    def start(self, name: str, text: str) -> None:
        """Start agent `name`'s action `text` (empty: nothing this step)."""
        agent = self.agents[name]
        text = str(text)
        if not text.strip():
            self._latest[name] = None
            return
        parsed = agent.commands.parse(text)
        run = _Running(text, parsed.call_text() if parsed.error is None else "", parsed.error is None)
        with self.changed:
            self._runs[name].append(run)
            self._latest[name] = run
        threading.Thread(target=self._act, args=(agent, run), name=f"env-{name}", daemon=True).start()

    def _act(self, agent: Any, run: _Running) -> None:
        try:
            report = agent.act_on_reply(run.text, RULES)
            outputs = report.outputs
        except MindpyError as exc:  # the bot went away mid-command: said in the output, the step goes on
            outputs = [f"the command could not run: {exc}"]
        except Exception as exc:  # a broken command is output, never a crash of the learner's loop
            outputs = [f"the command failed: {type(exc).__name__}: {exc}"]
        with self.changed:
            run.outputs = list(outputs)
            run.finished = True
            self.changed.notify_all()

    def all_finished(self) -> bool:
        return all(run.finished for runs in self._runs.values() for run in runs)

    def wait(self, until_tick: int, clock: GameClock, every_finished: bool) -> None:
        """Until the clock reaches `until_tick`; with `every_finished`, also until every action has ended, if
        that comes first."""
        clock.wait_until(until_tick, self.all_finished if every_finished else (lambda: False), self.changed)

    def take(self, name: str) -> StepOutcome:
        """Agent `name`'s outcome of the step now ending; forgets the ended actions it reports."""
        with self.changed:
            latest = self._latest[name]
            outputs = []
            for run in self._runs[name]:
                if run.finished and not run.taken:
                    outputs += run.outputs
                    run.taken = True
            self._runs[name] = [run for run in self._runs[name] if not run.taken]
            self._latest[name] = None
        if latest is None:
            return StepOutcome(output="\n".join(outputs))
        return StepOutcome(latest.command, latest.valid, latest.finished, "\n".join(outputs))

    def running(self) -> int:
        """How many actions are still running."""
        with self.changed:
            return sum(not run.finished for runs in self._runs.values() for run in runs)

    def wait_all(self, timeout: float) -> bool:
        """Until every action has ended (the agents' actions were stopped), at most `timeout` s; whether they did."""
        with self.changed:
            return self.changed.wait_for(self.all_finished, timeout)

    def forget(self) -> None:
        """Drop everything reported or not (a new episode starts)."""
        with self.changed:
            for name in self._runs:
                self._runs[name] = [run for run in self._runs[name] if not run.finished]
                self._latest[name] = None
