"""Reword the goals of a crafting or cooking task file, keeping every field (targets, inventories, recipes) as is:
a check that a player plans from what the task states, not from how its goal happens to be worded.

    python benchmarks/reword_goals.py tasks/cooking_test.json runs/cooking_reworded.json
    mindpy eval runs/cooking_reworded.json --model oracle --limit 12 --out runs/reworded_cooking

The sentence of each goal that names the targets is replaced by one of STYLES (task by task, in turn): item names
with spaces, counts as words, plurals, several items in one sentence, passive voice, imperatives, a team's job,
lists joined by "plus", "and" and commas, counts written after the item, a question, a bare "Target:" line.
The rest of the goal (a "Nobody has ..." note, the recipe blocks) is kept. Hell's Kitchen goals (one per agent)
get their first two sentences, who makes which dish and who holds which recipe, said another way. Other task
types are copied unchanged.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

_WORDS = {1: "a single", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def spaced(item: str) -> str:
    return item.replace("_", " ")


def plural(item: str) -> str:
    """A rough English plural of an item's spaced name ("golden carrots", "stews", "sticks")."""
    name = spaced(item)
    if name.endswith(("s", "sh", "ch")):
        return name
    if name.endswith("y") and not name.endswith(("ay", "ey", "oy")):
        return name[:-1] + "ies"
    return name + "s"


def counted_words(item: str, n: int) -> str:
    return f"{_WORDS.get(n, str(n))} {spaced(item) if n == 1 else plural(item)}"


def join(parts: list[str], last: str = "and") -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" {last} " + parts[-1]


def _verb(kind: str) -> tuple[str, str]:
    """(imperative, past participle) for the kind of task."""
    return ("craft", "crafted") if kind == "crafting" else ("cook", "cooked")


# Each style: (targets, kind) -> the sentence that names what the team must make.
Style = Callable[[dict[str, int], str], str]
STYLES: dict[str, Style] = {
    "spaces": lambda t, k: f"Work with your teammates to {_verb(k)[0]} "
                           f"{join([f'{n} {spaced(i)}' for i, n in t.items()])}.",
    "count words": lambda t, k: f"The group has to come up with {join([counted_words(i, n) for i, n in t.items()])}.",
    "plurals": lambda t, k: f"Between all of you, {_verb(k)[0]} some "
                            f"{join([plural(i) if n == 1 else counted_words(i, n) for i, n in t.items()])}.",
    "team job plus": lambda t, k: f"The crew's assignment is to finish holding "
                                  f"{join([f'{n}x {spaced(i)}' for i, n in t.items()], 'plus')}.",
    "passive": lambda t, k: f"{join([counted_words(i, n) for i, n in t.items()]).capitalize()} must be "
                            f"{_verb(k)[1]} by the team.",
    "imperative": lambda t, k: f"{_verb(k)[0].capitalize()} {join([f'{n} {i}' for i, n in t.items()])}, as a team.",
    "commas after": lambda t, k: f"What the group delivers: {', '.join(f'{spaced(i)} x{n}' for i, n in t.items())}.",
    "question": lambda t, k: f"Can you all {_verb(k)[0]} {join([counted_words(i, n) for i, n in t.items()])} "
                             f"for me?",
    "everyone's job": lambda t, k: f"Everyone's job here is to produce "
                                   f"{join([f'{n} {spaced(i)}' for i, n in t.items()], 'as well as')}.",
    "target line": lambda t, k: f"Target: {join([f'{n} {i}' for i, n in t.items()], '+')}.",
    "we need": lambda t, k: f"We need {join([counted_words(i, n) for i, n in t.items()])}; pool what you carry "
                            f"and make {'it' if sum(t.values()) == 1 else 'them'}.",
}

# Hell's Kitchen: (my dish, the agent holding its recipe, the partner's dish, the partner) -> two sentences.
HK_STYLES: list[Callable[[str, int, str, int], str]] = [
    lambda mine, holder, theirs, j: (f"Your own plate is {spaced(mine)}; agent {holder} knows how it is made. "
                                     f"Agent {j} is in charge of {plural(theirs)} and you know that recipe."),
    lambda mine, holder, theirs, j: (f"A {spaced(mine)} has to be cooked by you, though only agent {holder} has "
                                     f"the steps. You have the steps for agent {j}'s dish, {spaced(theirs)}."),
    lambda mine, holder, theirs, j: (f"You are responsible for 1x {mine}; ask agent {holder} for its recipe. "
                                     f"Agent {j} has to cook {spaced(theirs)}, whose recipe is yours."),
]

_FIRST_SENTENCE = re.compile(r"^(.*?(?:[.!?](?=\s|$)|$))", re.S)  # a goal without a full stop is one sentence
_HK_HEAD = re.compile(r"^(.*?[.!?]\s+.*?[.!?])(?=\s|$)", re.S)


def task_targets(task: dict) -> dict[str, int]:
    """Target item -> count, as MINDcraft reads `target` and `number_of_target`."""
    target, counts = task.get("target"), task.get("number_of_target")
    if isinstance(target, dict):
        return {str(k): int(v) for k, v in target.items()}
    names = [target] if isinstance(target, str) else list(target or [])
    return {n: (counts.get(n, 1) if isinstance(counts, dict) else int(counts or 1)) for n in names}


def reword(task_id: str, task: dict, index: int) -> dict:
    """The task with its goal reworded (style `index` modulo the styles); unchanged when it is not a crafting or
    cooking task or its goal has no first sentence."""
    kind = {"techtree": "crafting", "crafting": "crafting", "cooking": "cooking"}.get(task.get("type", ""))
    targets = task_targets(task)
    if kind is None or not targets:
        return task
    out = dict(task)
    goal = task.get("goal")
    if isinstance(goal, dict) and not isinstance(task.get("target"), list):  # one goal per agent, same targets
        out["goal"] = {key: _reword_text(text, targets, kind, index) for key, text in goal.items()}
        return out
    if isinstance(goal, dict):  # Hell's Kitchen: one goal per agent, one dish each in agent order
        dishes = list(targets)
        n = len(dishes)
        goals = {}
        for key, text in goal.items():
            i = int(key)
            head = _HK_HEAD.match(text)
            if head is None or i >= n:
                goals[key] = text
                continue
            style = HK_STYLES[(index + i) % len(HK_STYLES)]
            goals[key] = style(dishes[i], (i - 1) % n, dishes[(i + 1) % n], (i + 1) % n) + text[head.end():]
        out["goal"] = goals
        return out
    if not isinstance(goal, str):
        return task
    out["goal"] = _reword_text(goal, targets, kind, index)
    return out


def _reword_text(goal: str, targets: dict[str, int], kind: str, index: int) -> str:
    first = _FIRST_SENTENCE.match(goal)
    if first is None:
        return goal
    style = list(STYLES.values())[index % len(STYLES)]
    return style(targets, kind) + goal[first.end():]


def reword_file(tasks: dict) -> dict:
    return {task_id: reword(task_id, task, i) for i, (task_id, task) in enumerate(tasks.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a MINDcraft-style task file (JSON)")
    parser.add_argument("out", type=Path, help="where to write the reworded copy")
    args = parser.parse_args(argv)
    try:
        tasks = json.loads(args.source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.source}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(tasks, dict):
        print(f"{args.source} is not a mapping of task ids to tasks", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    reworded = reword_file(tasks)
    args.out.write_text(json.dumps(reworded, indent=1) + "\n", encoding="utf-8")
    changed = sum(reworded[task_id] != task for task_id, task in tasks.items())
    print(f"reworded {changed} of {len(tasks)} tasks into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
