"""Moments of recorded oracle episodes, the state text a question shows, and the probe made of them.

A moment is one agent's turn: its prompt (goal, inventory, the conversation so far), the reply the oracle chose,
and what every teammate held at that time (each teammate's latest prompt before it). The state a question shows
is written in the agents' prompt format: the goal, each agent's INVENTORY block, the last messages.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..commands import default_registry
from ..commands.parser import parse_reply
from ..oracle.goals import TaskGoal, parse_goal
from ..oracle.prompt import PromptView, read_prompt
from .record import Probe

MAX_OPTIONS = 5        # the right option and up to 4 wrong ones: random guessing 0.20 where the moment allows 5
RECENT_MESSAGES = 4      # messages shown with a state


@dataclass
class Moment:
    """One agent's turn in a recorded episode, with what its teammates held then."""

    task_id: str
    time: float
    me: str
    view: PromptView
    reply: str
    command: tuple[str, list] | None     # the reply's command (name, args), None when it has none
    team: dict[str, dict[str, int]]       # every agent's inventory at this time (as its latest prompt showed)
    goal: TaskGoal = field(default_factory=lambda: TaskGoal("unknown"))


# ---- reading runs ------------------------------------------------------------------------------------------------
def _calls(run_dir: Path) -> dict[str, list[dict]]:
    calls: dict[str, list[dict]] = {}
    for path in sorted((run_dir / "calls").glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        calls[path.stem] = [c for c in lines if c.get("kind") == "conversing" and c.get("reply", "").strip()]
    return calls


def _command(reply: str) -> tuple[str, list] | None:
    parsed = parse_reply(reply, default_registry())
    return (parsed.command, list(parsed.args)) if parsed.command and not parsed.error else None


def read_moments(run_dir: str | Path) -> Iterator[Moment]:
    """The moments of one recorded episode (a run folder with result.json and calls/), in time order."""
    run_dir = Path(run_dir)
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    task_id = str(result.get("task_id") or run_dir.name)
    calls = _calls(run_dir)
    views = {name: [(c["time"], read_prompt(c["messages"], c["system"]), c["reply"]) for c in entries]
             for name, entries in calls.items()}
    timeline = sorted((t, name, view, reply) for name, entries in views.items() for t, view, reply in entries)
    for t, name, view, reply in timeline:
        if not view.inventory_known:
            continue
        team = {}
        for other, entries in views.items():
            seen = [v for when, v, _ in entries if when <= t and v.inventory_known]
            if seen:
                team[other] = dict(seen[-1].inventory)
        if set(team) != set(views):  # a teammate not yet seen: its holdings are unknown
            continue
        yield Moment(task_id, t, name, view, reply, _command(reply), team, parse_goal(view.goal))


def next_moment_of(moments: list[Moment], agent: str, after: float) -> Moment | None:
    """The agent's first turn with a command after `after`."""
    return next((m for m in moments if m.me == agent and m.time > after and m.command), None)


# ---- the state a question shows ------------------------------------------------------------------------------------
def inventory_block(name: str, items: dict[str, int]) -> str:
    """An agent's items in the prompt's INVENTORY form."""
    lines = [f"- {item}: {n}" for item, n in sorted(items.items())] or ["- (nothing)"]
    return f"INVENTORY of {name}\n" + "\n".join(lines)


def state_text(moment: Moment) -> str:
    """The goal, every agent's inventory and the last messages, as the agents' prompts show them."""
    view = moment.view
    parts = [f"Task of {moment.me}: {view.goal.strip()}"]
    parts += [inventory_block(name, moment.team[name]) for name in sorted(moment.team)]
    said = [f"{t['content']}" for t in view.turns if t.get("role") == "user" and "(FROM OTHER BOT)" in t["content"]]
    said = [s.replace("(FROM OTHER BOT)", "") for s in said[-RECENT_MESSAGES:]]
    if said:
        parts.append("Last messages:\n" + "\n".join(said))
    return "\n\n".join(parts)


def make_probe(moment: Moment, category: str, kind: str, question: str, right: str, wrong: Iterable[str],
               rng: random.Random, *, state: str | None = None, **meta) -> Probe | None:
    """A probe about the moment: the right option among up to MAX_OPTIONS - 1 wrong ones, shuffled; `state`
    replaces the moment's usual state text. None when no wrong option is left."""
    wrong = [w for w in dict.fromkeys(wrong) if w != right][:MAX_OPTIONS - 1]
    if len(wrong) < 1:
        return None
    options = [right, *wrong]
    rng.shuffle(options)
    pid = f"{moment.task_id}-{moment.me}-{moment.time:.1f}-{kind}"
    shown = state if state is not None else state_text(moment)
    return Probe(id=pid, category=category, state=shown, question=question, options=options,
                 answer=options.index(right), source_task=moment.task_id,
                 meta={"kind": kind, "agent": moment.me, "family": moment.goal.kind, **meta})
