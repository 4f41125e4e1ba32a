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
  commands the acting agent can carry out in the state shown (gives of what it holds, crafts it has materials
  for; `feasible_commands`), so only what the partner needs or the team's plan needs next picks the oracle's
  choice, not a feasibility check (mindpy.probes.feasible answers by such a check alone and scores chance on them).
  Up to MAX_OPTIONS (5) options per question where the state gives that many.
- Construction (after a blueprint check): see mindpy.tasks.families.construction.probes.

Which questions a moment allows is its family's: a family names its questions in `probes_entry` ("module:Class",
a `FamilyQuestions`; mindpy's own are in mindpy/tasks/families/<name>/probes.py); a goal of no family with
questions of its own gets `FamilyQuestions`, the questions any team's moment allows.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path

from ..oracle import cooking
from ..recipes import recipe_book
from ..tasks.family import UnknownFamily, family_named, load_entry
from .feasible import possible
from .moments import Moment, make_probe, next_moment_of, read_moments
from .record import CATEGORIES, Probe

MAX_PER_EPISODE = 8      # questions of one category from one episode: keeps the set varied
# questions whose answer never changes in an episode: asked once, or once of each agent
ONCE_PER_EPISODE = ("crafter",)
ONCE_PER_AGENT = ("recipe_holder", "recipe_need")


# ---- what an agent can do (can_craft, possible: mindpy.probes.feasible) ----------------------------------------------
def command_text(command: tuple[str, list]) -> str:
    """The command as a model writes it: !name("text", 3)."""
    name, args = command
    rendered = ", ".join(json.dumps(a) if isinstance(a, str) else str(a) for a in args)
    return f"!{name}({rendered})" if args else f"!{name}"


def feasible_commands(moment: Moment, actor: str, right: tuple[str, list], rng: random.Random,
                      later: Iterable[tuple[str, list]] = ()) -> list[tuple[str, list]]:
    """Commands `actor` can carry out in the state, other than `right` and its near twins: gives of items it holds
    (at most what it holds) to a teammate, crafts it holds the materials for (on the plan to the targets, and a few
    off it), smelts of raw food it holds. Only what the partner needs or what
    the team's plan needs next tells them from the right one, not whether they can be done. Left out as arguably
    right too: when `right` gives to an agent, any give to that agent; what the actor did `later` in the episode."""
    inv = moment.team[actor]
    others = [n for n in sorted(moment.team) if n != actor]
    out: list[tuple[str, list]] = []
    raw_foods = set(cooking.SMELTED.values())
    for item in sorted(k for k, n in inv.items() if n > 0):
        for to in others:
            out.append(("givePlayer", [to, item, rng.randint(1, inv[item])]))
        if item in raw_foods:  # a furnace or smoker stands in every kitchen
            out.append(("smeltItem", [item, rng.randint(1, inv[item])]))
    out += questions_for(moment).makes(moment)
    # crafts off the team's plan that the actor's items allow (sticks from planks): a few, drawn
    off_plan = recipe_book().one_craft_from(inv)
    out += [("craftRecipe", [item, 1]) for item in rng.sample(off_plan, min(3, len(off_plan)))]
    rng.shuffle(out)
    done = [right, *later]
    kept = [c for c in out if possible(c, actor, moment.team) and not any(_same_deed(c, d) for d in done)
            and not (right[0] == c[0] == "givePlayer" and c[1][0] == right[1][0])]
    # the right command's kind and the others in turn, so that the right one is not the odd one out (a craft among
    # gives) where the state offers both
    same, other = [c for c in kept if c[0] == right[0]], [c for c in kept if c[0] != right[0]]
    mixed = [c for pair in zip(same, other, strict=False) for c in pair]
    n = min(len(same), len(other))
    return mixed + same[n:] + other[n:]


def _same_deed(command: tuple[str, list], right: tuple[str, list]) -> bool:
    """A command that does what `right` does (the same give to the same agent, the same craft, collect or smelt),
    whatever the count: such an option would be right too."""
    if command[0] != right[0]:
        return False
    if command[0] == "givePlayer":
        return command[1][:2] == right[1][:2]
    return command[1][:1] == right[1][:1]


# ---- questions -----------------------------------------------------------------------------------------------------
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
                  [n for n in names if n != held[item][0]] + ["nobody on the team", "more than one agent"], rng,
                  item=item)


