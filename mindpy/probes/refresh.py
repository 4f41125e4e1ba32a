"""New wrong options for probes built before they were chosen fairly, read from the state each probe shows.

    probes = [refresh_probe(p, rng) for p in read_probes("tasks/probes_coordqa.jsonl").probes]

Probe sets built before had wrong ToM and JP options that the acting agent could not carry out (a give of an item
it does not hold, a craft it lacks materials for, a teammate's blocks), so a feasibility check answered them. This
keeps each probe's state, question and right answer and draws its wrong options again the way `probe build` now
does (mindpy.probes.build.feasible_commands; the construction questions' own), from the state's text: the goal,
every agent's INVENTORY block, the blueprint check (not the episode: unlike `probe build`, it cannot leave out
what the actor did later). A question that tells who holds something (who places the
missing blocks of a kind) moves to EC. Questions of other kinds keep their options, but for "who holds" which
gains "more than one agent". A probe whose state gives too few wrong options now is dropped and listed.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace

from ..oracle.construction import parse_check
from ..oracle.goals import parse_goal
from ..oracle.prompt import PromptView
from .feasible import inventories
from .moments import MAX_OPTIONS, Moment
from .record import Probe

_GOAL = re.compile(r"^Task of (\w+): (.*)$", re.M)
_COMMAND = re.compile(r"^!(\w+)\((.*)\)$")
_CHECK_MARK = "(!checkBlueprint):\n"


def _shuffled(probe: Probe, wrong: list[str], rng: random.Random, **changes) -> Probe | None:
    right = probe.options[probe.answer]
    wrong = [w for w in dict.fromkeys(wrong) if w != right][:MAX_OPTIONS - 1]
    if not wrong:
        return None
    options = [right, *wrong]
    rng.shuffle(options)
    return replace(probe, options=options, answer=options.index(right), **changes)


def _moment(probe: Probe, actor: str) -> Moment | None:
    goal = _GOAL.search(probe.state)
    team = inventories(probe.state)
    if goal is None or actor not in team:
        return None
    # only the team and goal matter to the wrong options; the goal text is the agent's own (its family, targets)
    return Moment(probe.source_task, 0.0, actor, PromptView("conversing", name=actor, goal=goal.group(2)), "", None,
                  team, parse_goal(goal.group(2)))


def _command_options(probe: Probe, rng: random.Random) -> Probe | None:
    from .build import command_text, feasible_commands

    found = _COMMAND.match(probe.options[probe.answer])
    moment = _moment(probe, probe.meta.get("actor", ""))
    if found is None or moment is None:
        return None
    right = (found.group(1), json.loads(f"[{found.group(2)}]"))
    wrong = [command_text(c) for c in feasible_commands(moment, moment.me, right, rng)]
    return _shuffled(probe, wrong, rng) if len(wrong) >= 2 else None


def _construction_options(probe: Probe, rng: random.Random) -> Probe | None:
    from ..tasks.families.construction.probes import holds_any

    if _CHECK_MARK not in probe.state:
        return None
    fixes = parse_check(probe.state.split(_CHECK_MARK, 1)[1]) or []
    team = inventories(probe.state)
    open_levels = sorted({f.level for f in fixes})
    me, kind = probe.meta.get("agent", ""), probe.meta["kind"]
    if not open_levels or me not in team:
        return None

    def blocks(level: int) -> list[str]:
        return sorted({f.block for f in fixes if f.level == level})

    if kind == "who_places":
        return replace(probe, category="EC")
    if kind == "partner_level":
        mate, level = probe.meta["partner"], probe.meta["level"]
        wrong = [f"level {n}" for n in open_levels if n != level and holds_any(team[mate], blocks(n))]
        wrong += [f"none: {mate} waits until {me} finishes level {open_levels[0]}",
                  f"none: {mate} gives its blocks to {me}"]
        return _shuffled(probe, wrong, rng)
    if kind == "my_share":
        low = probe.meta["level"]
        mine = re.match(r"the (.+) blocks of level \d+$", probe.options[probe.answer])
        if mine is None:
            return None
        my_blocks = mine.group(1).split(", ")
        wrong = []
        for level in open_levels[1:]:
            higher = [b for b in blocks(level) if b in my_blocks]
            if higher:
                wrong.append(f"the {', '.join(higher)} blocks of level {level}")
        mates = [n for n in sorted(team) if n != me]
        wrong.append(f"nothing yet: wait until {mates[0]} finishes level {low}" if mates else "nothing yet")
        if mates:
            wrong.append(f"nothing: give my {', '.join(my_blocks)} to {mates[0]}")
        return _shuffled(probe, wrong, rng)
    return None


def refresh_probe(probe: Probe, rng: random.Random) -> Probe | None:
    """The probe with its wrong options drawn again (see the module doc); None when its state gives too few."""
    kind = probe.meta.get("kind")
    if kind in ("my_next", "partner_next"):
        return _command_options(probe, rng)
    if kind in ("who_places", "partner_level", "my_share"):
        return _construction_options(probe, rng)
    if kind == "holder":
        return _shuffled(probe, [o for i, o in enumerate(probe.options) if i != probe.answer] + ["more than one agent"],
                         rng)
    return probe


def refresh_probes(probes: list[Probe], seed: int = 0) -> tuple[list[Probe], list[str]]:
    """(the probes with fair options, the ids of those dropped: their state gives too few wrong options)."""
    rng = random.Random(seed)
    out, dropped = [], []
    for probe in probes:
        fresh = refresh_probe(probe, rng)
        if fresh is None:
            dropped.append(probe.id)
        else:
            out.append(fresh)
    return out, dropped
