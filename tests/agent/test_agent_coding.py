"""!newAction through a whole agent: a replay model writes the code, the sandbox runs it against a real bot."""

from __future__ import annotations

import pytest

from agent_helpers import beside_a_log, closing_agents, listen, make_settings, start_agent, system_turns
from conftest import isolate, teleport, wait_until

COLLECT_AND_CRAFT = '''```python
x, y, z = [round(v) for v in (world.stats()["position"][k] for k in ("x", "y", "z"))]
print("collected:", skills.collect_blocks("oak_log", 1))
print("crafted:", skills.craft_recipe("oak_planks", 1))
print("planks:", world.inventory()["items"].get("oak_planks", 0))
```'''

FOREVER = '''```python
n = 0
while True:
    n += 1
```'''


@pytest.fixture
def coder_agent(make_bot, tmp_path):
    def start(replies, trusted, **settings):
        values = dict(allow_insecure_coding=True, trusted_players=trusted)
        values.update(settings)
        return start_agent(make_bot, tmp_path, replies, settings=make_settings(tmp_path, **values), default="Okay.")

    with closing_agents(start) as factory:
        yield factory


def test_new_action_code_collects_and_crafts(coder_agent, make_bot):
    player = make_bot("player")
    agent, model = coder_agent(['Let me code it. !newAction("collect the oak log next to you and make planks")',
                                COLLECT_AND_CRAFT, "Done: I have planks now."], trusted=[player.name])
    beside_a_log(agent, player)
    player.chat(f"{agent.name}, make some planks")
    wait_until(lambda: agent.bot.inventory().get("oak_planks") == 4, timeout=60, message="planks from the code")
    wait_until(lambda: any("planks: 4" in t for t in system_turns(agent)), timeout=10,
               message="the code's output as a system turn")


def test_an_untrusted_player_gets_no_code_run(coder_agent, make_bot):
    stranger = make_bot("stranger")
    agent, model = coder_agent(['!newAction("collect the oak log next to you and make planks")', COLLECT_AND_CRAFT],
                               trusted=["somebody_else"])
    x, y, z = isolate(agent.bot)
    teleport(stranger, x - 2, y, z)
    stranger.chat(f"{agent.name}, run some code")
    wait_until(lambda: any("only write and run code for trusted players" in t for t in system_turns(agent)),
               timeout=15, message="the refusal")
    # After the refusal the loop may go on talking (and receive the scripted code block as plain chat), but the
    # coding prompt must never be sent and no code may run.
    assert not any("write Python to control itself" in c["system"] for c in model.calls)
    assert agent.bot.inventory() == {}


def test_code_that_never_ends_is_stopped_and_the_agent_goes_on(coder_agent, make_bot):
    player = make_bot("player")
    agent, model = coder_agent(['!newAction("count forever")', FOREVER,
                                {"match": "are you ok", "reply": "I am fine."}],
                               trusted=[player.name], code_timeout_mins=0.05)
    x, y, z = isolate(agent.bot)
    teleport(player, x - 2, y, z)
    heard = listen(player)
    player.chat(f"{agent.name}, count forever")
    wait_until(lambda: any("time" in t.lower() and ("limit" in t.lower() or "stopped" in t.lower())
                           for t in system_turns(agent)), timeout=40, message="the time-limit message")
    player.chat(f"{agent.name}, are you ok?")
    wait_until(lambda: (agent.name, "I am fine.") in heard, timeout=15,
               message=f"the agent to go on: {agent.history.get()} {heard}")
