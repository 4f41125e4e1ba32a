"""Prompt parts of the CoBlock agent method (paper seed 000, section 3 and appendix B): the rules the profile options
`partner_modelling` and `reflection` add ($METHOD), the agent's last modelling notes ($MODELLING) and the structure
built so far in the construction site ($STRUCTURE).

The modelling fields and their order are the paper's: Partner Modelling (long-term goal, short-term goal, partner
inventory, explanation), then Self Modelling (the same, with my inventory). The lines start with "#" so that
mindpy.agent.modelling can split them from what is said or run.
"""

from __future__ import annotations

import logging
from typing import Any

from ..tasks.families.coblock.review import built_blocks
from ..tasks.family import command_sets_of

log = logging.getLogger(__name__)

MOST_STRUCTURE_LINES = 60  # blocks listed in $STRUCTURE; the rest are counted

MODELLING_RULES = """\
Before your action, write what you think of your partner and of yourself, every line starting with "#", in this order:
# Partner Modelling
# Long-term goal: what your partner must build in the end (or Unknown)
# Short-term goal: what your partner does now or next, and whether they did what you agreed
# Partner inventory: the blocks they hold as far as you know, e.g. [red_wool: 3, blue_wool: unknown]
# Explanation: what you based this on
# Self Modelling
# Long-term goal: ...
# Short-term goal: ...
# My inventory: ...
# Explanation: ...
Then write your message or command on a line without "#". Only lines without "#" are said or run; your last notes \
are shown to you next time, so update them."""

REFLECTION_RULES = """\
After each round you get a review of the structure: a program compares the blocks built so far with your goal and \
with the whole structure and lists wrong, extra, floating and missing blocks. Read it before you act: fix your own \
mistakes first (break the wrong block, then place the right one). Then reflect on your role (lead and give your \
partner tasks, or follow their plan), on helping (your own goal, or what your partner needs) and on asking (tell \
your partner exactly what you need, and ask more firmly if they did not help)."""


def method_text(partner_modelling: bool, reflection: bool) -> str:
    """The rules of the options that are on ("" when none is)."""
    parts = [MODELLING_RULES if partner_modelling else "", REFLECTION_RULES if reflection else ""]
    return "\n\n".join(p for p in parts if p)


def modelling_text(notes: Any) -> str:
    """The agent's last modelling sections for the state (saying there are none yet before the first)."""
    text = str(notes or "").strip()
    return f"Your notes from your last turn:\n{text}" if text else "Your notes from your last turn: none yet."


def structure_lines(blocks: dict[tuple[int, int, int], str], limit: int = MOST_STRUCTURE_LINES) -> str:
    """The built blocks as "block at (x, y, z)" lines, bottom up; at most `limit`, then "...and N more"."""
    if not blocks:
        return "nothing built yet"
    cells = sorted(blocks, key=lambda c: (c[1], c[0], c[2]))
    lines = [f"{blocks[c]} at ({c[0]}, {c[1]}, {c[2]})" for c in cells[:limit]]
    if len(cells) > limit:
        lines.append(f"...and {len(cells) - limit} more")
    return "\n".join(lines)


def structure_text(agent: Any) -> str:
    """The structure built so far in the agent's coblock task, read through its bot ("" outside a coblock task,
    or when the world cannot be read: a failed read must not stop the prompt)."""
    task = getattr(agent, "task", None)
    bot = getattr(agent, "bot", None)
    if "coblock" not in command_sets_of(task) or bot is None:
        return ""
    try:
        return structure_lines(built_blocks(bot, task))
    except Exception as exc:
        log.debug("reading the structure for the prompt failed: %s", exc)
        return ""
