"""Evaluation output folders for the runs page's tests, written by the project's own code: a real `Evaluation`
(planning, results.csv, summary.json) whose runner, instead of starting a server and bots, writes each episode's
files the way an episode does: result.json through EpisodeResult, calls/<agent>.jsonl through CallLog (the agent's
history growing call by call: its reply, then the command's output), console.log through ConsoleLog.

    out = scripted_eval(tmp_path / "a", {TASK_ID: Script(score=1.0, steps=[Step("andy", "Crafting. !craftRecipe(...)",
                        "Crafted 1 clock.")])}, model="oracle", described="oracle/oracle")
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mindpy.agent.runner import ConsoleLog
from mindpy.harness.calls import CallLog
from mindpy.harness.evaluate import Evaluation
from mindpy.harness.runners import EpisodeJob
from mindpy.tasks.records import EpisodeResult

ROOT = Path(__file__).resolve().parent.parent
CRAFTING = str(ROOT / "tasks" / "crafting_test.json")
COOKING = str(ROOT / "tasks" / "cooking_test.json")
NAMES = ["andy", "jill", "bob", "sam"]


@dataclass
class Step:
    """One model call of an agent: its reply and, when the reply ran a command, what the command answered."""
    agent: str
    reply: str
    output: str | None = None
    picture: bytes | None = None  # a picture the agent's model is sent after the reply (a vision call)


@dataclass
class Script:
    """How an episode goes."""
    score: float
    end_reason: str = "success"
    steps: list[Step] = field(default_factory=list)


class Usage:
    def __init__(self, prompt: int, completion: int):
        self.prompt_tokens, self.completion_tokens = prompt, completion


class Reply:
    def __init__(self, text: str, prompt: int):
        self.text, self.usage = text, Usage(prompt, len(text.split()))


class ScriptedModel:
    """Answers each call with the next reply it is given (`say`), as a model named `described`."""

    def __init__(self, described: str):
        self.described = described
        self.next = ""

    def describe(self) -> str:
        return self.described

    def send(self, messages: list[dict], system: str = "") -> Reply:
        return Reply(self.next, sum(len(m["content"].split()) for m in messages) + len(system.split()))

    def send_image(self, png: bytes, prompt: str, system: str = "") -> Reply:
        return Reply("A grey wall.", len(prompt.split()))


class ScriptedRunner:
    """An EpisodeRunner that writes the episode's files from its Script instead of playing it."""

    where = ""

    def __init__(self, scripts: dict[str, Script], described: str):
        self.scripts = scripts
        self.described = described

    def slots(self) -> int:
        return 1

    def stop(self) -> None:
        pass

    def play(self, job: EpisodeJob, report: Callable[[str], None] | None = None) -> tuple[int, str]:
        script = self.scripts[job.task_id]
        task = json.loads(Path(job.task_file).read_text())[job.task_id]
        names = NAMES[:task["agent_count"]]
        logs = {name: CallLog(ScriptedModel(self.described), job.run_dir / "calls" / f"{name}.jsonl", name)
                for name in names}
        history: dict[str, list[dict]] = {name: [{"role": "system", "content": task["goal"]}] for name in names}
        with (job.run_dir / "console.log").open("w", encoding="utf-8") as file:
            console = ConsoleLog(file)
            for step in script.steps:
                log = logs[step.agent]
                log.model.next = step.reply
                status = {"role": "system", "content": f"Your memory of earlier events: ''\nContinue as {step.agent}."}
                log.send([*history[step.agent], status], system=f"You are {step.agent}, a Minecraft bot.")
                history[step.agent].append({"role": "assistant", "content": step.reply})
                if step.picture is not None:  # as a vision command's look: through the log's vision wrapper
                    log.wrap(log.model, "vision").send_image(step.picture, "Describe what you see.")
                message, bang, command = step.reply.partition("!")
                if message.strip():
                    console(step.agent, "said", message.strip())
                if bang:
                    console(step.agent, "command", "!" + command)
                    console(step.agent, "output", f"Action output:\n{step.output}")
                    history[step.agent].append({"role": "system", "content": f"Action output:\n{step.output}"})
            console.close()
        for log in logs.values():
            log.close()
        agents = {name: {"commands_used": sum(1 for s in script.steps if s.agent == name and "!" in s.reply),
                         "messages_sent": 1, "tokens": 50} for name in names}
        EpisodeResult.from_dict({
            "task_id": job.task_id, "type": task["type"], "score": script.score, "end_reason": script.end_reason,
            "error": None, "started_at": "2026-01-01T12:00:00", "duration_s": 12.5, "timeout_s": task["timeout"],
            "agents": agents, "run_dir": str(job.run_dir), "agent_names": names, "cheat": False,
        }).write(job.run_dir / "result.json")
        return 0, ""


def scripted_eval(out: Path, scripts: dict[str, Script], files: list[str], model: str | None,
                  described: str) -> Path:
    """An evaluation of the tasks `scripts` names (one trial each), its episodes written by ScriptedRunner."""
    Evaluation(files, out=out, model=model, ids=list(scripts), trials=1, progress=lambda line: None,
               runner=ScriptedRunner(scripts, described)).run()
    return out
