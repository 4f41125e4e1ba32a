"""Defuse task dicts; `mindpy tasks generate defuse --split test` writes the committed tasks/defuse_test.json.

    tasks = generate("test", seed=2, count=30)     # task id -> dict; the same arguments give the same tasks
    tasks["defuse_0"]["cutters"]                   # {"0": ["blue", "red"], "1": [...], "2": [...]}

A task: `type` "defuse", `agent_count`, `seed` (its layout's seed: `generate_layout(seed, agent_count)` remakes
it), `layout` (rooms with boxes, hub, hallways, doors, start rooms), `bombs` (number, room, sequence, cell),
`cutters` (by agent index), `goal` (per agent: the rules, the map, everyone's cutters and the reply format, as
the paper's task context gives them; nothing about the bombs) and `round_limit` 30. Each task's seed is drawn
from the split's seed and the task's position; a train split leaves out every task whose layout is in `exclude`
(fingerprints, e.g. the test split's).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ...generators.common import join_words, rng_for
from ...splits import SEEDS
from .game import ROUND_LIMIT
from .layout import AGENT_NAMES, PHASE_COUNTS, Layout, generate_layout

TASK_FIELDS = ("seed", "layout", "bombs", "cutters", "round_limit")   # besides type, agent_count and goal
MAX_ROUNDS = 1000
DEFAULT_AGENTS = 3
SPLIT_SIZES = {"train": 300, "test": 30}


def goal_text(layout: Layout, agent: int) -> str:
    """The agent's task context: rules, map, cutters and reply format (after the paper's appendix A.1)."""
    others = [AGENT_NAMES[a] for a in range(layout.agent_count) if a != agent]
    links = "; ".join(f"Room {r} connects to {join_words([str(n) for n in layout.neighbours(r)])}"
                      for r in layout.room_ids)
    tools = "; ".join(f"{AGENT_NAMES[a]} has {join_words(list(c))}" for a, c in enumerate(layout.cutters))
    phases = sum(PHASE_COUNTS)
    return (f"You are Player {AGENT_NAMES[agent]} of a bomb disposal team with {join_words(others)}. "
            f"Find and defuse {len(layout.bombs)} bombs hidden in {len(layout.rooms)} rooms "
            f"({', '.join(map(str, layout.room_ids))}). Each bomb has a sequence of 1 to 3 coloured phases; apply "
            f"wire cutters of those colours in order, each correct cutter earns the team 10 points "
            f"({phases * 10} in all). Map: {links}; you can only move to an adjacent room each round. "
            f"Cutters: {tools}. Each round choose one action: 'Move to Room X', 'Inspect Bomb' (learn the "
            f"sequence of the bomb in your room) or 'Apply X Tool' (cut the bomb in your room with your X "
            f"cutter). You see only your own room; teammates learn what you found only if you tell them: "
            f"add 'Message to Team: \"...\"' to your reply, they read it next round. Finish within "
            f"{ROUND_LIMIT} rounds.")


def task_dict(seed: int, agents: int = DEFAULT_AGENTS) -> dict[str, Any]:
    """One task (the fields listed in the module docstring)."""
    layout = generate_layout(seed, agents)
    data = layout.to_dict()
    return {
        "type": "defuse",
        "agent_count": agents,
        "seed": seed,
        "goal": {str(a): goal_text(layout, a) for a in range(agents)},
        "layout": {k: data[k] for k in ("rooms", "hub", "hallways", "doors", "start_rooms")},
        "bombs": data["bombs"],
        "cutters": data["cutters"],
        "round_limit": ROUND_LIMIT,
    }


def fingerprint(task: dict[str, Any]) -> str:
    """What makes two tasks the same game: layout, bombs and cutters."""
    text = json.dumps([task["layout"], task["bombs"], task["cutters"]], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def generate(split: str, seed: int | None = None, count: int | None = None, *, exclude: Iterable[str] | None = None,
             agents: Any = None) -> dict[str, dict[str, Any]]:
    """`count` tasks (ids defuse_0, defuse_1, ...) of a split; defaults: the split's seed and size, 3 agents, and
    for the train split, leaving out the standard test split's layouts."""
    if split not in SEEDS:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    seed = SEEDS[split] if seed is None else seed
    count = SPLIT_SIZES[split] if count is None else count
    agents = DEFAULT_AGENTS if agents is None else agents
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a whole number >= 0, got {count!r}")
    if exclude is None:
        exclude = fingerprints_of_test_split() if split == "train" else ()
    excluded = set(exclude)
    rng = rng_for("defuse", "tasks", split, seed)
    tasks: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    while len(tasks) < count:
        task = task_dict(rng.randrange(2**31), agents)
        mark = fingerprint(task)
        if mark in excluded or mark in seen:
            continue
        seen.add(mark)
        tasks[f"defuse_{len(tasks)}"] = task
    return tasks


def fingerprints_of_test_split() -> frozenset[str]:
    """The fingerprints of the standard test split (for making train splits apart from it)."""
    return frozenset(fingerprint(t) for t in generate("test").values())


def task_problems(data: Mapping[str, Any]) -> list[str]:
    """What is wrong with a defuse task's own fields (layout, bombs, cutters, round_limit, seed), one line each;
    [] when they make a game."""
    problems = [f"field '{key}' is required for defuse tasks" for key in TASK_FIELDS if key not in data]
    if problems:
        return problems
    shapes = {"layout": (Mapping, "a mapping"), "bombs": (list, "a list"), "cutters": (Mapping, "a mapping")}
    problems = [f"field '{key}' must be {name} as Layout.to_dict writes it, got {type(data[key]).__name__}"
                for key, (kind, name) in shapes.items() if not isinstance(data[key], kind)]
    if problems:
        return problems
    if not isinstance(data["seed"], int) or isinstance(data["seed"], bool):
        problems.append(f"field 'seed' must be an integer, got {data['seed']!r}")
    limit = data["round_limit"]
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_ROUNDS:
        problems.append(f"field 'round_limit' must be an integer from 1 to {MAX_ROUNDS}, got {limit!r}")
    try:
        layout = Layout.from_dict({**data["layout"], "bombs": data["bombs"], "cutters": data["cutters"]})
    except (ValueError, TypeError) as exc:
        return [*problems, str(exc)]
    count = data.get("agent_count")
    if isinstance(count, int) and count != layout.agent_count:   # not a whole number: the schema says so
        problems.append(f"field 'cutters' is for {layout.agent_count} agents but agent_count is "
                        f"{count}")
    return problems
