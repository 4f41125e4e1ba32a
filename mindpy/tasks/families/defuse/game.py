"""The defuse game as a pure state machine: rooms, bombs, cutters, rounds and messages, no Minecraft needed.

    game = DefuseGame.from_task(task)             # a task dict of mindpy.tasks.families.defuse.generator
    print(game.observation(0).text())             # what Alpha sees: its room only, scores, teammates' rooms, mail
    game.act(0, "Inspect Bomb 2")                 # the feedback text; parsed as in the paper's text interface
    game.act(1, Action.move(3))                   # or an Action
    game.act(2, 'Apply red Tool. Message to Team: "Bomb 2 is red, green"')
    game.round_no, game.score, game.done          # the round ends once every agent has acted

Rules (Li et al., 2023, section 3 and appendices A and B): each round every agent takes one action, in agent
order: move to an adjacent room, inspect a bomb in its room (its sequence is told to that agent only), apply one
of its cutters to a bomb in its room, or wait; any reply may also carry a message to the team, which every
teammate reads at the start of the next round (a reply with only a message is a turn spent talking). A correct
cutter (the bomb's next colour) defuses a phase: 10 points at once, 90 for the five bombs. A wrong colour is
refused with the paper's feedback, which names the remaining sequence (its text interface checks the colour
before the game sees it); `wrong_cutter_explodes=True` plays the gym environment's rule instead, where the bomb
explodes and its remaining phases are lost (the paper's MAPPO reward mentions such explosions). The game ends when
no bomb is left to defuse or after `round_limit` rounds (30); the play also ends it on a deadlock (deadlock.py).
An agent sees only its own room; a bomb there shows its state, and its remaining colours once that agent has
inspected it ("bomb 1 with unknown sequence" before, as the paper's observation puts it). `show_phases=True` also
shows how many phases an uninspected bomb has left (ours, not the paper's).

Validity (the paper's "valid action %", Table 1: "the proportion of LLM outputs that can be encoded into actions
allowed by the task rules"): every reply counts; it is valid when it is one of the paper's three actions (move,
inspect, apply a cutter) and the game allows it now. A wait or a reply with only a message plays (the turn
passes, the message goes out) but is no action, so it is not valid; `lenient_validity=True` counts them valid
(ours before, which raised the rate).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .knowledge import Fact, KnowledgeTracker, bomb_sequence, bomb_state, room_contents
from .layout import AGENT_NAMES, COLOURS, POINTS_PER_PHASE, Layout

ROUND_LIMIT = 30
ACTION_KINDS = ("move", "inspect", "apply", "wait", "message")
PAPER_ACTIONS = ("move", "inspect", "apply")   # the paper's three classes of action (section 3.1)

# The paper's templated feedback (appendix B), with our success texts.
INVALID = "Your action is invalid."
NOT_ADJACENT = ("You can not directly move to Room {room} because it is not adjacent to your current location, "
                "Room {here}. Consider taking a detour to another room first and then move to your destination.")
NOTHING_TO_INSPECT = "There is no bomb in the current location, Room {here}, for you to inspect."
WRONG_COLOUR = ("You can not apply Tool {colour} to Bomb {bomb} because the sequence of this bomb is {sequence}. "
                "You will need to apply other color tool first.")
NOTHING_TO_DEFUSE = "There is no bomb in your current location, room {here}, for you to defuse."
NO_SUCH_ROOM = INVALID + " There is no Room {room}: the rooms are {rooms}."
NO_SUCH_TOOL = ("You do not have Tool {colour}. Consider asking your teammates who have this tool to help you "
                "defuse the bomb.")


@dataclass(frozen=True)
class Action:
    """One agent's choice for a round; `message` rides along with any kind."""

    kind: str
    room: int | None = None
    bomb: int | None = None      # None: the only live bomb in the room
    colour: str | None = None
    message: str | None = None

    @classmethod
    def move(cls, room: int, message: str | None = None) -> Action:
        return cls("move", room=room, message=message)

    @classmethod
    def inspect(cls, bomb: int | None = None, message: str | None = None) -> Action:
        return cls("inspect", bomb=bomb, message=message)

    @classmethod
    def apply(cls, colour: str, bomb: int | None = None, message: str | None = None) -> Action:
        return cls("apply", bomb=bomb, colour=colour, message=message)

    @classmethod
    def wait(cls, message: str | None = None) -> Action:
        return cls("wait", message=message)

    def text(self) -> str:
        """The reply that parses back to this action."""
        bomb = f" {self.bomb}" if self.bomb is not None else ""
        words = {"move": f"Move to Room {self.room}", "inspect": f"Inspect Bomb{bomb}",
                 "apply": f"Apply {self.colour} Tool" + (f" to Bomb {self.bomb}" if self.bomb is not None else ""),
                 "wait": "Wait", "message": ""}[self.kind]
        if self.message:
            return f'{words}. Message to Team: "{self.message}"'.lstrip(". ")
        return words


