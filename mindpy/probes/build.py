"""Make CoordQA-style probes from recorded oracle episodes: states sampled from the agents' call logs, questions
whose answers follow from the state, the recipes and the oracle's own choices.

    moments = list(read_moments("runs/eval/multiagent_crafting_..."))   # one per command-bearing oracle reply
    probes = build_probes(["runs/eval/a", "runs/eval/b"], per_category=60, seed=0)
    write_probes("probes.jsonl", probes)

Moments and the state text a question shows are in mindpy.probes.moments.

Questions, by category:
- EC (environment comprehension): how many more of a base item the team needs for its crafting target (the
  recipe planner on the team's pooled inventory); who holds an item; whether an agent can make its target alone;
  in Hell's Kitchen, who holds the recipe of my dish (the goal names the agent).
- ToM (theory of mind): what a teammate does next (its next oracle reply, from its own state); who on the team
  crafts the target (the agent that did, in the episode); in Hell's Kitchen, what the teammate whose recipe I
  hold needs from me (that recipe, not mine, not nothing).
- JP (joint planning): the best next command for me (the oracle's reply). The wrong options of ToM and JP are
  commands the acting agent cannot carry out in the state shown (an item it does not hold, more than it holds, a
  craft it lacks materials for), so the oracle's choice is the single good one.
- Construction (after a blueprint check): see mindpy.probes.construction.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from pathlib import Path

from ..oracle import cooking
from ..recipes import recipe_book
from . import construction
from .moments import Moment, make_probe, next_moment_of, read_moments
from .record import CATEGORIES, Probe

MAX_PER_EPISODE = 8      # questions of one category from one episode: keeps the set varied
# questions whose answer never changes in an episode: asked once, or once of each agent
ONCE_PER_EPISODE = ("crafter",)
ONCE_PER_AGENT = ("recipe_holder", "recipe_need")


# ---- what an agent can and cannot do ---------------------------------------------------------------------------------
def can_craft(item: str, times: int, inv: dict[str, int]) -> bool:
    """Whether `times` crafts of `item` need nothing beyond `inv` (a crafting table is taken as at hand)."""
    book = recipe_book()
    recipes = book.recipes(item)
    per_craft = recipes[0].count if recipes else 1
    return book.plan(item, times * per_craft, inv, table_available=True).complete


def possible(command: tuple[str, list], actor: str, team: dict[str, dict[str, int]]) -> bool:
    """Whether `actor` can carry out the command in this state (only gives and crafts are judged)."""
    name, args = command
    inv = team[actor]
    if name == "givePlayer":
        to, item, count = args[0], args[1], int(args[2])
        return to in team and to != actor and inv.get(item, 0) >= count
    if name == "craftRecipe":
        return can_craft(args[0], int(args[1]), inv)
    return True


def command_text(command: tuple[str, list]) -> str:
    """The command as a model writes it: !name("text", 3)."""
    name, args = command
    rendered = ", ".join(json.dumps(a) if isinstance(a, str) else str(a) for a in args)
    return f"!{name}({rendered})" if args else f"!{name}"


def _relevant_items(moment: Moment) -> list[str]:
    """Items the task is about: held by anyone, or raw materials of its targets."""
    items = {item for inv in moment.team.values() for item in inv}
    for target, n in moment.goal.targets.items():
        if moment.goal.kind == "crafting":
            items |= set(recipe_book().plan(target, n, {}, table_available=True).base_resources)
        else:
            items |= cooking.ingredients(target)
    return sorted(items)


def impossible_commands(moment: Moment, actor: str, rng: random.Random) -> list[tuple[str, list]]:
    """Commands `actor` cannot carry out in the state: gives of what it lacks, crafts it lacks materials for."""
    inv = moment.team[actor]
    others = [n for n in sorted(moment.team) if n != actor]
    out: list[tuple[str, list]] = []
    for item in _relevant_items(moment):
        to = rng.choice(others)
        if inv.get(item, 0) == 0:
            out.append(("givePlayer", [to, item, rng.choice([1, 2, 4])]))
        else:
            out.append(("givePlayer", [to, item, inv[item] + rng.choice([1, 3, 8])]))
    for target in moment.goal.targets:
        if moment.goal.kind == "crafting" and not can_craft(target, 1, inv):
            out.append(("craftRecipe", [target, 1]))
    rng.shuffle(out)
    return [c for c in out if not possible(c, actor, moment.team)]


# ---- questions -----------------------------------------------------------------------------------------------------
def ec_team_need(moment: Moment, rng: random.Random) -> Probe | None:
    """How many more of a base item the team needs for its crafting target, beyond what everyone holds."""
    if moment.goal.kind != "crafting" or len(moment.goal.targets) != 1:
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


def ec_holder(moment: Moment, rng: random.Random) -> Probe | None:
    """Who holds an item that exactly one agent holds."""
    held: dict[str, list[str]] = {}
    for name, inv in moment.team.items():
        for item in inv:
            held.setdefault(item, []).append(name)
    single = sorted(item for item, names in held.items() if len(names) == 1)
    if not single:
        return None
    item = rng.choice(single)
    names = sorted(moment.team)
    return make_probe(moment, "EC", "holder", f"Who holds the {item}?", held[item][0],
                  [n for n in names if n != held[item][0]] + ["nobody on the team"], rng, item=item)


def ec_alone(moment: Moment, rng: random.Random) -> Probe | None:
    """Whether I can make my target from my own inventory (and the world, for cooking) without teammates."""
    goal = moment.goal
    if len(goal.targets) != 1:
        return None
    (target, n), = goal.targets.items()
    inv = moment.team[moment.me]
    if inv.get(target, 0) >= n:
        return None
    if goal.kind == "crafting":
        alone = recipe_book().plan(target, n, inv, table_available=True).complete
    elif goal.kind == "cooking" and not goal.hells_kitchen:
        alone = not cooking.lacking(target, n, inv)
    else:
        return None
    others = ", ".join(n for n in sorted(moment.team) if n != moment.me)
    what = "craft" if goal.kind == "crafting" else "make"
    return make_probe(moment, "EC", "alone", f"Can {moment.me} {what} {n} {target} without any item from {others}?",
                  "Yes" if alone else "No", ["No" if alone else "Yes"], rng)


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


def _action_probe(moment: Moment, actor_moment: Moment, category: str, kind: str, question: str,
                  rng: random.Random) -> Probe | None:
    command = actor_moment.command
    if command is None or command[0] not in ("givePlayer", "craftRecipe", "collectBlocks", "smeltItem"):
        return None
    if not possible(command, actor_moment.me, actor_moment.team):
        return None
    wrong = [command_text(c) for c in impossible_commands(actor_moment, actor_moment.me, rng)]
    if len(wrong) < 2:
        return None
    shown = Moment(moment.task_id, actor_moment.time, moment.me, moment.view, moment.reply, moment.command,
                   actor_moment.team, moment.goal)
    return make_probe(shown, category, kind, question, command_text(command), wrong, rng, actor=actor_moment.me)


def tom_next(moment: Moment, moments: list[Moment], rng: random.Random) -> list[Probe | None]:
    """What each teammate does next: its next oracle reply, judged against what it holds then."""
    asked: list[Probe | None] = []
    for partner in [n for n in sorted(moment.team) if n != moment.me]:
        then = next_moment_of(moments, partner, moment.time)
        if then is not None:
            asked.append(_action_probe(moment, then, "ToM", "partner_next",
                                       f"{partner} acts next. Which command will {partner} most likely send?", rng))
    return asked


def tom_crafter(moment: Moment, moments: list[Moment], rng: random.Random) -> Probe | None:
    """Who on the team crafts the target (the one agent that did in the episode, later than this moment)."""
    if moment.goal.kind != "crafting" or len(moment.goal.targets) != 1 or len(moment.team) < 2:
        return None
    (target, _), = moment.goal.targets.items()
    crafters = {m.me for m in moments if m.time > moment.time and m.command
                and m.command[0] == "craftRecipe" and m.command[1][0] == target}
    if len(crafters) != 1:
        return None
    crafter = crafters.pop()
    return make_probe(moment, "ToM", "crafter", f"Who on the team will craft the {target}?", crafter,
                  [n for n in sorted(moment.team) if n != crafter], rng)


def jp_next(moment: Moment, rng: random.Random) -> Probe | None:
    """The best next command for me: the oracle's, against commands I cannot carry out."""
    return _action_probe(moment, moment, "JP", "my_next",
                         f"You are {moment.me}. What is the best next command for you?", rng)


