"""The `oracle` chat model: plays MineCollab tasks from the prompt alone, without a language model.

    model = create_model("oracle")       # or {"api": "oracle", "model": "oracle"}
    model.send(messages, system).text    # e.g. 'Crafting 4 oak_planks. !craftRecipe("oak_planks", 1)'

Deterministic: the same prompts in the same order give the same replies. Use one instance per agent.

Defuse prompts (mindpy.tasks.families.defuse.play: the goal names a "bomb disposal team") are played by the
coordinating defuse team's agent (mindpy.oracle.defuse), which reads the map and everyone's cutters from the goal
and its observation from the last message, and answers in the defuse commands (mindpy.commands.defuse). Asked
for a belief state (in any family), it writes back the observation; asked a theory-of-mind probe, it says it
cannot say.
"""

from __future__ import annotations

import re
import threading

from ..commands.defuse import BELIEF_REQUEST, command_text
from ..models.base import ChatModel, Usage
from ..models.tokens import count_messages, count_tokens
from ..tasks.families.defuse.game import BombView, Observation, parse_action
from ..tasks.families.defuse.layout import AGENT_NAMES, Layout, Room
from ..tasks.families.defuse.tom_probes import PROBE_MARK
from .defuse import OracleAgent
from .player import Player
from .prompt import read_prompt


class OracleModel(ChatModel):
    """A chat model that plays the task from the prompt with a scripted player (see the module doc)."""

    api = "oracle"

    def __init__(self, model: str = "oracle", version: str | None = None):
        super().__init__(model or "oracle")
        self.player = Player(version)
        self.defuse: OracleAgent | None = None  # made at the first defuse prompt
        self.calls: list[dict] = []  # {"system", "messages", "reply"}: what it was asked and answered
        self._play_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec) -> OracleModel:
        return cls(spec.model, version=(spec.params or {}).get("version"))

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        with self._play_lock:
            if messages and str(messages[-1]["content"]).startswith(BELIEF_REQUEST):
                # its belief is what it was just shown (a profile's belief_state; defuse's too): it decides on that
                reply = str(messages[-1]["content"]).split("New observation:", 1)[-1].strip()
            elif DEFUSE_TEAM in str(system) and messages:
                reply = self._defuse_reply(str(system), str(messages[-1]["content"]))
            else:
                reply = self.player.reply(read_prompt(unfold_belief(messages), system))
            self.calls.append({"system": str(system), "messages": [dict(m) for m in messages], "reply": reply})
        usage = Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                      estimated=True)
        return reply, usage

    def _defuse_reply(self, system: str, observation: str) -> str:
        if PROBE_MARK in observation:  # a side question: the scripted team keeps no account of who knows what
            return "I cannot say."
        if self.defuse is None:
            index, layout = read_defuse_goal(system)
            self.defuse = OracleAgent(index, layout)
        action = parse_action(self.defuse.reply(read_observation(observation, self.defuse.index)))
        return command_text(action) if action is not None else "!wait"


_BELIEF_TURN = re.compile(r"^Your belief state:\n.*?\n\nLatest:\n(?P<latest>.*)$", re.S)
_OWN_LINE = re.compile(r"^\w+ \(you\): ")


def unfold_belief(messages: list[dict]) -> list[dict]:
    """The messages with a belief turn (mindpy.agent.belief) turned back into the newest turns it shows, one a
    line: the scripted player reads turns, not beliefs."""
    out = []
    for m in messages:
        match = _BELIEF_TURN.match(str(m.get("content", ""))) if m.get("role") == "user" else None
        if match is None:
            out.append(m)
            continue
        for line in match.group("latest").splitlines():
            if _OWN_LINE.match(line):
                out.append({"role": "assistant", "content": _OWN_LINE.sub("", line)})
            elif line.startswith("System: "):
                out.append({"role": "system", "content": line[len("System: "):]})
            elif line.strip():
                out.append({"role": "user", "content": line})
    return out


# ----- defuse: the goal and the observation, read back from their texts (mindpy.tasks.families.defuse) -----
DEFUSE_TEAM = "of a bomb disposal team"
_PLAYER = re.compile(r"You are Player (\w+) " + DEFUSE_TEAM)
_LINKS = re.compile(r"Room (\d+) connects to ([\d, and]+)")
_HOLDS = re.compile(r"(\w+) has (\w+) and (\w+)")
_ROUND = re.compile(r"^Round (\d+) of (\d+)\. Total team score: (\d+)\.", re.M)
_RESULT = re.compile(r"^Result of your last action: (.*)$", re.M)
_HERE = re.compile(r"^You are Player (\w+), in Room (\d+);", re.M)
_BOMB = re.compile(r"^Bomb (\d+) is here, (?:(defused|exploded)\.|active, (\d+) phase\(s\) left|"
                   r"active; remaining sequence: ([a-z, ]+)\.)", re.M)
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
                           int(m.group(3)) if m.group(3) else len(_colours(m.group(4) or "")),
                           _colours(m.group(4)) if m.group(4) else None) for m in _BOMB.finditer(text))
    teammates = next((line for line in text.splitlines() if line.startswith("Teammates:")), "")
    return Observation(
        agent=agent, name=here.group(1), round_no=int(head.group(1)), round_limit=int(head.group(2)),
        score=int(head.group(3)), room=int(here.group(2)), adjacent=(), bombs=bombs,
        teammates={name: int(room) for name, room in _MATE.findall(teammates)}, cutters=_colours(cutters.group(1)),
        messages=tuple(_MAIL.findall(text)), feedback=result.group(1) if result else "")


def _colours(text: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in text.split(",") if c.strip())
