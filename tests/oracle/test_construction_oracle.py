"""The construction oracle's building without cheats, as pure functions: where the house is, where an idle agent
stands out of the way, which levels need climbing, and the build code picking up what it clears."""

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


def test_a_roof_needs_climbing_and_the_walls_do_not():
    site = Site(150, 158, -170, -166, -60)
    assert not construction.needs_climbing([Fix(3, "place", "sandstone", 150, -57, -170)], site)
    assert construction.needs_climbing([Fix(4, "place", "sandstone", 150, -56, -170)], site)
    assert not construction.needs_climbing([Fix(5, "remove", "air", 150, -55, -170)], site)


def test_the_build_code_picks_up_what_it_clears():
    code = construction.build_code(construction.parse_check(CHECK) or [])
    assert "break_block_at" in code and "pickup_nearby_items" in code


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
    assert [builds(ROOF_WAITS) for _ in range(MAX_REPEATS + 1)] == [False] * MAX_REPEATS + [True]
    assert [builds(WALL_DONE) for _ in range(MAX_REPEATS + 1)] == [True] * MAX_REPEATS + [False]
    assert builds(STAIRS_DONE)  # someone else's progress: my share is the same, and I try it again
