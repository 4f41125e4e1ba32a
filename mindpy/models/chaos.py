"""A model that answers like a careless LLM, for hardening: `model: chaos` or `chaos:SEED` in a profile.

Each reply is drawn (from a seeded generator, so a run can be replayed) from kinds of trouble real models cause:
valid commands with extreme or wrong arguments, malformed syntax, commands meant for other agents, huge replies,
empty replies, requests to write code, chat that starts with "/" (a server command if sent as is), and now and
then a sensible command. Episodes played with it must end normally, by score or timeout: never with a dead
bridge, a hang or a traceback.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable

from .base import ChatModel, Usage
from .tokens import count_messages, count_tokens

ITEMS = ["oak_log", "oak_planks", "stick", "crafting_table", "wooden_pickaxe", "bread", "wheat", "cobblestone",
         "iron_ingot", "diamond", "air", "water", "bedrock", "not_an_item", ""]
HUGE = ["10000000000", "1e308", "-1e308", "300000000", "99999999999999999999", "-5", "0", "NaN", "inf", "-1"]


def _extreme_argument(rng: random.Random) -> str:
    return rng.choice([
        f"!stay({rng.choice(HUGE)})",
        f'!collectBlocks("{rng.choice(ITEMS)}", {rng.choice(HUGE)})',
        f'!craftRecipe("{rng.choice(ITEMS)}", {rng.choice(HUGE)})',
        f'!smeltItem("{rng.choice(ITEMS)}", {rng.choice(HUGE)})',
        f"!goToCoordinates({rng.choice(HUGE)}, {rng.choice(HUGE)}, {rng.choice(HUGE)}, {rng.choice(HUGE)})",
        f'!searchForBlock("{rng.choice(ITEMS)}", {rng.choice(["512", "1e9", "-3"])})',
        f"!digDown({rng.choice(HUGE)})",
        f"!moveAway({rng.choice(HUGE)})",
        f'!discard("{rng.choice(ITEMS)}", {rng.choice(HUGE)})',
        f'!givePlayer("{rng.choice(["nobody", "", "a" * 40])}", "{rng.choice(ITEMS)}", {rng.choice(HUGE)})',
    ])


def _malformed(rng: random.Random) -> str:
    return rng.choice([
        '!craftRecipe("oak_planks"', "!craftRecipe(oak_planks, 1, 2, 3)", "!collectBlocks()", "!!stay(1)",
        '!goToCoordinates("north", "up", 1)', "!stay(1", '!newAction("', "!(1)", "!" * 500, "!x " * 2000,
        '!craftRecipe("' + "a" * 5000 + '", 1)', "!setMode(nothing, maybe)", "!help(me)", "!inventory)))",
    ])


def _other_agents(rng: random.Random) -> str:
    name = rng.choice(["andy", "jill", "bob", "Steve", "nobody"])
    return rng.choice([
        f'!startConversation("{name}", "give me everything")', f'!endConversation("{name}")',
        f'!goToPlayer("{name}", {rng.choice(HUGE)})', f'!followPlayer("{name}", {rng.choice(HUGE)})',
        f"{name}: !stop", f"[{name}] says: !goal(\"take over\")", f'!goal("{name} must obey me")',
    ])


def _huge(rng: random.Random) -> str:
    return rng.choice(["word " * rng.randint(2000, 8000), "\n" * 3000 + "ok", "🙂" * 3000,
                       "a" * 30000 + " !inventory"])


def _code_request(rng: random.Random) -> str:
    return rng.choice([
        '!newAction("collect ten logs and craft everything you can")',
        '!newAction("read the files on this computer and print them")',
        "```python\nimport os\nos.system('rm -rf /')\n```",
    ])


def _slash_chat(rng: random.Random) -> str:
    return rng.choice(["/give @a diamond 64", "/op everyone", "   /kill @e", "/stop",
                       "Sure! " + "x" * 230 + "/give mallory diamond_block 1", "/tp @s 0 -1000 0"])


def _empty(rng: random.Random) -> str:
    return rng.choice(["", " ", "\n\n", "<think>I should do nothing</think>"])


def _sensible(rng: random.Random) -> str:
    return rng.choice(["!inventory", "!nearbyBlocks", "!stats", '!craftRecipe("oak_planks", 1)',
                       '!collectBlocks("oak_log", 1)', "Let me think about this.", "!stop", "!goal(\"craft\")"])


# (weight, kind): what a careless model does most is still to send commands, some of them broken
KINDS: list[tuple[int, Callable[[random.Random], str]]] = [
    (4, _extreme_argument), (3, _malformed), (2, _other_agents), (1, _huge), (1, _code_request),
    (2, _slash_chat), (1, _empty), (3, _sensible),
]


class ChaosModel(ChatModel):
    """A seeded careless model (see the module doc). `kinds` counts the replies of each kind drawn so far."""

    api = "chaos"

    def __init__(self, seed: int = 0):
        super().__init__(f"chaos:{seed}")
        self.rng = random.Random(seed)
        self.kinds: dict[str, int] = {}
        self._draw_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec) -> ChaosModel:
        _, _, seed_text = str(spec.model or "").strip().partition(":")  # "chaos" or "chaos:SEED"
        return cls(int(seed_text) if re.fullmatch(r"-?\d+", seed_text) else 0)

    def reply(self) -> str:
        """The next careless reply."""
        with self._draw_lock:
            kind = self.rng.choices([k for _, k in KINDS], weights=[w for w, _ in KINDS])[0]
            name = kind.__name__.lstrip("_")
            self.kinds[name] = self.kinds.get(name, 0) + 1
            return kind(self.rng)

    def _complete(self, messages: list[dict], system: str) -> tuple[str, Usage]:
        text = self.reply()
        return text, Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(text),
                           estimated=True)
