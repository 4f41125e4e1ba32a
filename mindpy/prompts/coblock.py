"""Prompt parts of the CoBlock agent (paper seed 000, section 3 and appendix B).

The paper's input (its Figure 3 and appendix B.1), every turn, in the state ($COBLOCK_STATE):
    <Input>
    <Motives><VisualMotive><Description>...</Description><block block_type="red_wool" pos="(1, -60, 2)"/>...
    <World> every block built so far, public </World>
    <Inventory><block block_type="red_wool" count="3"/>...</Inventory>
    <Dialogue><chat sender="andy" message="..."/>...</Dialogue>            the whole chat of both agents
    <ActionHistory><action agent="jill" type="place" block_type=... pos=.../>...</ActionHistory>   both agents'
    </Input>
The paper's tags are kept (Motives, VisualMotive, World, Inventory, Dialogue); its broken attribute syntax is not
(`block_type="red", pos=(0, 1, 2)` becomes `block_type="red_wool" pos="(0, -60, 2)"`), and the action history,
which its state holds but its appendix does not render, gets a tag of ours. Coordinates are the world's own (the
lowest layer is y = -60). The dialogue and action history come from the team's public record
(mindpy.tasks.families.coblock.record).

The four reasoning steps ($STEPS): 1. the state in words (always), 2. partner and self modelling (`partner_modelling`:
the paper's fields, in its order), 3. reflection on the review of the structure (`reflection`), 4. the action. The
steps are written on lines starting with "#", which mindpy.agent.modelling splits from what is said or run.
$COBLOCK_EXAMPLES are the paper-style three-round examples (profiles/coblock_cot_examples.yaml), rendered with the
same XML and without the steps the switches leave out.

For templates of other families the option texts stay as before: the rules the options `partner_modelling` and
`reflection` add ($METHOD), the agent's last modelling notes ($MODELLING) and the structure built so far as lines
($STRUCTURE).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from ..tasks.families.coblock.fields import private_goals_of
from ..tasks.families.coblock.review import built_blocks, review_text
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


# ----- the paper's XML state ---------------------------------------------------------------------------------------
Cell = tuple[int, int, int]
GoalBlock = tuple[int, int, int, str]
EXAMPLES_FILE = "coblock_cot_examples.yaml"


def _attr(text: str) -> str:
    return '"' + escape(str(text), {'"': "&quot;", "\n": " "}) + '"'


def _pos(cell: Sequence[int]) -> str:
    return f'"({int(cell[0])}, {int(cell[1])}, {int(cell[2])})"'


def block_tag(cell: Sequence[int], block: str) -> str:
    """<block block_type="red_wool" pos="(1, -60, 2)"/>"""
    return f"<block block_type={_attr(block)} pos={_pos(cell)}/>"


def _bottom_up(blocks: Mapping[Cell, str]) -> list[Cell]:
    return sorted(blocks, key=lambda c: (c[1], c[0], c[2]))


def motives_xml(goal: Sequence[GoalBlock]) -> str:
    """<Motives>: the agent's goal as a visual motive (its blocks, as the task lists them)."""
    lines = ["<Motives>", "<VisualMotive>",
             f"<Description>Your part of the structure: {len(goal)} blocks. Your partner builds the rest."
             f"</Description>" if goal else "<Description>You have no part of your own: help your partner."
                                             "</Description>"]
    lines += [block_tag((x, y, z), block) for x, y, z, block in goal]
    return "\n".join([*lines, "</VisualMotive>", "</Motives>"])


def world_xml(built: Mapping[Cell, str] | None) -> str:
    """<World>: every block built so far in the site, bottom up (None: the world could not be read)."""
    if built is None:
        return "<World>\n(the world could not be read this time)\n</World>"
    return "\n".join(["<World>", *(block_tag(c, built[c]) for c in _bottom_up(built)), "</World>"])


def inventory_xml(inventory: Mapping[str, int]) -> str:
    """<Inventory>: the blocks the agent holds, with their counts."""
    held = sorted((name, n) for name, n in inventory.items() if n > 0)
    return "\n".join(["<Inventory>", *(f"<block block_type={_attr(name)} count=\"{n}\"/>" for name, n in held),
                      "</Inventory>"])


def dialogue_xml(dialogue: Iterable[tuple[str, str]]) -> str:
    """<Dialogue>: every message of both agents so far, in order."""
    return "\n".join(["<Dialogue>", *(f"<chat sender={_attr(who)} message={_attr(text)}/>" for who, text in dialogue),
                      "</Dialogue>"])


