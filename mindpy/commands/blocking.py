"""Blocked commands: per profile (`blocked_actions` in settings or a profile) and per agent of a task.

Names may be written with or without "!". `!stop`, `!stats`, `!inventory` and `!goal` can never be blocked: a
request to block one is dropped with a warning, and the command stays available. The one exception is a profile's
own choice (`may_block`, the factory passes the profile's `blocked_actions`): a profile whose prompt shows the state
another way (CoBlock's XML state) may block `!stats`, `!inventory` and `!goal`; `!stop` stays available always.
Unknown names are dropped with a warning too (task files written for MINDcraft may name commands mindpy does not have).

    blocked, warnings = blocked_commands(registry, settings.blocked_actions, task.blocked_actions_for(i))
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from .catalog import UNBLOCKABLE
from .registry import CommandRegistry

log = logging.getLogger(__name__)


ALWAYS_AVAILABLE = frozenset({"stop"})  # not even a profile may block it: a player must be able to stop a bot


def blocked_commands(registry: CommandRegistry | None, *sources: Iterable[str] | None,
                     may_block: Iterable[str] = ()) -> tuple[frozenset[str], list[str]]:
    """The union of the names in `sources`, as command names without "!", and the warnings about the rest.
    Names in `may_block` may be blocked even when they are otherwise unblockable (but `!stop`)."""
    allowed = {str(n).strip().lstrip("!") for n in may_block} - ALWAYS_AVAILABLE
    blocked: set[str] = set()
    warnings: list[str] = []
    for source in sources:
        for raw in source or ():
            name = str(raw).strip().lstrip("!")
            if not name:
                continue
            if registry is not None:
                command = registry.get(name)
                if command is None:
                    warnings.append(f"cannot block !{name}: there is no such command (ignored)")
                    continue
                name = command.name
            if name in UNBLOCKABLE and name not in allowed:
                warnings.append(f"!{name} cannot be blocked: it stays available")
                continue
            blocked.add(name)
    for warning in warnings:
        log.warning(warning)
    return frozenset(blocked), warnings


def available(registry: CommandRegistry, blocked: Iterable[str] = ()) -> list:
    """The commands of `registry` that are not blocked, in declaration order (`blocked` as blocked_commands
    gave it: an unblockable name in it was blocked on purpose)."""
    names = {b.lstrip("!") for b in blocked} - ALWAYS_AVAILABLE
    return [c for c in registry if c.name not in names]
