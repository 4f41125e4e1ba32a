"""Blocked commands: per profile (`blocked_actions` in settings or a profile) and per agent of a task.

Names may be written with or without "!". `!stop`, `!stats`, `!inventory` and `!goal` can never be blocked: a
request to block one is dropped with a warning, and the command stays available. Unknown names are dropped
with a warning too (task files written for MINDcraft may name commands mindpy does not have).

    blocked, warnings = blocked_commands(registry, settings.blocked_actions, task.blocked_actions_for(i))
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from .catalog import UNBLOCKABLE
from .registry import CommandRegistry

log = logging.getLogger(__name__)


def blocked_commands(registry: CommandRegistry | None,
                     *sources: Iterable[str] | None) -> tuple[frozenset[str], list[str]]:
    """The union of the names in `sources`, as command names without "!", and the warnings about the rest."""
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
            if name in UNBLOCKABLE:
                warnings.append(f"!{name} cannot be blocked: it stays available")
                continue
            blocked.add(name)
    for warning in warnings:
        log.warning(warning)
    return frozenset(blocked), warnings


def available(registry: CommandRegistry, blocked: Iterable[str] = ()) -> list:
    """The commands of `registry` that are not blocked, in declaration order."""
    names = {b.lstrip("!") for b in blocked} - UNBLOCKABLE
    return [c for c in registry if c.name not in names]