def action_tag(agent: str, kind: str, cell: Sequence[int] | None = None, block: str = "") -> str:
    """<action agent="jill" type="place" block_type="red_wool" pos="(1, -60, 2)"/> (no block or pos for a wait)"""
    parts = [f"agent={_attr(agent)}", f"type={_attr(kind)}"]
    if block:
        parts.append(f"block_type={_attr(block)}")
    if cell is not None:
        parts.append(f"pos={_pos(cell)}")
    return f"<action {' '.join(parts)}/>"


def actions_xml(actions: Iterable[Any]) -> str:
    """<ActionHistory>: every place, break, wait and end of both agents so far, in order (Move objects of the
    public record, or (agent, kind, cell, block) tuples)."""
    lines = ["<ActionHistory>"]
    for a in actions:
        agent, kind, cell, block = (a.agent, a.kind, a.cell, a.block) if hasattr(a, "kind") else a
        lines.append(action_tag(agent, kind, cell, block))
    return "\n".join([*lines, "</ActionHistory>"])


def state_xml(goal: Sequence[GoalBlock], built: Mapping[Cell, str] | None, inventory: Mapping[str, int],
              dialogue: Iterable[tuple[str, str]], actions: Iterable[Any]) -> str:
    """The whole <Input> of one turn."""
    return "\n".join(["<Input>", motives_xml(goal), world_xml(built), inventory_xml(inventory),
                      dialogue_xml(dialogue), actions_xml(actions), "</Input>"])


def _goal_of(agent: Any, task: Any) -> list[GoalBlock]:
    index = getattr(getattr(agent, "context", None), "agent_index", None)
    if index is None:
        return []
    return [(int(x), int(y), int(z), str(b)) for x, y, z, b in private_goals_of(task).get(str(index), [])]


def coblock_state(agent: Any) -> str:
    """The agent's XML state in its coblock task, read through its bot and the team's public record ("" outside a
    coblock task). A world that cannot be read is said so; the rest is shown all the same."""
    task = getattr(agent, "task", None)
    if "coblock" not in command_sets_of(task):
        return ""
    bot = getattr(agent, "bot", None)
    built: dict[Cell, str] | None = None
    inventory: dict[str, int] = {}
    if bot is not None:
        try:
            built = built_blocks(bot, task)
        except Exception as exc:
            log.debug("reading the structure for the prompt failed: %s", exc)
        try:
            inventory = dict(bot.inventory())
        except Exception as exc:
            log.debug("reading the inventory for the prompt failed: %s", exc)
    record = getattr(agent, "public_record", None)
    dialogue = record.dialogue() if record is not None else []
    actions = record.actions() if record is not None else []
    return state_xml(_goal_of(agent, task), built, inventory, dialogue, actions)


def partners_text(agent: Any) -> str:
    """"Your partner is jill." from the team's public record (else the bots on the agent's bus); "" when unknown."""
    name = getattr(agent, "name", "")
    record = getattr(agent, "public_record", None)
    names = list(getattr(record, "players", []) or [])
    if not names:
        bus = getattr(getattr(agent, "conversations", None), "bus", None)
        try:
            names = list(bus.names()) if bus is not None else []
        except Exception:
            names = []
    others = [n for n in names if n != name]
    if not others:
        return ""
    return f"Your partner is {others[0]}." if len(others) == 1 else f"Your partners are {', '.join(others)}."


# ----- the four reasoning steps -------------------------------------------------------------------------------------
STEP_STATE = ("the state: in a few lines, what is built (<World>), which blocks of your goal (<Motives>) are "
              "still missing or wrong, what you hold (<Inventory>), and what your partner said and did "
              "(<Dialogue>, <ActionHistory>).")
STEP_MODELLING = """partner modelling: your model of your partner and of yourself, in this order:
# Partner Modelling
# Long-term goal: what your partner must build in the end (or Unknown)
# Short-term goal: what your partner does now or next, and whether they did what you agreed
# Partner inventory: the blocks they hold as far as you know, e.g. [red_wool: 3, blue_wool: unknown]
# Explanation: what you based this on
# Self Modelling
# Long-term goal: ...
# Short-term goal: ...
# My inventory: ...
# Explanation: ..."""
STEP_REFLECTION = ("reflection: after each round a program compares the structure built so far with your goal and "
                   "tells you whether it is still a part of your goal (a system message, \"Review of the "
                   "structure\"). Name the errors to fix (yours first: break the wrong block, then place the right "
                   "one), and reflect on your role (lead and give your partner tasks, or follow their plan), on "
                   "helping (your own goal, or what your partner needs) and on asking (tell your partner exactly "
                   "what you need, and ask more firmly if they did not help).")
