"""Probes made from a real oracle episode (`mindpy probe build`): the episode is played on the session's server,
then every question is checked against the state it shows, read back from its text."""

from __future__ import annotations

import json
import re

import pytest

from conftest import REPO_ROOT
from mindpy.cli import main
from mindpy.harness.episode import run_episode
from mindpy.models.replay import ReplayModel
from mindpy.oracle.construction import my_fixes, parse_check
from mindpy.oracle.cooking import HARVESTED
from mindpy.oracle.goals import TaskGoal, parse_goal
from mindpy.oracle.prompt import PromptView
from mindpy.probes.answers import letter
from mindpy.probes.build import FamilyQuestions, Moment, build_probes, questions_for, read_moments
from mindpy.probes.feasible import can_craft
from mindpy.probes.moments import make_probe
from mindpy.probes.record import CATEGORIES, read_probes
from mindpy.probes.run import run_probes
from mindpy.recipes import recipe_book
from mindpy.tasks.families.cooking.probes import ec_recipe_holder, tom_recipe_need
from mindpy.tasks.family import Family, register, unregister
from mindpy.tasks.loader import read_task_file

TASK = "multiagent_crafting_polished_blackstone_brick_wall_partial_plan_requires_ctable__depth_2__2_agents"
BUILD_TASK = "materials_0_rooms_0_window_0_carpet_0_variant_0"  # the smallest house of the construction split
CONSTRUCTION_KINDS = ("missing_count", "lowest_open", "enough", "who_places", "partner_level", "my_share")
COMMAND = re.compile(r'^!(givePlayer|craftRecipe|smeltItem|collectBlocks)\((.*)\)$')


def oracle_episode(server, tmp_path_factory, file: str, task_id: str, cheat: bool = False):
    """The folder of a successful oracle episode of `task_id` from tasks/`file` (`cheat`: building assistance on,
    which questions about the blueprint check do not need and which keeps a house to a minute)."""
    task = read_task_file(str(REPO_ROOT / "tasks" / file), only=[task_id]).task(task_id)
    run_dir = tmp_path_factory.mktemp("probe_build") / "run"
    result = run_episode(task, run_dir, model="oracle", server=f"{server.host}:{server.port}",
                         profile_options={"cheat": True} if cheat else None)
    assert result["end_reason"] == "success", result
    return run_dir


@pytest.fixture(scope="module")
def episode(server, tmp_path_factory):
    return oracle_episode(server, tmp_path_factory, "crafting_test.json", TASK)


@pytest.fixture(scope="module")
def build_episode(server, tmp_path_factory):
    return oracle_episode(server, tmp_path_factory, "construction_test.json", BUILD_TASK, cheat=True)


def inventories(state: str) -> dict[str, dict[str, int]]:
    """The INVENTORY blocks of a state's text, read back."""
    out = {}
    for name, body in re.findall(r"INVENTORY of (\w+)\n((?:- .*\n?)+)", state):
        out[name] = {item: int(n) for item, n in re.findall(r"- (\w+): (\d+)", body)}
    return out


def check_construction(probe, team: dict[str, dict[str, int]]) -> None:
    """A construction question against the blueprint check its state shows, read back from the text."""
    fixes = parse_check(probe.state.split("(!checkBlueprint):\n", 1)[1])
    assert fixes, probe.state
    right, meta = probe.options[probe.answer], probe.meta
    open_levels = sorted({f.level for f in fixes})
    missing = sum(1 for f in fixes if f.level == meta.get("level") and f.block == meta.get("block"))
    kind = meta["kind"]
    if kind == "missing_count":
        assert int(right) == missing > 0
    elif kind == "lowest_open":
        assert right == f"level {open_levels[0]}"
    elif kind == "enough":
        assert right == ("Yes" if team[meta["agent"]].get(meta["block"], 0) >= missing else "No")
    elif kind == "who_places":
        assert [n for n, inv in team.items() if inv.get(meta["block"], 0)] == [right]
    else:  # partner_level, my_share: the lowest level where the agent holds blocks to place
        actor = meta["partner"] if kind == "partner_level" else meta["agent"]
        theirs = my_fixes(fixes, team[actor], lead=False)
        assert right.endswith(f"level {theirs[0].level}"), (probe.question, right)
        if kind == "my_share":
            assert right == f"the {', '.join(sorted({f.block for f in theirs}))} blocks of level {theirs[0].level}"


