"""The crafting family's probe questions (mindpy.probes.build): besides any team's, how many more of a base item
the team needs (the recipe planner on the team's pooled inventory), whether I can craft the target alone, and who
on the team crafts it (the agent that did, in the episode)."""

from __future__ import annotations

import random

from ....probes.build import FamilyQuestions, ec_alone, ec_holder, jp_next, tom_next
from ....probes.moments import Moment, make_probe
from ....probes.record import Probe
from ....recipes import recipe_book


def ec_team_need(moment: Moment, rng: random.Random) -> Probe | None:
    """How many more of a base item the team needs for its crafting target, beyond what everyone holds."""
    if len(moment.goal.targets) != 1:
        return None
    (target, n), = moment.goal.targets.items()
    pooled: dict[str, int] = {}
    for inv in moment.team.values():
        for item, k in inv.items():
            pooled[item] = pooled.get(item, 0) + k
    if pooled.get(target, 0) >= n:
        return None
    plan = recipe_book().plan(target, n, pooled, table_available=True)
    if not plan.craftable or not plan.base_resources:
        return None
    item = rng.choice(sorted(plan.base_resources))
    right = plan.missing.get(item, 0)
    wrong = [str(x) for x in (right + 1, right + 2, max(right - 1, 0), plan.base_resources[item], right + 4)
             if x != right]
    return make_probe(moment, "EC", "team_need", f"How many more {item} does the team need, beyond what its members "
                      f"hold together, to craft {n} {target}?", str(right), wrong, rng)


def crafts_alone(target: str, n: int, inv: dict[str, int]) -> bool:
    """Can `inv` craft `n` of the target (a crafting table at hand), without any teammate's item?"""
    return recipe_book().plan(target, n, inv, table_available=True).complete


def tom_crafter(moment: Moment, moments: list[Moment], rng: random.Random) -> Probe | None:
    """Who on the team crafts the target (the one agent that did in the episode, later than this moment)."""
    if len(moment.goal.targets) != 1 or len(moment.team) < 2:
        return None
    (target, _), = moment.goal.targets.items()
    crafters = {m.me for m in moments if m.time > moment.time and m.command
                and m.command[0] == "craftRecipe" and m.command[1][0] == target}
    if len(crafters) != 1:
        return None
    crafter = crafters.pop()
    return make_probe(moment, "ToM", "crafter", f"Who on the team will craft the {target}?", crafter,
                      [n for n in sorted(moment.team) if n != crafter], rng)


class CraftingQuestions(FamilyQuestions):
    """Crafting: the recipe planner answers what the team lacks and who can craft alone."""

    def made_of(self, target: str, count: int) -> set[str]:
        return set(recipe_book().plan(target, count, {}, table_available=True).base_resources)

    def makes(self, moment: Moment) -> list[tuple[str, list]]:
        """A craft of each target and of each item on the way to it (planks, sticks, ...)."""
        items = set(moment.goal.targets)
        for target, n in moment.goal.targets.items():
            items |= {step.item for step in recipe_book().plan(target, n, {}, table_available=True).steps}
        return [("craftRecipe", [item, 1]) for item in sorted(items)]

    def questions(self, moment: Moment, moments: list[Moment], rng: random.Random) -> list[Probe | None]:
        return [ec_team_need(moment, rng), ec_holder(moment, rng), ec_alone(moment, rng, crafts_alone, "craft"),
                *tom_next(moment, moments, rng), tom_crafter(moment, moments, rng), jp_next(moment, moments, rng)]
