"""What a task goal asks for: the kind of task, the target items and counts, and the task's special facts.

Goal phrasings (see mindpy/tasks/generators/):
    crafting:      "Collaborate with the other agents to craft a wooden_sword." / "Craft 2 sticks."
                   "... Nobody has the oak_log it takes: gather it nearby."
    cooking:       "Collaborate with the other agents to make baked_potato, golden_carrot and rabbit_stew. In the
                   end, one agent should hold all of the dishes.\\nRecipe for baked_potato:\\nStep 1: ..."
    Hell's Kitchen: "You must make cake, but you do not have its recipe: agent 0 has it. You hold the recipe for
                   bread, which agent 1 must make. ..."
    construction:  "Build the house of the blueprint together with the other agent, ..."
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CRAFT = re.compile(r"\bcraft (?:(\d+) |an? |the )?([a-z0-9_]+)", re.I)
_MAKE = re.compile(r"\bmake (.+?)(?:\.(?:\s|$)|\n|$)", re.I)
_MISSING = re.compile(r"Nobody has the ([a-z0-9_, ]+?) it takes", re.I)
_HELLS = re.compile(r"You must make ([a-z0-9_]+), but you do not have its recipe: agent (\d+) has it\. "
                    r"You hold the recipe for ([a-z0-9_]+), which agent (\d+) must make", re.I)
_RECIPE = re.compile(r"Recipe for ([a-z0-9_]+):\n((?:Step \d+: .*(?:\n|$))+)")
_OTHERS_SENTENCE = re.compile(r"\s*The other agents are: [^.]*\.?")


@dataclass
class TaskGoal:
    """A task goal as read from its text: the kind, the targets and the kind's special facts."""

    kind: str                                   # crafting, cooking, construction, unknown
    targets: dict[str, int] = field(default_factory=dict)
    missing_items: list[str] = field(default_factory=list)  # crafting: base items nobody holds
    hells_kitchen: bool = False
    my_index: int | None = None                 # Hell's Kitchen: my agent number, from the goal
    partner_dish: str | None = None             # Hell's Kitchen: the dish whose recipe I hold
    partner_index: int | None = None
    recipes: dict[str, list[str]] = field(default_factory=dict)  # recipe texts the goal shows

    @property
    def target_text(self) -> str:
        return ", ".join(f"{n} {item}" if n > 1 else item for item, n in self.targets.items())


def _dish_list(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in re.split(r",\s*|\s+and\s+", text):
        m = re.match(r"\s*(?:(\d+)\s+|an?\s+)?([a-z0-9_]+)\s*$", part)
        if m:
            out[m.group(2)] = int(m.group(1) or 1)
    return out


def parse_goal(goal: str) -> TaskGoal:
    """Read a task goal's text (see the module doc for the phrasings); kind "unknown" otherwise."""
    text = _OTHERS_SENTENCE.sub(" ", goal or "").strip()
    recipes = {name: [line.split(": ", 1)[1] for line in body.strip().splitlines()]
               for name, body in _RECIPE.findall(text)}
    hells = _HELLS.search(text)
    if hells:
        return TaskGoal("cooking", {hells.group(1): 1}, hells_kitchen=True, my_index=int(hells.group(4)) - 1,
                        partner_dish=hells.group(3), partner_index=int(hells.group(4)), recipes=recipes)
    first = text.split("\n")[0]
    if re.search(r"\bblueprint\b|\bbuild\b", first, re.I) and not _CRAFT.search(first):
        return TaskGoal("construction")
    craft = _CRAFT.search(first)
    if craft:
        missing = []
        m = _MISSING.search(text)
        if m:
            missing = [w.strip() for w in re.split(r",\s*|\s+and\s+", m.group(1)) if w.strip()]
        return TaskGoal("crafting", {craft.group(2): int(craft.group(1) or 1)}, missing_items=missing)
    make = _MAKE.search(first)
    if make:
        dishes = _dish_list(make.group(1))
        if dishes:
            return TaskGoal("cooking", dishes, recipes=recipes)
    return TaskGoal("unknown", recipes=recipes)