def check_against_state(probe, replies=None) -> None:
    """The right option follows from the state the probe shows (read back from its text), and the actor of a
    command question can carry out every option in it (the right one too), so no feasibility check tells them
    apart. `replies`: the episode's replies, which hold each right command."""
    team = inventories(probe.state)
    right = probe.options[probe.answer]
    kind = probe.meta["kind"]
    if kind in CONSTRUCTION_KINDS:
        check_construction(probe, team)
    elif kind in ("my_next", "partner_next"):
        actor = probe.meta["actor"]
        if replies is not None:
            assert any(right in reply for reply in replies), right  # the oracle's own command
        for option in probe.options:
            name, args = COMMAND.match(option).groups()
            parts = json.loads(f"[{args}]")
            if name == "givePlayer":  # a give of at most what the actor holds, as the state shows it
                assert 0 < parts[2] <= team[actor].get(parts[1], 0) and parts[0] in team, (probe.state, option)
            elif name == "craftRecipe":
                assert can_craft(parts[0], parts[1], team[actor]), (probe.state, option)
            elif option != right:  # a wrong smelt of raw food the actor holds, a wrong harvest of a kitchen crop
                assert (name == "smeltItem" and 0 < parts[1] <= team[actor].get(parts[0], 0)) \
                    or (name == "collectBlocks" and parts[0] in HARVESTED.values()), (probe.state, option)
    elif kind == "holder":
        holders = [n for n, inv in team.items() if probe.meta["item"] in inv]
        assert holders == [right], (probe.state, probe.question)
    elif kind == "team_need":
        item, n, target = re.match(r"How many more (\w+) .* to craft (\d+) (\w+)\?", probe.question).groups()
        pooled: dict[str, int] = {}
        for inv in team.values():
            for k, v in inv.items():
                pooled[k] = pooled.get(k, 0) + v
        plan = recipe_book().plan(target, int(n), pooled, table_available=True)
        assert int(right) == plan.missing.get(item, 0)
    elif kind in ("recipe_holder", "recipe_need"):  # Hell's Kitchen: the goal in the state says it
        goal_text = probe.state.split("\n\nINVENTORY of", 1)[0].split(": ", 1)[1]
        goal = parse_goal(goal_text)
        partner = [n for n in team if n != probe.meta["agent"]]  # "your partner", in a two-agent team
        if kind == "recipe_holder":
            holder = re.search(r"agent (\d+) has it", goal_text)
            assert right == (f"agent {holder.group(1)}" if holder else partner[0]), goal_text
        else:
            mate = f"agent {goal.partner_index}" if goal.partner_index is not None else partner[0]
            assert right == f"the recipe for {goal.partner_dish}" and f"{mate} need" in probe.question


def test_the_committed_probe_set_has_60_per_category_and_each_follows_from_its_state():
    loaded = read_probes(REPO_ROOT / "tasks" / "probes_coordqa.jsonl")
    assert not loaded.errors
    for category in CATEGORIES:
        assert sum(p.category == category for p in loaded.probes) >= 60, category
    for probe in loaded.probes:
        check_against_state(probe)


@pytest.mark.slow
def test_every_question_follows_from_the_state_it_shows(episode):
    probes = build_probes([episode])
    assert {p.category for p in probes} == set(CATEGORIES)
    replies = {json.loads(line)["reply"] for path in (episode / "calls").glob("*.jsonl")
               for line in path.read_text().splitlines()}
    for probe in probes:
        check_against_state(probe, replies)


@pytest.mark.slow
def test_construction_questions_follow_from_the_blueprint_check_they_show(build_episode):
    probes = build_probes([build_episode])
    kinds = {p.meta["kind"] for p in probes}
    assert {"missing_count", "who_places", "my_share"} <= kinds, kinds
    assert {p.category for p in probes if p.meta["kind"] in CONSTRUCTION_KINDS} == set(CATEGORIES)
    for probe in probes:
        check_against_state(probe)
    right = ReplayModel([f"Answer: {letter(p.answer)}" for p in probes])
    assert run_probes(probes, right).score("all").mean == 1.0


