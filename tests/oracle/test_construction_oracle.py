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
