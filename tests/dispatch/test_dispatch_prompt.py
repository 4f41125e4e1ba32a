"""The dispatcher prompt: MindAgent's sections in order, the options that switch them, the demonstration's dish
and the history horizon."""

from __future__ import annotations

import re

import pytest

from mindpy.commands import default_registry
from mindpy.dispatch import (
    AgentState,
    ChestState,
    DispatcherOptions,
    DispatchState,
    HistoryEntry,
    OpenOrder,
    build_prompt,
    dispatch_command_docs,
    parse_dispatch_reply,
)
from mindpy.dispatch import prompt as prompts
from mindpy.tasks.families.orders.book import DISHES, LEVELS

DISHES_OF_LEVEL = list(LEVELS["bakery"].dishes)


@pytest.fixture(scope="module")
def docs():
    return dispatch_command_docs(default_registry())


def make_state(feedback=()):
    return DispatchState(
        step=7,
        agents=(AgentState("andy", inventory={"wheat": 3}), AgentState("jill", busy=True, doing="digging wheat")),
        chests=(ChestState("serving", serving=True),),
        orders=(OpenOrder(3, "cookie", deadline=20), OpenOrder(2, "bread", deadline=12)),
        feedback=tuple(feedback),
    )


def headings(text):
    return re.findall(r"^## (.+)$", text, flags=re.MULTILINE)


def test_all_sections_in_the_papers_order(docs):
    text = build_prompt(DISHES_OF_LEVEL, make_state(), DispatcherOptions(), docs).text
    assert headings(text) == list(prompts.SECTION_ORDER)
    assert "1. farm (3 steps): get 3 wheat" in text           # bread's steps as recipe lines
    assert "given: 1 cocoa_beans" in text                     # cookie's input the world lacks
    assert "!smeltItem(item_name: ItemName" in text            # the command docs
    assert "jill: busy (digging wheat)" in text
    # the state lists open orders by deadline
    assert text.index("order 2: bread") < text.index("order 3: cookie")


def test_fixed_sections_are_the_system_part(docs):
    prompt = build_prompt(DISHES_OF_LEVEL, make_state(), DispatcherOptions(), docs)
    assert headings(prompt.system) == ["Recipes", "Instructions and rules", "Inference knowledge", "Demonstration"]
    assert headings(prompt.user) == ["Current state", "Execution feedback", "History"]


@pytest.mark.parametrize("options, missing", [
    (DispatcherOptions(inference_knowledge=False), "Inference knowledge"),
    (DispatcherOptions(feedback=False), "Execution feedback"),
    (DispatcherOptions(history_steps=0), "History"),
])
def test_options_switch_sections_off(docs, options, missing):
    text = build_prompt(DISHES_OF_LEVEL, make_state(), options, docs).text
    expected = [title for title in prompts.SECTION_ORDER if title != missing]
    assert headings(text) == expected


def test_feedback_holds_execution_errors_then_reply_problems(docs):
    state = make_state(feedback=["andy: no wheat nearby; try the farm"])
    text = build_prompt(DISHES_OF_LEVEL, state, DispatcherOptions(), docs,
                        problems=["unknown agent 'bob': the agents are andy, jill"]).text
    section = text.split("## Execution feedback\n", 1)[1].split("\n## ", 1)[0]
    assert section.splitlines() == ["- andy: no wheat nearby; try the farm",
                                    "- unknown agent 'bob': the agents are andy, jill"]


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_demo_dish_is_not_one_of_the_levels(level):
    dishes = LEVELS[level].dishes
    demo = prompts.demo_dish(dishes)
    assert demo in DISHES and demo not in dishes
    text = prompts.demo_text(dishes, "full")
    assert f"Another dish, {demo}," in text
    assert not any(f'"{dish}"' in text for dish in dishes if dish not in demo)


def test_demo_replies_parse_and_serve_both_orders():
    text = prompts.demo_text(DISHES_OF_LEVEL, "full")
    replies = [block.split("### Reply\n", 1)[1] for block in text.split("\n\n") if "### Reply\n" in block]
    registry = default_registry()
    served = 0
    for reply in replies:
        parsed = parse_dispatch_reply(reply, prompts.DEMO_AGENTS, registry)
        assert parsed.problems == []
        served += sum(1 for cmd in parsed.commands.values() if cmd.startswith("!putInChest"))
    assert served == 2


def test_few_step_demo_keeps_only_its_first_steps(docs):
    full = prompts.demo_text(DISHES_OF_LEVEL, "full")
    few = prompts.demo_text(DISHES_OF_LEVEL, "few_step")
    assert few.count("### Reply") == prompts.FEW_STEPS < full.count("### Reply")
    assert full.startswith(few)
    text = build_prompt(DISHES_OF_LEVEL, make_state(), DispatcherOptions(demo="few_step"), docs).text
    assert few in text and full not in text


def test_history_is_limited_to_the_last_steps(docs):
    history = [HistoryEntry(step, {"andy": f'!collectBlocks("wheat", {step + 1})'}) for step in range(8)]
    text = build_prompt(DISHES_OF_LEVEL, make_state(), DispatcherOptions(history_steps=3), docs, history).text
    section = text.split("## History\n", 1)[1]
    assert [line.split(":")[0] for line in section.splitlines()] == ["step 5", "step 6", "step 7"]


@pytest.mark.parametrize("kwargs, words", [
    ({"demo": "none"}, "demo must be one of full, few_step"),
    ({"history_steps": -1}, "history_steps must be 0 or more"),
])
def test_bad_options_say_what_is_wrong(kwargs, words):
    with pytest.raises(ValueError, match=words):
        DispatcherOptions(**kwargs)


def test_unknown_dish_or_command_is_refused(docs):
    with pytest.raises(ValueError, match="unknown: \\['pizza'\\]"):
        build_prompt(["pizza"], make_state(), DispatcherOptions(), docs)
    with pytest.raises(ValueError, match="unknown command 'cook'"):
        dispatch_command_docs(default_registry(), ["attack", "cook"])
