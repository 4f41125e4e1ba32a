"""The CoBlock reflection program (mindpy.tasks.families.coblock.review): the paper's review (the built structure
against one agent's private goal and the blocks it placed, nothing of its partner's cells) and our longer one
(`detail`: also against the target structure G), on tasks of the committed test split; and the site read from a
real world."""

from __future__ import annotations

import dataclasses

import pytest

from coblock_helpers import moved
from conftest import REPO_ROOT, isolate, wait_until
from mindpy.tasks import load_tasks
from mindpy.tasks.families.coblock.review import (
    MOST_REVIEW_LINES,
    REFLECTION,
    ReviewError,
    built_blocks,
    review,
    review_text,
    structure_cells,
)
from mindpy.tasks.families.coblock.site import site_box
from mindpy.world import bulk


@pytest.fixture(scope="module")
def tasks():
    return load_tasks(REPO_ROOT / "tasks" / "coblock_test.json")


def whole(task) -> dict:
    """G built exactly."""
    return dict(structure_cells(task))


def test_nothing_built_lists_the_ground_blocks_of_my_goal(tasks):
    task = tasks["coblock_independent_0"]
    assert review(task, 0, {}, detail=True) == [
        "missing yellow_wool at (100, -60, -98) of your goal: it can be placed now.",
        "missing orange_wool at (101, -60, -98) of your goal: it can be placed now.",
    ]
    # and agent 1 gets its own ground block, not agent 0's
    assert review(task, 1, {}, detail=True) == [
        "missing yellow_wool at (102, -60, -98) of your goal: it can be placed now."]


def test_the_whole_structure_built_is_nothing_wrong(tasks):
    for task in tasks.values():
        for agent in (0, 1):
            assert review(task, agent, whole(task), detail=True) == [], task.id
    text = review_text([])
    assert "nothing wrong" in text and text.endswith(REFLECTION)


def test_a_wrong_colour_is_named_to_its_owner_only(tasks):
    task = tasks["coblock_independent_0"]
    built = whole(task)
    built[(101, -59, -98)] = "red_wool"  # agent 0's cell, blue_wool in its goal
    mine = review(task, 0, built, detail=True)
    assert mine == ["block at (101, -59, -98) is red_wool, your goal says blue_wool: break it and place blue_wool."]
    theirs = review(task, 1, built, detail=True)
    assert len(theirs) == 1 and theirs[0].startswith("block at (101, -59, -98) is red_wool, but the structure needs "
                                                     "another block there")
    assert "blue_wool" not in theirs[0]  # agent 0's goal is private


def test_the_papers_review_names_my_wrong_and_extra_blocks_and_nothing_of_my_partners_cells(tasks):
    task = tasks["coblock_independent_0"]
    built = whole(task)
    built[(101, -59, -98)] = "red_wool"     # agent 0's cell, blue_wool in its goal
    built[(102, -59, -99)] = "purple_wool"  # agent 1's cell, orange_wool in its goal, placed by agent 0
    built[(105, -60, -95)] = "purple_wool"  # not in G, placed by agent 1
    own0 = {(102, -59, -99): "purple_wool", (101, -59, -98): "red_wool"}
    mine = review(task, 0, built, own=own0)
    assert mine == ["block at (101, -59, -98) is red_wool, your goal says blue_wool: break it and place blue_wool.",
                    "purple_wool at (102, -59, -99), placed by you, is not a block of your goal: break it unless "
                    "your partner asked you for it."]
    text = review_text(mine)
    assert "not a partial structure of your goal" in text and text.endswith(REFLECTION)
    # agent 1: its own cell holds agent 0's wrong block (a wrong block of its goal); its extra block outside G it
    # placed itself; agent 0's red_wool in agent 0's cell is never named to it, nor is anything of G it does not know
    theirs = review(task, 1, built, own={(105, -60, -95): "purple_wool"})
    assert theirs == ["block at (102, -59, -99) is purple_wool, your goal says orange_wool: break it and place "
                      "orange_wool.", "purple_wool at (105, -60, -95), placed by you, is not a block of your goal: "
                                      "break it unless your partner asked you for it."]
    assert not any("(101, -59, -98)" in line or "structure needs" in line for line in theirs)
    # our longer review says more: the clash in the partner's cell, the extra outside G
    detailed = review(task, 1, built, detail=True)
    assert any("(101, -59, -98)" in line and "partner's part" in line for line in detailed)
    # without the record (own=None) only the goal's cells are reviewed; a right build is a partial structure
    assert review(task, 0, whole(task)) == [] and "is a partial structure of your goal" in review_text([])
    assert review(task, 0, {(100, -60, -98): "yellow_wool"}, own={(100, -60, -98): "yellow_wool"}) == []


