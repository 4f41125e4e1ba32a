"""Helpers for tests of CoBlock tasks on the embedded server."""

from __future__ import annotations

import dataclasses

from mindpy.tasks.blueprint import Blueprint


def moved(task, dx: int, dz: int):
    """The task with its site moved by (dx, dz), so the test builds in an area of its own."""
    goals = {k: [(x + dx, y, z + dz, b) for x, y, z, b in v] for k, v in task.fields.private_goals.items()}
    raw = task.blueprint.to_dict()
    for level in raw["levels"]:
        x, y, z = level["coordinates"]
        level["coordinates"] = [x + dx, y, z + dz]
    return dataclasses.replace(task, fields=dataclasses.replace(task.fields, private_goals=goals),
                               blueprint=Blueprint.from_dict(raw))
