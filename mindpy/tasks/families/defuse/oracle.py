"""Scripted teams for the pure defuse game: a coordinating team (the oracle) and a random one (the lower baseline).

    game = DefuseGame.from_task(task)
    result = play(game, oracle_team(game))          # PlayResult(score=90, rounds=8, valid_rate=0.96)
    play(DefuseGame.from_task(task), random_team(game, seed=0)).score

Each oracle agent decides from what it alone has seen: its observations (its own room, teammates' rooms, the
result of its last action) and its teammates' messages; of the task it reads only what the goal text tells every
player (the map and everyone's cutters), never the bombs. It shares everything it learns in one message a turn
("Room 3: bombs 2, 4. Bomb 2: red, blue. Bomb 4: defused."), and every agent runs the same assignment over the
jobs it knows of: cut a bomb's next phase (only holders of that colour), inspect a bomb of unknown sequence, look
into a room nobody has reported. The cheapest (agent, job) pair by hallways to walk goes first, cuts before
inspections before looking, lower agent numbers first; an agent moves one hallway towards its job, or does it
when there. Teammates' rooms are public, so the agents' assignments mostly agree even when their news lags; an
agent also says which bomb it is inspecting, so nobody inspects it again while the result is on its way. An agent
without a job goes to back up the nearest cut it could make (and waits there: a cut by another is not seen),
else waits by a bomb that may need its colours, else goes to the best connected room. Where the game shows an
uninspected bomb's phases left (show_phases), the count corrects news that a cut made stale.

`DefusePlan` is the `oracle` model's player of defuse prompts (mindpy.tasks.families.defuse.play: the goal names a
"bomb disposal team"): an OracleAgent that reads the map and everyone's cutters from the goal and its observation
from the last message, and answers in the defuse commands (mindpy.commands.defuse). Asked a theory-of-mind probe,
it says it cannot say.

`random_policy` is the paper's random baseline: it picks uniformly among the paper's n + m + 1 actions (move to
any of the n rooms, inspect, apply any of the m colours), legal or not, seeded per agent; the game refuses what
is not allowed, as for any agent (Table 1's "Random"; the paper says no more of it). `legal_only` picks among the
legal actions now instead (the game's `valid_actions`, waiting included: ours, a stronger baseline).
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ....commands.defuse import command_text
from ....oracle.plan import OraclePlan
from .deadlock import DEADLOCK, DEADLOCK_ROUNDS, RepeatWatch
from .game import Action, BombView, DefuseGame, Observation, parse_action
from .layout import AGENT_NAMES, COLOURS, Layout, Room
from .tom_probes import PROBE_MARK

if TYPE_CHECKING:
    from ....oracle.player import Player

Policy = Callable[[Observation], str]

_ROOM_NEWS = re.compile(r"Room (\d+): (no bombs|bombs? ([\d, ]+))\.")
_BOMB_NEWS = re.compile(r"Bomb (\d+): (defused|exploded|[a-z, ]+)\.")
# The game's feedback that tells a bomb's remaining colours: an inspection, a cut, a refused cutter.
_REMAINING = re.compile(r"You inspected Bomb (\d+): [^;]*; remaining: ([a-z, ]+)\.|"
                        r"to Bomb (\d+)\. This bomb is active and its remaining sequence is ([a-z, ]+)\.|"
                        r"to Bomb (\d+) because the sequence of this bomb is ([a-z, ]+)\.")
_CLAIM = re.compile(r"Inspecting bomb (\d+)\.")
_DEFUSED = re.compile(r"Bomb (\d+) (?:is defused|exploded|is already)")
JOB_ORDER = {"cut": 0, "inspect": 1, "look": 2}


@dataclass(frozen=True)
class Job:
    """Something the team has to do, as one agent sees it."""

    kind: str      # cut, inspect, look
    room: int
    bomb: int | None = None
    colour: str | None = None


@dataclass
class Beliefs:
    """What one agent holds true about bombs and rooms."""

    contents: dict[int, set[int]] = field(default_factory=dict)       # room -> bombs in it
    remaining: dict[int, tuple[str, ...]] = field(default_factory=dict)  # bomb -> colours left ((): resolved)
    news: dict[str, str] = field(default_factory=dict)                 # subject -> latest statement to share
    claimed: set[int] = field(default_factory=set)                     # bombs a teammate said it inspects

    def set_room(self, room: int, bombs: set[int]) -> None:
        """What I saw in a room; news to share when it differs from what I believed."""
        if self.contents.get(room) != bombs:
            listed = ", ".join(map(str, sorted(bombs)))
            self.news[f"room {room}"] = f"Room {room}: bombs {listed}." if bombs else f"Room {room}: no bombs."
        self.contents[room] = bombs

    def set_bomb(self, bomb: int, remaining: tuple[str, ...]) -> None:
        """What I learned of a bomb; news to share when it differs from what I believed."""
        if self.remaining.get(bomb) != remaining:
            self.news[f"bomb {bomb}"] = f"Bomb {bomb}: {', '.join(remaining) if remaining else 'defused'}."
        self.remaining[bomb] = remaining

    def read_message(self, text: str) -> None:
        """A teammate's news: believed, not shared again."""
        for m in _ROOM_NEWS.finditer(text):
            bombs = set() if m.group(2) == "no bombs" else {int(n) for n in re.findall(r"\d+", m.group(3))}
            self.contents[int(m.group(1))] = bombs
        for m in _BOMB_NEWS.finditer(text):
            word = m.group(2)
            self.remaining[int(m.group(1))] = () if word in ("defused", "exploded") else _colours(word)
        self.claimed |= {int(n) for n in _CLAIM.findall(text)}