# A quoted message runs to its last closing quote (it may quote words itself); an unquoted one to the end.
_MESSAGE = re.compile(r'message to (?:the )?team\s*:\s*(?:"(?P<dq>.*)"|\u201c(?P<cq>.*)\u201d|'
                      r"'(?P<sq>.*)'|(?P<bare>[^\"]*))", re.I | re.S)
_LABEL = re.compile(r"\baction(?:\s+selection)?\s*:", re.I)
_NUMBER = r"\s*#?\s*(\d+)"
_MOVE = re.compile(r"\b(?:(?:move|go|head|walk|run|return)\s+(?:back\s+)?(?:to|into)|enter)\s+(?:the\s+)?room"
                   + _NUMBER, re.I)
_INSPECT = re.compile(r"\binspect(?:\s+the)?\s+bomb(?:" + _NUMBER + r")?(?![a-z])", re.I)
_TOOL = r"(?:wire[- ]?)?(?:tool|cutter)s?"
_COLOUR = r"(?!(?:the|a|to|on|wire|tool|cutter)s?\b)(\w+)"
_APPLY = re.compile(rf"\b(?:apply|use)\s+(?:the\s+)?(?:{_COLOUR}\s+{_TOOL}|{_TOOL}\s+{_COLOUR})"
                    rf"(?:\s+(?:to|on)\s+(?:the\s+)?bomb{_NUMBER})?", re.I)
_WAIT = re.compile(r"\bwait\b", re.I)


def parse_action(reply: str) -> Action | None:
    """The action in a reply in the paper's format ("Move to Room X", "Inspect Bomb", "Apply X Tool", optionally
    'Message to Team: "..."'; "Wait" and bomb numbers are ours); None when no action or message is found. Case,
    "the", "#3", "Tool X", curly quotes, "Go to / Enter Room X" and "Use X Tool" are read too; after an "Action
    selection:" label the action named there counts, else move before inspect before apply before wait."""
    found = _MESSAGE.search(reply)
    message = next(g for g in found.group("dq", "cq", "sq", "bare") if g is not None).strip() if found else None
    head = reply[:found.start()] + " " + reply[found.end():] if found else reply  # the action, said before or after
    labels = list(_LABEL.finditer(head))
    if labels:
        action = _action_in(head[labels[-1].end():], message)
        if action is not None:
            return action
    return _action_in(head, message) or (Action("message", message=message) if message else None)


def _action_in(text: str, message: str | None) -> Action | None:
    if m := _MOVE.search(text):
        return Action.move(int(m.group(1)), message)
    if m := _INSPECT.search(text):
        return Action.inspect(int(m.group(1)) if m.group(1) else None, message)
    if m := _APPLY.search(text):
        colour = m.group(1) or m.group(2)
        return Action.apply(colour.lower(), int(m.group(3)) if m.group(3) else None, message)
    if _WAIT.search(text):
        return Action.wait(message)
    return None