# ---- the set -------------------------------------------------------------------------------------------------------
def probes_of_episode(run_dir: str | Path, rng: random.Random) -> dict[str, list[Probe]]:
    """The episode's questions by category, at most MAX_PER_EPISODE each, taken in turn from each kind of question
    (so a kind that every turn allows does not crowd out the rarer ones)."""
    moments = list(read_moments(run_dir))
    out: dict[str, list[Probe]] = {c: [] for c in CATEGORIES}
    seen: set[tuple[str, str]] = set()
    asked_once: set[tuple[str, str]] = set()
    for moment in moments:
        for made in (ec_team_need(moment, rng), ec_holder(moment, rng), ec_alone(moment, rng),
                     ec_recipe_holder(moment, rng), *tom_next(moment, moments, rng),
                     tom_crafter(moment, moments, rng), tom_recipe_need(moment, rng), jp_next(moment, rng),
                     *construction.construction_probes(moment, moments, rng)):
            if made is None:
                continue
            once = ((made.meta["kind"], "") if made.meta["kind"] in ONCE_PER_EPISODE else
                    (made.meta["kind"], moment.me) if made.meta["kind"] in ONCE_PER_AGENT else None)
            if once is not None:  # the answer is the same all along
                if once in asked_once:
                    continue
                asked_once.add(once)
            key = (made.question, made.options[made.answer] + made.state)
            if key in seen:
                continue
            seen.add(key)
            out[made.category].append(made)
    return {category: _kinds_in_turn(found, MAX_PER_EPISODE) for category, found in out.items()}


