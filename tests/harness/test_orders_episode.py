"""Orders episodes on the session's server: the scripted dispatcher serving golden apples through the serving
chest, and a replay dispatcher whose mistake reaches the next prompt and whose corrected command runs. Pure tests
for the kitchen view, the feedback, restocking and the serving chest's reply reader."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import teleport, wait_until
from mindpy.dispatch import AgentState, DispatcherOptions, OpenOrder
from mindpy.dispatch.cooks import CookCommands, Ended, feedback_lines, killed_animals
from mindpy.dispatch.kitchen import KitchenView, dispatch_state
from mindpy.dispatch.oracle import OracleDispatcher, handover
from mindpy.dispatch.steps import command_steps
from mindpy.harness.episode import TASK_ORIGIN, run_episode
from mindpy.harness.evaluate import summarize
from mindpy.harness.session import agent_names
from mindpy.models.budget import BudgetLimits
from mindpy.models.prices import Price
from mindpy.models.replay import ReplayModel
from mindpy.tasks.families.orders.book import LEVELS, OrderBook, OrderStream
from mindpy.tasks.families.orders.generator import make_task
from mindpy.tasks.families.orders.play import (
    CALLS_FILE,
    STEPS_FILE,
    OrdersOptions,
    OrdersPlay,
    run_orders_episode,
    with_temperature,
)
from mindpy.tasks.families.orders.world import ServingChest, parse_block_data, plan_orders_setup, restock_commands
from mindpy.tasks.schema import Task, unplayable_reason
from mindpy.world.bulk import player_inventory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import RecordingServer, openai_reply  # noqa: E402


def golden_apple_task(steps: int, alpha: float = 3.0, agents: int = 2) -> Task:
    """The simplest level, cut to its first `steps` steps (orders every 2 steps at α 3, living 5)."""
    raw = make_task(LEVELS["golden_apple"], agents, alpha, seed=5)
    return Task.from_dict("orders_test_golden_apple", {**raw, "episode_steps": steps, "timeout": steps * 10})


def calls_of(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / CALLS_FILE).read_text().splitlines()]


# ----- pure -----
def test_the_kitchen_view_marks_busy_cooks_and_the_stations_they_use():
    view = KitchenView(4, {"andy": {"apple": 2}, "jill": {}}, doing={"jill": '!smeltItem("beef", 1)'},
                       orders=(OpenOrder(1, "cooked_beef", 9),), feedback=("andy: !attack(\"cow\") failed: no cow",))
    state = dispatch_state(view)
    assert state.free_agents() == ("andy",) and state.busy_agents() == {"jill": '!smeltItem("beef", 1)'}
    assert {s.name: s.busy for s in state.stations} == {"farm": False, "pasture": False, "furnace": True,
                                                        "crafting_table": False}
    assert state.chests[0].serving and state.orders[0].deadline == 9 and "no cow" in state.feedback[0]
    with pytest.raises(ValueError, match="bob, who are not among the cooks"):
        KitchenView(0, {"andy": {}}, doing={"bob": "!stop"})


def test_only_failed_commands_are_feedback_and_killed_animals_are_counted():
    ended = [Ended("andy", '!attack("cow")', "Killed cow.", True),
             Ended("jill", '!attack("pig")', "No pig nearby.", False),
             Ended("jill", '!craftRecipe("bread", 1)', "", False)]
    assert feedback_lines(ended) == ['jill: !attack("pig") failed: No pig nearby.',
                                     'jill: !craftRecipe("bread", 1) failed: no reason given']
    assert killed_animals(ended) == ["cow"]


def test_the_kitchen_has_one_serving_chest_and_restocking_refills_only_the_farm():
    task = golden_apple_task(6)
    assert unplayable_reason(task) is None
    setup = plan_orders_setup(task, agent_names(task), origin=(0, -60, 0))
    assert setup.stations["serving_chest"] == (12, -60, 4) and setup.expected_blocks[(12, -60, 4)] == "chest"
    assert sum("chest" in line for line in setup.commands if line.startswith("setblock")) == 1
    assert setup.commands[-1].startswith("tp ")  # the cooks come in once the kitchen is built
    refill = restock_commands(setup, killed=["cow", "cow"])
    assert refill[0] == "fill 7 -60 -11 12 -60 -10 wheat[age=7] keep"
    assert all(line.endswith(" keep") for line in refill if line.startswith("fill"))
    assert not any("farmland" in line or "water" in line for line in refill)
    assert refill[-2:] == ["summon cow 17 -60 4 {NoAI:1b}"] * 2  # the first cow's spot; animals stand still
    summons = [line for line in setup.commands if line.startswith("summon ")]
    assert summons and all(line.endswith(" {NoAI:1b}") for line in summons)
    with pytest.raises(ValueError, match="no 'wolf' lives"):
        restock_commands(setup, killed=["wolf"])


def test_the_serving_chest_reply_is_read():
    reply = '1, -60, 4 has the following block data: {Items:[{Slot:0b,id:"minecraft:bread",count:2},' \
            '{Slot:3b,id:"minecraft:bread",count:1},{Slot:4b,id:"minecraft:cookie",count:8}]}'
    assert parse_block_data(reply) == {"bread": 3, "cookie": 8}
    assert parse_block_data("1, -60, 4 has the following block data: {Items:[]}") == {}
    assert parse_block_data("Unknown command") is None


def test_the_oracle_dispatcher_sees_the_prompt_and_leaves_no_problem_when_idle():
    dispatcher = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["golden_apple"])
    view = KitchenView(0, {"andy": {"apple": 1, "gold_ingot": 8}, "jill": {}}, orders=(OpenOrder(0, "golden_apple", 5),))
    decision = dispatcher.decide(dispatch_state(view))
    assert decision.commands == {"andy": '!craftRecipe("golden_apple", 1)'} and "order 0: golden_apple" in decision.user
    idle = dispatcher.decide(dispatch_state(KitchenView(1, {"andy": {}, "jill": {}}, doing={"andy": "x"})))
    assert idle.commands == {} and idle.problems == [] and dispatcher.pending_problems == []


def test_the_oracle_gives_each_order_to_the_cook_holding_its_supplies():
    dispatcher = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["pumpkin_pie", "cookie"])
    view = KitchenView(0, {"andy": {"cocoa_beans": 3}, "jill": {"egg": 2}},
                       orders=(OpenOrder(0, "pumpkin_pie", 20), OpenOrder(1, "cookie", 30)))
    assert dispatcher.decide(dispatch_state(view)).commands == {"jill": '!collectBlocks("pumpkin", 1)',
                                                                "andy": '!collectBlocks("wheat", 2)'}
    no_eggs = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["pumpkin_pie", "cookie"])
    view = KitchenView(0, {"andy": {"cocoa_beans": 3}, "jill": {}}, orders=(OpenOrder(0, "pumpkin_pie", 20),))
    assert no_eggs.decide(dispatch_state(view)).commands == {}  # the order waits for a cook with an egg
    bread = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["bread"])  # needs no supplies
    view = KitchenView(0, {"andy": {}, "jill": {}}, orders=(OpenOrder(0, "bread", 20),))
    assert bread.decide(dispatch_state(view)).commands == {"andy": '!collectBlocks("wheat", 3)'}


def test_a_dish_left_in_hand_serves_the_next_order_of_it():
    dispatcher = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["golden_apple"])
    supplies = {"apple": 5, "gold_ingot": 40}
    first = KitchenView(0, {"andy": supplies, "jill": {}}, orders=(OpenOrder(0, "golden_apple", 2),))
    assert dispatcher.decide(dispatch_state(first)).commands == {"andy": '!craftRecipe("golden_apple", 1)'}
    # order 0 expired before andy could serve it: the apple in his hand goes to order 1
    later = KitchenView(2, {"andy": {**supplies, "golden_apple": 1}, "jill": {}}, orders=(OpenOrder(1, "golden_apple", 4),))
    assert dispatcher.decide(dispatch_state(later)).commands == {"andy": '!putInChest("golden_apple", 1)'}


def test_a_cook_without_work_hands_over_the_supply_a_teammate_lacks():
    andy, jill = AgentState("andy", inventory={"apple": 7, "gold_ingot": 2}), AgentState("jill", inventory={"gold_ingot": 54})
    assert handover(andy, [jill], ["golden_apple"]) == 'andy: !givePlayer("jill", "apple", 6)'  # 54 gold: 6 apples
    assert handover(andy, [AgentState("bob", inventory={"apple": 9, "gold_ingot": 60})], ["golden_apple"]) is None
    assert handover(jill, [andy], ["cooked_beef", "bread"]) is None  # dishes without two supplies
    dispatcher = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["golden_apple"])
    idle = dispatcher.decide(dispatch_state(KitchenView(3, {"andy": andy.inventory, "jill": jill.inventory})))
    assert idle.commands == {"andy": '!givePlayer("jill", "apple", 6)'}  # one handover a step, not a swap
    order = KitchenView(4, {"andy": andy.inventory, "jill": {"apple": 6, "gold_ingot": 54}},
                        orders=(OpenOrder(0, "golden_apple", 9),))
    assert dispatcher.decide(dispatch_state(order)).commands == {"jill": '!craftRecipe("golden_apple", 1)'}
    alone = KitchenView(5, {"andy": andy.inventory, "jill": {"apple": 6, "gold_ingot": 54}}, doing={"jill": "x"},
                        orders=(OpenOrder(1, "golden_apple", 9),))
    assert dispatcher.decide(dispatch_state(alone)).commands == {}  # andy has nothing to make it with


class SlowCook:
    """An agent whose commands take `seconds` of wall clock, whatever their steps."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def run_command(self, command: str) -> str:
        time.sleep(self.seconds)
        return "done"


