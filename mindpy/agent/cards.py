"""What a dashboard card shows of one agent, and the map around the agents, as plain data (JSON-ready).

The dashboard (mindpy.ui) reads the agents of its own process with these; a worker process of a multi-process run
reads its agents with the same functions and sends the cards to the run's process (mindpy.agent.remote).

A card: model, position, health and hunger, held item, inventory, current action, the modes that are on, the
self-prompt goal, conversation partners, the latest events (messages heard and said, commands and their outputs)
and the tokens and dollars all the agent's model calls (its own, code and vision models) cost so far.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ..errors import MindpyError
from ..models.prices import price_for
from ..world import queries
from ..world.top_down import markers, top_blocks

log = logging.getLogger(__name__)

EVENTS_SHOWN = 40      # the latest events a card lists
EVENT_TEXT_LIMIT = 600  # characters of one event's text
# The events a card lists (the agent traces more: stale replies, partner notes...)
CARD_EVENTS = ("heard", "said", "to bot", "command", "output", "refused", "command failed", "model error",
               "turn failed")


def model_name(agent: Any) -> str:
    """What model the agent plays with: `api/model` as the provider describes itself, else its class."""
    return describe(agent.model)


def describe(model: Any) -> str:
    """`api/model` as a model describes itself (what prices are looked up by), else its class."""
    try:
        return str(model.describe())
    except Exception:
        return type(model).__name__


def spend(agent: Any) -> dict:
    """Tokens (prompt, completion) and dollars of all the agent's model calls so far: its own model's (replies,
    respond-or-ignore, summaries) and its code and vision models', each at its own price (None dollars: a model
    without a known price was called)."""
    calls, prompt, completion, usd = 0, 0, 0, 0.0
    priced = True
    for model in agent.models():  # every ChatModel keeps the usage of each of its calls (wrappers share it)
        usage = [u for u in list(getattr(model, "usage_log", ())) if u is not None]
        if not usage:
            continue
        calls += len(usage)
        prompt += sum(int(getattr(u, "prompt_tokens", 0) or 0) for u in usage)
        completion += sum(int(getattr(u, "completion_tokens", 0) or 0) for u in usage)
        price = price_for(describe(model))
        if price is None:
            priced = False
        else:
            usd += sum(price.cost(u) for u in usage)
    return {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion,
            "usd": round(usd, 6) if priced else None}


def partners(agent: Any) -> list[dict]:
    """The bots the agent is in conversation with, the active one first."""
    conversations = getattr(agent, "conversations", None)
    if conversations is None:
        return []
    active = conversations.partner
    names = [n for n in conversations.bus.names() if n != agent.name and conversations.in_conversation(n)]
    return [{"name": n, "active": n == active} for n in sorted(names, key=lambda n: n != active)]


def recent_events(agent: Any, limit: int = EVENTS_SHOWN) -> list[dict]:
    """The agent's latest card events, oldest first: {t (epoch seconds), kind, text}."""
    shown = [e for e in list(agent.events)[-limit * 3:] if e[1] in CARD_EVENTS][-limit:]
    return [{"t": round(t, 2), "kind": kind, "text": text if len(text) <= EVENT_TEXT_LIMIT
             else text[:EVENT_TEXT_LIMIT - 3] + "..."} for t, kind, text in shown]


def agent_snapshot(agent: Any, world: tuple[dict | None, str | None] | None = None) -> dict:
    """One card's data. `world`: the bot's part as world_snapshot read it (read now when not given)."""
    world_part, world_error = world if world is not None else world_snapshot(agent)
    return {
        "name": agent.name,
        "model": model_name(agent),
        "action": agent.actions.current_label,
        "idle": agent.is_idle(),
        "modes": {mode.name: bool(mode.on) for mode in agent.modes.modes},
        "goal": agent.self_prompter.goal or None,
        "goal_state": agent.self_prompter.state.value,
        "partners": partners(agent),
        "events": recent_events(agent),
        "spend": spend(agent),
        "task_goal": getattr(agent, "task_goal", "") or None,
        "world": world_part,
        "world_error": world_error,
    }


def world_snapshot(agent: Any) -> tuple[dict | None, str | None]:
    """The bot's part of a card (position, health, hunger, held item, inventory; two bridge calls), or None and
    why when the bot does not answer (joining, restarting, closed)."""
    try:
        stats = queries.stats(agent.bot)
        inventory = queries.inventory(agent.bot)
        return {"position": stats["position"], "health": stats["health"], "hunger": stats["hunger"],
                "held": stats["heldItem"], "gamemode": stats["gamemode"],
                "inventory": dict(sorted(inventory["items"].items())),
                "equipment": {k: v for k, v in inventory.get("equipment", {}).items() if v}}, None
    except (MindpyError, KeyError, TypeError) as exc:
        return None, str(exc)[:200]
    except Exception as exc:  # a bot closed under us (restart): the next read sees the new one
        return None, f"{type(exc).__name__}: {str(exc)[:200]}"


def map_snapshot(agents: dict[str, Any], radius: int, centre: str | None = None,
                 elsewhere: dict[str, tuple[float, float, float]] | None = None,
                 read_elsewhere: Any = None) -> dict:
    """The top blocks and the entities around the agents: centred on agent `centre`, or on the middle of all of
    them, read through the agent nearest that point (the map shows what its bot has loaded).

    `elsewhere`: the positions of agents of other processes (a multi-process run); when one of them is the
    nearest, `read_elsewhere(name, x, z, radius)` reads the map through its bot (map_around in its process)."""
    positions: dict[str, tuple[float, float, float]] = {}
    for name, agent in agents.items():
        try:
            positions[name] = agent.bot.position
        except Exception as exc:  # joining or closing: left off the map this time
            log.info("position of %s: %s", name, exc)
    remote = {n: p for n, p in (elsewhere or {}).items() if n not in positions}
    everyone = {**positions, **remote}
    if not everyone:
        raise MindpyError("no agent's position could be read")
    if centre in everyone:
        x, _, z = everyone[centre]
    else:
        x = sum(p[0] for p in everyone.values()) / len(everyone)
        z = sum(p[2] for p in everyone.values()) / len(everyone)
    readers = everyone if read_elsewhere is not None else positions
    if not readers:
        raise MindpyError("no agent of this process could read the map")
    reader = min(readers, key=lambda n: (readers[n][0] - x) ** 2 + (readers[n][2] - z) ** 2)
    if reader in positions:
        read = map_around(agents[reader].bot, x, z, radius)
    else:
        read = read_elsewhere(reader, x, z, radius)
    seen = read["markers"]
    for name, (px, _, pz) in everyone.items():  # an agent the reader does not see (far away) still shows
        if not any(m["name"] == name for m in seen):
            seen.append({"name": name, "kind": "player", "x": round(px, 1), "z": round(pz, 1)})
    for marker in seen:
        marker["agent"] = marker["name"] in everyone
    return {**read, "markers": seen, "read_by": reader, "centre": centre}


def map_around(bot: Any, x: float, z: float, radius: int) -> dict:
    """The top blocks and the entities `bot` has loaded around (x, z)."""
    started = time.monotonic()
    blocks = top_blocks(bot, x, z, radius)
    seen = markers(bot, x, z, radius)
    return {**blocks, "markers": seen, "read_ms": round((time.monotonic() - started) * 1000, 1)}