def ec_alone(moment: Moment, rng: random.Random, alone: Callable[[str, int, dict[str, int]], bool],
             verb: str) -> Probe | None:
    """Whether I can `verb` my target from my own inventory without teammates, as `alone(target, n, inventory)`
    judges it (the family's: a recipe plan, a kitchen)."""
    goal = moment.goal
    if len(goal.targets) != 1:
        return None
    (target, n), = goal.targets.items()
    inv = moment.team[moment.me]
    if inv.get(target, 0) >= n:
        return None
    can = alone(target, n, inv)
    others = ", ".join(n for n in sorted(moment.team) if n != moment.me)
    return make_probe(moment, "EC", "alone", f"Can {moment.me} {verb} {n} {target} without any item from {others}?",
                  "Yes" if can else "No", ["No" if can else "Yes"], rng)


def _action_probe(moment: Moment, actor_moment: Moment, moments: list[Moment], category: str, kind: str,
                  question: str, rng: random.Random) -> Probe | None:
    command = actor_moment.command
    if command is None or command[0] not in ("givePlayer", "craftRecipe", "collectBlocks", "smeltItem"):
        return None
    if not possible(command, actor_moment.me, actor_moment.team):
        return None
    later = [m.command for m in moments if m.me == actor_moment.me and m.time > actor_moment.time and m.command]
    wrong = [command_text(c) for c in feasible_commands(actor_moment, actor_moment.me, command, rng, later)]
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
            asked.append(_action_probe(moment, then, moments, "ToM", "partner_next",
                                       f"{partner} acts next. Which command will {partner} most likely send?", rng))
    return asked


def jp_next(moment: Moment, moments: list[Moment], rng: random.Random) -> Probe | None:
    """The best next command for me: the oracle's, against commands I can carry out too."""
    return _action_probe(moment, moment, moments, "JP", "my_next",
                         f"You are {moment.me}. What is the best next command for you?", rng)


# ---- a family's questions -----------------------------------------------------------------------------------------
class FamilyQuestions:
    """The questions one family's moments allow, and what the wrong options of the shared ones draw on. These
    defaults are any team's: who holds what, what a teammate does next, my best next command."""

    def made_of(self, target: str, count: int) -> set[str]:
        """Items `count` of one target are made of (the gives a wrong option may name)."""
        return set(cooking.ingredients(target))

    def makes(self, moment: Moment) -> list[tuple[str, list]]:
        """Commands that make something the task is about (a target, what it is made of), one craft each: the
        builder keeps those the actor can carry out as wrong options."""
        items = set(moment.goal.targets)
        for target, n in moment.goal.targets.items():
            items |= self.made_of(target, n)
        return [("craftRecipe", [item, 1]) for item in sorted(items) if recipe_book().recipes(item)]

    def questions(self, moment: Moment, moments: list[Moment], rng: random.Random) -> list[Probe | None]:
        """Every question the moment allows, in a fixed order (the seed's draws follow it)."""
        return [ec_holder(moment, rng), *tom_next(moment, moments, rng), jp_next(moment, moments, rng)]


_QUESTIONS: dict[str, FamilyQuestions] = {}


def questions_for(moment: Moment) -> FamilyQuestions:
    """The questions of the moment's family (its `probes_entry`), FamilyQuestions when it has none of its own."""
    kind = moment.goal.kind
    if kind not in _QUESTIONS:
        _QUESTIONS[kind] = _load_questions(kind)
    return _QUESTIONS[kind]


def _load_questions(kind: str) -> FamilyQuestions:
    try:
        entry = family_named(kind).probes_entry
    except UnknownFamily:
        return FamilyQuestions()
    if entry is None:
        return FamilyQuestions()
    questions = load_entry(entry)()
    if not isinstance(questions, FamilyQuestions):
        raise TypeError(f"the {kind} family's probes_entry {entry!r} is not a FamilyQuestions")
    return questions


# ---- the set -------------------------------------------------------------------------------------------------------
def probes_of_episode(run_dir: str | Path, rng: random.Random) -> dict[str, list[Probe]]:
    """The episode's questions by category, at most MAX_PER_EPISODE each, taken in turn from each kind of question
    (so a kind that every turn allows does not crowd out the rarer ones)."""
    moments = list(read_moments(run_dir))
    out: dict[str, list[Probe]] = {c: [] for c in CATEGORIES}
    seen: set[tuple[str, str]] = set()
    asked_once: set[tuple[str, str]] = set()
    for moment in moments:
        for made in questions_for(moment).questions(moment, moments, rng):
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
