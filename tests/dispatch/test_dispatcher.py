"""The dispatcher with a scripted (replay) model, and the scripted EDF dispatcher on a simulated kitchen."""

from __future__ import annotations

import pytest

from mindpy.commands import default_registry
from mindpy.commands.parser import parse_strict
from mindpy.dispatch import (
    DISPATCH_COMMANDS,
    AgentState,
    ChestState,
    Dispatcher,
    DispatcherOptions,
    DispatchState,
    OpenOrder,
    ScriptedDispatcher,
    dish_commands,
)
from mindpy.models.replay import ReplayModel
from mindpy.tasks.families.orders.book import DISHES, LEVELS, OrderBook, OrderStream

AGENTS = ["andy", "jill"]


BREAD_ORDER = (OpenOrder(0, "bread", 9),)


def kitchen(step, busy=(), orders=BREAD_ORDER):
    agents = tuple(AgentState(n, busy=n in busy, doing="digging wheat" if n in busy else "") for n in AGENTS)
    return DispatchState(step, agents, chests=(ChestState("serving", serving=True),), orders=tuple(orders))


def test_problems_of_one_reply_are_shown_in_the_next_prompt_and_a_corrected_reply_is_accepted():
    model = ReplayModel([
        'andy: !collectBlocks("wheat", 3)\njill: !craftRecipe("bread", 1)\nbob: !attack("cow")',
        'Fixed:\n- andy -> !craftRecipe("bread", 1)',
    ])
    dispatcher = Dispatcher(model, DispatcherOptions(), AGENTS, dishes=["bread", "cookie"])

    first = dispatcher.decide(kitchen(0, busy={"jill"}))
    assert first.commands == {"andy": '!collectBlocks("wheat", 3)'}
    assert len(first.problems) == 2
    assert first.problems[0].startswith('jill is busy (digging wheat): !craftRecipe("bread", 1) was not run')
    assert first.problems[1] == "unknown agent 'bob': the agents are andy, jill"
    assert "## Execution feedback\nnone" in model.calls[0]["messages"][0]["content"]

    second = dispatcher.decide(kitchen(1, busy={"jill"}))
    user = model.calls[1]["messages"][0]["content"]
    feedback = user.split("## Execution feedback\n", 1)[1].split("\n## ")[0]
    assert feedback.splitlines() == [f"- {p}" for p in first.problems]
    assert second.commands == {"andy": '!craftRecipe("bread", 1)'}
    assert second.problems == []
    assert 'step 0: andy: !collectBlocks("wheat", 3) (problems: jill is busy' in user
    # the prompt the model answered is kept with the decision, system part included
    assert second.user == user and second.system == model.calls[1]["system"]
    assert second.record()["reply"] == model.calls[1]["reply"]
    assert dispatcher.pending_problems == []   # nothing is carried into step 3


def test_execution_feedback_from_the_runner_reaches_the_prompt():
    model = ReplayModel(['andy: !collectBlocks("wheat", 3)'])
    dispatcher = Dispatcher(model, DispatcherOptions(), AGENTS, dishes=["bread"])
    state = DispatchState(4, kitchen(4).agents, orders=kitchen(4).orders,
                          feedback=("andy: !smeltItem failed: no fuel; take coal from the chest",))
    dispatcher.decide(state)
    assert "- andy: !smeltItem failed: no fuel" in model.calls[0]["messages"][0]["content"]


def test_a_failed_model_call_gives_an_empty_decision_with_the_reason():
    dispatcher = Dispatcher(ReplayModel([]), DispatcherOptions(), AGENTS, dishes=["bread"])
    decision = dispatcher.decide(kitchen(0))
    assert decision.commands == {}
    assert decision.problems[0].startswith("the dispatcher's model call failed")
    assert dispatcher.pending_problems == decision.problems


def test_state_with_an_agent_the_dispatcher_does_not_command_is_refused():
    dispatcher = Dispatcher(ReplayModel(["andy: !stop"]), DispatcherOptions(), ["andy"], dishes=["bread"])
    with pytest.raises(ValueError, match="does not command: jill"):
        dispatcher.decide(kitchen(0))


def test_every_dish_step_is_a_valid_command_the_dispatcher_may_give():
    registry = default_registry()
    others = set(registry.names()) - set(DISPATCH_COMMANDS)
    for dish in DISHES:
        for command in dish_commands(dish):
            parsed = parse_strict(command, registry, others)
            assert parsed.ok, (command, parsed.error)
            assert (parsed.call_text(), parsed.notes) == (command, []), command


