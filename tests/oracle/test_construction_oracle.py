"""The construction oracle's building without cheats, as pure functions: where the house is, where an idle agent
stands out of the way, when to climb, and the build code's passes and what it clears."""

from __future__ import annotations

from mindpy.oracle import construction
from mindpy.oracle.construction import Fix, Site

CHECK = ("Level 0 is complete\nLevel 5 requires the following fixes:\n"
         "Place sandstone at coordinates X: 150, Y: -55, Z: -170\n"
         "Replace the dirt with a sandstone at coordinates X: 158, Y: -55, Z: -166\n")


def test_the_site_grows_with_every_check_and_idle_agents_stand_outside_it():
    fixes = construction.parse_check(CHECK)
    assert fixes is not None
    site = construction.site_of(fixes, Site(152, 154, -168, -167, -60))
    assert site == Site(150, 158, -170, -166, -60)
    x, y, z = construction.park_spot(site)
    assert (x < site.min_x or x > site.max_x) and (z < site.min_z or z > site.max_z) and y == site.ground
    assert construction.site_of([], site) is site


def test_only_a_build_that_could_not_reach_a_block_on_foot_calls_for_climbing():
    done = "Level 4: placed 12 of 12 blocks; cleared 0 ; unreachable: 0"
    waiting = "Nothing to place sandstone against at x: 1, y: 2, z: 3.\nLevel 4: placed 0 of 1 blocks; cleared 0 ; " \
              "unreachable: 0"
    assert construction.is_build_output(done) and not construction.reach_failed(done)
    assert not construction.reach_failed(waiting)
    assert construction.reach_failed("Level 8: placed 3 of 9 blocks; cleared 0 ; unreachable: 6")
    assert not construction.reach_failed("Could not find a path there: the path search took too long\n"
                                         "Level 3: placed 42 of 42 blocks; cleared 0 ; unreachable: 0")
    assert not construction.is_build_output("Level 0 is complete")


CEILING = ("Level 4 requires the following fixes:\n"
           "Place sandstone at coordinates X: 152, Y: -56, Z: -168\n"   # inner: against the one beside it
           "Place sandstone at coordinates X: 151, Y: -56, Z: -168\n")  # outer: against the wall below


def run_build(code: str, built: dict[tuple[int, int, int], str]) -> str:
    """Run build code against a fake world where a block needs a neighbour in `built`; what it printed."""
    printed: list[str] = []

    def neighbours(x, y, z):
        return [(x + dx, y + dy, z + dz) for dx, dy, dz in
                ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]

    class Skills:
        def place_block(self, name, x, y, z):
            if not any(n in built for n in neighbours(x, y, z)):
                return False
            built[(x, y, z)] = name
            return True

    class World:
        def block_at(self, x, y, z):
            return {"name": built.get((x, y, z), "air")}

    body = code.split("```python\n")[1].rsplit("```", 1)[0]
    exec(body, {"skills": Skills(), "world": World(), "print": lambda *a: printed.append(" ".join(map(str, a)))})
    return "\n".join(printed)


def test_the_build_code_tries_again_what_had_nothing_to_place_against():
    """A ceiling's inner blocks have nothing to place against until its outer ones are in: a second pass."""
    built = {(151, -57, -168): "spruce_planks"}  # the wall's top
    out = run_build(construction.build_code(construction.parse_check(CEILING) or []), built)
    assert built[(152, -56, -168)] == "sandstone" and "placed 2 of 2" in out and "unreachable: 0" in out
    assert not construction.reach_failed(out)


def test_a_block_with_support_that_was_not_placed_counts_as_out_of_reach():
    # the outer block has the wall to place against, but every placement fails, as when out of reach
    code = construction.build_code(construction.parse_check(CEILING) or []).replace(
        "skills.place_block(*block)", "False")
    out = run_build(code, {(151, -57, -168): "spruce_planks"})
    assert "placed 0 of 2" in out and "unreachable: 1" in out and construction.reach_failed(out)


ROOF_WAITS = ("Level 0 is complete\nLevel 3 requires the following fixes:\n"
              "Place spruce_planks at coordinates X: 156, Y: -57, Z: -167\n"
              "Level 4 requires the following fixes:\n"
              "Place sandstone at coordinates X: 150, Y: -56, Z: -170\n"
              "Place oak_stairs at coordinates X: 154, Y: -56, Z: -166\n")
WALL_DONE = ROOF_WAITS.replace("Level 3 requires the following fixes:\n"
                               "Place spruce_planks at coordinates X: 156, Y: -57, Z: -167\n", "Level 3 is complete\n")
