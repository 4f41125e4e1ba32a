"""The `random` model: the paper's random baseline team, played from the prompts like any model.

    model = create_model("random")     # or "random:7" (a seed of its own)
    model.send(messages, system).text  # e.g. '!goToRoom(3)' or '!applyTool("blue")'

Each turn it picks uniformly among the paper's n + m + 1 actions (Li et al., 2023, section 3.1: move to one of the
n rooms, inspect, apply one of the m cutters), legal or not, as oracle.random_policy does in the pure game; the
game refuses what it does not allow. The rooms are read from the goal. It answers a probe yes or no at random and
rewrites no belief (it keeps the one it has). Its draws are seeded by the spec's seed, the task, the trial and the
agent (ChatModel.set_task_context), so an evaluation's trials differ and a rerun repeats them.

It plays defuse tasks only: any other prompt is refused with a ModelError.
"""

from __future__ import annotations

import random
import re
import threading

from ....commands.defuse import BELIEF_REQUEST, command_text
from ....models.base import ChatModel, ModelError, Usage
from ....models.tokens import count_messages, count_tokens
from .oracle import DEFUSE_TEAM, action_space
from .tom_probes import PROBE_MARK

API = "random"
_ROOMS = re.compile(r"bombs hidden in \d+ rooms \(([\d, ]+)\)")


class RandomModel(ChatModel):
    """A chat model that takes a random action each turn (see the module doc)."""

    api = API

    def __init__(self, model: str = API, seed: int = 0):
        super().__init__(model or API)
        self.seed = seed
        self.rng = random.Random(f"defuse-random-model-{seed}")
        self._rng_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec) -> RandomModel:
        name = spec.model or API
        seed = name.partition(":")[2]
        if seed and not re.fullmatch(r"-?\d+", seed):
            raise ModelError(f"model {name!r}: a random model's seed is a whole number, as in random:7")
        return cls(name, int(seed or 0))

    def set_task_context(self, task_fields: dict, agent_name: str, agent_index: int | None = None) -> None:
        """Seed the draws from the task, the trial and the agent, beside the spec's own seed."""
        key = f"{self.seed}-{task_fields.get('task_id')}-{task_fields.get('trial_seed', 0)}-{agent_index}"
        self.rng = random.Random(f"defuse-random-model-{key}")

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        last = str(messages[-1]["content"]) if messages else ""
        if DEFUSE_TEAM not in str(system):
            raise ModelError("the random model plays defuse tasks only (its goal names the bomb disposal team)")
        with self._rng_lock:
            if last.startswith(BELIEF_REQUEST):
                reply = ""   # no belief of its own: the play keeps the one it had
            elif PROBE_MARK in last:
                reply = self.rng.choice(("Yes.", "No."))
            else:
                reply = command_text(self.rng.choice(action_space(_rooms(str(system)))))
        usage = Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                      estimated=True)
        return reply, usage


def _rooms(goal: str) -> list[int]:
    found = _ROOMS.search(goal)
    if found is None:
        raise ModelError("the defuse goal does not list its rooms ('... bombs hidden in 5 rooms (0, 1, 2, 3, 4)')")
    return [int(n) for n in re.findall(r"\d+", found.group(1))]


__all__ = ["API", "RandomModel"]
