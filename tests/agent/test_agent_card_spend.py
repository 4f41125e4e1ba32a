"""A dashboard card's spend counts every model call of its agent: its own model's (a reply, a summary) and its
code and vision models', each at its own price. The side models are real OpenAI-compatible clients talking to a
local HTTP server (tests/models/model_http_fakes.py) that reports a million prompt tokens per reply: $0.15 at
gpt-4o-mini's price; the replay chat model is free."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import MILLION, priced_server, priced_spec  # noqa: E402

from agent_helpers import make_settings, start_agent_with_model
from mindpy.agent.cards import spend
from mindpy.models.replay import ReplayModel


@pytest.fixture
def side_server():
    with priced_server("def f(): pass", completion=7) as server:
        yield server


def test_the_cards_spend_adds_the_code_and_vision_models_calls(make_bot, tmp_path, side_server):
    chat = ReplayModel([], default="Fine.")
    agent = start_agent_with_model(make_bot, tmp_path, chat, settings=make_settings(tmp_path,
                                                                                   allow_insecure_coding=True),
                                   code_model=priced_spec(side_server), allow_vision=True,
                                   vision_model=priced_spec(side_server))
    try:
        assert len(agent.models()) == 3  # its own, the code model, the vision model: each once
        chat.send([{"role": "user", "content": "hi"}], "You are a bot.")  # e.g. a summary: not a reply
        assert spend(agent) == {"calls": 1, "prompt_tokens": chat.usage_log[0].prompt_tokens,
                                "completion_tokens": chat.usage_log[0].completion_tokens, "usd": 0.0}
        agent.coder.model.send([{"role": "user", "content": "collect a log"}], "Write a function.")
        agent.context.vision.model.send([{"role": "user", "content": "look"}], "Describe.")
        card = spend(agent)
        assert card["calls"] == 3 and card["prompt_tokens"] >= 2 * MILLION and card["completion_tokens"] >= 14
        assert card["usd"] == pytest.approx(2 * (0.15 + 7 * 0.60 / MILLION), abs=1e-6)
    finally:
        agent.close()


def test_an_agent_whose_vision_is_its_own_model_counts_each_call_once(make_bot, tmp_path, side_server):
    from mindpy.models import create_model

    own = create_model(priced_spec(side_server), attempts=1)
    agent = start_agent_with_model(make_bot, tmp_path, own, allow_vision=True)
    try:
        assert agent.models() == [own] and agent.context.vision.model is own
        own.send([{"role": "user", "content": "look"}], "Describe.")
        assert spend(agent) == {"calls": 1, "prompt_tokens": MILLION, "completion_tokens": 7,
                                "usd": pytest.approx(0.15 + 7 * 0.60 / MILLION, abs=1e-6)}
    finally:
        agent.close()