def _colours(text: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in text.split(",") if c.strip())


class OracleAgent:
    """One agent of the coordinating team; `reply(observation)` is its turn."""

    def __init__(self, index: int, layout: Layout):
        self.index = index
        self.neighbours = {room: layout.neighbours(room) for room in layout.room_ids}
        self.rooms = layout.room_ids
        self.cutters = layout.cutters       # everyone's, as the goal text tells
        self.hub = max(self.rooms, key=lambda r: (len(self.neighbours[r]), -r))
        self.index_of = {name: i for i, name in enumerate(AGENT_NAMES[:len(self.cutters)])}
        self.beliefs = Beliefs()

    def reply(self, obs: Observation) -> str:
        self._learn(obs)
        positions = {self.index: obs.room, **{self.index_of[name]: room for name, room in obs.teammates.items()}}
        action = self._choose(obs, positions)
        self._predict(action)
        if action.kind == "inspect":  # said now, so nobody inspects it again while the result is on its way
            self.beliefs.news["intent"] = f"Inspecting bomb {action.bomb}."
        message = " ".join(self.beliefs.news.values()) or None
        self.beliefs.news.clear()
        return Action(action.kind, action.room, action.bomb, action.colour, message).text()

    # ----- learning -----
    def _learn(self, obs: Observation) -> None:
        b = self.beliefs
        for _, text in obs.messages:
            b.read_message(text)
        for m in _REMAINING.finditer(obs.feedback):
            bomb, colours = [g for g in m.groups() if g is not None]
            b.set_bomb(int(bomb), _colours(colours))
        for m in _DEFUSED.finditer(obs.feedback):
            b.set_bomb(int(m.group(1)), ())
        b.set_room(obs.room, {view.id for view in obs.bombs})
        for view in obs.bombs:
            if view.state != "active":
                b.set_bomb(view.id, ())
            elif view.remaining is not None:
                b.set_bomb(view.id, view.remaining)
            elif view.phases_left is not None and len(b.remaining.get(view.id) or ()) > view.phases_left:
                # a phase went since the news I had (seen only where the game shows phases: show_phases)
                b.set_bomb(view.id, b.remaining[view.id][-view.phases_left:])

    def _predict(self, action: Action) -> None:
        """A cut's outcome is known before the game answers: share it in this turn's message already."""
        if action.kind == "apply" and action.bomb is not None:
            left = self.beliefs.remaining.get(action.bomb, ())
            if left and left[0] == action.colour:
                self.beliefs.set_bomb(action.bomb, left[1:])

    # ----- choosing -----
    def _jobs(self, positions: dict[int, int]) -> list[Job]:
        b = self.beliefs
        jobs = []
        for room, bombs in sorted(b.contents.items()):
            for bomb in sorted(bombs):
                left = b.remaining.get(bomb)
                if left is None and bomb not in b.claimed:
                    jobs.append(Job("inspect", room, bomb))
                elif left:
                    jobs.append(Job("cut", room, bomb, left[0]))
        occupied = set(positions.values())
        jobs += [Job("look", room) for room in self.rooms if room not in b.contents and room not in occupied]
        return jobs

    def _choose(self, obs: Observation, positions: dict[int, int]) -> Action:
        pairs = []
        for job in self._jobs(positions):
            for agent, room in positions.items():
                if job.kind == "cut" and job.colour not in self.cutters[agent]:
                    continue
                pairs.append((self._distance(room, job.room), JOB_ORDER[job.kind], agent, job))
        pairs.sort(key=lambda p: (p[0], p[1], p[2], p[3].room, p[3].bomb or 0))
        busy: set[int] = set()
        taken: set[tuple[str, int | None, int]] = set()
        for _, _, agent, job in pairs:
            key = (job.kind, job.bomb, job.room)
            if agent in busy or key in taken:
                continue
            busy.add(agent)
            taken.add(key)
            if agent == self.index:
                return self._step_towards(job, obs.room)
        return self._idle(obs.room, pairs)

    def _idle(self, here: int, pairs: list[tuple[int, int, int, Job]]) -> Action:
        """No job of my own: back up the nearest cut a teammate is heading for; else stay by (or go to) a bomb
        whose sequence is on its way or may need my cutters later; else go to the best connected room."""
        backup = [job for _, _, agent, job in pairs if agent == self.index and job.kind == "cut"]
        if backup:  # there, it waits: the teammate's cut would go unseen (only an inspector sees phases go)
            return self._step_towards(backup[0], here) if backup[0].room != here else Action.wait()
        mine = set(self.cutters[self.index])
        b = self.beliefs

        def may_need_me(bomb: int) -> bool:
            left = b.remaining.get(bomb)
            return left is None or bool(mine & set(left))

        rooms = [room for room, bombs in b.contents.items() if any(may_need_me(bomb) for bomb in bombs)]
        target = min(rooms, key=lambda r: (self._distance(here, r), r)) if rooms else self.hub
        return Action.move(self._next_room(here, target)) if target != here else Action.wait()

    def _step_towards(self, job: Job, here: int) -> Action:
        if job.room != here:
            return Action.move(self._next_room(here, job.room))
        if job.kind == "cut":
            assert job.colour is not None
            return Action.apply(job.colour, job.bomb)
        if job.kind == "inspect":
            return Action.inspect(job.bomb)
        return Action.wait()

    def _distance(self, start: int, goal: int) -> int:
        return len(self._path(start, goal)) - 1

    def _next_room(self, start: int, goal: int) -> int:
        return self._path(start, goal)[1]

    def _path(self, start: int, goal: int) -> list[int]:
        """Rooms from start to goal along a shortest path (neighbours in number order: deterministic)."""
        previous: dict[int, int | None] = {start: None}
        queue = deque([start])
        while queue:
            room = queue.popleft()
            if room == goal:
                break
            for nxt in self.neighbours[room]:
                if nxt not in previous:
                    previous[nxt] = room
                    queue.append(nxt)
        path = [goal]
        while (step := previous[path[-1]]) is not None:
            path.append(step)
        return path[::-1]


