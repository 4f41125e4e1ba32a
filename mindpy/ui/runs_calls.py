"""An episode's model calls as the runs page shows them: each call's prompt, reply, tokens, the command in its reply
and what that command answered, read from the call logs (calls/<agent>.jsonl, mindpy.harness.calls) without ever
failing on a broken line.

    calls, notes = read_episode_calls(Path("runs/eval/episodes/f-1a2b/task-2_agents-trial_1"))
    calls[0].command, calls[0].output       # '!craftRecipe("clock", 1)', 'Action output:\\nCrafted 1 clock.'

A call log holds no command output: the agent puts it in its history, so the next prompt of the same agent shows it
as the system messages after the reply (the prompt's last message is the turn's status, not an output). The last
call of an agent has no next prompt: its output is taken from console.log's "sees" lines after the agent's
"runs" line of that command (cut at 300 characters there). A vision call names the picture it sent, when the
call log saved it (`picture`; the runs page serves it from calls/<agent>-pictures/).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COMMAND = re.compile(r"!([A-Za-z_]\w*)(\([^()]*\))?")
NOTE_CHARS = 160  # of a broken line's error, in its note
PICTURE = re.compile(r"\d{4}\.png")  # a vision call's saved picture, calls/<agent>-pictures/0001.png
PROMPT_KINDS = ("conversing", "coding")  # calls whose prompts carry the agent's history (and so the outputs)


@dataclass
class Call:
    """One model call of an episode, as its log holds it, with the command its reply ran and that command's
    output (None: no command, or its output was not found)."""
    agent: str
    number: int  # its place in the agent's log, from 0
    kind: str
    model: str
    time: float | None
    system: str
    messages: list[dict]
    reply: str
    prompt_tokens: int
    completion_tokens: int
    command_ok: bool
    command: str | None = None
    output: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def data(self, prompt: bool = True) -> dict:
        """As JSON for the page (`prompt` False: without the system prompt and messages, which are long)."""
        out = {"agent": self.agent, "number": self.number, "kind": self.kind, "model": self.model, "time": self.time,
               "reply": self.reply, "prompt_tokens": self.prompt_tokens,
               "completion_tokens": self.completion_tokens, "command_ok": self.command_ok, "command": self.command,
               "output": self.output, "picture": self.picture}
        if prompt:
            out["system"] = self.system
            out["messages"] = self.messages
        return out


    @property
    def picture(self) -> str | None:
        """The file name of the picture a vision call sent ("0001.png" in calls/<agent>-pictures/), when it was
        saved (mindpy.harness.calls); None otherwise."""
        image = self.extra.get("image")
        file = image.get("file") if isinstance(image, dict) else None
        if not isinstance(file, str):
            return None
        name = file.rsplit("/", 1)[-1]
        return name if PICTURE.fullmatch(name) else None


def command_in(reply: str) -> str | None:
    """The first !command of a reply, with its arguments as written."""
    found = COMMAND.search(reply or "")
    return found.group(0) if found else None


def read_call_log(path: Path) -> tuple[list[Call], list[str]]:
    """The calls of one agent's log and one note per line that could not be read (skipped)."""
    calls: list[Call] = []
    notes: list[str] = []
    agent = path.stem
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return [], [f"{path.name}: cannot be read ({exc.strerror or exc})"]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            notes.append(f"{path.parent.name}/{path.name} line {number}: not JSON, skipped ({str(exc)[:NOTE_CHARS]})")
            continue
        if not isinstance(raw, dict):
            notes.append(f"{path.parent.name}/{path.name} line {number}: not a JSON object, skipped")
            continue
        calls.append(_call(raw, agent, len(calls)))
    return calls, notes


def _call(raw: dict, agent: str, number: int) -> Call:
    messages = raw.get("messages")
    messages = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    reply = _text(raw.get("reply"))
    known = {"agent", "time", "kind", "model", "system", "messages", "reply", "prompt_tokens", "completion_tokens",
             "command_ok"}
    return Call(agent=_text(raw.get("agent")) or agent, number=number, kind=_text(raw.get("kind")),
                model=_text(raw.get("model")), time=_number(raw.get("time")), system=_text(raw.get("system")),
                messages=messages, reply=reply, prompt_tokens=int(_number(raw.get("prompt_tokens")) or 0),
                completion_tokens=int(_number(raw.get("completion_tokens")) or 0),
                command_ok=raw.get("command_ok") is not False, command=command_in(reply),
                extra={k: v for k, v in raw.items() if k not in known})


def attach_outputs(calls: list[Call], console: list[dict]) -> None:
    """Set each call's `output` from the agent's next prompts, else from the console's lines (see the module)."""
    for agent in dict.fromkeys(c.agent for c in calls):
        later = [c for c in calls if c.agent == agent and c.kind in PROMPT_KINDS]
        for i, call in enumerate(later):
            if call.command is None:
                continue
            for following in later[i + 1:i + 4]:  # a prompt made while the command still ran may not show it yet
                found = _output_in_prompt(following.messages, call.reply)
                if found:
                    call.output = found
                    break
    _outputs_from_console(calls, console)


def _output_in_prompt(messages: list[dict], reply: str) -> str | None:
    """The system messages after the last `reply` of the assistant in `messages`, up to its next reply (not the
    prompt's last message: the turn's status)."""
    spots = [i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("content") == reply]
    if not spots:
        return None
    found = []
    for message in messages[spots[-1] + 1:len(messages) - 1]:
        if message.get("role") == "assistant":
            break
        if message.get("role") == "system":
            found.append(_text(message.get("content")))
    return "\n".join(found) or None


def _outputs_from_console(calls: list[Call], console: list[dict]) -> None:
    """For the calls still without an output, the console's "sees" lines after the agent's matching "runs" line."""
    by_agent: dict[str, list[dict]] = {}
    for line in console:
        by_agent.setdefault(line.get("agent", ""), []).append(line)
    for agent, lines in by_agent.items():
        runs = [i for i, line in enumerate(lines) if line.get("kind") == "runs"]
        cursor = 0
        for call in (c for c in calls if c.agent == agent and c.kind in PROMPT_KINDS):
            if call.command is None:
                continue
            name = call.command.split("(", 1)[0]
            match = next((k for k in range(cursor, min(cursor + 4, len(runs)))
                          if lines[runs[k]]["text"] == name or lines[runs[k]]["text"].startswith(name + "(")),
                         None)
            if match is None:
                continue
            cursor = match + 1
            if call.output is None:
                end = runs[match + 1] if match + 1 < len(runs) else len(lines)
                seen = [line["text"] for line in lines[runs[match] + 1:end] if line.get("kind") == "sees"]
                call.output = "\n".join(seen) or None


def read_episode_calls(run_dir: Path, console: list[dict] | None = None) -> tuple[list[Call], list[str]]:
    """All the calls of an episode (agent by agent, each in its log's order) with their commands' outputs, and a
    note per line skipped. `console`: its console.log as mindpy.ui.evalfeed.read_console reads it (read here when
    None)."""
    from .evalfeed import read_console

    calls: list[Call] = []
    notes: list[str] = []
    for path in sorted((run_dir / "calls").glob("*.jsonl")):
        found, problems = read_call_log(path)
        calls += found
        notes += problems
    if console is None:
        console = read_console(run_dir / "console.log")
    attach_outputs(calls, console)
    return calls, notes


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