def test_extra_and_floating_blocks(tasks):
    task = tasks["coblock_independent_0"]
    built = whole(task)
    built[(105, -60, -95)] = "purple_wool"           # not in G, on the ground
    for cell in ((101, -59, -99), (101, -59, -98)):  # agent 0's lower blue blocks broken: the rest of its column
        del built[cell]                              # still stands on agent 1's orange wall beside it
    built[(107, -57, -93)] = "green_wool"            # not in G, in mid air
    lines = review(task, 0, built, detail=True)
    assert "block at (105, -60, -95) is purple_wool, but the structure has no block there: break it." in lines
    assert "block at (107, -57, -93) is green_wool, but the structure has no block there: break it." in lines
    assert "block at (107, -57, -93) (green_wool) floats: nothing joins it to the ground." in lines
    assert not any("(105, -60, -95) (purple_wool) floats" in line for line in lines)
    # the broken blues are missing and can go back at once (the block above and the ground block hold them)
    assert "missing blue_wool at (101, -59, -98) of your goal: it can be placed now." in lines
    assert "missing blue_wool at (101, -59, -99) of your goal: it can be placed now." in lines
    # the order: wrong blocks, blocks not in G, floating ones, then what is missing
    assert [line.split(" ", 1)[0] for line in lines] == ["block", "block", "block", "missing", "missing"]


def test_a_column_cut_from_the_ground_floats(tasks):
    task = tasks["coblock_independent_0"]
    goal = {cell: block for cell, block in whole(task).items() if cell[0] == 101 and cell[2] == -98 and cell[1] > -58}
    lines = review(task, 0, goal, detail=True)  # only the greens (y -57 to -55) and nothing under them
    assert [line for line in lines if "floats" in line] == [
        f"block at (101, {y}, -98) (green_wool) floats: nothing joins it to the ground." for y in (-57, -56, -55)]


def test_a_colour_i_was_not_given_is_for_my_partner_to_place(tasks):
    task = tasks["coblock_skill_dependent_0"]  # agent 1 needs a yellow_wool, which only agent 0 holds
    assert "yellow_wool" not in task.inventory_for(1)
    lines = review(task, 1, {}, detail=True)
    assert lines[0] == ("missing yellow_wool at (100, -60, -98) of your goal: it can be placed now. You were given no "
                        "yellow_wool: ask your partner to place it.")
    assert "ask your partner" not in lines[1]  # orange_wool it holds


def test_a_goal_on_the_partners_part_waits_for_its_support(tasks):
    task = tasks["coblock_goal_dependent_0"]  # agent 0's blocks rest on agent 1's
    assert review(task, 0, {}, detail=True) == []  # nothing of its goal can be placed yet, and nothing is wrong
    built = {(102, -60, -98): "yellow_wool"}  # agent 1 built the block under one of them
    assert review(task, 0, built, detail=True) == [
        "missing orange_wool at (102, -59, -98) of your goal: it can be placed now."]


def test_names_from_the_world_are_normalised(tasks):
    task = tasks["coblock_independent_0"]
    built = {cell: f"minecraft:{block}" for cell, block in whole(task).items()}
    built[(106, -60, -94)] = "air"
    built[(106, -60, -93)] = None  # not seen
    assert review(task, 0, built, detail=True) == []


def test_bad_agent_or_task_is_one_clear_line(tasks):
    with pytest.raises(ReviewError, match=r"^task coblock_independent_0 has no private goal for agent 2 "
                                          r"\(goals for agents: 0, 1\)$"):
        review(tasks["coblock_independent_0"], 2, {}, detail=True)
    construction = dataclasses.replace(tasks["coblock_independent_0"], type="construction", fields=None)
    with pytest.raises(ReviewError, match="has no private goal for agent 0 \\(goals for agents: none\\)"):
        review(construction, 0, {}, detail=True)


