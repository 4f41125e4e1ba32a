"""Commands about the building of a construction task: its blueprint, and how far the world is from it.

Until a task with a blueprint is loaded they answer that there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..world import queries as world
from .common import level, query
from .context import AgentContext

NO_BLUEPRINT = "No blueprint is loaded: there is no building to check or to describe in this task."


def _block_lookup(ctx: AgentContext) -> Callable[[int, int, int], str]:
    def block_name(x: int, y: int, z: int) -> str:
        found = world.block_at(ctx.bot, x, y, z)
        return found["name"] if found else "air"
    return block_name


def with_blueprint(answer: Callable[..., str]) -> Callable[..., str]:
    """Run `answer(ctx, blueprint, *args)` when the task has a blueprint; say there is none otherwise."""
    def run(ctx: AgentContext, *args: Any) -> str:
        blueprint = getattr(ctx.task, "blueprint", None)
        return NO_BLUEPRINT if blueprint is None else answer(ctx, blueprint, *args)
    return run


COMMANDS = (
    query("checkBlueprintLevel", "Compare one level of the blueprint with the world: which blocks are still to "
                                 "place or to remove there.", level(),
          run=with_blueprint(lambda ctx, bp, num: bp.check_level_text(num, _block_lookup(ctx)))),
    query("checkBlueprint", "Compare the whole blueprint with the world: which blocks are still to place or to "
                            "remove.",
          run=with_blueprint(lambda ctx, bp: bp.check_text(_block_lookup(ctx)))),
    query("getBlueprint", "Show the blueprint of the building: where it stands, its size and materials, level by "
                          "level.",
          run=with_blueprint(lambda ctx, bp: bp.describe_text())),
    query("getBlueprintLevel", "Show one level of the blueprint: which block goes at which position.", level(),
          run=with_blueprint(lambda ctx, bp, num: bp.level_text(num))),
)