def oracle_team(game: DefuseGame) -> list[Policy]:
    """One coordinating oracle agent per player of the game; they get the map without its bombs."""
    public = replace(game.layout, bombs=())
    return [OracleAgent(i, public).reply for i in range(game.agent_count)]


def action_space(rooms: Sequence[int]) -> list[Action]:
    """The paper's n + m + 1 actions: move to each room, apply each colour, inspect."""
    return [Action.move(r) for r in rooms] + [Action.apply(c) for c in COLOURS] + [Action.inspect()]


def random_policy(game: DefuseGame, agent: int, seed: int = 0, *, legal_only: bool = False) -> Policy:
    """The paper's random agent (see the module doc); the same seed, the same play. `legal_only`: among the legal
    actions now instead."""
    rng = random.Random(f"defuse-random-{seed}-{agent}")
    if legal_only:
        return lambda obs: rng.choice(game.valid_actions(agent)).text()
    space = action_space(game.layout.room_ids)
    return lambda obs: rng.choice(space).text()


def random_team(game: DefuseGame, seed: int = 0, *, legal_only: bool = False) -> list[Policy]:
    """One random agent per player (`random_policy`)."""
    return [random_policy(game, i, seed, legal_only=legal_only) for i in range(game.agent_count)]


@dataclass(frozen=True)
class PlayResult:
    """How a played game ended."""

    score: int
    rounds: int
    valid_rate: float


def play(game: DefuseGame, team: list[Policy], deadlock_rounds: int = DEADLOCK_ROUNDS) -> PlayResult:
    """Play the game to its end (or a deadlock: deadlock.py), agents in order each round; the score, rounds to
    completion and valid rate."""
    if len(team) != game.agent_count:
        raise ValueError(f"the team has {len(team)} policies for {game.agent_count} agents: give one per agent")
    watch = RepeatWatch(game.agent_count, deadlock_rounds)
    while not game.done:
        for agent, policy in enumerate(team):
            if game.done:
                break
            reply = policy(game.observation(agent))
            watch.see(agent, reply)
            game.act(agent, reply)
        if not game.done and watch.end_round():
            game.stop(DEADLOCK)
    return PlayResult(game.score, game.rounds_used, game.valid_rate())


