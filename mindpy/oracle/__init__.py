"""The `oracle` model provider: plays MineCollab tasks (crafting, cooking, construction) from the prompt alone.

prompt.py reads the prompt, goals.py the task goal, crafting.py / cooking.py / construction.py / coblock.py plan the
work, dialogue.py reads partners' messages, player.py decides the reply on the protocol every family shares, plan.py
is what a family's plan decides (each family's in mindpy/tasks/families/<name>/oracle.py), provider.py is the
ChatModel.
"""

from .provider import OracleModel

__all__ = ["OracleModel"]