def test_a_command_keeps_its_cook_busy_for_its_steps_whatever_the_wall_clock():
    assert [command_steps(c) for c in ('!collectBlocks("wheat", 3)', '!attack("cow")', '!smeltItem("beef", 1)',
                                       '!craftRecipe("bread", 1)', '!craftRecipe("sugar", 2)',
                                       '!putInChest("bread", 1)', '!givePlayer("jill", "apple", 2)')] == \
        [3, 2, 3, 2, 1, 1, 1]  # the cake's one sugar step makes 2 sugar: 1 step, as the workload counts it
    cooks = CookCommands({"fast": SlowCook(0.0), "slow": SlowCook(0.3)})
    cooks.start("fast", '!smeltItem("beef", 1)', t=0, steps=3)   # done in the world at once
    cooks.start("slow", '!putInChest("bread", 1)', t=0, steps=1)  # takes longer in the world
    assert cooks.wait_due(0, 5.0) == {}  # the slow one's step is 0: the step waits for it
    assert [e.cook for e in cooks.take_due(1)] == ["slow"]  # the fast one ended too, but its steps are not over
    assert cooks.busy_at(1) == cooks.busy_at(2) == {"fast": '!smeltItem("beef", 1)'} and cooks.busy_at(3) == {}
    with pytest.raises(ValueError, match="busy with"):
        cooks.start("fast", '!attack("cow")', t=2)
    assert [(e.cook, e.free_at) for e in cooks.take_due(3)] == [("fast", 3)]
    cooks.start("slow", '!attack("cow")', t=3, steps=2)
    assert cooks.wait_due(3, 0.05) == {}  # due at step 4: step 3 does not wait for it
    assert cooks.wait_due(4, 0.01) == {"slow": '!attack("cow")'}  # still at it after the limit: an overrun
    assert cooks.wait_due(4, 5.0) == {}