_ROOM_MENTION = re.compile(r"\broom\s+(\d+)", re.I)
_BOMB_MENTION = re.compile(r"\bbomb\s+(\d+)", re.I)


def mentioned_facts(text: str) -> list[Fact]:
    """The facts a message speaks of: a room's contents for "room N", a bomb's state for "bomb N", and its
    sequence too when the message names a colour (an approximation of what a reader learns)."""
    facts = [room_contents(int(n)) for n in _ROOM_MENTION.findall(text)]
    names_colour = any(re.search(rf"\b{c}\b", text, re.I) for c in COLOURS)
    for n in _BOMB_MENTION.findall(text):
        facts.append(bomb_state(int(n)))
        if names_colour:
            facts.append(bomb_sequence(int(n)))
    return list(dict.fromkeys(facts))


@dataclass(frozen=True)
class BombView:
    """A bomb as an agent in its room sees it."""

    id: int
    state: str                       # active, defused, exploded
    phases_left: int | None          # None: not shown (uninspected, unless the game's show_phases)
    remaining: tuple[str, ...] | None  # None until this agent has inspected it


@dataclass(frozen=True)
class Observation:
    """What one agent is told at its turn."""

    agent: int
    name: str
    round_no: int
    round_limit: int
    score: int
    room: int
    adjacent: tuple[int, ...]
    bombs: tuple[BombView, ...]
    teammates: dict[str, int]        # name -> room
    cutters: tuple[str, ...]
    messages: tuple[tuple[str, str], ...]   # (sender name, text), sent last round
    feedback: str

    def text(self) -> str:
        lines = [f"Round {self.round_no} of {self.round_limit}. Total team score: {self.score}."]
        if self.feedback:
            lines.append(f"Result of your last action: {self.feedback}")
        lines.append(f"You are Player {self.name}, in Room {self.room}; it connects to "
                     f"{', '.join(f'Room {r}' for r in self.adjacent)}.")
        if not self.bombs:
            lines.append("There is no bomb in this room.")
        for bomb in self.bombs:
            if bomb.state != "active":
                lines.append(f"Bomb {bomb.id} is here, {bomb.state}.")
            elif bomb.remaining is None and bomb.phases_left is not None:
                lines.append(f"Bomb {bomb.id} is here, active, {bomb.phases_left} phase(s) left, sequence unknown.")
            elif bomb.remaining is None:
                lines.append(f"Bomb {bomb.id} is here, active, sequence unknown.")
            else:
                lines.append(f"Bomb {bomb.id} is here, active; remaining sequence: {', '.join(bomb.remaining)}.")
        lines.append("Teammates: " + "; ".join(f"Player {n} is in Room {r}" for n, r in self.teammates.items()) + ".")
        lines.append(f"Your cutters: {', '.join(self.cutters)}.")
        for sender, text in self.messages:
            lines.append(f'Message from {sender}: "{text}"')
        return "\n".join(lines)


@dataclass
class Validity:
    """Replies counted, how many were valid actions, and how many were legal but no action (a wait, a message
    alone): valid under `lenient_validity` only."""

    replies: int = 0
    valid: int = 0
    idle: int = 0

    @property
    def rate(self) -> float:
        return self.valid / self.replies if self.replies else 0.0