# ----- the `oracle` model's defuse player -----
class DefusePlan(OraclePlan):
    """Defuse prompts, answered whole: one OracleAgent, made at the first prompt from the goal's map."""

    def __init__(self, player: Player):
        super().__init__(player)
        self.agent: OracleAgent | None = None

    @classmethod
    def claims(cls, system: str) -> bool:
        return DEFUSE_TEAM in system

    def answer(self, system: str, message: str) -> str:
        if PROBE_MARK in message:  # a side question: the scripted team keeps no account of who knows what
            return "I cannot say."
        if self.agent is None:
            index, layout = read_defuse_goal(system)
            self.agent = OracleAgent(index, layout)
        action = parse_action(self.agent.reply(read_observation(message, self.agent.index)))
        return command_text(action) if action is not None else "!wait"


# ----- defuse: the goal and the observation, read back from their texts (generator.py, game.py) -----
DEFUSE_TEAM = "of a bomb disposal team"
_PLAYER = re.compile(r"You are Player (\w+) " + DEFUSE_TEAM)
_LINKS = re.compile(r"Room (\d+) connects to ([\d, and]+)")
_HOLDS = re.compile(r"(\w+) has (\w+) and (\w+)")
_ROUND = re.compile(r"^Round (\d+) of (\d+)\. Total team score: (\d+)\.", re.M)
_RESULT = re.compile(r"^Result of your last action: (.*)$", re.M)
_HERE = re.compile(r"^You are Player (\w+), in Room (\d+);", re.M)
_BOMB = re.compile(r"^Bomb (\d+) is here, (?:(defused|exploded)\.|active, (?:(\d+) phase\(s\) left, )?sequence "
                   r"unknown|active; remaining sequence: ([a-z, ]+)\.)", re.M)
_MATE = re.compile(r"Player (\w+) is in Room (\d+)")
_CUTTERS = re.compile(r"^Your cutters: ([a-z, ]+)\.", re.M)
_MAIL = re.compile(r'^Message from (\w+): "(.*)"$', re.M)


def read_defuse_goal(system: str) -> tuple[int, Layout]:
    """(my agent index, the public layout: rooms, hallways and everyone's cutters, no bombs) from a defuse goal."""
    me = _PLAYER.search(system)
    map_text = system[system.index("Map:"):system.index("Cutters:")] if "Map:" in system else ""
    cutters_text = system[system.index("Cutters:"):].split(".")[0] if "Cutters:" in system else ""
    if me is None or not map_text or not cutters_text:
        raise ValueError("the defuse goal lacks the player's name, the map or the cutters: the oracle needs the "
                         "goal as mindpy.tasks.families.defuse.generator writes it")
    hallways = {tuple(sorted((int(room), int(n)))) for room, ns in _LINKS.findall(map_text)
                for n in re.findall(r"\d+", ns)}
    rooms = sorted({r for pair in hallways for r in pair})
    holds = {name: (a, b) for name, a, b in _HOLDS.findall(cutters_text)}
    names = [n for n in AGENT_NAMES if n in holds]
    layout = Layout(rooms=tuple(Room(r, (0, 0, 0, 0, 0, 0)) for r in rooms), hub=rooms[0],
                    hallways=tuple(sorted((a, b) for a, b in hallways)), doors=(), bombs=(),
                    cutters=tuple(holds[n] for n in names), start_rooms=(rooms[0],) * len(names))
    return names.index(me.group(1)), layout


def read_observation(text: str, agent: int) -> Observation:
    """The Observation whose `text()` is `text` (the lines the oracle decides on)."""
    head, here, cutters = _ROUND.search(text), _HERE.search(text), _CUTTERS.search(text)
    if head is None or here is None or cutters is None:
        raise ValueError("not a defuse observation: it needs the round line, the player's room and the cutters")
    result = _RESULT.search(text)
    bombs = tuple(BombView(int(m.group(1)), m.group(2) or "active",
                           int(m.group(3)) if m.group(3) else len(_colours(m.group(4))) if m.group(4) else None,
                           _colours(m.group(4)) if m.group(4) else None) for m in _BOMB.finditer(text))
    teammates = next((line for line in text.splitlines() if line.startswith("Teammates:")), "")
    return Observation(
        agent=agent, name=here.group(1), round_no=int(head.group(1)), round_limit=int(head.group(2)),
        score=int(head.group(3)), room=int(here.group(2)), adjacent=(), bombs=bombs,
        teammates={name: int(room) for name, room in _MATE.findall(teammates)}, cutters=_colours(cutters.group(1)),
        messages=tuple(_MAIL.findall(text)), feedback=result.group(1) if result else "")
