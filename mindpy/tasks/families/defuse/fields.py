"""The defuse family's own task fields, typed: the map, its bombs, who holds which cutters, the round limit and
the seed they were made from (mindpy.tasks.families.defuse.generator writes them, `task_problems` checks them)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .generator import TASK_FIELDS, task_problems

FIELDS = TASK_FIELDS


@dataclass(frozen=True)
class DefuseFields:
    """A defuse task's game: `layout` (rooms and doors, as Layout.to_dict writes it), `bombs`, `cutters` (agent ->
    colours), `round_limit` and the `seed` the map was drawn from."""

    seed: int
    layout: dict[str, Any]
    bombs: list[Any]
    cutters: dict[str, Any]
    round_limit: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as a task file writes them."""
        return {"seed": self.seed, "layout": copy.deepcopy(self.layout), "bombs": copy.deepcopy(self.bombs),
                "cutters": copy.deepcopy(self.cutters), "round_limit": self.round_limit}


def parse_fields(p: Any) -> DefuseFields | None:
    """The fields of one task's dictionary (`p` is the schema's parser), or None when they make no game (each
    problem noted on the whole task)."""
    problems = task_problems(p.data)
    for line in problems:
        p.notes.whole(line)
    if problems:
        return None
    data = p.data
    return DefuseFields(data["seed"], copy.deepcopy(dict(data["layout"])), copy.deepcopy(list(data["bombs"])),
                        copy.deepcopy(dict(data["cutters"])), data["round_limit"])
