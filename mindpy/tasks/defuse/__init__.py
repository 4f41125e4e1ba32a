"""The defuse task family: a team finds and defuses colour-coded bombs in five rooms (theory of mind in
teamwork, after Li et al., 2023). This package is the pure game: map, rules, knowledge and task files.

    from mindpy.tasks.defuse import DefuseGame, generate
    game = DefuseGame.from_task(generate("test")["defuse_0"])
    game.act(0, "Inspect Bomb"); game.observation(0).text()

layout.py draws the map, game.py plays it, knowledge.py answers who knows what, generator.py writes task files.
"""

from .game import Action, DefuseGame, Observation, parse_action
from .generator import generate, task_dict
from .knowledge import KnowledgeTracker, bomb_sequence, bomb_state, room_contents
from .layout import Layout, generate_layout

__all__ = ["Action", "DefuseGame", "KnowledgeTracker", "Layout", "Observation", "bomb_sequence", "bomb_state",
           "generate", "generate_layout", "parse_action", "room_contents", "task_dict"]