STAIRS_DONE = WALL_DONE.replace("Place oak_stairs at coordinates X: 154, Y: -56, Z: -166\n", "")


def test_an_agent_builds_bottom_up_and_tries_again_after_anyone_s_progress():
    """Its roof waits while a partner's wall below is unfinished (nothing to place against yet), though not for
    ever; its tries are counted against the whole check, so a partner's progress (the stairs, not its share) earns
    new ones."""
    from mindpy.oracle.player import MAX_REPEATS, Player
    from mindpy.oracle.prompt import PromptView
    from mindpy.tasks.families.construction.oracle import ConstructionPlan

    plan = ConstructionPlan(Player())
    plan.player.set_task({"building_assistance": True}, 1)  # no climbing: the moves below are builds or waits

    def builds(check: str) -> bool:
        view = PromptView(kind="conversing", name="jill", others=["andy"], inventory={"sandstone": 10},
                          inventory_known=True, last_output=check)
        plan.mem.calls += 1
        found = plan._build(view)
        return found is not None and found.command.startswith("!newAction")

    # andy's wall first; should it stall, what has something to stand on is placed after all
    waits = construction.LOWER_LEVEL_WAITS
    assert [builds(ROOF_WAITS) for _ in range(waits + 1)] == [False] * waits + [True]
    assert [builds(WALL_DONE) for _ in range(MAX_REPEATS + 1)] == [True] * MAX_REPEATS + [False]
    assert builds(STAIRS_DONE)  # someone else's progress: my share is the same, and I try it again


WITH_DOOR = ("Level 0 is complete\nLevel 1 requires the following fixes:\n"
             "Place oak_door at coordinates X: 154, Y: -59, Z: -170\n"
             "Place spruce_planks at coordinates X: 155, Y: -59, Z: -170\n"
             "Level 2 requires the following fixes:\n"
             "Place oak_door at coordinates X: 154, Y: -58, Z: -170\n"
             "Level 4 requires the following fixes:\n"
             "Place sandstone at coordinates X: 154, Y: -56, Z: -168\n")


def test_doors_go_in_after_everything_else():
    """A door shuts the doorway the builders walk through (the pathfinder cannot pass one): it waits for the rest,
    and a level whose only gap is its door does not hold back the levels above."""
    fixes = construction.parse_check(WITH_DOOR) or []
    walls = {"oak_door": 3, "spruce_planks": 10}
    assert [f.block for f in construction.my_fixes(fixes, walls, lead=False, doors_last=True)] == ["spruce_planks"]
    rest = [f for f in fixes if f.block != "spruce_planks"]
    assert [f.level for f in construction.in_order(rest)] == [4]
    assert construction.my_fixes(rest, {"sandstone": 5}, lead=False, doors_last=True)[0].level == 4
    assert construction.my_fixes(rest, walls, lead=False, doors_last=True) == []
    doors_only = [f for f in rest if construction.is_door(f)]
    assert [(f.level, f.block) for f in construction.my_fixes(doors_only, walls, lead=False, doors_last=True)] == [(1, "oak_door")]
    assert not construction.is_door(Fix(1, "place", "oak_trapdoor", 0, 0, 0))
    # blocks set by command (building assistance) walk through nothing: the door goes in with its level
    assert {f.block for f in construction.my_fixes(fixes, walls, lead=False)} == {"oak_door", "spruce_planks"}


def test_a_level_is_built_round_its_middle_each_block_near_the_last():
    """A wall ring in the check's order (row by row) jumps from one side of the house to the other; round the
    middle, each block is a step or two from the last (a builder on a dirt pillar reaches the next ones from it)."""
    ring = [Fix(5, "place", "spruce_planks", x, -55, z) for z in range(-170, -163) for x in range(150, 163)
            if x in (150, 162) or z in (-170, -164)]

    def longest_step(order):
        return max(abs(a.x - b.x) + abs(a.z - b.z) for a, b in zip(order, order[1:]))

    assert longest_step(ring) >= 12
    walk = construction.round_the_level(ring)
    assert sorted(walk, key=lambda f: (f.z, f.x)) == ring and longest_step(walk) <= 2