STEP_ACTION = """the action: one line without "#", exactly one of
- place a block you hold: !placeBlock("red_wool", x, y, z), on the lowest layer (y = -60) or against another block;
- break a block: !breakBlock(x, y, z); it is lost for good;
- send a message to your partner: plain words (to open the chat, once: !startConversation("name", "message"));
- wait: !wait in round mode (outside it, !stay(seconds));
- end the task: !endTask, once the whole structure is built."""


def steps_text(partner_modelling: bool, reflection: bool) -> str:
    """The chain of thought the agent writes before each action: step 1 always, modelling and reflection when
    their switches are on, the action last; numbered in order."""
    steps = [STEP_STATE, STEP_MODELLING if partner_modelling else "", STEP_REFLECTION if reflection else "",
             STEP_ACTION]
    steps = [s for s in steps if s]
    head = ("How to answer: think first, in lines that start with \"#\" (your notes: never said, never run), "
            "step by step; then write your action on the last line.")
    lines = [head] + [f"{'' if n == len(steps) else '# '}Step {n}, {step}" for n, step in enumerate(steps, 1)]
    if partner_modelling:
        lines.append("Your notes of your last turn are shown to you next time: update them.")
    return "\n".join(lines)


# ----- the paper-style examples ------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def load_cot_examples(path: str | None = None) -> tuple[dict, ...]:
    """The three-round examples (profiles/coblock_cot_examples.yaml unless `path`)."""
    import yaml

    from ..profiles import PROFILES_DIR

    file = path or str(PROFILES_DIR / EXAMPLES_FILE)
    with open(file, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    if not isinstance(data, list):
        raise ValueError(f"{file}: expected a list of examples")
    return tuple(data)


def _cells(rows: Iterable[Sequence[Any]]) -> dict[Cell, str]:
    return {(int(r[0]), int(r[1]), int(r[2])): str(r[3]) for r in rows}


def _action_row(row: Sequence[Any]) -> tuple[str, str, Cell | None, str]:
    agent, kind, *rest = row
    if kind in ("place", "break"):
        return str(agent), str(kind), (int(rest[0]), int(rest[1]), int(rest[2])), str(rest[3])
    return str(agent), str(kind), None, ""


def _line(item: Any) -> str:
    """A modelling line of an example file ("Long-term goal: x", which YAML may read as {"Long-term goal": "x"})."""
    if isinstance(item, Mapping):
        return "; ".join(f"{k}: {v}" for k, v in item.items())
    return str(item)


def example_round(example: Mapping[str, Any], rnd: Mapping[str, Any], partner_modelling: bool,
                  reflection: bool) -> str:
    """One round of an example: its input, then the expected output, with only the steps that are on."""
    goal = [(int(x), int(y), int(z), str(b)) for x, y, z, b in example["goal"]]
    text = ["Input:", state_xml(goal, _cells(rnd.get("world", [])), rnd.get("inventory", {}),
                                [(str(w), str(t)) for w, t in rnd.get("dialogue", [])],
                                [_action_row(a) for a in rnd.get("actions", [])])]
    if reflection and "review" in rnd:
        text.append(review_text([str(line) for line in rnd["review"]], reflect=False))
    steps = [f"# Step 1: {rnd['state']}"]
    if partner_modelling:
        steps += ["# Partner Modelling", *(f"# {_line(line)}" for line in rnd.get("partner", [])),
                  "# Self Modelling", *(f"# {_line(line)}" for line in rnd.get("self", []))]
    if reflection and rnd.get("reflection"):
        steps.append(f"# Reflection: {rnd['reflection']}")
    text += ["Output:", *steps, str(rnd["action"])]
    return "\n".join(text)


def cot_examples_text(partner_modelling: bool, reflection: bool, examples: Sequence[Mapping[str, Any]] | None = None,
                      ) -> str:
    """Every example, every round, after a title; "" when there are none."""
    examples = load_cot_examples() if examples is None else examples
    if not examples:
        return ""
    parts = ["Examples (you are the first player named in each; three rounds each, one per task type):"]
    for n, example in enumerate(examples, 1):
        for r, rnd in enumerate(example["rounds"], 1):
            parts.append(f"=== Example {n} ({example.get('type', '')}; you are {example.get('me', '')}, your "
                         f"partner is {example.get('partner', '')}), round {r} ===\n"
                         + example_round(example, rnd, partner_modelling, reflection))
    return "\n\n".join(parts)
