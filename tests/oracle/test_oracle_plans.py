"""The scripted player's per-family decisions are its families' plans, found through the family registry: no
module of mindpy/oracle or mindpy/probes branches on a goal's kind."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mindpy
from mindpy.oracle.goals import TaskGoal, parse_goal
from mindpy.oracle.plan import OraclePlan, plan_for
from mindpy.oracle.player import Player
from mindpy.oracle.prompt import PromptView
from mindpy.oracle.provider import OracleModel
from mindpy.tasks.family import Family, register, unregister

PACKAGE = Path(mindpy.__file__).resolve().parent


class EchoPlan(OraclePlan):
    """A plan of its own: every turn says the same thing; an echo game's prompts it answers whole."""

    def own_turn(self, view: PromptView, goal: TaskGoal) -> str | None:
        return "Echo. !stay(1)"

    @classmethod
    def claims(cls, system: str) -> bool:
        return "echo game" in system

    def answer(self, system: str, message: str) -> str:
        return f"echo: {message}"


class EchoFamily(Family):
    name = "echo"
    oracle_entry = f"{__name__}:EchoPlan"


@pytest.fixture
def echo():
    register("echo", EchoFamily)
    yield
    unregister("echo")


@pytest.mark.parametrize("goal, family", [
    ("Collaborate with the other agents to craft a wooden_sword.", "crafting"),
    ("Collaborate with the other agents to make baked_potato and bread.", "cooking"),
    ("Make a structure with the blueprint below", "construction"),
    ("Place exactly these 2 blocks, bottom up: yellow_wool at (100, -60, -98), orange_wool at (101, -60, -98).",
     "coblock"),
])
def test_each_family_s_plan_comes_from_its_own_folder(goal, family):
    plan = Player().plan(parse_goal(goal))
    assert type(plan).__module__ == f"mindpy.tasks.families.{family}.oracle"


def test_a_goal_of_no_family_gets_the_default_plan():
    assert plan_for("unknown") is OraclePlan
    assert type(Player().plan(parse_goal("Hello there."))) is OraclePlan


def test_a_registered_family_s_plan_plays_its_goals(echo):
    player = Player()
    assert type(player.plan(TaskGoal("echo"))) is EchoPlan
    assert player.plan(TaskGoal("echo")) is player.plan(TaskGoal("echo"))  # one plan a kind: it may keep state


def test_a_family_s_own_game_is_answered_whole_by_its_plan(echo):
    model = OracleModel()
    assert model.send([{"role": "user", "content": "ping"}], "You play an echo game.").text == "echo: ping"
    crafting = model.send([{"role": "user", "content": "Hi"}], "You are andy. Your task: Craft 2 sticks.").text
    assert not crafting.startswith("echo")  # the player reads the others


def family_branches(folder: Path) -> list[str]:
    """`goal.kind == ...`, `... != goal.kind`, `goal.kind in (...)`: tests of a goal's kind, by line."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                    isinstance(side, ast.Attribute) and side.attr in ("kind", "type") and
                    ast.unparse(side.value).split(".")[-1] in ("goal", "task") for side in (node.left, *node.comparators)):
                where = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE.parent) else path
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("folder", ["oracle", "probes"])
def test_no_family_branch_outside_the_families(folder):
    assert family_branches(PACKAGE / folder) == []


def test_no_module_outside_the_families_tests_a_task_s_type_or_a_goal_s_kind():
    outside = [line for line in family_branches(PACKAGE) if not line.startswith("mindpy/tasks/families/")]
    assert outside == []


def test_the_branch_check_sees_a_branch(tmp_path):
    (tmp_path / "m.py").write_text("def f(task, goal):\n    return task.type == 'orders' or goal.kind != 'x'\n")
    assert [line.split(": ", 1)[1] for line in family_branches(tmp_path)] == ["task.type == 'orders'",
                                                                           "goal.kind != 'x'"]


class BrokenPlanFamily(Family):
    name = "broken_plan"
    oracle_entry = "no_such_module:Plan"


def test_a_family_whose_plan_does_not_load_stops_no_other_game():
    register("broken_plan", BrokenPlanFamily)
    try:
        model = OracleModel()
        reply = model.send([{"role": "user", "content": "Hi"}], "You are andy. Your task: Craft 2 sticks.").text
        assert reply  # the crafting player answers; the broken plan was passed over
    finally:
        unregister("broken_plan")
