"""A task family written outside mindpy, in this one file: "beacon". Each agent holds one block and must leave it
at its marker; the score is the share of markers with their block on them. docs/adding-a-family.md walks through
it. It plays the goal-directed episode every MineCollab family plays (mindpy.harness.episode), so it only says
what differs: its own fields, its world, its checker and its summary.

A task file of the family:

    {"beacon_1": {"type": "beacon", "goal": "Place your block where you stand.", "agent_count": 1,
                  "initial_inventory": {"0": {"gold_block": 1}}, "timeout": 60,
                  "markers": [[210, -60, 230]], "block": "gold_block"}}

mindpy finds it through the `mindpy.families` entry point (tests/harness/test_family_plugin.py installs one) or
`mindpy.tasks.register("beacon", "toy_family:BeaconFamily")` in the same process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from mindpy.tasks.checkers import CheckResult
from mindpy.tasks.family import Family
from mindpy.tasks.schema import WORLD_BORDER, is_int
from mindpy.tasks.world import fill, plan_agent

Position = tuple[int, int, int]


@dataclass(frozen=True)
class BeaconFields:
    """Where each agent's marker is (agent i stands on marker i) and the block to leave there."""

    markers: tuple[Position, ...]
    block: str

    def as_dict(self) -> dict[str, Any]:
        return {"markers": [list(m) for m in self.markers], "block": self.block}


class BeaconChecker:
    """Done when every marker has the block at it: on it or beside it, at its height or one above (an agent places
    a block next to where it stands)."""

    def __init__(self, fields: BeaconFields):
        self.fields = fields

    def check(self, bots: Sequence) -> CheckResult:
        from mindpy.world.bulk import block_map

        near = [[(x + dx, y + dy, z + dz) for dx in (-1, 0, 1) for dy in (0, 1) for dz in (-1, 0, 1)]
                for x, y, z in self.fields.markers]
        blocks = block_map(bots[0], [cell for cells in near for cell in cells])
        lit = sum(any(blocks.get(cell) == self.fields.block for cell in cells) for cells in near)
        total = len(self.fields.markers)
        return CheckResult(lit / total, lit == total, f"{lit}/{total} markers have their {self.fields.block}")


class BeaconFamily(Family):
    """Leave your block at your marker."""

    name = "beacon"
    summary = "each agent leaves its block at its marker"
    fields = ("markers", "block")
    split_sizes: ClassVar[dict[str, int]] = {}  # no generator: tasks come from files

    def parse_fields(self, parser: Any) -> BeaconFields | None:
        data, notes = parser.data, parser.notes
        markers = data.get("markers")
        if not (isinstance(markers, list) and markers and all(
                isinstance(m, list) and len(m) == 3 and all(is_int(v) and abs(v) < WORLD_BORDER for v in m)
                for m in markers)):
            notes.add("markers", f"must be a non-empty list of [x, y, z] block positions, got {markers!r}")
            return None
        if parser.agent_count and len(markers) != parser.agent_count:
            notes.add("markers", f"must have one marker per agent ({parser.agent_count}), got {len(markers)}")
        block = data.get("block")
        if not isinstance(block, str) or not block:
            notes.add("block", f"must be a block name, got {block!r}")
            return None
        return BeaconFields(tuple(tuple(m) for m in markers), block)  # type: ignore[misc]

    def unplayable_reason(self, task: Any) -> str | None:
        return None if task.fields is not None else "a beacon task needs its markers"

    def plan_world(self, setup: Any, origin: Any, seed: int) -> None:
        for i, (name, (x, y, z)) in enumerate(zip(setup.agent_names, setup.task.fields.markers, strict=False)):
            setup.commands.append(fill((x - 1, y, z - 1), (x + 1, y + 2, z + 1), "air"))  # room to stand
            setup.commands.append(fill((x - 1, y - 1, z - 1), (x + 1, y - 1, z + 1), "stone"))
            plan_agent(setup, i, name, (x, y, z))

    builds = True  # its agents stand at their markers, not around a spot the episode picks

    def unsolvable_reason(self, task: Any, version: str) -> str | None:
        held = sum(task.inventory_for(i).get(task.fields.block, 0) for i in range(task.agent_count))
        short = len(task.fields.markers) - held
        return f"needs {short} more {task.fields.block}" if short > 0 else None

    def checker(self, task: Any, human_inventories: Any = None) -> BeaconChecker:
        return BeaconChecker(task.fields)

    summary_key = "beacon"

    def summarize(self, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        scores = [float(r["score"]) for r in rows]
        return {"episodes": len(rows), "markers_lit": sum(scores) / len(scores)}

    def what(self, task: Any) -> str:
        fields = task.fields
        return "" if fields is None else f"{len(fields.markers)} markers of {fields.block}"