def test_orders_options_name_our_variations_and_record_them():
    chosen = OrdersOptions().with_switches({"orders_max_open": True, "orders_two_cook_demo": True})
    assert chosen.max_open == 6 and chosen.dispatcher.demo_agents == 2 and not chosen.wall_clock
    assert OrdersOptions().record() == {"clock": "game_steps", "step_cap_s": None, "max_open": None,
                                        "skipped_count_as": None, "demo_cooks": "team", "demo": "full",
                                        "paper_setting": True}
    assert OrdersOptions().with_switches({"orders_wall_clock": True}).record()["clock"] == "wall_clock"
    with pytest.raises(ValueError, match="unknown orders option"):
        OrdersOptions().with_switches({"orders_fast": True})
    assert with_temperature("gpt-4o-mini") == {"model": "gpt-4o-mini", "params": {"temperature": 0.1}}  # the paper's
    assert with_temperature({"model": "m", "params": {"temperature": 0.7}})["params"] == {"temperature": 0.7}


class HeldChest:
    """A chest's contents, emptied by take_all as ServingChest empties the real one (read on the server below)."""

    def __init__(self, held: dict[str, int]):
        self.held = dict(held)

    def take_all(self) -> dict[str, int]:
        held, self.held = self.held, {}
        return held


def test_the_chest_is_not_emptied_while_a_cook_is_putting_a_dish_in():
    stream = OrderStream.from_fields(golden_apple_task(6).fields.as_dict())
    chest = HeldChest({"golden_apple": 1})
    play = OrdersPlay(OrderBook(stream), None, None, dict, chest, print, 1.0, None)  # only serve() is played
    assert play.serve(0, {"andy": '!putInChest("golden_apple", 1)'}) == {} and chest.held  # a dish may be on its way
    assert play.serve(1, {"jill": '!craftRecipe("golden_apple", 1)'}) == {"golden_apple": 1} and not chest.held
    assert play.book.counts()["completed"] == 1 and not play.wasted