def test_by_hand_a_storey_s_wall_goes_up_in_one_go_each_column_bottom_to_top():
    """Three levels of wall from one round of dirt pillars, not three: each column's blocks in a row, lowest first
    (the one below is what the next is placed against)."""
    wall = [Fix(level, "place", "spruce_planks", x, -60 + level, -170) for level in (5, 6, 7, 8)
            for x in range(150, 154)]
    mine = construction.my_fixes(wall, {"spruce_planks": 99}, lead=False, levels=construction.LEVELS_BY_HAND)
    assert sorted({f.level for f in mine}) == [5, 6, 7]
    assert construction.my_fixes(wall, {"spruce_planks": 99}, lead=False) == [f for f in wall if f.level == 5]
    walk = construction.round_the_level(mine)
    columns = [(f.x, f.z) for f in walk]
    assert all(columns[i] == columns[i + 1] == columns[i + 2] for i in range(0, len(walk), 3))
    assert all([f.level for f in walk[i:i + 3]] == [5, 6, 7] for i in range(0, len(walk), 3))
    assert construction.levels_text(mine) == "Levels 5-7" and construction.levels_text(mine[:1]) == "Level 5"
    out = "Placed spruce_planks at x: 150, y: -55, z: -170.\nLevels 5-7: placed 12 of 12 blocks; cleared 0 ; " \
          "unreachable: 0"
    assert construction.is_build_output(out) and not construction.reach_failed(out)


def test_a_build_cut_short_that_wanted_dirt_to_climb_calls_for_climbing():
    """An interrupted build prints no summary; the placing skill's own words still say climbing would help."""
    cut = ("Code output:\nCould not find a path there: the path search took too long (no dirt to climb on to reach "
           "x: 150, y: -52, z: -168 from x: 151, y: -59, z: -168)\n(interrupted)\nThe code was stopped before it "
           "finished.")
    assert construction.is_build_output(cut) and construction.reach_failed(cut)


def test_a_cut_build_is_read_whatever_system_turn_follows_it():
    """A build interrupted (the unstuck mode, a partner's message) is followed by more system turns; the build's
    words about blocks out of reach still count, and a later complete build clears them."""
    from mindpy.oracle.player import Player
    from mindpy.oracle.prompt import PromptView
    from mindpy.tasks.families.construction.oracle import ConstructionPlan

    plan = ConstructionPlan(Player())
    cut = ("Code output:\nCould not find a path there (no dirt to climb on to reach x: 150, y: -52, z: -168 from "
           "x: 151, y: -59, z: -168)\n(interrupted)")
    note = "Your previous action 'action:newAction' was interrupted by the unstuck mode."
    plan.observe(PromptView(kind="conversing", name="andy", outputs=[cut, note], last_output=note))
    assert plan._unreached
    plan.observe(PromptView(kind="conversing", name="andy", outputs=["Stayed for 5 seconds."],
                            last_output="Stayed for 5 seconds."))
    assert plan._unreached  # nothing built since: still out of reach
    done = "Levels 8-8: placed 9 of 9 blocks; cleared 0 ; unreachable: 0"
    plan.observe(PromptView(kind="conversing", name="andy", outputs=[done, note], last_output=note))
    assert not plan._unreached


def test_a_build_stops_after_a_few_blocks_in_a_row_out_of_reach():
    """A roof out of reach on foot: every block has the wall to place against and fails. The build stops after a
    few (each may have cost a long path search) and counts the rest as out of reach, so its builder goes for dirt
    to climb on instead of searching paths past the time limit."""
    roof = [Fix(8, "place", "sandstone", x, -52, -168) for x in range(150, 160)]
    code = construction.build_code(roof)
    tried: list[tuple[int, int, int]] = []
    code = code.replace("skills.place_block(*block)", "tried.append(block[1:]) or False")
    printed: list[str] = []
    wall_top = {(x, -53, -168) for x in range(150, 160)}

    class World:
        def block_at(self, x, y, z):
            return {"name": "sandstone" if (x, y, z) in wall_top else "air"}

    body = code.split("```python\n")[1].rsplit("```", 1)[0]
    exec(body, {"skills": None, "world": World(), "tried": tried,
                "print": lambda *a: printed.append(" ".join(map(str, a)))})
    out = "\n".join(printed)
    assert len(tried) == construction.MISSES_IN_A_ROW
    assert "placed 0 of 10" in out and "unreachable: 10" in out and construction.reach_failed(out)
    # a storey's wall and its roof in one go: roof blocks with nothing under them yet, between wall blocks out of
    # reach, do not start the count again
    wall_top.difference_update({(x, -53, -168) for x in range(150, 160, 2)})
    tried.clear()
    printed.clear()
    exec(body, {"skills": None, "world": World(), "tried": tried,
                "print": lambda *a: printed.append(" ".join(map(str, a)))})
    assert len(tried) <= 2 * construction.MISSES_IN_A_ROW and "unreachable: 5" in "\n".join(printed)