def _kinds_in_turn(probes: list[Probe], limit: int) -> list[Probe]:
    """Up to `limit` probes, one of each kind in turn (kinds in the order they first came), each kind in order."""
    by_kind: dict[str, list[Probe]] = {}
    for probe in probes:
        by_kind.setdefault(probe.meta["kind"], []).append(probe)
    queues = list(by_kind.values())
    taken: list[Probe] = []
    while len(taken) < limit and any(queues):
        for queue in queues:
            if queue and len(taken) < limit:
                taken.append(queue.pop(0))
    return taken


def build_probes(run_dirs: Iterable[str | Path], per_category: int | None = None, seed: int = 0) -> list[Probe]:
    """Probes from recorded episodes: each category filled round-robin over the episodes (so one long episode
    does not crowd out the rest), at most `per_category` each (None: all)."""
    rng = random.Random(seed)
    episodes = [probes_of_episode(d, rng) for d in run_dirs]
    chosen: list[Probe] = []
    for category in CATEGORIES:
        queues = [list(e[category]) for e in episodes]
        taken: list[Probe] = []
        while any(queues) and (per_category is None or len(taken) < per_category):
            for queue in queues:
                if queue and (per_category is None or len(taken) < per_category):
                    taken.append(queue.pop(0))
        chosen += taken
    counts: dict[tuple[str, str], int] = {}
    for probe in chosen:  # short ids, unique per task and category, stable for a given seed
        key = (probe.source_task, probe.category)
        counts[key] = counts.get(key, 0) + 1
        probe.id = f"{probe.source_task}-{probe.category.lower()}-{counts[key]}"
    return chosen


def recorded_runs(folders: Iterable[str | Path]) -> list[Path]:
    """The episode folders (holding result.json and calls/) in or under `folders`, sorted."""
    found: set[Path] = set()
    for folder in map(Path, folders):
        for result in [folder / "result.json", *folder.rglob("result.json")]:
            if result.is_file() and (result.parent / "calls").is_dir():
                found.add(result.parent)
    return sorted(found)