def test_the_eval_summary_gives_cos_per_level_and_agent_count(tmp_path):
    rows = []
    for i, (level, agents, alpha, rate) in enumerate([("l00_golden_apple", 2, 1.0, 0.5), ("l00_golden_apple", 2, 3.0, 1.0),
                                                      ("l03_bakery", 3, 3.0, 0.25)]):
        run = tmp_path / str(i)
        run.mkdir()
        (run / "result.json").write_text(json.dumps({"orders": {"level": level, "alpha": alpha}}))
        rows.append({"task_id": f"t{i}", "file": "f", "family": "orders", "agent_count": agents, "trial": 1,
                     "score": rate, "success": rate >= 1, "end_reason": "timeout", "duration_s": 1, "commands": 0,
                     "messages": 0, "tokens": 0, "attempts": 1, "error": "", "run_dir": str(run)})
    table = summarize(rows)["orders_cos"]
    assert table == {"l00_golden_apple/2_agents": {"cos": 0.75, "alphas": [1.0, 3.0]},
                     "l03_bakery/3_agents": {"cos": 0.25, "alphas": [3.0]}}


# ----- on the server -----

@pytest.mark.slow
def test_the_scripted_dispatcher_serves_orders_through_the_serving_chest(server, make_bot, tmp_path):
    task = golden_apple_task(5)
    reader = make_bot("chest")  # stays by the kitchen: the server forgets chunks nobody is near
    x, y, z = TASK_ORIGIN
    teleport(reader, x - 10, y, z)
    result = run_episode(task, tmp_path / "run", model="oracle", server=f"{server.host}:{server.port}")
    kinds = [(kind, dish) for _, kind, _, dish in result["events"]]
    steps = (tmp_path / "run" / STEPS_FILE).read_text()  # each step's commands and how they ended, if it fails
    print(steps)  # whole in the captured output (an assertion's message is cut)
    assert ("completed", "golden_apple") in kinds, (result["events"], steps)
    assert result["orders"]["completed"] >= 1 and result["score"] == result["orders"]["completion_rate"] > 0
    assert json.loads((tmp_path / "run" / "result.json").read_text())["orders"] == result["orders"]
    calls = calls_of(tmp_path / "run")
    assert len(calls) == 5 and "## Current state" in calls[0]["messages"][0]["content"]
    assert '!craftRecipe("golden_apple", 1)' in calls[0]["commands"].values()
    assert ServingChest(reader, tuple(result["serving_chest"])).contents() == {}  # the checker took the dish


