"""Blueprints: the level/coordinates/placement format, cells and orientation, scoring against a world given as a
mapping, and the texts of the blueprint commands."""

from __future__ import annotations

import pytest

from mindpy.tasks.blueprint import Blueprint, BlueprintError, block_base_name, from_world_dict

# Two 2x3 levels (rows along Z, columns along X) at (144, -60, -179).
RAW = {
    "materials": {"stone": 5, "oak_door": 1, "glass": 1},
    "levels": [
        {"level": 0, "coordinates": [144, -60, -179],
         "placement": [["oak_door", "stone", "stone"],
                       ["stone", "air", "stone"]]},
        {"level": 1, "coordinates": [144, -59, -179],
         "placement": [["oak_door", "glass", "stone"],
                       ["air", "air", "air"]]},
    ],
}


@pytest.fixture
def bp() -> Blueprint:
    return Blueprint.from_dict(RAW)


def world_of(blueprint: Blueprint, skip: set[tuple[int, int, int]] = frozenset(), **changes) -> dict:
    """The world with the blueprint built exactly, minus `skip` positions."""
    blocks = {(c.x, c.y, c.z): c.block for c in blueprint.cells() if c.block != "air"}
    for pos in skip:
        blocks.pop(pos, None)
    return blocks


def test_cells_follow_rows_along_z_and_columns_along_x(bp):
    cells = bp.cells(0)
    assert [(c.x, c.y, c.z, c.block) for c in cells] == [
        (144, -60, -179, "oak_door"), (145, -60, -179, "stone"), (146, -60, -179, "stone"),
        (144, -60, -178, "stone"), (145, -60, -178, "air"), (146, -60, -178, "stone"),
    ]
    assert all(c.y == -59 for c in bp.cells(1))
    assert bp.size == (3, 2, 2)
    assert bp.bounds() == ((144, -60, -179), (146, -59, -178))
    assert len(bp.cells(include_air=False)) == 8


def test_round_trip_keeps_the_dictionary(bp):
    assert bp.to_dict() == RAW


def test_full_match_scores_one(bp):
    result = bp.compare(from_world_dict(world_of(bp)))
    assert result.score == 1.0 and result.complete
    assert len(result.matches) == 8 and not result.mismatches  # the 4 air cells on air are skipped


def test_half_built_scores_the_built_fraction(bp):
    built = world_of(bp, skip={(144, -59, -179), (145, -59, -179), (146, -59, -179), (144, -60, -179)})
    result = bp.compare(from_world_dict(built))
    assert len(result.matches) == 4 and len(result.mismatches) == 4
    assert result.score == pytest.approx(0.5)
    assert bp.compare(from_world_dict({})).score == 0.0


def test_wrong_block_is_a_mismatch_and_air_air_is_skipped(bp):
    world = world_of(bp)
    world[(145, -60, -179)] = "dirt"          # wrong block where stone is expected
    result = bp.compare(from_world_dict(world))
    assert len(result.mismatches) == 1 and len(result.matches) == 7
    assert result.score == pytest.approx(7 / 8)
    world[(145, -60, -178)] = "cobblestone"   # a block where the blueprint wants air
    result = bp.compare(from_world_dict(world))
    assert len(result.mismatches) == 2 and result.score == pytest.approx(7 / 9)
    assert {(m.expected, m.actual) for m in result.mismatches} == {("stone", "dirt"), ("air", "cobblestone")}


def test_block_names_are_compared_without_namespace_or_states(bp):
    world = {pos: f"minecraft:{name}[half=lower]" for pos, name in world_of(bp).items()}
    world[(145, -60, -178)] = "cave_air"
    assert bp.score(lambda x, y, z: world.get((x, y, z))) == 1.0   # None and cave_air are air
    assert block_base_name(None) == "air"
    assert block_base_name("minecraft:oak_stairs[facing=east]") == "oak_stairs"


def test_all_air_blueprint_on_air_scores_one():
    empty = Blueprint.from_dict({"levels": [{"level": 0, "coordinates": [0, 0, 0], "placement": [["air"]]}]})
    assert empty.compare(from_world_dict({})).score == 1.0


def test_check_level_text_lists_fixes_like_mindcraft(bp):
    world = world_of(bp, skip={(144, -60, -179)})
    world[(145, -60, -178)] = "dirt"
    world[(146, -60, -178)] = "cobblestone"
    text = bp.check_level_text(0, from_world_dict(world))
    assert text == ("Level 0 requires the following fixes:\n"
                    "Place oak_door at coordinates X: 144, Y: -60, Z: -179\n"
                    "Remove the dirt at coordinates X: 145, Y: -60, Z: -178\n"
                    "Replace the cobblestone with a stone at coordinates X: 146, Y: -60, Z: -178\n")
    assert bp.check_level_text(1, from_world_dict(world)) == "Level 1 is complete"
    assert "does not exist" in bp.check_level_text(5, from_world_dict(world))


