"""One agent's observation: what it sees now, read in one call to the game (mindpy.world.queries.snapshot), as
text for a language model and as arrays (the spaces are in mindpy.env.spaces).

The text is what the agent's prompt would show a model: its goal, the messages it heard since its last step, what
its last commands answered, then the prompt's changing part (memory, stats, inventory, current action; the
prompter's `state`) and the blocks and creatures around it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..world import queries
from .spaces import LIST_LENGTH, NEARBY_RANGE, TEXT_LENGTH, blocks_vector, clip_text, inventory_vector


def messages_text(messages: list[tuple[str, str]]) -> str:
    """What the agent heard, one "sender: message" a line."""
    return "\n".join(f"{sender}: {message}" for sender, message in messages)


def observe(agent: Any, version: str, messages: list[tuple[str, str]], output: str) -> dict[str, Any]:
    """The observation of `agent` now; `messages` heard since its last step, `output` what its commands answered
    in the step."""
    seen = queries.snapshot(agent.bot, NEARBY_RANGE)
    stats, inventory = seen["stats"], seen["inventory"]
    state = agent.prompter.state(agent, extra={"STATS": queries.format_stats(stats),
                                               "INVENTORY": queries.format_inventory(inventory)})
    entities = queries.format_entities(seen["entities"])
    heard = messages_text(messages)
    parts = [f"Your task: {agent.task_goal}" if agent.task_goal else "",
             f"Messages since your last step:\n{heard}" if heard else "",
             f"Your command's output:\n{output}" if output else "",
             state, queries.format_nearby_blocks(seen["nearbyBlocks"]), entities]
    position = stats["position"]
    return {
        "text": clip_text("\n".join(part for part in parts if part), TEXT_LENGTH),
        "position": np.array([position["x"], position["y"], position["z"]], dtype=np.float64),
        "health": np.array(min(max(float(stats["health"] or 0), 0.0), 20.0), dtype=np.float32),
        "food": np.array(min(max(float(stats["hunger"] or 0), 0.0), 20.0), dtype=np.float32),
        "inventory": inventory_vector(inventory["items"], version),
        "nearby_blocks": blocks_vector(seen["nearbyBlocks"], version),
        "entities": clip_text(entities, LIST_LENGTH),
        "messages": clip_text(heard, LIST_LENGTH),
    }