@pytest.mark.slow
def test_two_runs_of_the_scripted_dispatcher_play_the_same_steps_even_on_a_loaded_machine(server, tmp_path):
    """Game steps, not the wall clock: a command busies its cook for its steps and a step waits for the commands
    due in it, so a CPU hog running beside the episodes changes nothing in what is played."""
    # golden apples and golden carrots: an order every 2 steps; a craft 2 steps, digging a carrot 1, serving 1. The
    # carrots dug (vanilla: 2-5 a plant) are rolled by the orders' loot rule, so both runs' cooks hold the same
    raw = make_task(LEVELS["golden_food"], 2, 1.0, seed=5)
    task = Task.from_dict("orders_test_golden_food", {**raw, "episode_steps": 6, "timeout": 60})
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        results = [run_episode(task, tmp_path / f"run{i}", model="oracle", server=f"{server.host}:{server.port}")
                   for i in range(2)]
    finally:
        hog.kill()
        hog.wait()
    logs = [(tmp_path / f"run{i}" / STEPS_FILE).read_text().splitlines() for i in range(2)]
    assert len(logs[0]) == 6 and logs[0] == logs[1]
    calls = [[(c["step"], c["messages"], c["reply"], c["commands"], c["problems"]) for c in calls_of(tmp_path / f"run{i}")]
             for i in range(2)]
    assert calls[0] == calls[1]
    first, second = results
    assert first["events"] == second["events"] and first["orders"] == second["orders"]
    assert first["score"] == second["score"] and first["orders"]["completed"] >= 1, first["events"]
    assert first["orders_rules"]["clock"] == "game_steps" and first["orders_rules"]["overruns"] == 0
    assert first["orders_rules"]["loot_rolls"] == "expected"
    steps = [json.loads(line) for line in logs[0]]
    assert any(command.startswith("!collectBlocks") for s in steps for command, _ in s["commands"].values())
    crafts = [(s["step"], cook) for s in steps for cook, (command, busy) in s["commands"].items()
              if command.startswith("!craftRecipe") and busy == 2]
    assert crafts  # a craft at the table: 2 steps, so its cook is busy the next step
    step, cook = crafts[0]
    assert steps[step + 1]["busy"].get(cook, "").startswith("!craftRecipe")


@pytest.mark.slow
def test_a_refused_reply_reaches_the_next_prompt_and_the_corrected_command_runs(server, tmp_path):
    task = golden_apple_task(5)
    model = ReplayModel(['bob: !craftRecipe("golden_apple", 1)',  # no cook is called bob
                         'andy: !craftRecipe("golden_apple", 1)',  # a craft at the table: 2 steps
                         '',
                         'andy: !putInChest("golden_apple", 1)'], default="")
    result = run_episode(task, tmp_path / "run", server=f"{server.host}:{server.port}",
                         models={"dispatcher": model})
    calls = calls_of(tmp_path / "run")
    assert calls[0]["commands"] == {} and "unknown agent 'bob'" in calls[0]["problems"][0]
    second = calls[1]["messages"][0]["content"]
    assert "unknown agent 'bob'" in second.split("## Execution feedback", 1)[1]
    assert calls[1]["commands"] == {"andy": '!craftRecipe("golden_apple", 1)'}
    busy = calls[2]["messages"][0]["content"].split("- andy:", 1)[1].split("\n", 1)[0]
    assert busy.startswith(" busy (!craftRecipe") and "golden_apple" not in busy.split("holds", 1)[1]  # not yet
    assert "andy: free; holds " in calls[3]["messages"][0]["content"]
    assert "1 golden_apple" in calls[3]["messages"][0]["content"].split("- andy:", 1)[1].split("\n", 1)[0]
    assert ["completed", "golden_apple"] in [e[1::2] for e in result["events"]]


