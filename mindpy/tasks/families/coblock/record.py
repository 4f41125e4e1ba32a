"""The public record of a CoBlock episode (paper seed 000, section 2.1: "the state of the world consists of all public
information, including the structure built so far, and the history of the agents' utterances and actions"): what
each player said to its partner and did (place, break, wait, end), in order, one record shared by the team.

    record = team_record(task, agent)        # the family's configure_agent: one record for the agents of a team
    record.said("andy", "Hi jill, my part is the blue tower.")
    record.acted("jill", PLACE, (100, -60, -98), "yellow_wool")
    record.dialogue()                        # [("andy", "Hi jill, ...")]
    record.actions()                         # [Move(step=2, agent="jill", kind="place", ...)]
    record.placed_by("jill")                 # {(100, -60, -98): "yellow_wool"}: its blocks still standing

Writers: the coblock commands (mindpy.commands.coblock, !wait in mindpy.commands.rounds) and the conversation
manager (every message sent to a bot). Readers: the prompt's XML state (mindpy.prompts.coblock) and the reflection
review (the agent's own extra blocks). The record also keeps each agent's prompt settings (`settings`), which the
episode's result reports (`coblock_settings`).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

Cell = tuple[int, int, int]
# CoBlock's departures from its paper, each a profile option off in the paper's setting (mindpy.profiles), and the
# settings an episode's result records (`coblock_settings`): the paper's two switches and these
OPTIONS = ("summarize_history", "check_goal", "retrieved_examples", "review_detail")
SETTINGS = ("partner_modelling", "reflection", *OPTIONS)
PLACE, BREAK, WAIT, END, MESSAGE = "place", "break", "wait", "end", "message"
ACTIONS = (PLACE, BREAK, WAIT, END)


@dataclass(frozen=True)
class Move:
    """One public event: a message or an action of one agent. `step` counts the record's events from 1."""

    step: int
    agent: str
    kind: str                 # message, place, break, wait, end
    text: str = ""            # the message
    cell: Cell | None = None  # place and break
    block: str = ""           # place: the block placed; break: the block broken


class PublicRecord:
    """The team's messages and actions, in order (thread-safe: the agents act on threads of their own)."""

    def __init__(self) -> None:
        self._moves: list[Move] = []
        self._lock = threading.Lock()
        self.players: list[str] = []               # the agents that joined the record, in task order
        self.settings: dict[str, dict[str, bool]] = {}  # agent -> its prompt settings (coblock_settings)

    def join(self, agent: str, settings: dict[str, bool] | None = None) -> None:
        with self._lock:
            if agent not in self.players:
                self.players.append(agent)
            if settings is not None:
                self.settings[agent] = dict(settings)

    def _add(self, agent: str, kind: str, **fields: Any) -> None:
        with self._lock:
            self._moves.append(Move(len(self._moves) + 1, agent, kind, **fields))

    def said(self, agent: str, text: str) -> None:
        text = " ".join(str(text).split())
        if text:
            self._add(agent, MESSAGE, text=text)

    def acted(self, agent: str, kind: str, cell: Cell | None = None, block: str = "") -> None:
        if kind not in ACTIONS:
            raise ValueError(f"unknown action {kind!r} (known: {', '.join(ACTIONS)})")
        self._add(agent, kind, cell=None if cell is None else (int(cell[0]), int(cell[1]), int(cell[2])),
                  block=block)

    def moves(self) -> list[Move]:
        with self._lock:
            return list(self._moves)

    def dialogue(self) -> list[tuple[str, str]]:
        """(sender, message) of every message, in order."""
        return [(m.agent, m.text) for m in self.moves() if m.kind == MESSAGE]

    def actions(self) -> list[Move]:
        """Every place, break, wait and end, in order."""
        return [m for m in self.moves() if m.kind != MESSAGE]

    def placed_by(self, agent: str) -> dict[Cell, str]:
        """The blocks `agent` placed that nobody has broken since, by cell."""
        standing: dict[Cell, tuple[str, str]] = {}
        for m in self.actions():
            if m.cell is None:
                continue
            if m.kind == PLACE:
                standing[m.cell] = (m.agent, m.block)
            elif m.kind == BREAK:
                standing.pop(m.cell, None)
        return {cell: block for cell, (who, block) in standing.items() if who == agent}


# One record per team: the agents of one episode share a message bus, so the bus names the team. The latest
# record of each task object is kept for the episode's result (`record_for`).
_by_team: weakref.WeakKeyDictionary[Any, PublicRecord] = weakref.WeakKeyDictionary()
_by_task: dict[int, tuple[Any, PublicRecord]] = {}
_lock = threading.Lock()


def team_record(task: Any, agent: Any) -> PublicRecord:
    """The record shared by `agent` and its partners (those on its message bus); an agent without a bus gets
    one of its own."""
    team = getattr(getattr(agent, "conversations", None), "bus", None) or agent
    with _lock:
        try:
            record = _by_team.get(team)
        except TypeError:  # a team object that cannot be a weak key: a record of its own
            record = None
        if record is None:
            record = PublicRecord()
            try:
                _by_team[team] = record
            except TypeError:
                pass
        _by_task[id(task)] = (weakref.ref(task) if _weakable(task) else (lambda: task), record)
    return record


def record_for(task: Any) -> PublicRecord | None:
    """The record of the latest episode of `task` (this very object) in this process, if any."""
    with _lock:
        entry = _by_task.get(id(task))
    if entry is None or entry[0]() is not task:
        return None
    return entry[1]


def _weakable(obj: Any) -> bool:
    try:
        weakref.ref(obj)
    except TypeError:
        return False
    return True


__all__ = ["ACTIONS", "BREAK", "END", "MESSAGE", "OPTIONS", "PLACE", "SETTINGS", "WAIT", "Move", "PublicRecord",
           "record_for", "team_record"]