@dataclass
class DefuseGame:
    """One game; agents are numbered 0.. (Alpha, Bravo, ...)."""

    layout: Layout
    round_limit: int = ROUND_LIMIT
    wrong_cutter_explodes: bool = False
    show_phases: bool = False
    lenient_validity: bool = False
    round_no: int = 1
    score: int = 0
    rooms: list[int] = field(default_factory=list)
    cut: dict[int, int] = field(default_factory=dict)        # bomb -> phases defused
    exploded: set[int] = field(default_factory=set)
    inspected: list[set[int]] = field(default_factory=list)  # per agent
    acted: set[int] = field(default_factory=set)
    inbox: list[list[tuple[int, str]]] = field(default_factory=list)
    outbox: list[tuple[int, str, dict[Fact, int]]] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    validity: list[Validity] = field(default_factory=list)
    finished_round: int | None = None     # the round in which the last bomb was resolved
    stopped: str | None = None            # why the play ended the game early (a deadlock), if it did
    concerned: dict[int, Fact] = field(default_factory=dict)  # agent -> the fact its last legal action was about
    knowledge: KnowledgeTracker = field(init=False)

    def __post_init__(self) -> None:
        if self.round_limit < 1:
            raise ValueError(f"round_limit must be at least 1, got {self.round_limit}")
        n = self.layout.agent_count
        self.rooms = list(self.layout.start_rooms)
        self.cut = {bomb.id: 0 for bomb in self.layout.bombs}
        self.inspected = [set() for _ in range(n)]
        self.inbox = [[] for _ in range(n)]
        self.feedback = [""] * n
        self.validity = [Validity() for _ in range(n)]
        self.knowledge = KnowledgeTracker(n)
        for agent in range(n):
            self.knowledge.observe(agent, self._room_facts(self.rooms[agent]), self.round_no)

    @classmethod
    def from_task(cls, task: Mapping[str, Any], **options: Any) -> DefuseGame:
        """A game from a task dict (its `layout`, `bombs`, `cutters` and `round_limit`)."""
        if task.get("type") != "defuse":
            raise ValueError(f"not a defuse task (type {task.get('type')!r}): make one with "
                             f"mindpy.tasks.families.defuse.generator")
        data = {**task["layout"], "bombs": task["bombs"], "cutters": task["cutters"]}
        options.setdefault("round_limit", int(task.get("round_limit", ROUND_LIMIT)))
        return cls(Layout.from_dict(data), **options)

    # ----- state -----
    @property
    def agent_count(self) -> int:
        return self.layout.agent_count

    def name(self, agent: int) -> str:
        return AGENT_NAMES[agent]

    def remaining(self, bomb_id: int) -> tuple[str, ...]:
        """The colours a bomb still needs (empty when defused or exploded)."""
        if bomb_id in self.exploded:
            return ()
        return self.layout.bomb(bomb_id).sequence[self.cut[bomb_id]:]

    def state(self, bomb_id: int) -> str:
        if bomb_id in self.exploded:
            return "exploded"
        return "active" if self.remaining(bomb_id) else "defused"

    def bombs_in(self, room: int) -> list[int]:
        return [bomb.id for bomb in self.layout.bombs if bomb.room == room]

    def live_bombs_in(self, room: int) -> list[int]:
        return [b for b in self.bombs_in(room) if self.state(b) == "active"]

    @property
    def done(self) -> bool:
        return self.finished_round is not None or self.stopped is not None or self.round_no > self.round_limit

    def stop(self, reason: str) -> None:
        """End the game between rounds (the play's deadlock end); its score stands."""
        if self.acted:
            raise ValueError(f"stop the game between rounds: {len(self.acted)} agent(s) acted in round {self.round_no}")
        self.stopped = reason

    @property
    def rounds_used(self) -> int:
        """Rounds to completion: the round the last bomb was resolved in, else every round played."""
        return self.finished_round if self.finished_round is not None else min(self.round_no - 1, self.round_limit)

    def valid_rate(self) -> float:
        """Valid replies over all replies, for the whole team."""
        return Validity(sum(v.replies for v in self.validity), sum(v.valid for v in self.validity)).rate

    def counts_as_valid(self, action: Action) -> bool:
        """Whether a legal action counts as a valid one (see the module doc)."""
        return self.lenient_validity or action.kind in PAPER_ACTIONS

    # ----- what an agent sees -----
    def observation(self, agent: int) -> Observation:
        self._check_agent(agent)
        room = self.rooms[agent]
        bombs = tuple(BombView(b, self.state(b),
                               len(self.remaining(b)) if self.show_phases or b in self.inspected[agent] else None,
                               self.remaining(b) if b in self.inspected[agent] else None)
                      for b in self.bombs_in(room))
        return Observation(
            agent=agent, name=self.name(agent), round_no=self.round_no, round_limit=self.round_limit,
            score=self.score, room=room, adjacent=self.layout.neighbours(room), bombs=bombs,
            teammates={self.name(a): self.rooms[a] for a in range(self.agent_count) if a != agent},
            cutters=self.layout.cutters[agent],
            messages=tuple((self.name(sender), text) for sender, text in self.inbox[agent]),
            feedback=self.feedback[agent])

    # ----- legality -----
    def problem(self, agent: int, action: Action) -> str | None:
        """The feedback refusing `action` now, or None when it is legal."""
        here = self.rooms[agent]
        if action.kind not in ACTION_KINDS:
            return INVALID
        if action.kind == "move":
            if action.room not in self.layout.room_ids:
                return NO_SUCH_ROOM.format(room=action.room, rooms=", ".join(map(str, self.layout.room_ids)))
            if action.room not in self.layout.neighbours(here):
                return NOT_ADJACENT.format(room=action.room, here=here)
            return None
        if action.kind in ("inspect", "apply"):
            if action.kind == "apply" and action.colour not in self.layout.cutters[agent]:
                return NO_SUCH_TOOL.format(colour=action.colour)
            target = self._target(agent, action)
            if isinstance(target, str):
                return target
            if action.kind == "apply" and not self.wrong_cutter_explodes:
                remaining = self.remaining(target)
                if remaining[0] != action.colour:
                    return WRONG_COLOUR.format(colour=action.colour, bomb=target, sequence=", ".join(remaining))
        return None

    def is_valid(self, agent: int, action: Action | str) -> bool:
        parsed = parse_action(action) if isinstance(action, str) else action
        return parsed is not None and self.problem(agent, parsed) is None

    def valid_actions(self, agent: int) -> list[Action]:
        """Every legal action without a message: moves, inspections and cutters on live bombs here, and waiting."""
        here = self.rooms[agent]
        actions = [Action.move(r) for r in self.layout.neighbours(here)]
        for bomb in self.live_bombs_in(here):
            actions.append(Action.inspect(bomb))
            actions += [Action.apply(c, bomb) for c in self.layout.cutters[agent]]
        actions.append(Action.wait())
        return [a for a in actions if self.problem(agent, a) is None]

    def _target(self, agent: int, action: Action) -> int | str:
        """The bomb an inspect or apply is aimed at, or the feedback saying why there is none."""
        here = self.rooms[agent]
        live = self.live_bombs_in(here)
        if action.bomb is None:
            if not live:
                return (NOTHING_TO_INSPECT if action.kind == "inspect" else NOTHING_TO_DEFUSE).format(here=here)
            if len(live) > 1:
                return (f"There are {len(live)} bombs to deal with in Room {here} (bombs "
                        f"{', '.join(map(str, live))}): name one, e.g. "
                        f"'{action.kind.capitalize()} ... Bomb {live[0]}'.")
            return live[0]
        if action.bomb not in self.bombs_in(here):
            return f"Bomb {action.bomb} is not in your current location, Room {here}."
        if action.bomb not in live:
            return f"Bomb {action.bomb} is already {self.state(action.bomb)}."
        return action.bomb

    # ----- playing -----
    def act(self, agent: int, action: Action | str) -> str:
        """Play the agent's turn of this round; returns the feedback. The round ends when every agent has acted."""
        self._check_agent(agent)
        if self.done:
            raise ValueError(f"the game is over (round {self.round_no}): start a new DefuseGame")
        if agent in self.acted:
            raise ValueError(f"{self.name(agent)} already acted in round {self.round_no}: wait for "
                             f"{', '.join(self.name(a) for a in range(self.agent_count) if a not in self.acted)}")
        parsed = parse_action(action) if isinstance(action, str) else action
        refusal = INVALID if parsed is None else self.problem(agent, parsed)
        self.validity[agent].replies += 1
        self.concerned.pop(agent, None)
        if refusal is None:
            assert parsed is not None
            if self.counts_as_valid(parsed):
                self.validity[agent].valid += 1
            if parsed.kind not in PAPER_ACTIONS:
                self.validity[agent].idle += 1
            text = self._perform(agent, parsed)
        else:
            text = refusal
        if parsed is not None and parsed.message:
            facts = mentioned_facts(parsed.message)
            self.outbox.append((agent, parsed.message, self.knowledge.snapshot(agent, facts)))
        self.feedback[agent] = text
        self.acted.add(agent)
        if len(self.acted) == self.agent_count:
            self._end_round()
        return text

    def _perform(self, agent: int, action: Action) -> str:
        here = self.rooms[agent]
        if action.kind == "move":
            assert action.room is not None
            self.rooms[agent] = action.room
            self.knowledge.observe(agent, self._room_facts(action.room), self.round_no)
            self.concerned[agent] = room_contents(action.room)
            return f"You moved to Room {action.room}."
        if action.kind == "wait":
            return "You waited."
        if action.kind == "message":
            return "Your message will reach your teammates next round."
        bomb = self._target(agent, action)
        assert isinstance(bomb, int)
        if action.kind == "inspect":
            self.inspected[agent].add(bomb)
            self.knowledge.learn_privately(agent, [bomb_sequence(bomb), bomb_state(bomb)], self.round_no)
            self.concerned[agent] = bomb_sequence(bomb)
            sequence = self.layout.bomb(bomb).sequence
            return (f"You inspected Bomb {bomb}: its sequence is {', '.join(sequence)}; remaining: "
                    f"{', '.join(self.remaining(bomb))}.")
        present = [a for a in range(self.agent_count) if self.rooms[a] == here]
        self.concerned[agent] = bomb_state(bomb)
        if action.colour != self.remaining(bomb)[0]:  # only reached when wrong cutters explode
            lost = self.remaining(bomb)
            self.exploded.add(bomb)
            self.knowledge.change([room_contents(here), bomb_state(bomb)], present, self.round_no)
            self._check_finished()
            return f"Bomb {bomb} exploded: its next phase was {lost[0]}, not {action.colour}."
        self.cut[bomb] += 1
        self.score += POINTS_PER_PHASE
        self.knowledge.change([room_contents(here), bomb_state(bomb)], present, self.round_no)
        self._check_finished()
        if self.state(bomb) == "defused":
            return f"You applied Tool {action.colour} to Bomb {bomb}. Bomb {bomb} is defused."
        return (f"You applied Tool {action.colour} to Bomb {bomb}. This bomb is active and its remaining sequence "
                f"is {', '.join(self.remaining(bomb))}.")

    def _end_round(self) -> None:
        self.acted.clear()
        self.round_no += 1
        self.inbox = [[] for _ in range(self.agent_count)]
        everyone = range(self.agent_count)
        for sender, text, told in self.outbox:
            for agent in everyone:
                if agent != sender:
                    self.inbox[agent].append((sender, text))
            self.knowledge.tell(sender, everyone, told, self.round_no)
        self.outbox.clear()

    def _check_finished(self) -> None:
        if self.finished_round is None and all(self.state(b.id) != "active" for b in self.layout.bombs):
            self.finished_round = self.round_no

    def _room_facts(self, room: int) -> list[Fact]:
        return [room_contents(room), *(bomb_state(b) for b in self.bombs_in(room))]

    def _check_agent(self, agent: int) -> None:
        if not 0 <= agent < self.agent_count:
            raise ValueError(f"agent must be 0..{self.agent_count - 1}, got {agent}")