@pytest.mark.slow
def test_the_dispatchers_model_stops_at_the_run_budget(server, tmp_path, monkeypatch):
    """Every reply of this OpenAI-compatible server reports a million prompt tokens: $1 a call at $1 per million,
    so a cap of $0.50 is spent by the first call and the episode ends after its step."""
    reply = openai_reply('andy: !craftRecipe("golden_apple", 1)', prompt=1_000_000, completion=0)
    with RecordingServer([(200, reply)]) as model_server:
        monkeypatch.setenv("OPENAI_BASE_URL", model_server.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        result = run_episode(golden_apple_task(4), tmp_path / "run", model="gpt-4o-mini",
                             server=f"{server.host}:{server.port}",
                             budget=BudgetLimits(max_usd=0.5, usd_per_mtok=Price(1.0, 1.0)))
        requests = len(model_server.requests)
    assert result["end_reason"] == "budget" and result["budget"]["exceeded"], result
    assert requests == result["budget"]["requests"] == result["dispatcher"]["calls"] == 1
    assert len(calls_of(tmp_path / "run")) == 1 and result["orders"]["steps"] == 1


@pytest.mark.slow
def test_a_player_gives_the_orders_in_chat_and_a_strangers_commands_change_nothing(server, make_bot, tmp_path):
    """`--model human:NAME`: the named player is told the state and commands the cooks in chat; another player's
    commands, to the dispatcher or to a cook directly, are not run."""
    task = golden_apple_task(5)
    names = agent_names(task)
    cook = next(n for i, n in enumerate(names)
                if task.inventory_for(i).get("gold_ingot", 0) >= 8 and task.inventory_for(i).get("apple", 0) >= 1)
    other = next(n for n in names if n != cook)
    chef, stranger = make_bot("chef"), make_bot("mallory")
    x, y, z = TASK_ORIGIN
    teleport(stranger, x - 6, y, z)  # within a cook's reach: a command it ran would be carried out
    heard: list[str] = []
    chef.on("messagestr", lambda text, *rest: heard.append(str(text)))
    played: dict = {}
    episode = threading.Thread(daemon=True, target=lambda: played.update(run_orders_episode(
        task, tmp_path / "run", model=f"human:{chef.name}", server=f"{server.host}:{server.port}",
        options=OrdersOptions(player_wait_s=3.0))))
    episode.start()
    wait_until(lambda: any(cook in line and "gold_ingot" in line for line in heard), timeout=120,
               message="the kitchen's state (what the cook holds) told to the chef")
    stranger.chat(f'{cook}: !givePlayer("{stranger.name}", "gold_ingot", 1)')  # as if dispatching
    stranger.chat(f'{other} !givePlayer("{stranger.name}", "gold_ingot", 1)')  # to a cook directly
    chef.chat(f'**{cook}** -> !craftRecipe("golden_apple", 1)')
    chef.chat('bob: !craftRecipe("golden_apple", 1)')  # no cook is called bob: told back
    wait_until(lambda: (player_inventory(chef, cook, timeout=3) or {}).get("golden_apple"), timeout=60,
               interval=1.0, message=f"{cook} to craft the golden apple")
    # the craft keeps the cook busy for 2 steps: the chef is told when it is free, holding the apple
    wait_until(lambda: any(f"{cook}: free; holds" in line and "golden_apple" in line.split("holds", 1)[1]
                           for line in heard), timeout=60, message=f"{cook} told free with the apple")
    chef.chat(f'{cook.upper()}, !putInChest("golden_apple", 1)')
    wait_until(lambda: not episode.is_alive(), timeout=180, message="the episode to end")
    calls = calls_of(tmp_path / "run")
    assert calls[0]["commands"] == {cook: '!craftRecipe("golden_apple", 1)'}, calls[0]
    assert "unknown agent 'bob'" in calls[0]["problems"][0]
    assert any("bob" in line for line in heard), "the problem was not told back to the chef"
    assert not any(stranger.name in call["reply"] for call in calls)
    assert any(call["commands"].get(cook) == '!putInChest("golden_apple", 1)' for call in calls)
    assert ["completed", "golden_apple"] in [e[1::2] for e in played["events"]], played["events"]
    assert stranger.inventory().get("gold_ingot", 0) == 0  # no cook ran the stranger's command
