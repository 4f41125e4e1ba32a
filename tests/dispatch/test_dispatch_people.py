"""People cooking beside the dispatched cooks (an orders task's person slots, as MindAgent's human study): the
dispatcher sees each person and what they hold, a line that commands one is refused and told back, and the
oracle never gives them an order."""

from __future__ import annotations

import pytest

from mindpy.commands import default_registry
from mindpy.dispatch import AgentState, Dispatcher, DispatcherOptions, DispatchState, OpenOrder, parse_dispatch_reply
from mindpy.dispatch.human import orders_line, state_lines
from mindpy.dispatch.kitchen import KitchenView, dispatch_state
from mindpy.dispatch.oracle import OracleDispatcher
from mindpy.dispatch.state import PersonState, render
from mindpy.models.replay import ReplayModel

COOKS = ["andy", "jill"]
REFUSED = "Steve is a person playing beside the cooks: you cannot command them"


def kitchen(step: int = 0) -> DispatchState:
    view = KitchenView(step, {"andy": {"gold_ingot": 8, "apple": 1}, "jill": {}},
                       orders=(OpenOrder(0, "golden_apple", 14),), people={"Steve": {"golden_apple": 1}})
    return dispatch_state(view)


def test_the_state_and_the_rules_show_each_person_and_what_they_hold():
    state = kitchen()
    assert state.people == (PersonState("Steve", {"golden_apple": 1}),) and state.free_agents() == ("andy", "jill")
    text = render(state)
    assert "- Steve: a person playing freely (you cannot command them); holds 1 golden_apple" in text
    assert text.index("- jill:") < text.index("- Steve:") < text.index("Stations:")
    prompt = Dispatcher(ReplayModel([""]), DispatcherOptions(), COOKS, dishes=["golden_apple"]).decide(state)
    assert "Steve plays beside the cooks as a person" in prompt.system and "- Steve: a person" in prompt.user
    alone = dispatch_state(KitchenView(0, {"andy": {}, "jill": {}}))
    assert "person" not in render(alone)  # without people nothing changes
    assert "Steve: a person playing freely" in "\n".join(state_lines(state))  # a dispatching player is told too
    assert orders_line(3, state.orders) == "Step 3. Orders: golden_apple (due step 14)."
    with pytest.raises(ValueError, match="repeated: andy"):
        DispatchState(0, (AgentState("andy"),), people=(PersonState("Andy"),))


@pytest.mark.parametrize("line", ['Steve: !putInChest("golden_apple", 1)', '**steve** -> !putInChest("golden_apple", 1)',
                                  'Ask Steve to !putInChest("golden_apple", 1)'])
def test_a_line_for_a_person_is_refused_and_never_run(line):
    parsed = parse_dispatch_reply(f'{line}\nandy: !craftRecipe("golden_apple", 1)', COOKS, default_registry(),
                                  people=["Steve"])
    assert parsed.commands == {"andy": '!craftRecipe("golden_apple", 1)'}
    assert len(parsed.problems) == 1 and parsed.problems[0].startswith(REFUSED), parsed.problems
    handing = parse_dispatch_reply('jill: !givePlayer("Steve", "apple", 1)', COOKS, default_registry(), people=["Steve"])
    assert handing.commands == {"jill": '!givePlayer("Steve", "apple", 1)'} and not handing.problems  # to, not by


def test_the_refusal_reaches_the_next_prompts_feedback():
    model = ReplayModel(['Steve: !putInChest("golden_apple", 1)', 'andy: !craftRecipe("golden_apple", 1)'])
    dispatcher = Dispatcher(model, DispatcherOptions(), COOKS, dishes=["golden_apple"])
    first = dispatcher.decide(kitchen(0))
    assert first.commands == {} and first.problems[0].startswith(REFUSED)
    second = dispatcher.decide(kitchen(1))
    assert REFUSED in second.user.split("## Execution feedback", 1)[1].split("## History", 1)[0]
    assert second.commands == {"andy": '!craftRecipe("golden_apple", 1)'} and not second.problems


def test_the_oracle_never_gives_a_person_an_order():
    oracle = OracleDispatcher(DispatcherOptions(), COOKS, dishes=["golden_apple"])
    view = KitchenView(0, {"andy": {}, "jill": {}}, orders=(OpenOrder(0, "golden_apple", 14),),
                       people={"Steve": {"gold_ingot": 64, "apple": 8}})  # only the person could make it
    decision = oracle.decide(dispatch_state(view))
    assert decision.commands == {} and decision.problems == [] and "Steve" not in decision.reply

