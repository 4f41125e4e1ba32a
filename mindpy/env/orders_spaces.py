"""The dispatcher's observation in mindpy/orders-v0, a `spaces.Dict`: what its prompt shows, as text for a language
model and as arrays.

    text         the prompt's part of this step (the kitchen's state, the last step's feedback and the problems of
                 the last reply, the recent history), as a model dispatcher reads it; the part that stays the same
                 (recipes, instructions, the demonstration) is the reset's info["system"] (Text)
    step         the game step the dispatcher decides for (0 .. the episode's steps)
    orders       the open orders, one "order ID: DISH, deadline step N" a line (Text)
    open_orders  how many orders of each of the task's dishes are open, in the task's order of dishes
    busy         1 for each cook busy with a command, in the cooks' order (MultiBinary)
    inventory    each cook's item counts by the version's item ids (cooks x items)

The action is the dispatcher's reply text: one `cook: !command(...)` line per free cook (mindpy.dispatch.reply).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..dispatch.state import DispatchState
from .spaces import CHARSET, LIST_LENGTH, MOST_HELD, clip_text, inventory_vector, vocabulary

PROMPT_LENGTH = 16384
REPLY_LENGTH = 2048  # a line per cook
MOST_ORDERS = 1000


def reply_space() -> spaces.Text:
    """The dispatcher's action: its reply."""
    return spaces.Text(REPLY_LENGTH, min_length=0, charset=CHARSET)


def observation_space(version: str, cooks: int, dishes: int, steps: int) -> spaces.Dict:
    """The dispatcher's observation (see the module's docstring)."""
    items, _ = vocabulary(version)
    return spaces.Dict({
        "text": spaces.Text(PROMPT_LENGTH, min_length=0, charset=CHARSET),
        "step": spaces.Box(0, steps, shape=(), dtype=np.int64),
        "orders": spaces.Text(LIST_LENGTH, min_length=0, charset=CHARSET),
        "open_orders": spaces.Box(0, MOST_ORDERS, shape=(dishes,), dtype=np.int32),
        "busy": spaces.MultiBinary(cooks),
        "inventory": spaces.Box(0, MOST_HELD, shape=(cooks, len(items)), dtype=np.int32),
    })


def observe(text: str, state: DispatchState, dishes: list[str], version: str) -> dict[str, Any]:
    """The observation of a step's prompt text and the state it renders."""
    orders = sorted(state.orders, key=lambda o: (o.deadline, o.id))
    return {
        "text": clip_text(text, PROMPT_LENGTH),
        "step": np.array(state.step, dtype=np.int64),
        "orders": clip_text("\n".join(f"order {o.id}: {o.dish}, deadline step {o.deadline}" for o in orders),
                            LIST_LENGTH),
        "open_orders": np.array([min(sum(1 for o in orders if o.dish == dish), MOST_ORDERS) for dish in dishes],
                                dtype=np.int32),
        "busy": np.array([1 if a.busy else 0 for a in state.agents], dtype=np.int8),
        "inventory": np.stack([inventory_vector(dict(a.inventory), version) for a in state.agents]),
    }
