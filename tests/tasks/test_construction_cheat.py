"""Construction builds without cheats by default (the paper's default configuration): an agent set up as the family
sets it up places only blocks it holds, by hand; `--cheat` (or a profile's own cheat mode) turns /setblock on, the
setting is recorded, and runs of different settings are not compared."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace

from conftest import REPO_ROOT, give_more, isolate, wait_until
from mindpy.agent.modes import ModeController
from mindpy.harness.compare import RunSummary, settings_clash
from mindpy.harness.options import EpisodeOptions, add_method_options, method_options
from mindpy.harness.session import write_profiles
from mindpy.profiles import load_profile
from mindpy.skills import Skills
from mindpy.tasks.families.construction import FAMILY
from mindpy.tasks.loader import load_tasks
from mindpy.tasks.records import EpisodeResult, Summary
from mindpy.world import bulk

TASK_ID = "materials_0_rooms_0_window_0_carpet_0_variant_0"


def _flags(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_method_options(parser)
    return parser.parse_args(list(argv))


def test_an_agent_set_up_for_construction_places_only_what_it_holds(make_bot, tmp_path):
    """The agent's modes as an episode gives them (base profile, then the family's configure_agent): a block it
    does not hold cannot appear; a block it holds is placed and leaves its inventory."""
    task = load_tasks(REPO_ROOT / "tasks" / "construction_test.json")[TASK_ID]
    [path] = write_profiles(tmp_path, ["builder"], None, FAMILY.base_profile, {})
    bot = make_bot("builder")
    x, y, z = isolate(bot)
    skills = Skills(bot)
    modes = ModeController(bot, skills, SimpleNamespace(executing=False))
    modes.apply_profile(load_profile(path).modes)
    FAMILY.configure_agent(task, SimpleNamespace(modes=modes, skills=skills))
    modes.get("cheat").update(modes, {})  # what the agent's tick does: the skills take the mode's state

    assert not skills.place_block("stone_bricks", x + 2, y, z)
    assert "do not have any stone_bricks" in skills.take_log()
    assert bulk.block_names(bot, [(x + 2, y, z)]) == ["air"]

    give_more(bot, "oak_planks", 1)
    assert skills.place_block("oak_planks", x + 2, y, z), skills.take_log()
    assert bulk.block_names(bot, [(x + 2, y, z)]) == ["oak_planks"]
    assert wait_until(lambda: bot.inventory().get("oak_planks", 0) == 0, message="the plank to leave the inventory")


def test_the_cheat_flag_reaches_the_profiles_and_crosses_to_episodes(tmp_path: Path):
    assert "cheat" not in method_options(_flags())
    options = EpisodeOptions.from_args(_flags("--cheat"), budget=None)
    assert options.profile_options["cheat"] is True
    assert EpisodeOptions.from_json(options.to_json()).profile_options["cheat"] is True
    [on] = write_profiles(tmp_path / "on", ["andy"], None, FAMILY.base_profile, {"cheat": True})
    [off] = write_profiles(tmp_path / "off", ["andy"], None, FAMILY.base_profile, {})
    assert load_profile(on).modes["cheat"] is True
    assert load_profile(off).modes["cheat"] is False


def test_the_setting_is_recorded_and_runs_of_different_settings_are_not_compared():
    assert EpisodeResult.from_dict({"task_id": "t", "type": "construction", "cheat": True}).cheat is True
    runs = [RunSummary(label, Path(label), Summary.from_dict({"success_rate": 0.5, "cheat": cheat}))
            for label, cheat in (("plain", False), ("cheats", True))]
    clash = settings_clash(runs)
    assert clash is not None and "cheats: cheat=True" in clash and "plain: cheat=False" in clash and "\n" not in clash
    assert settings_clash(runs[:1]) is None
    old = RunSummary("old", Path("old"), Summary.from_dict({"success_rate": 0.5}))  # before the setting was kept
    assert settings_clash([runs[0], old]) is None