def test_check_blueprint_text_covers_every_level(bp):
    assert bp.check_text(from_world_dict(world_of(bp))) == "Blueprint is complete"
    text = bp.check_text(from_world_dict(world_of(bp, skip={(146, -59, -179)})))
    assert text == ("Level 0 is complete\n"
                    "Level 1 requires the following fixes:\n"
                    "Place stone at coordinates X: 146, Y: -59, Z: -179\n")


def test_get_blueprint_texts(bp):
    overview = bp.describe_text()
    assert "2 levels" in overview and "3 blocks along X by 2 along Z" in overview
    assert "Materials: stone: 5, oak_door: 1, glass: 1" in overview
    assert "Level 0: starts at X: 144, Y: -60, Z: -179" in overview
    assert "Level 1: starts at X: 144, Y: -59, Z: -179; glass 1, oak_door 1, stone 1" in overview
    level = bp.level_text(0)
    assert level.startswith("Level 0 starting at coordinates X: 144, Y: -60, Z: -179")
    assert "[oak_door, stone, stone],\n[stone, air, stone],\n]" in level
    with pytest.raises(BlueprintError, match="Level 2 does not exist"):
        bp.level_at(2)


def test_required_items_count_a_two_high_door_once(bp):
    assert bp.required_items() == {"glass": 1, "oak_door": 1, "stone": 5}
    tall = Blueprint.from_dict({"levels": [
        {"level": i, "coordinates": [0, i, 0], "placement": [["oak_door"]]} for i in range(4)]})
    assert tall.required_items() == {"oak_door": 2}


def test_commands_for_building_and_clearing(bp):
    commands = bp.setblock_commands()
    assert commands[0] == "/setblock 144 -60 -179 oak_door" and len(commands) == 8
    assert bp.clear_commands() == ["/fill 144 -60 -179 146 -60 -178 air", "/fill 144 -59 -179 146 -59 -178 air"]


def test_fingerprint_tells_blueprints_apart(bp):
    other = Blueprint.from_dict({**RAW, "levels": [RAW["levels"][0]]})
    assert bp.fingerprint() == Blueprint.from_dict(RAW).fingerprint()
    assert bp.fingerprint() != other.fingerprint()


@pytest.mark.parametrize("raw, message", [
    ({"levels": []}, "blueprint.levels' must be a non-empty list"),
    ({"levels": [{"level": 0, "coordinates": [1, 2], "placement": [["stone"]]}]},
     "blueprint.levels[0].coordinates' must be three integers"),
    ({"levels": [{"level": 0, "coordinates": [1, 2, 3], "placement": [["stone", 5]]}]},
     "blueprint.levels[0].placement[0]' must be a list of block names"),
    ({"levels": [{"level": 0, "coordinates": [0, 0, 0], "placement": [["stone"]]},
                 {"level": 0, "coordinates": [0, 1, 0], "placement": [["stone"]]}]},
     "repeats level number 0"),
    ({"materials": {"stone": 10 ** 30}, "levels": [{"level": 0, "coordinates": [0, 0, 0], "placement": [["stone"]]}]},
     "blueprint.materials.stone' must be an integer from 0 to 2304"),
])
def test_malformed_blueprints_are_refused(raw, message):
    with pytest.raises(BlueprintError) as err:
        Blueprint.from_dict(raw)
    assert message in str(err.value)


def test_unknown_blocks_are_reported_with_a_suggestion():
    from mindpy.tasks.schema import NameChecker

    names = NameChecker.for_version()
    with pytest.raises(BlueprintError, match="unknown block 'stone_brick' \\(did you mean 'stone_bricks'\\?\\)"):
        Blueprint.from_dict({"levels": [{"level": 0, "coordinates": [0, 0, 0], "placement": [["stone_brick"]]}]},
                            block_check=names.block_problem)


def test_command_answers_by_command_name():
    from mindpy.tasks.blueprint import check_blueprint, check_blueprint_level, get_blueprint, get_blueprint_level

    # the paper's example: one door missing on level 0
    door = Blueprint.from_dict({"levels": [{"level": 0, "coordinates": [144, -60, -179],
                                            "placement": [["oak_door", "stone"]]}]})
    world = from_world_dict({(145, -60, -179): "stone"})
    assert check_blueprint_level(door, 0, world) == ("Level 0 requires the following fixes:\n"
                                                     "Place oak_door at coordinates X: 144, Y: -60, Z: -179\n")
    assert check_blueprint(door, world) == check_blueprint_level(door, 0, world)
    world = from_world_dict({(144, -60, -179): "oak_door", (145, -60, -179): "stone"})
    assert check_blueprint_level(door, 0, world) == "Level 0 is complete"
    assert check_blueprint(door, world) == "Blueprint is complete"
    assert get_blueprint(door) == door.describe_text() and "Materials: oak_door: 1, stone: 1" in get_blueprint(door)
    assert get_blueprint_level(door, 0).endswith("[oak_door, stone],\n]\n")
