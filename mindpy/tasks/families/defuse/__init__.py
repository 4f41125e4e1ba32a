"""The defuse task family: a team finds and defuses colour-coded bombs in five rooms (theory of mind in
teamwork, after Li et al., 2023). `FAMILY` is its Family object (mindpy.tasks.family); the rest of the package is
the pure game (map, rules, knowledge and task files), its world and how an episode is played (play.py).

    from mindpy.tasks.families.defuse import DefuseGame, generate
    game = DefuseGame.from_task(generate("test")["defuse_0"])
    game.act(0, "Inspect Bomb"); game.observation(0).text()

layout.py draws the map, game.py plays it, knowledge.py answers who knows what, generator.py writes task files.
"""

from typing import Any, ClassVar

from ...family import Family
from . import fields as defuse_fields
from . import generator
from . import settings as defuse_settings
from .game import Action, DefuseGame, Observation, parse_action
from .generator import generate, task_dict
from .knowledge import KnowledgeTracker, bomb_sequence, bomb_state, room_contents
from .layout import Layout, generate_layout


class DefuseFamily(Family):
    name = "defuse"
    summary = "a team defuses colour-coded bombs in five rooms, each seeing only its own (theory of mind)"
    fields = defuse_fields.FIELDS
    split_sizes: ClassVar[dict[str, int]] = dict(generator.SPLIT_SIZES)
    play_entry = "mindpy.tasks.families.defuse.play:play"
    oracle_entry = "mindpy.tasks.families.defuse.oracle:DefusePlan"  # the `oracle` model plays its prompts
    episode_options = defuse_settings.OPTIONS  # switches only its episodes take (settings.py)
    command_sets = ("defuse",)  # !inspectBomb, !applyTool, !goToRoom, !broadcast (mindpy.commands.defuse)
    ablations = ("temperature",)  # its turns are played by the game's rules, with no joining message

    def parse_fields(self, parser: Any) -> Any:
        return defuse_fields.parse_fields(parser)

    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        return generator.generate(split, seed, self.count(split, count), agents=agents)  # train leaves test out

    def unsolvable_reason(self, task: Any, version: str) -> str | None:
        return None  # the generator checks that each bomb's cutters are held

    def summarize(self, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        from .summary import defuse_summary

        return defuse_summary(rows)

    summary_key = "defuse"   # settings, points, rounds, valid actions and the ToM probes (summary.py)

    def what(self, task: Any) -> str:
        fields = task.fields
        return "" if fields is None else f"{len(fields.bombs)} bombs, {fields.round_limit} rounds"


FAMILY = DefuseFamily()

__all__ = ["FAMILY", "Action", "DefuseGame", "KnowledgeTracker", "Layout", "Observation", "bomb_sequence", "bomb_state",
           "generate", "generate_layout", "parse_action", "room_contents", "task_dict"]
