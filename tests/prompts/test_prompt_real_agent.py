"""A real agent (real bot on the embedded server, a scripted model): its first prompt fits in 1550 tokens with the
real world state, offers only what it may use now, and `!help("name")` brings one command's full entry."""

from __future__ import annotations

from agent_helpers import start_agent
from conftest import wait_until
from mindpy.models.tokens import count_messages


def test_a_free_play_agent_gets_a_lean_prompt_and_full_help(make_bot, tmp_path):
    agent, model = start_agent(make_bot, tmp_path, ['Let me read up first. !help("craftRecipe")', "Got it."],
                               prefix="lean", base_profile="survival")
    try:
        player = make_bot("asker")
        player.chat(f"{agent.name}, can you craft me some sticks?")
        wait_until(lambda: len(model.calls) >= 2, timeout=60, message="two model calls")
        first, second = model.calls[0], model.calls[1]
        assert count_messages(first["messages"], first["system"]) <= 1550
        system = first["system"]
        assert '!craftRecipe("recipe_name", num>=1)' in system and '!help("name")' in system
        for hidden in ("!newAction", "!tradeWithVillager", "!checkBlueprint"):  # coding off, no villagers, no plan
            assert hidden not in system, hidden
        help_output = second["messages"][-2]["content"]  # the command's output, before the state message
        assert help_output.startswith("!craftRecipe: Craft an item"), second["messages"]
        assert "num (int, at least 1): How many times to use the recipe." in help_output
        assert second["system"] == system  # the stable part did not move
    finally:
        agent.close()
