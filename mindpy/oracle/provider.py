"""The `oracle` chat model: plays MineCollab tasks from the prompt alone, without a language model.

    model = create_model("oracle")       # or {"api": "oracle", "model": "oracle"}
    model.send(messages, system).text    # e.g. 'Crafting 4 oak_planks. !craftRecipe("oak_planks", 1)'

Deterministic: the same prompts in the same order give the same replies. Use one instance per agent.

A family whose prompts are a game of its own (defuse: the goal names a "bomb disposal team") claims them
(`OraclePlan.claims`), and its plan answers them whole (mindpy.tasks.families.defuse.oracle); the others' prompts
are read by the player. Asked for a belief state (in any family), it writes back the observation.
"""

from __future__ import annotations

import re
import threading

from ..commands.defuse import BELIEF_REQUEST
from ..models.base import ChatModel, Usage
from ..models.tokens import count_messages, count_tokens
from .plan import OraclePlan, claiming_plan
from .player import Player
from .prompt import read_prompt


class OracleModel(ChatModel):
    """A chat model that plays the task from the prompt with a scripted player (see the module doc)."""

    api = "oracle"

    def __init__(self, model: str = "oracle", version: str | None = None):
        super().__init__(model or "oracle")
        self.player = Player(version)
        self.games: dict[type[OraclePlan], OraclePlan] = {}  # the plans answering their own games' prompts
        self.calls: list[dict] = []  # {"system", "messages", "reply"}: what it was asked and answered
        self._play_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec) -> OracleModel:
        return cls(spec.model, version=(spec.params or {}).get("version"))

    def set_task_context(self, task_fields: dict, agent_name: str, agent_index: int | None = None) -> None:
        """The task's fields: the player plans from them (targets, inventories, recipes), reading the goal's
        words only for what they leave out."""
        self.player.set_task(task_fields, agent_index)

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        with self._play_lock:
            if messages and str(messages[-1]["content"]).startswith(BELIEF_REQUEST):
                # its belief is what it was just shown (a profile's belief_state; defuse's too): it decides on that
                reply = str(messages[-1]["content"]).split("New observation:", 1)[-1].strip()
            elif messages and (game := self._game(str(system))) is not None:
                reply = game.answer(str(system), str(messages[-1]["content"]))
            else:
                reply = self.player.reply(read_prompt(unfold_belief(messages), system))
            self.calls.append({"system": str(system), "messages": [dict(m) for m in messages], "reply": reply})
        usage = Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                      estimated=True)
        return reply, usage

    def _game(self, system: str) -> OraclePlan | None:
        """The plan that answers this prompt whole (a family's game of its own), made at its first prompt."""
        plan = claiming_plan(system)
        if plan is None:
            return None
        if plan not in self.games:
            self.games[plan] = plan(self.player)
        return self.games[plan]


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

