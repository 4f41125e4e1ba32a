"""The cooking family's probe questions (mindpy.probes.build): besides any team's, whether I can make my dish
alone (the kitchen's recipes on my inventory) and, in Hell's Kitchen, who holds the recipe of my dish (the goal
names the agent) and what the teammate whose recipe I hold needs from me (that recipe, not mine, not nothing)."""

from __future__ import annotations

import random
import re

from ....oracle import cooking
from ....probes.build import FamilyQuestions, ec_alone, ec_holder, jp_next, tom_next
from ....probes.moments import Moment, make_probe
from ....probes.record import Probe

_RECIPE_HOLDER = re.compile(r"\bagent (\d+) (?:has|holds) it\b", re.IGNORECASE)
_PARTNER_HOLDS = re.compile(r"\byour partner (?:has|holds) it\b", re.IGNORECASE)  # MINDcraft's two-agent wording


def _only_teammate(moment: Moment) -> str | None:
    """The one other agent of a two-agent team ("your partner" in MINDcraft's goals), else None."""
    others = [name for name in moment.team if name != moment.me]
    return others[0] if len(others) == 1 else None


def ec_recipe_holder(moment: Moment, rng: random.Random) -> Probe | None:
    """Hell's Kitchen: who holds the recipe of my dish, as my goal says (an agent number, or "your partner")."""
    goal = moment.goal
    if not goal.hells_kitchen or len(goal.targets) != 1:
        return None
    (target, _), = goal.targets.items()
    numbered, partner = _RECIPE_HOLDER.search(moment.view.goal), _only_teammate(moment)
    if numbered is not None:
        holder = int(numbered.group(1))
        right, wrong = f"agent {holder}", [f"agent {i}" for i in range(len(moment.team)) if i != holder]
    elif partner is not None and _PARTNER_HOLDS.search(moment.view.goal):
        right, wrong = partner, [moment.me]
    else:
        return None
    return make_probe(moment, "EC", "recipe_holder", f"Who holds the recipe for {target}, the dish {moment.me} must "
                      f"make?", right, wrong, rng)


def tom_recipe_need(moment: Moment, rng: random.Random) -> Probe | None:
    """Hell's Kitchen: what the teammate whose recipe I hold needs from me to make its dish."""
    goal = moment.goal
    if not goal.hells_kitchen or goal.partner_dish is None or len(goal.targets) != 1:
        return None
    mate = f"agent {goal.partner_index}" if goal.partner_index is not None else _only_teammate(moment)
    if mate is None:
        return None
    (mine, _), = goal.targets.items()
    dish = goal.partner_dish
    return make_probe(moment, "ToM", "recipe_need", f"{mate[0].upper()}{mate[1:]} must make {dish}. What does {mate} "
                      f"need to learn from {moment.me} to make it?", f"the recipe for {dish}",
                      [f"the recipe for {mine}", f"nothing: {mate} already holds the recipe for {dish}"], rng,
                      partner=mate)


def makes_alone(target: str, n: int, inv: dict[str, int]) -> bool:
    """Can `inv` and the kitchen make `n` of the dish, without any teammate's item?"""
    return not cooking.lacking(target, n, inv)


class CookingQuestions(FamilyQuestions):
    """Cooking: a dish from my own inventory and the kitchen; Hell's Kitchen's recipes held apart."""

    def makes(self, moment: Moment) -> list[tuple[str, list]]:
        """Besides crafts, harvests of the kitchen's crops that no dish of the goal needs (every kitchen grows them
        all); none in Hell's Kitchen, where a teammate's dish, not named in my goal, may need any of them."""
        if moment.goal.hells_kitchen:
            return super().makes(moment)
        needed: set[str] = set()
        for dish, n in moment.goal.targets.items():
            needed |= set(cooking.needed(dish, n, {}))
        return [*super().makes(moment), *[("collectBlocks", [block, 1]) for item, block in
                                          sorted(cooking.HARVESTED.items()) if item not in needed]]

    def questions(self, moment: Moment, moments: list[Moment], rng: random.Random) -> list[Probe | None]:
        asked = [ec_holder(moment, rng)]
        if not moment.goal.hells_kitchen:  # there my dish's recipe is someone else's: making it alone is not asked
            asked.append(ec_alone(moment, rng, makes_alone, "make"))
        return [*asked, ec_recipe_holder(moment, rng), *tom_next(moment, moments, rng), tom_recipe_need(moment, rng),
                jp_next(moment, moments, rng)]
