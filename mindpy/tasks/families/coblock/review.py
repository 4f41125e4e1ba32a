"""The reflection program of a CoBlock task (paper seed 000, step 3): after each round, compare the structure built
so far with one agent's private goal, and word the errors for it.

    lines = review(task, 0, built_blocks(bot, task), own=record.placed_by("andy"))
    text = review_text(lines)                           # the message for agent 0, with the reflection question

The paper's program (the default) says "whether the built structure is exactly a partial structure of the goal",
from the agent's side: what stands in the cells of its goal, and the blocks it placed itself (`own`, from the team's
public record), must fit its goal. It reports, bottom up:
- wrong block in one of my goal's cells ("block at (3, -59, 0) is red_wool, your goal says blue_wool");
- a block I placed outside my goal ("red_wool at (5, -60, 0), placed by you, is not a block of your goal").
Nothing is said of the partner's cells or of the whole structure G, which are private.

With `detail` (profile option `review_detail`, ours) the review is the longer one of ours, in this order:
- wrong colour in one of my goal's cells;
- a block where G has another block, in a cell of the partner's goal: reported without naming G's block there;
- a block in a cell G leaves empty (an extra);
- a floating block: one not joined, face to face through built blocks, to the ground layer (it can happen after a
  break; the paper's gravity rule forbids it);
- a missing block of my goal that can be placed now (it is on the ground layer or beside a built block), with a
  hint to ask the partner when my inventory never had its colour.
Nothing here reads the world except `built_blocks`; `review` takes the blocks, so tests and saved worlds work too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from ....errors import MindpyError
from ....world import bulk
from ...blueprint import block_base_name
from .fields import private_goals_of
from .generator import neighbours
from .site import NoStructureError, box_cells, site_box, structure_cells

Cell = tuple[int, int, int]
MOST_REVIEW_LINES = 12   # review_text lists at most this many problems; the rest are counted

REFLECTION = ("Before your next action, reflect: your role (take the lead and give your partner tasks, or follow "
              "their plan), helping (work on your own goal, or on what your partner needs from you), and asking "
              "(tell your partner exactly what you need, and ask more firmly if they did not help).")


class ReviewError(MindpyError, ValueError):
    """The task or agent cannot be reviewed (not a coblock task, or no private goal for that agent)."""


def _at(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]}, {cell[2]})"


def goal_cells(task: Any, agent_index: int) -> dict[Cell, str]:
    """Agent `agent_index`'s private goal as {(x, y, z): block}."""
    goals = private_goals_of(task)
    if str(agent_index) not in goals:
        known = ", ".join(sorted(goals)) or "none"
        raise ReviewError(f"task {getattr(task, 'id', '?')} has no private goal for agent {agent_index} "
                          f"(goals for agents: {known})")
    return {(int(x), int(y), int(z)): block_base_name(str(b)) for x, y, z, b in goals[str(agent_index)]}


def _site(task: Any):
    try:
        return site_box(task)
    except NoStructureError as exc:
        raise ReviewError(str(exc)) from None


def ground_y(task: Any) -> int:
    """The structure's lowest layer: the bottom of its site."""
    return _site(task)[1]


def site_cells(task: Any) -> list[Cell]:
    """Every cell of the construction site, bottom up."""
    return box_cells(_site(task))


def built_blocks(bot: Any, task: Any) -> dict[Cell, str]:
    """The non-air blocks in the site as `bot` sees them (cells in chunks it has not loaded are left out)."""
    return _clean(bulk.block_map(bot, site_cells(task)))


def _clean(blocks: Mapping[Cell, str | None]) -> dict[Cell, str]:
    return {(int(x), int(y), int(z)): block_base_name(name) for (x, y, z), name in blocks.items()
            if name is not None and block_base_name(name) != "air"}


def _grounded(built: Iterable[Cell], ground: int) -> set[Cell]:
    """The built cells joined face to face, through built cells, to one on the ground layer."""
    todo = set(built)
    reached = {c for c in todo if c[1] == ground}
    queue = deque(reached)
    while queue:
        for n in neighbours(queue.popleft()):
            if n in todo and n not in reached:
                reached.add(n)
                queue.append(n)
    return reached


