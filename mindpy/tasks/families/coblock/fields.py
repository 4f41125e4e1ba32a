"""CoBlock's own task fields, typed in `Task.fields`: coblock_type, private_goals (absolute blocks per player,
disjoint, together the blueprint's blocks) and complexity, read and checked for the schema (mindpy.tasks.schema).

    task.fields.private_goals["0"]      # [(x, y, z, block), ...]: player 0's part of the structure
    private_goals_of(task)              # the same, {} for a task (or any object) without them
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ....userfiles import quote as show
from ...blueprint import Blueprint, block_base_name
from ...schema import WORLD_BORDER, WORLD_HEIGHT, GoalBlock, agent_key, counted, is_int, is_number
from .generator import TASK_TYPES as COBLOCK_TYPES

FIELDS = ("coblock_type", "private_goals", "complexity")


@dataclass(frozen=True)
class CoblockFields:
    """A coblock task's kind (independent, skill_dependent or goal_dependent), each player's private goal (its
    blocks: x, y, z, block) and the structure's complexity (log10 of its spanning trees)."""

    coblock_type: str | None = None
    private_goals: dict[str, list[GoalBlock]] = field(default_factory=dict)
    complexity: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a task file writes them (those that are set)."""
        values: dict[str, Any] = {}
        if self.coblock_type is not None:
            values["coblock_type"] = self.coblock_type
        if self.private_goals:
            values["private_goals"] = {k: [list(b) for b in blocks] for k, blocks in self.private_goals.items()}
        if self.complexity is not None:
            values["complexity"] = self.complexity
        return values


def private_goals_of(task: Any) -> dict[str, list[GoalBlock]]:
    """The private goals of a coblock task ({} for a task, or any object, without them)."""
    return getattr(getattr(task, "fields", None), "private_goals", None) or {}


def parse_fields(p: Any) -> CoblockFields:
    """The fields of one task's dictionary; problems go to `p.notes` (`p` is the schema's parser of one task)."""
    kind = p.data.get("coblock_type")
    if kind not in COBLOCK_TYPES:
        p.notes.add("coblock_type", f"must be one of {', '.join(COBLOCK_TYPES)}, got {show(kind)}")
        kind = None
    players = p.agent_count + p.human_count
    if p.agent_count and players != 2:
        p.notes.add("agent_count", f"and human_count must add up to 2 players in coblock tasks (two partners), "
                                   f"got {players}")
    complexity = p.data.get("complexity")
    if complexity is not None and (not is_number(complexity) or not 0 <= complexity < float("inf")):
        p.notes.add("complexity", f"must be a number >= 0 (log10 of spanning trees), got {show(complexity)}")
        complexity = None
    goals = private_goals(p)
    if goals is not None and p.kw.get("blueprint") is not None:
        goals_cover_blueprint(p, goals, p.kw["blueprint"])
    return CoblockFields(kind, goals or {}, complexity)


def private_goals(p: Any) -> dict[str, list[GoalBlock]] | None:
    """The private goals, or None when their shape is wrong (then the union is not compared)."""
    """The private goals, or None when their shape is wrong (then the union is not compared)."""
    raw = p.data.get("private_goals")
    if not isinstance(raw, Mapping) or not raw:
        p.notes.add("private_goals", f"is required for coblock tasks: a mapping player index -> list of "
                                        f"[x, y, z, block], got {show(raw)}")
        return None
    goals: dict[str, list[GoalBlock]] = {}
    owner: dict[tuple[int, int, int], str] = {}
    whole = True
    for key, blocks in raw.items():
        index = agent_key(key)
        if index is None or int(index) >= p.players:
            p.index_problem("private_goals", key)
            whole = False
            continue
        fld = f"private_goals.{index}"
        if not isinstance(blocks, list):
            p.notes.add(fld, f"must be a list of [x, y, z, block], got {show(blocks)}")
            whole = False
            continue
        parsed = []
        for n, entry in enumerate(blocks):
            block = goal_block(p, entry, f"{fld}[{n}]")
            if block is None:
                whole = False
                continue
            where = block[:3]
            if where in owner:
                other = "the same goal" if owner[where] == index else f"private_goals.{owner[where]}"
                p.notes.add(f"{fld}[{n}]", f"has position {show(list(where))} that {other} already has: "
                                              f"the goals must not overlap")
                whole = False
            owner[where] = index
            parsed.append(block)
        goals[index] = parsed
    for i in range(p.players if p.agent_count else 0):
        if str(i) not in goals and str(i) not in {agent_key(k) for k in raw}:
            p.notes.add("private_goals", f"has no goal for player {i}")
            whole = False
    return goals if whole else None


def goal_block(p: Any, entry: Any, fld: str) -> GoalBlock | None:
    """One block of a private goal, or None when it is wrong (noted)."""
    if not (isinstance(entry, list) and len(entry) == 4 and all(is_int(v) for v in entry[:3])
            and isinstance(entry[3], str) and entry[3]):
        p.notes.add(fld, f"must be [x, y, z, block] (three integers and a block name), got {show(entry)}")
        return None
    x, y, z, name = entry
    low_y, high_y = WORLD_HEIGHT
    if not (low_y <= y <= high_y and -WORLD_BORDER <= x <= WORLD_BORDER and -WORLD_BORDER <= z <= WORLD_BORDER):
        p.notes.add(fld, f"must lie inside the world (x and z within ±{WORLD_BORDER}, y from {low_y} to "
                            f"{high_y}), got {show(entry[:3])}")
        return None
    name = p.item_name(name, fld, "block")
    if p.names is not None:
        message = p.names.block_problem(name)
        if message:
            p.notes.add(fld, message)
            return None
    if block_base_name(name) == "air":
        p.notes.add(fld, f"has air at {show(entry[:3])}: a goal lists blocks to place")
        return None
    return x, y, z, name

def goals_cover_blueprint(p: Any, goals: Mapping[str, list[GoalBlock]], blueprint: Blueprint) -> None:
    """Together the goals are the blueprint's blocks: each goal block where the blueprint has it, and every
    blueprint block in some goal."""
    wanted = {(c.x, c.y, c.z): block_base_name(c.block) for c in blueprint.cells(include_air=False)}
    for index, blocks in goals.items():
        for n, (x, y, z, name) in enumerate(blocks):
            there = wanted.get((x, y, z), "air")
            if there != block_base_name(name):
                p.notes.add(f"private_goals.{index}[{n}]",
                               f"has {name} at ({x}, {y}, {z}) but the blueprint has {there} there: the private "
                               f"goals together must be the blueprint's blocks")
    covered = {b[:3] for blocks in goals.values() for b in blocks}
    left = sorted(((y, x, z), block) for (x, y, z), block in wanted.items() if (x, y, z) not in covered)
    if left:
        (y, x, z), block = left[0]
        p.notes.add("private_goals", f"leaves out {counted(len(left), 'block')} of the blueprint (the first: "
                                        f"{block} at ({x}, {y}, {z})): the private goals together must be the "
                                        f"blueprint's blocks")