def simulate(level, alpha, agents, steps, seed=3):
    """Play the scripted dispatcher against an order book: a command keeps its cook busy for its step's busy
    time; a served dish completes an order. Checks every step's commands on the way."""
    registry = default_registry()
    book = OrderBook(OrderStream.for_level(LEVELS[level], alpha, steps, seed))
    oracle = ScriptedDispatcher(agents)
    busy_until = dict.fromkeys(agents, 0)
    serving: list[tuple[int, str]] = []  # (step it is done, dish)
    for t in range(steps):
        for done, dish in [s for s in serving if s[0] <= t]:
            serving.remove((done, dish))
            book.complete(dish, t)
        book.step(t)
        state = DispatchState(t, tuple(AgentState(n, busy=busy_until[n] > t) for n in agents),
                              orders=tuple(OpenOrder(o.id, o.dish, o.deadline) for o in book.open))
        decision = oracle.decide(state)
        assert decision.problems == []
        assert set(decision.commands) <= set(state.free_agents())
        for line in decision.reply.splitlines():
            name, command = line.split(": ", 1)
            assert parse_strict(command, registry).ok
        for name, command in decision.commands.items():
            busy_until[name] = t + busy_time(command)
            if command.startswith("!putInChest"):
                serving.append((t + 1, command.split('"')[1]))
    book.finish()
    return book


def busy_time(command):
    for dish in DISHES.values():
        for step, cmd in zip(dish.steps, dish_commands(dish.name), strict=False):
            if cmd == command:
                return step.busy
    return 1


def test_scripted_dispatcher_assigns_the_earliest_deadline_first():
    oracle = ScriptedDispatcher(["andy", "jill", "max"])
    orders = (OpenOrder(0, "cookie", 30), OpenOrder(1, "bread", 12), OpenOrder(2, "bread", 20))
    state = DispatchState(5, (AgentState("andy", busy=True, doing="x"), AgentState("jill"), AgentState("max")),
                          orders=orders)
    decision = oracle.decide(state)
    assert decision.reply == 'jill: !collectBlocks("wheat", 3)\nmax: !collectBlocks("wheat", 3)'
    assert oracle.claims["jill"].order_id == 1 and oracle.claims["max"].order_id == 2
    # andy is free next step and takes the remaining order; jill continues hers
    state = DispatchState(6, (AgentState("andy"), AgentState("jill"), AgentState("max", busy=True)),
                          orders=orders)
    decision = oracle.decide(state)
    assert decision.commands == {"andy": '!collectBlocks("wheat", 2)', "jill": '!craftRecipe("bread", 1)'}


def test_scripted_dispatcher_drops_an_order_that_left_the_book():
    oracle = ScriptedDispatcher(["andy"])
    first = oracle.decide(DispatchState(0, (AgentState("andy"),), orders=(OpenOrder(0, "bread", 7),
                                                                            OpenOrder(1, "cookie", 12))))
    assert first.commands == {"andy": '!collectBlocks("wheat", 3)'}
    decision = oracle.decide(DispatchState(3, (AgentState("andy"),), orders=(OpenOrder(1, "cookie", 12),)))
    assert decision.commands == {"andy": '!collectBlocks("wheat", 2)'}


def test_scripted_dispatcher_skips_the_steps_whose_output_the_cook_holds():
    """What an expired order left in a cook's hands serves the next one: mushrooms in hand go straight into the
    craft, and a dish in hand straight into the serving chest."""
    oracle = ScriptedDispatcher(["andy", "jill"])
    holding = {"brown_mushroom": 3, "red_mushroom": 2, "bowl": 4}
    state = DispatchState(5, (AgentState("andy", inventory=holding), AgentState("jill", inventory={"red_mushroom": 1})),
                          orders=(OpenOrder(7, "mushroom_stew", 9), OpenOrder(8, "mushroom_stew", 10)))
    decision = oracle.decide(state)
    assert decision.commands == {"andy": '!craftRecipe("mushroom_stew", 1)',
                                 "jill": '!collectBlocks("brown_mushroom", 1)'}  # it holds the red one only
    served = oracle.decide(DispatchState(6, (AgentState("andy", inventory={"mushroom_stew": 1}),
                                             AgentState("jill", busy=True)), orders=state.orders))
    assert served.commands == {"andy": '!putInChest("mushroom_stew", 1)'}


def test_scripted_dispatcher_prefers_orders_it_can_still_serve_in_time():
    oracle = ScriptedDispatcher(["andy", "jill"])
    # bread: 5 steps of work and a serving step, so from step 0 it needs a deadline after step 6;
    # the cookie (4 + 1 steps) is due later but can still be met
    orders = (OpenOrder(0, "bread", 6), OpenOrder(1, "cookie", 8))
    decision = oracle.decide(DispatchState(0, (AgentState("andy"), AgentState("jill")), orders=orders))
    assert oracle.claims["andy"].order_id == 1 and oracle.claims["jill"].order_id == 0
    assert decision.commands == {"andy": '!collectBlocks("wheat", 2)', "jill": '!collectBlocks("wheat", 3)'}


@pytest.mark.parametrize("level, alpha, agents, least_served", [
    ("bakery", 1.5, ["a1", "a2"], 0.3),            # lifetimes barely above one cook's time: many expire
    ("grill", 2.0, ["a1", "a2", "a3"], 0.85),
    ("banquet", 3.0, ["a1", "a2", "a3", "a4"], 0.75),
])
def test_scripted_dispatcher_serves_orders_in_a_simulated_kitchen(level, alpha, agents, least_served):
    book = simulate(level, alpha, agents, steps=60)
    counts = book.counts()
    assert counts["completed"] >= least_served * counts["created"]
    assert counts["completed"] + counts["expired"] <= counts["created"]
