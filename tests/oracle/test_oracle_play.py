"""Two oracle agents playing small tasks with real bots on the embedded server."""

from __future__ import annotations

import time

import pytest

from agent_helpers import start_agent_with_model
from conftest import isolate, teleport, unique_name, wait_until
from mindpy.agent.bus import InProcessBus
from mindpy.oracle import OracleModel

pytestmark = pytest.mark.slow  # whole episodes or CLI runs: left out of `make test-fast`


@pytest.fixture
def team(make_bot, tmp_path):
    """`team.add(name)` starts an oracle agent on the shared bus next to the others; all closed afterwards."""
    class Team:
        bus = InProcessBus()
        agents = []
        area = None

        def add(self, name):
            agent = start_agent_with_model(make_bot, tmp_path, OracleModel(), bus=self.bus, name=name,
                                           base_profile="task")
            if self.area is None:
                self.area = isolate(agent.bot)
            else:
                x, y, z = self.area
                teleport(agent.bot, x + 2 * len(self.agents), y, z)
            self.agents.append(agent)
            return agent

    t = Team()
    yield t
    for agent in t.agents:
        agent.close()


def give(operator, bot, items: dict) -> None:
    for name, count in items.items():
        operator.command(f"/give {bot.name} {name} {count}")
    wait_until(lambda: all(bot.inventory().get(n, 0) >= c for n, c in items.items()), message=f"{items} given")


def start(agents, goal: str, opening: str):
    """As the task harness does: goals, agent 0 opens the conversation, everyone self-prompts."""
    names = [a.name for a in agents]
    for a in agents:
        others = [n for n in names if n != a.name]
        a.task_goal = f"{goal} The other agents are: {', '.join(others)}."
    agents[0].run_command(f'!startConversation("{names[1]}", "{opening}")')
    for a in agents:
        a.self_prompter.start(a.task_goal)


def transcript(agent) -> str:
    return "\n".join(f"{kind}: {text}" for _, kind, text in agent.events if kind in ("said", "to bot", "command"))


def test_two_oracles_craft_a_wooden_pickaxe_from_split_items(team, make_bot):
    ann, ben = team.add(unique_name("ann")), team.add(unique_name("ben"))
    operator = make_bot("op")
    x, y, z = team.area
    teleport(operator, x - 3, y, z)
    # what a crafting task deals out: neither can finish alone, and the crafter (ann) holds least
    give(operator, ann.bot, {"stick": 1})
    give(operator, ben.bot, {"stick": 1, "oak_planks": 3, "crafting_table": 1})
    started = time.monotonic()
    start([ann, ben], "Collaborate with the other agents to craft a wooden_pickaxe.",
          "Let's work together to craft a wooden_pickaxe.")
    wait_until(lambda: ann.bot.inventory().get("wooden_pickaxe") or ben.bot.inventory().get("wooden_pickaxe"),
               timeout=60, interval=0.5,
               message=f"a wooden_pickaxe\n--- ann\n{transcript(ann)}\n--- ben\n{transcript(ben)}")
    assert time.monotonic() - started < 60
    assert ann.bot.inventory().get("wooden_pickaxe") == 1  # the lead crafted it
    said = transcript(ann) + transcript(ben)
    assert "(FROM OTHER BOT)" not in said
    assert "givePlayer" in transcript(ben) and "craftRecipe" in transcript(ann)
    # the crafter ends its goal once it holds the pickaxe
    wait_until(lambda: not ann.self_prompter.active, timeout=10, message="ann to end its goal")


def test_two_oracles_bake_a_potato(team, make_bot):
    ann, ben = team.add(unique_name("ann")), team.add(unique_name("ben"))
    operator = make_bot("op")
    x, y, z = team.area
    teleport(operator, x - 3, y, z)
    # a ripe potato crop and a fuelled furnace next to the agents
    operator.command(f"/setblock {x + 1} {y - 1} {z + 3} farmland")
    operator.command(f"/setblock {x + 1} {y} {z + 3} potatoes[age=7]")
    operator.command(f"/setblock {x - 1} {y} {z + 3} furnace")
    furnace = wait_until(lambda: (b := operator.js.blockAt(operator.js.entity.position.offset(2, 0, 3)))
                         and b.name == "furnace" and b, message="the furnace")
    give(operator, operator, {"coal": 2})
    window = operator.js.openFurnace(furnace, timeout=10)
    window.putFuel(operator.js.registry.itemsByName["coal"].id, None, 2, timeout=10)
    window.close()
    start([ann, ben], "Collaborate with the other agents to make baked_potato. In the end, one agent should hold "
                      "all of the dishes.\nRecipe for baked_potato:\nStep 1: Harvest a potato (the crop block is "
                      "called 'potatoes').\nStep 2: Bake it in the furnace or the smoker; both are already fuelled.",
          "Let's work together to make baked_potato.")
    wait_until(lambda: ann.bot.inventory().get("baked_potato"), timeout=60, interval=0.5,
               message=f"a baked_potato\n--- ann\n{transcript(ann)}\n--- ben\n{transcript(ben)}")
    assert "smeltItem" in transcript(ann) and "collectBlocks" in transcript(ann)
    assert "(FROM OTHER BOT)" not in transcript(ann) + transcript(ben)