def test_review_text_bounds_the_list_and_asks_to_reflect():
    lines = [f"block at ({i}, -60, 0) is red_wool, but the structure has no block there: break it." for i in range(20)]
    text = review_text(lines)
    shown = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(shown) == MOST_REVIEW_LINES + 1 and shown[-1] == f"- ...and {20 - MOST_REVIEW_LINES} more."
    assert "(0, -60, 0)" in text and "(19, -60, 0)" not in text
    for word in ("role", "lead", "helping", "partner needs", "asking"):
        assert word in text, word
    assert text.startswith("Review of the structure after this round") and "nothing wrong" not in text


# ----- on a real world -----
def test_the_site_read_from_the_world_is_reviewed(tasks, make_bot):
    bot = make_bot("reviewer")
    x, _, z = isolate(bot)
    task = moved(tasks["coblock_independent_0"], x - 105, z + 95)  # the site's middle under the bot
    (x0, y0, z0), (x1, y1, z1) = task.blueprint.bounds()
    sx0, sy0, sz0, sx1, sy1, sz1 = site_box(task)  # the whole site is read: empty it all, margin included
    bot.command(f"/fill {sx0} {sy0} {sz0} {sx1} {sy1} {sz1} air")
    goal0 = task.fields.private_goals["0"]
    yellow, orange = goal0[0], goal0[1]
    wrong = goal0[3]  # blue_wool in the goal, on the orange_wool of the ground layer
    placed = {(yellow[0], yellow[1], yellow[2]): "yellow_wool", (orange[0], orange[1], orange[2]): "orange_wool",
              (wrong[0], wrong[1], wrong[2]): "red_wool", (x1, y0, z1): "stone"}  # the last in a corner, not in G
    for (bx, by, bz), name in placed.items():
        bot.command(f"/setblock {bx} {by} {bz} {name}")
    wait_until(lambda: bulk.block_map(bot, placed) == placed, timeout=10, message="the blocks set in the site")
    built = built_blocks(bot, task)
    assert built == placed  # every block of the box is read, and only the non-air ones come back
    lines = review(task, 0, built, detail=True)
    assert (f"block at ({wrong[0]}, {wrong[1]}, {wrong[2]}) is red_wool, your goal says blue_wool: break it and "
            f"place blue_wool.") in lines
    assert f"block at ({x1}, {y0}, {z1}) is stone, but the structure has no block there: break it." in lines
    assert not any("floats" in line for line in lines)


def test_the_reviewer_after_a_round_gives_each_reflecting_agent_its_own_review(tasks, monkeypatch):
    """Reviewer (reflection on): andy's wrong block in his goal is named to him; jill, whose goal holds nothing
    wrong, hears nothing of andy's cells; with review_detail (ours) she hears of the clash in her partner's part."""
    from types import SimpleNamespace

    import mindpy.tasks.families.coblock.reflection as reflection
    from mindpy.memory import History
    from mindpy.tasks.families.coblock.record import PLACE, PublicRecord

    task = tasks["coblock_independent_0"]
    built = {(100, -60, -98): "blue_wool"}  # andy's cell: his goal says yellow_wool
    monkeypatch.setattr(reflection, "built_blocks", lambda bot, task: dict(built))
    record = PublicRecord()
    record.acted("andy", PLACE, (100, -60, -98), "blue_wool")

    def member(name: str, detail: bool = False) -> SimpleNamespace:
        return SimpleNamespace(name=name, bot=None, history=History(name), public_record=record,
                               prompter=SimpleNamespace(reflection=True, review_detail=detail))

    agents = {"andy": member("andy"), "jill": member("jill")}
    reflection.Reviewer(task, ["andy", "jill"], lambda: agents).review_all()
    andy, jill = (agents[n].history.turns[-1]["content"] for n in ("andy", "jill"))
    assert "block at (100, -60, -98) is blue_wool, your goal says yellow_wool" in andy
    assert "not a partial structure of your goal" in andy and andy.endswith(REFLECTION)
    assert "(100, -60, -98)" not in jill and "nothing wrong" in jill
    agents["jill"] = member("jill", detail=True)
    reflection.Reviewer(task, ["andy", "jill"], lambda: agents).review_all()
    assert "(100, -60, -98)" in agents["jill"].history.turns[-1]["content"]  # the clash in the partner's part