@pytest.mark.slow
def test_an_answerer_that_knows_the_truth_scores_full_marks_on_built_probes(episode):
    probes = build_probes([episode])
    right = ReplayModel([f"Answer: {letter(p.answer)}" for p in probes])
    assert run_probes(probes, right).score("all").mean == 1.0
    wrong = ReplayModel([f"Answer: {letter((p.answer + 1) % len(p.options))}" for p in probes])
    assert run_probes(probes, wrong).score("all").mean == 0.0


@pytest.mark.slow
def test_the_cli_builds_a_probe_file_from_recorded_episodes(episode, tmp_path, capsys):
    out = tmp_path / "probes.jsonl"
    assert main(["probe", "build", "--runs", str(episode.parent), "--out", str(out), "--per-category", "3"]) == 0
    loaded = read_probes(out)
    assert not loaded.errors and len(loaded.probes) <= 9
    assert {p.category for p in loaded.probes} == set(CATEGORIES)
    assert "from 1 episodes" in capsys.readouterr().out
    moments = list(read_moments(episode))
    assert moments and all(set(m.team) == {"andy", "jill"} for m in moments)


def hells_kitchen_moment(task_id: str, agent: int) -> Moment:
    """A moment of a Hell's Kitchen task from its file: the agent's goal, every agent holding nothing."""
    task = read_task_file(str(REPO_ROOT / "tasks" / "cooking_test.json"), only=[task_id]).task(task_id)
    names = ["andy", "jill", "bob", "sally", "mike"][:task.agent_count]
    view = PromptView(kind="conversing", system="", goal=task.goal_for(agent))
    return Moment(task_id, 1.0, names[agent], view, "", None, {n: {} for n in names}, parse_goal(view.goal))


@pytest.mark.parametrize("agent", [0, 1, 2])
def test_hells_kitchen_questions_ask_who_holds_my_recipe_and_what_a_teammate_needs(agent):
    import random

    task_id = "multiagent_cooking_3_agents_cake_bread_cooked_beef_hells_kitchen"
    moment = hells_kitchen_moment(task_id, agent)
    holder, need = ec_recipe_holder(moment, random.Random(1)), tom_recipe_need(moment, random.Random(1))
    for probe in (holder, need):
        check_against_state(probe)
        assert len(probe.options) == len(set(probe.options)) == 3
    # in a ring of three, the holder of my recipe is the agent before me, and I hold the next one's
    assert holder.options[holder.answer] == f"agent {(agent - 1) % 3}"
    assert f"Agent {(agent + 1) % 3} must make" in need.question
    plain = hells_kitchen_moment("multiagent_cooking_3_agents_cake_bread_cooked_beef_hells_kitchen", 0)
    plain.goal.hells_kitchen = False
    assert ec_recipe_holder(plain, random.Random(1)) is None and tom_recipe_need(plain, random.Random(1)) is None


def test_hells_kitchen_questions_read_mindcraft_s_two_agent_wording():
    """MINDcraft's goals say "your partner" and give no agent numbers: the partner is the one teammate."""
    import random
    import sys

    sys.path.insert(0, str(REPO_ROOT / "tests" / "oracle"))
    from test_oracle_episodes import _hells_kitchen_goal

    goal_text = _hells_kitchen_goal("cake", "bread", ["Harvest 3 wheat.", "At the crafting table, make bread."])
    view = PromptView(kind="conversing", system="", goal=goal_text)
    moment = Moment("mc", 1.0, "andy", view, "", None, {"andy": {}, "jill": {}}, parse_goal(goal_text))
    holder, need = ec_recipe_holder(moment, random.Random(2)), tom_recipe_need(moment, random.Random(2))
    for probe in (holder, need):
        check_against_state(probe)
    assert holder.options[holder.answer] == "jill" and set(holder.options) == {"jill", "andy"}
    assert need.question.startswith("Jill must make bread.") and need.options[need.answer] == "the recipe for bread"
    three = Moment("mc", 1.0, "andy", view, "", None, {"andy": {}, "jill": {}, "bob": {}}, parse_goal(goal_text))
    assert ec_recipe_holder(three, random.Random(2)) is None and tom_recipe_need(three, random.Random(2)) is None


