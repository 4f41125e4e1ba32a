"""The human players of a task: MINDcraft's `human_count` and `usernames` reserve slots after the agents'.

    humans = HumanSlots(task, setup, issue, bots[0])
    humans.poll()                 # from the episode's watch loop, about once a second
    checker_for(task, humans.inventories)

A player who is online under a reserved name (at the start or whenever they join) is served once: their
inventory is cleared and filled with their slot's initial inventory (slot `agent_count + i` for the i-th
username, as MINDcraft numbers them), they are teleported beside agent 0, and their goal is whispered to them.
From then on their inventory is read from the server every few seconds, so the checker counts what they hold.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ..agent.agent import chat_pieces
from ..tasks.checkers import Inventory
from ..tasks.schema import Task
from ..tasks.world import Issue, TaskSetup
from ..world.bulk import player_inventory, player_names

log = logging.getLogger(__name__)

WHISPER_PIECE = 200  # characters per whispered line: "/tell NAME " and the line stay within chat's 256
WHISPERS_AT_MOST = 10  # a goal is rarely over 1,000 characters; a longer one ends with a note of the rest
READ_TIMEOUT_S = 3.0
READ_EVERY_S = 3.0  # one command every few seconds: chat commands count towards a server's spam limit


class HumanSlots:
    """Serves the task's human players as they come online and keeps their inventories for the checker."""

    def __init__(self, task: Task, setup: TaskSetup, issue: Issue, reader, say: Callable[[str], None] | None = None):
        self.task = task
        self.setup = setup
        self.issue = issue
        self.reader = reader  # an operator bot: reads the player list and the humans' inventories
        self.say = say or (lambda text: None)
        self.slots = {name: task.agent_count + i for i, name in enumerate(task.usernames[:task.human_count])}
        self.served: set[str] = set()
        self._held: dict[str, dict[str, int]] = {}
        self._read_at = 0.0

    def inventories(self) -> list[Inventory]:
        """What each served human held at the last poll."""
        return list(self._held.values())

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
        spot = self.setup.positions.get(self.setup.agent_names[0]) if self.setup.agent_names else None
        if spot:
            x, y, z = spot
            self.issue(f"/tp {name} {x + 1} {y} {z + 1}")
        goal = self.task.goal_for(index).strip() or "Help the agents with their task."
        for piece in chat_pieces(f"Your goal: {goal}", WHISPER_PIECE, most=WHISPERS_AT_MOST):
            self.issue(f"/tell {name} {piece}")
        self._held = {**self._held, name: dict(items)}
        self.say(f"{self.task.id}: human player {name} joined: slot {index}, given {len(items)} kinds of items")

