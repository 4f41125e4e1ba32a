"""The `oracle` chat model: plays MineCollab tasks from the prompt alone, without a language model.

    model = create_model("oracle")       # or {"api": "oracle", "model": "oracle"}
    model.send(messages, system).text    # e.g. 'Crafting 4 oak_planks. !craftRecipe("oak_planks", 1)'

Deterministic: the same prompts in the same order give the same replies. Use one instance per agent.
"""

from __future__ import annotations

import threading

from ..models.base import ChatModel, Usage
from ..models.tokens import count_messages, count_tokens
from .player import Player
from .prompt import read_prompt


class OracleModel(ChatModel):
    """A chat model that plays the task from the prompt with a scripted player (see the module doc)."""

    api = "oracle"

    def __init__(self, model: str = "oracle", version: str | None = None):
        super().__init__(model or "oracle")
        self.player = Player(version)
        self.calls: list[dict] = []  # {"system", "messages", "reply"}: what it was asked and answered
        self._play_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec) -> OracleModel:
        return cls(spec.model, version=(spec.params or {}).get("version"))

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        with self._play_lock:
            view = read_prompt(messages, system)
            reply = self.player.reply(view)
            self.calls.append({"system": str(system), "messages": [dict(m) for m in messages], "reply": reply})
        usage = Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                      estimated=True)
        return reply, usage