def _check_text(levels: dict[int, list[tuple[str, int, int, int]]]) -> str:
    """A !checkBlueprint answer: for each level, the blocks still to place (none: complete)."""
    lines = []
    for level, places in sorted(levels.items()):
        if not places:
            lines.append(f"Level {level} is complete")
            continue
        lines.append(f"Level {level} requires the following fixes:")
        lines += [f"Place {block} at coordinates X: {x}, Y: {y}, Z: {z}" for block, x, y, z in places]
    return "\n".join(lines)


def _build_moment(t: float, me: str, reply: str, check: str, team: dict[str, dict[str, int]]) -> Moment:
    goal = "Make a structure with the blueprint below"
    view = PromptView(kind="conversing", name=me, goal=goal, inventory=team[me], inventory_known=True,
                      last_output=check)
    command = ("newAction", ["build"]) if "!" in reply else None
    return Moment("house", t, me, view, reply, command, team, parse_goal(goal))


TEAM = {"andy": {"stone": 4}, "jill": {"oak_planks": 4}}
LEVEL0 = [("stone", 0, -60, 0), ("stone", 1, -60, 0)]
LEVEL1 = [("oak_planks", 0, -59, 0), ("stone", 1, -59, 0)]


@pytest.mark.parametrize("jill_says, jill_built, kept", [
    ("I'll do my part. !newAction(\"Place my blocks.\")", 0, True),   # no "level N" anywhere: read from her check
    ("Building level 0. !newAction(\"Place my blocks.\")", None, True),  # no later check: her words serve
    ("Building level 1. !newAction(\"Place my blocks.\")", 0, False),   # words and deeds disagree: dropped
    ("I'll do my part. !newAction(\"Place my blocks.\")", None, False),  # neither tells
])
def test_where_a_teammate_builds_next_is_read_from_what_it_did_not_one_wording(jill_says, jill_built, kept):
    """andy's check shows level 0 needing andy's stone and jill's planks... jill holds the only planks, so her
    level is 0 by the team's policy; the question about her is kept when the episode shows she built there."""
    import random

    from mindpy.tasks.families.construction.probes import construction_probes

    level0 = [*LEVEL0, ("oak_planks", 2, -60, 0)]
    andy = _build_moment(1.0, "andy", "!checkBlueprint", _check_text({0: level0, 1: LEVEL1}), TEAM)
    moments = [andy, _build_moment(2.0, "jill", jill_says, "", TEAM)]
    if jill_built is not None:
        after = [p for p in level0 if p[0] != "oak_planks"]  # her planks went in; andy's stone is still missing
        moments.append(_build_moment(3.0, "jill", "!checkBlueprint", _check_text({0: after, 1: LEVEL1}), TEAM))
    probes = [p for p in construction_probes(andy, moments, random.Random(0)) if p is not None]
    about_jill = [p for p in probes if p.meta["kind"] == "partner_level"]
    assert len(about_jill) == int(kept), [p.question for p in probes]
    if kept:
        assert about_jill[0].options[about_jill[0].answer] == "level 0"


class OneQuestion(FamilyQuestions):
    """A family's questions of its own: one, about who acts."""

    def questions(self, moment, moments, rng):
        return [make_probe(moment, "EC", "who_acts", "Who acts now?", moment.me, ["nobody"], rng)]


class QuizFamily(Family):
    name = "quiz"
    probes_entry = f"{__name__}:OneQuestion"


@pytest.fixture
def quiz():
    register("quiz", QuizFamily)
    yield
    unregister("quiz")


def test_a_moment_s_questions_are_its_family_s(quiz):
    import random

    view = PromptView(kind="conversing", name="andy", goal="", inventory={}, inventory_known=True)
    moment = Moment("q", 1.0, "andy", view, "", None, {"andy": {}, "jill": {}}, TaskGoal("quiz"))
    assert [p.meta["kind"] for p in questions_for(moment).questions(moment, [moment], random.Random(0))] == \
        ["who_acts"]
    crafting = Moment("c", 1.0, "andy", view, "", None, {"andy": {}}, parse_goal("Craft 2 sticks."))
    assert type(questions_for(crafting)).__module__ == "mindpy.tasks.families.crafting.probes"
    assert type(questions_for(Moment("u", 1.0, "andy", view, "", None, {}))) is FamilyQuestions  # no family