def _supported(cell: Cell, built: Mapping[Cell, str], ground: int) -> bool:
    return cell[1] == ground or any(n in built for n in neighbours(cell))


def review(task: Any, agent_index: int, blocks: Mapping[Cell, str | None], own: Mapping[Cell, str] | None = None,
           detail: bool = False) -> list[str]:
    """The problems of the built structure from agent `agent_index`'s side, one sentence each ([] when none).
    `blocks`: {(x, y, z): block name} of the site; air and None (not seen) count as empty. `own`: the blocks the
    agent placed itself (the public record's; None: unknown). `detail`: our longer review (see the module doc)."""
    if detail:
        return detailed_review(task, agent_index, blocks)
    mine = goal_cells(task, agent_index)
    built = _clean(blocks)
    wrong, extra = [], []
    for cell in sorted(built, key=lambda c: (c[1], c[0], c[2])):
        name = built[cell]
        if cell in mine and name != mine[cell]:
            wrong.append(f"block at {_at(cell)} is {name}, your goal says {mine[cell]}: break it and place "
                         f"{mine[cell]}.")
        elif cell not in mine and own is not None and cell in own and own[cell] == name:
            extra.append(f"{name} at {_at(cell)}, placed by you, is not a block of your goal: break it unless "
                         f"your partner asked you for it.")
    return wrong + extra


def detailed_review(task: Any, agent_index: int, blocks: Mapping[Cell, str | None]) -> list[str]:
    """Our longer review (profile option `review_detail`): see the module doc."""
    mine = goal_cells(task, agent_index)
    target = structure_cells(task)
    ground = ground_y(task)
    built = _clean(blocks)
    order = sorted(built, key=lambda c: (c[1], c[0], c[2]))
    wrong, foreign, extra = [], [], []
    for cell in order:
        name = built[cell]
        if cell in mine:
            if name != mine[cell]:
                wrong.append(f"block at {_at(cell)} is {name}, your goal says {mine[cell]}: break it and place "
                             f"{mine[cell]}.")
        elif cell not in target:
            extra.append(f"block at {_at(cell)} is {name}, but the structure has no block there: break it.")
        elif name != target[cell]:
            foreign.append(f"block at {_at(cell)} is {name}, but the structure needs another block there (a cell "
                           f"of your partner's part): tell your partner.")
    grounded = _grounded(built, ground)
    floating = [f"block at {_at(cell)} ({built[cell]}) floats: nothing joins it to the ground." for cell in order
                if cell not in grounded]
    held = set(task.inventory_for(agent_index)) if hasattr(task, "inventory_for") else set()
    missing = []
    for cell in sorted(mine, key=lambda c: (c[1], c[0], c[2])):
        if cell in built or not _supported(cell, built, ground):
            continue
        block = mine[cell]
        hint = "" if block in held else f" You were given no {block}: ask your partner to place it."
        missing.append(f"missing {block} at {_at(cell)} of your goal: it can be placed now.{hint}")
    return wrong + foreign + extra + floating + missing


def review_text(lines: list[str], limit: int = MOST_REVIEW_LINES, reflect: bool = True, detail: bool = False) -> str:
    """The review as the message the agent gets after a round: the problems (at most `limit`, the rest
    counted), or that nothing is wrong; then (with `reflect`) the reflection question on roles, helping and
    asking. `detail`: the wording of our longer review."""
    tail = "\n" + REFLECTION if reflect else ""
    if not lines:
        if detail:
            return ("Review of the structure after this round: nothing wrong. Every block built so far fits the "
                    "structure, and no block of your goal can be placed right now." + tail)
        return ("Review of the structure after this round: nothing wrong. The structure built so far is a partial "
                "structure of your goal: every block in your goal's cells is right, and every block you placed is "
                "one of your goal." + tail)
    shown = [f"- {line}" for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"- ...and {len(lines) - limit} more.")
    head = ("Review of the structure after this round (a program compared it with your goal and the structure):"
            if detail else "Review of the structure after this round: the structure built so far is not a partial "
                           "structure of your goal (a program compared it with your goal):")
    return head + "\n" + "\n".join(shown) + tail


__all__ = ["REFLECTION", "ReviewError", "built_blocks", "detailed_review", "goal_cells", "review", "review_text",
           "site_cells", "structure_cells"]
