"""People-readable descriptions of tasks (`mindpy tasks show`)."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence

from .family import family_of, is_family
from .schema import Task, counted

SHOWN_IDS = 20  # ids of invalid tasks listed by name


def items_text(inventory: Mapping[str, int]) -> str:
    """"oak_log x2, stick x1", or "nothing"."""
    return ", ".join(f"{name} x{count}" for name, count in inventory.items()) or "nothing"


def _indent(text: str, prefix: str = "    ", width: int = 110) -> str:
    lines = []
    for para in text.splitlines() or [""]:
        wrapped = textwrap.wrap(para, width=width - len(prefix)) or [""]
        lines += [prefix + line for line in wrapped]
    return "\n".join(lines)


def blueprint_summary(task: Task) -> str:
    """One line on the task's blueprint: levels, footprint, origin and block count (empty if none)."""
    bp = task.blueprint
    if bp is None:
        return ""
    sx, sy, sz = bp.size
    (x0, y0, z0), (_, y1, _) = bp.bounds()
    blocks = sum(bp.block_counts().values())
    return (f"{len(bp.levels)} levels (y {y0} to {y1}), {sx} x {sz} blocks (x by z) from ({x0}, {y0}, {z0}), "
            f"{blocks} blocks to place")


def players_text(task: Task) -> str:
    """"2 agents", or "2 agents + 1 human" for a task with slots people play."""
    people = counted(task.agent_count, "agent")
    return people + (f" + {counted(task.human_count, 'human')}" if task.human_count else "")


def describe_task(task: Task) -> str:
    """Everything about one task: agents, goals, targets, inventories, blueprint size."""
    people = players_text(task)
    family = family_of(task)
    kind = family.kind_text(task)
    lines = [f"{task.id}", f"  type: {kind}; {people}; timeout {task.timeout:g} s"]
    targets = task.targets()
    if targets:
        lines.append(f"  targets: {items_text(targets)}")
    facts = []
    if task.requires_crafting_table is not None:
        facts.append(f"crafting table needed: {'yes' if task.requires_crafting_table else 'no'}")
    if task.depth is not None or task.max_depth is not None:
        facts.append(f"recipe depth {task.depth if task.depth is not None else '?'}"
                     f" (tree depth {task.max_depth if task.max_depth is not None else '?'})")
    if task.missing_items:
        facts.append("missing (gather them): " + ", ".join(task.missing_items))
    if task.difficulty_metrics.get("difficulty_category"):
        facts.append(f"difficulty: {task.difficulty_metrics['difficulty_category']}")
    if facts:
        lines.append("  " + "; ".join(facts))
    lines += family.describe(task)
    if task.blueprint is not None:
        lines.append("  blueprint: " + blueprint_summary(task))
        materials = task.blueprint.materials or task.blueprint.required_items()
        lines.append("  materials: " + items_text(materials))
    if task.usernames:
        lines.append("  human players: " + ", ".join(task.usernames))
    shared_goal = isinstance(task.goal, str)
    if isinstance(task.goal, str) and task.goal:
        lines.append("  goal (all agents):")
        lines.append(_indent(task.goal))
    for i in range(task.agent_count + task.human_count):
        who = f"agent {i}" if i < task.agent_count else f"human {i - task.agent_count}"
        lines.append(f"  {who}:")
        lines.append(f"    inventory: {items_text(task.inventory_for(i))}")
        lines += family.describe_player(task, i)
        if task.is_hells_kitchen and i < task.agent_count:
            lines.append(f"    must make: {items_text(task.targets_for(i))}")
        blocked = task.blocked_actions_for(i)
        if blocked:
            lines.append(f"    blocked commands: {', '.join(blocked)}")
        if task.blocked_access_to_recipe and not task.has_recipe_access(i):
            lines.append("    recipes: hidden from this agent")
        if not shared_goal and task.goal_for(i):
            lines.append("    goal:")
            lines.append(_indent(task.goal_for(i), "      "))
    if task.conversation:
        lines.append("  agent 0 opens with: " + task.conversation)
    if task.recipes and shared_goal:
        for item, steps in task.recipes.items():
            lines.append(f"  recipe for {item}:")
            lines += [_indent(f"{n}. {step}", "    ") for n, step in enumerate(steps, 1)]
    return "\n".join(lines)


def describe_file(tasks: Mapping[str, Task], source: str = "", invalid: Sequence[str] = ()) -> str:
    """One line per task, with counts by type and agent number first; the ids of invalid tasks (left out) last."""
    types = Counter(t.type for t in tasks.values())
    agents = Counter(f"{t.agent_count}" + (f"+{t.human_count} human" if t.human_count else "")
                     for t in tasks.values())
    head = f"{source + ': ' if source else ''}{len(tasks)} tasks (" + ", ".join(
        f"{n} {k}" for k, n in sorted(types.items())) + "); agents: " + ", ".join(
        f"{n} x {k}" for k, n in sorted(agents.items()))
    lines = [head]
    width = min(max((len(i) for i in tasks), default=0), 72)
    for task in tasks.values():
        what = family_of(task).what(task) if is_family(task.type) else ""
        lines.append(f"  {task.id:<{width}}  {task.type:<12} {players_text(task)}  {what}")
    if invalid:
        more = len(invalid) - SHOWN_IDS
        shown = ", ".join(invalid[:SHOWN_IDS]) + (f" and {more} more" if more > 0 else "")
        lines.append(f"  {counted(len(invalid), 'invalid task')} left out (`mindpy tasks validate` says why): {shown}")
    return "\n".join(lines)
