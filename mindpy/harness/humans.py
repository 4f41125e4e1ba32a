"""The human players of a task: MINDcraft's `human_count` and `usernames` reserve slots after the agents'.

    humans = HumanSlots(task, setup, issue, bots[0])
    humans.poll()                 # from the episode's watch loop, about once a second
    checker_for(task, humans.inventories)

A player who is online under a reserved name (at the start or whenever they join) is served once: their
inventory is cleared and filled with their slot's initial inventory (slot `agent_count + i` for the i-th
username, as MINDcraft numbers them), they are teleported beside agent 0 (or to the family's `spot`: orders
brings its person cooks beside the serving chest), and their goal is whispered to them (the family's
`default_goal` when the task gives the slot none). From then on their inventory is read from the server every few
seconds, so the checker counts what they hold; `read_now()` reads it at once (an orders step).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ..agent.agent import chat_pieces
from ..tasks.checkers import Inventory
from ..tasks.schema import Task
from ..tasks.world import Issue, Position, TaskSetup
from ..world.bulk import player_inventory, player_names

log = logging.getLogger(__name__)

WHISPER_PIECE = 200  # characters per whispered line: "/tell NAME " and the line stay within chat's 256
WHISPERS_AT_MOST = 10  # a goal is rarely over 1,000 characters; a longer one ends with a note of the rest
READ_TIMEOUT_S = 3.0
READ_EVERY_S = 3.0  # one command every few seconds: chat commands count towards a server's spam limit
DEFAULT_GOAL = "Help the agents with their task."


class HumanSlots:
    """Serves the task's human players as they come online and keeps their inventories for the checker."""

    def __init__(self, task: Task, setup: TaskSetup, issue: Issue, reader, say: Callable[[str], None] | None = None,
                 spot: Position | None = None, default_goal: str = DEFAULT_GOAL):
        self.task = task
        self.setup = setup
        self.issue = issue
        self.reader = reader  # an operator bot: reads the player list and the humans' inventories
        self.say = say or (lambda text: None)
        self.spot = spot  # where a served player is brought (None: beside agent 0)
        self.default_goal = default_goal
        self.slots = {name: task.agent_count + i for i, name in enumerate(task.usernames[:task.human_count])}
        self.served: set[str] = set()
        self._held: dict[str, dict[str, int]] = {}
        self._read_at = 0.0

    def inventories(self) -> list[Inventory]:
        """What each served human held at the last poll."""
        return list(self._held.values())

    def held(self) -> dict[str, dict[str, int]]:
        """Each served human's inventory at the last read, by name."""
        return dict(self._held)

    def read_now(self) -> dict[str, dict[str, int]]:
        """Read the online served humans' inventories now (one that does not answer keeps its last reading);
        returns held()."""
        online = set(player_names(self.reader))
        for name in sorted(self.served & online):
            held = player_inventory(self.reader, name, timeout=READ_TIMEOUT_S)
            if held is None:
                log.warning("could not read %s's inventory", name)
            else:
                self._held = {**self._held, name: held}
        self._read_at = time.monotonic()
        return self.held()

    def poll(self) -> None:
        """Serve the reserved players who came online; read the served ones' inventories."""
        if not self.slots:
            return
        online = set(player_names(self.reader))
        for name, index in self.slots.items():
            if name in online and name not in self.served:
                self._serve(name, index)
        if time.monotonic() - self._read_at < READ_EVERY_S:
            return
        self._read_at = time.monotonic()
        for name in self.served & online:
            held = player_inventory(self.reader, name, timeout=READ_TIMEOUT_S)
            if held is None:
                log.warning("could not read %s's inventory", name)
            else:
                self._held = {**self._held, name: held}  # a new dict: the checker reads it from another thread

    def _serve(self, name: str, index: int) -> None:
        self.served.add(name)
        self.issue(f"/clear {name}")
        items = self.task.inventory_for(index)
        for item, count in items.items():
            self.issue(f"/give {name} {item} {count}")
        beside = self.setup.positions.get(self.setup.agent_names[0]) if self.setup.agent_names else None
        if self.spot is not None:
            self.issue(f"/tp {name} {' '.join(str(v) for v in self.spot)}")
        elif beside:
            x, y, z = beside
            self.issue(f"/tp {name} {x + 1} {y} {z + 1}")
        goal = self.task.goal_for(index).strip() or self.default_goal
        for piece in chat_pieces(f"Your goal: {goal}", WHISPER_PIECE, most=WHISPERS_AT_MOST):
            self.issue(f"/tell {name} {piece}")
        self._held = {**self._held, name: dict(items)}
        self.say(f"{self.task.id}: human player {name} joined: slot {index}, given {len(items)} kinds of items")

