"""A person as the dispatcher (mindpy.dispatch.human): whose lines are heard, when a step stops waiting, and what
the player is told. The player types from another thread, as chat arrives from the bridge's event thread."""

from __future__ import annotations

import threading

import pytest

from mindpy.dispatch import AgentState, ChestState, DispatcherOptions, DispatchState, OpenOrder
from mindpy.dispatch.human import HumanDispatcher, human_player, state_lines

COOKS = ["andy", "jill"]
LONG = 600.0  # a wait no test sits out: the step must end for another reason


def kitchen(step=0, busy=(), feedback=()):
    agents = tuple(AgentState(n, busy=n in busy, doing="crafting" if n in busy else "",
                              inventory={"gold_ingot": 8, "apple": 1} if n == "andy" else {})
                   for n in COOKS)
    return DispatchState(step, agents, chests=(ChestState("serving", serving=True),),
                         orders=(OpenOrder(0, "golden_apple", 6), OpenOrder(1, "golden_apple", 4)),
                         feedback=tuple(feedback))


def dispatcher(wait_s=LONG, quiet_s=LONG):
    d = HumanDispatcher("Steve", DispatcherOptions(), COOKS, dishes=["golden_apple"], wait_s=wait_s, quiet_s=quiet_s)
    told: list[str] = []
    d.replies.tell = told.append
    return d, told


def decide_while(d, state, lines: list[tuple[str, str]]):
    """Run d.decide(state) while `lines` (sender, text) are typed once the state has been told."""
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("decision", d.decide(state)), daemon=True)
    thread.start()
    for sender, text in lines:
        d.replies.hear(sender, text)
    thread.join(timeout=60)
    assert not thread.is_alive(), "the step kept waiting after every free cook had a command"
    return result["decision"]


@pytest.mark.parametrize("spec, player", [("human:steve", "steve"), (" human: Alex_2 ", "Alex_2"),
                                          ("gpt-4o", None), ("oracle", None), (None, None)])
def test_a_human_model_spec_names_the_player(spec, player):
    assert human_player(spec) == player


@pytest.mark.parametrize("spec, problem", [("human", "--model human:YOUR_NAME"), ("human:", "--model human:"),
                                           ("human:two words", "no Minecraft player name"),
                                           ("human:" + "x" * 17, "no Minecraft player name")])
def test_a_human_model_spec_without_a_good_name_is_refused(spec, problem):
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")):
        human_player(spec)


def test_the_step_starts_once_every_free_cook_has_a_command_and_a_stranger_is_not_heard():
    d, told = dispatcher()
    decision = decide_while(d, kitchen(), [
        ("mallory", 'jill: !givePlayer("mallory", "apple", 1)'),    # another player: changes nothing
        ("steve", '**andy** -> !craftRecipe("golden_apple", 1)'),   # the name in any case, any separator
        ("Steve", 'Jill, !goToPlayer("andy", 2)'),
    ])
    assert decision.commands == {"andy": '!craftRecipe("golden_apple", 1)', "jill": '!goToPlayer("andy", 2)'}
    assert decision.problems == [] and "mallory" not in decision.reply
    assert "## Current state" in decision.user  # the prompt a model would have had, for the calls log


def test_a_quiet_player_ends_the_step_with_the_lines_given():
    d, _ = dispatcher(quiet_s=0.5)
    decision = decide_while(d, kitchen(), [("steve", 'andy: !craftRecipe("golden_apple", 1)')])
    assert decision.commands == {"andy": '!craftRecipe("golden_apple", 1)'}  # jill waits this step


def test_what_was_wrong_is_told_back_at_once():
    d, told = dispatcher(quiet_s=0.5)
    decision = decide_while(d, kitchen(busy=("andy",)), [
        ("steve", 'bob: !craftRecipe("golden_apple", 1)'),
        ("steve", 'andy: !putInChest("golden_apple", 1)'),
        ("steve", 'jill: !craftRecipe("golden_apple", 1)'),
    ])
    assert decision.commands == {"jill": '!craftRecipe("golden_apple", 1)'}
    said = [line for line in told if line.startswith("Not run:")]
    assert len(said) == 2 and "bob" in said[0] and "andy" in said[1], told


def test_a_silent_player_lets_the_step_pass_without_a_problem():
    d, told = dispatcher(wait_s=0.3)
    decision = d.decide(kitchen())
    assert decision.commands == {} and decision.problems == [] and d.pending_problems == []
    assert any("golden_apple" in line for line in told)  # the state was told all the same


def test_lines_typed_while_the_cooks_work_count_for_the_next_step():
    d, told = dispatcher()
    busy = d.decide(kitchen(busy=("andy", "jill")))  # nobody free: not even told, no wait
    assert busy.commands == {} and told == []
    d.replies.hear("steve", 'andy: !putInChest("golden_apple", 1)')
    d.replies.hear("steve", 'jill: !craftRecipe("golden_apple", 1)')
    decision = decide_while(d, kitchen(step=1), [])
    assert set(decision.commands) == {"andy", "jill"}


def test_the_player_is_told_how_to_answer_once_then_the_state_each_step():
    d, told = dispatcher(wait_s=0.2)
    d.decide(kitchen(feedback=("andy: !craftRecipe failed: no crafting table nearby",)))
    first = list(told)
    d.decide(kitchen(step=1))
    assert sum("!craftRecipe" in line and "one line per cook" in line for line in told) == 1
    assert first[1:] == state_lines(kitchen(feedback=("andy: !craftRecipe failed: no crafting table nearby",)))
    assert any(line.startswith("Failed: andy") for line in first)
    orders = [line for line in told if line.startswith("Step 1")][0]
    assert orders.index("(due step 4)") < orders.index("(due step 6)")  # earliest deadline first
