"""The run-wide budget: rate limits that delay calls (on an injected clock, no real sleeps), and a dollar ceiling
counted from the usage a local server reports."""

from __future__ import annotations

import logging

import pytest
from model_http_fakes import RecordingServer, anthropic_reply, openai_reply

from mindpy.models import ModelError, create_model
from mindpy.models.base import ChatModel, Usage
from mindpy.models.budget import Budget, BudgetExceeded, BudgetLimits, release_budget, shared_budget
from mindpy.models.prices import Price, parse_price, price_for
from mindpy.models.tokens import count_messages

MSGS = [{"role": "user", "content": "steve: build a house"}]


class FakeClock:
    def __init__(self):
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class Fixed(ChatModel):
    """A local model that reports the same usage every call."""

    api = "vllm"

    def __init__(self, prompt: int = 10, completion: int = 2):
        super().__init__("fixed")
        self.prompt, self.completion = prompt, completion
        self.calls = 0

    def _complete(self, messages, system):
        self.calls += 1
        return "ok", Usage(prompt_tokens=self.prompt, completion_tokens=self.completion)


def test_requests_per_minute_delay_the_next_request(caplog):
    clock = FakeClock()
    budget = Budget(BudgetLimits(max_requests_per_minute=3), clock=clock, sleep=clock.sleep)
    model = budget.wrap(Fixed())
    with caplog.at_level(logging.WARNING, logger="mindpy.models.budget"):
        for _ in range(3):
            model.send(MSGS)
        assert clock.slept == []
        model.send(MSGS)  # the 4th within the minute waits for one request to refill: 60 s / 3
        assert clock.slept == [pytest.approx(20.0)]
        model.send(MSGS)
    assert clock.slept == [pytest.approx(20.0)] * 2
    assert len([r for r in caplog.records if "per minute" in r.getMessage()]) == 1  # the wait is logged once
    clock.now += 60.0  # a quiet minute fills the bucket again
    for _ in range(3):
        model.send(MSGS)
    assert len(clock.slept) == 2 and budget.requests == 8 and model.inner.calls == 8


def test_tokens_per_minute_count_the_reported_usage():
    clock = FakeClock()
    budget = Budget(BudgetLimits(max_tokens_per_minute=1000), clock=clock, sleep=clock.sleep)
    model = budget.wrap(Fixed(prompt=400, completion=100))
    model.send(MSGS)
    model.send(MSGS)  # 2 x 500 reported tokens: the minute's tokens are used up
    assert clock.slept == [] and budget.tokens == 1000
    model.send(MSGS)
    estimate = count_messages(MSGS, "")
    assert clock.slept == [pytest.approx(estimate * 60 / 1000)]


def test_a_prompt_larger_than_the_minute_still_goes():
    clock = FakeClock()
    budget = Budget(BudgetLimits(max_tokens_per_minute=5), clock=clock, sleep=clock.sleep)
    assert budget.wrap(Fixed()).send(MSGS).text == "ok"
    assert clock.slept == []


def test_spend_from_the_server_usage_stops_calls_at_max_usd(monkeypatch):
    monkeypatch.setenv("MINDPY_BUDGET_TEST_KEY", "sk-budget")
    stops: list[BudgetExceeded] = []
    limits = BudgetLimits(max_usd=2.0, usd_per_mtok=parse_price({"input": 2, "output": 10}))
    budget = Budget(limits, on_exceeded=[stops.append])
    # each reply reports 200k prompt and 50k completion tokens: 0.4 + 0.5 = $0.90 a call
    with RecordingServer([(200, openai_reply("ok", prompt=200_000, completion=50_000))]) as server:
        inner = create_model({"api": "openai", "model": "gpt-x", "url": server.url + "/v1",
                              "key_env": "MINDPY_BUDGET_TEST_KEY"}, attempts=1)
        model = budget.wrap(inner)
        model.send(MSGS)
        model.send(MSGS)
        assert budget.spent_usd == pytest.approx(1.8) and budget.exceeded is None and stops == []
        model.send(MSGS)  # this one passes $2: its reply still arrives (it was paid for)
        with pytest.raises(BudgetExceeded) as err:
            model.send(MSGS)
    assert len(server.requests) == 3
    assert isinstance(err.value, ModelError)
    assert err.value.spent_usd == pytest.approx(2.7) and err.value.max_usd == 2.0
    assert "$2.7000 of $2.00" in str(err.value)
    assert stops == [err.value]  # the harness hears of it once
    summary = budget.summary()
    assert summary["exceeded"] and summary["requests"] == 3 and summary["tokens"] == 3 * 250_000
    assert model.usage_log is inner.usage_log and len(inner.usage_log) == 3


def test_anthropic_cache_tokens_are_priced_apart(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-budget")
    budget = Budget(BudgetLimits(max_usd=100.0))
    reply = anthropic_reply("ok", input_tokens=1000, output_tokens=2000, cache_read=100_000, cache_write=10_000)
    with RecordingServer([(200, reply)]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        model = budget.wrap(create_model("claude-3-5-sonnet-20241022", attempts=1))
        model.send(MSGS, system="You are andy.")
    # list prices: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million tokens
    expected = (1000 * 3 + 100_000 * 0.30 + 10_000 * 3.75 + 2000 * 15) / 1e6
    assert budget.spent_usd == pytest.approx(expected)


def test_a_hosted_model_without_a_price_is_refused_when_dollars_count():
    class Hosted(Fixed):
        api = "together"

    with pytest.raises(ValueError, match="no price known for together/fixed: give usd_per_mtok"):
        Budget(BudgetLimits(max_usd=1.0)).wrap(Hosted())
    assert Budget(BudgetLimits(max_requests_per_minute=10)).wrap(Hosted()).send(MSGS).text == "ok"


def test_price_table_matches_the_longest_name():
    assert price_for("openai/gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini") != price_for("gpt-4o")
    assert price_for("openrouter/anthropic/claude-3.5-sonnet") == price_for("anthropic/claude-3-5-sonnet-latest")
    assert price_for("openai/o3-mini") != price_for("openai/o3")
    assert price_for("anthropic/claude-3-5-sonnet@20241022") == price_for("claude-3-5-sonnet")  # Vertex's form
    assert price_for("openai/GPT-4o") == price_for("gpt-4o") and price_for("openai/gpt-4ox") is None
    assert price_for("ollama/llama3").cost(Usage(prompt_tokens=10**6, completion_tokens=10**6)) == 0
    assert price_for("xai/grok-99") is None
    assert price_for("xai/grok-99", override=4) == Price(4.0, 4.0)


def test_runs_share_one_budget_per_key():
    clock = FakeClock()
    limits = BudgetLimits(max_requests_per_minute=2)
    try:
        first = shared_budget("run-a", limits, clock=clock, sleep=clock.sleep)
        assert shared_budget("run-a") is first and shared_budget("run-a", limits) is first
        andy, bob = first.wrap(Fixed()), shared_budget("run-a").wrap(Fixed())
        andy.send(MSGS)
        bob.send(MSGS)
        andy.send(MSGS)  # the third call of the run waits, whoever makes it
        assert clock.slept == [pytest.approx(30.0)]
        with pytest.raises(ValueError, match="already has a budget with other limits"):
            shared_budget("run-a", BudgetLimits(max_requests_per_minute=5))
        with pytest.raises(ValueError, match="no budget for run 'run-b' yet"):
            shared_budget("run-b")
    finally:
        assert release_budget("run-a") is first
    assert release_budget("run-a") is None


@pytest.mark.parametrize("values, words", [
    ({"max_usd": 0}, "max_usd: expected a number above 0"),
    ({"max_requests_per_minute": float("nan")}, "max_requests_per_minute: expected a number above 0"),
    ({"max_tokens_per_minute": "lots"}, "max_tokens_per_minute: expected a number above 0"),
    ({"max_dollars": 3}, "unknown budget key(s) ['max_dollars']"),
    ({"usd_per_mtok": {"input": 3}}, "usd_per_mtok: needs 'input' and 'output'"),
    ({"usd_per_mtok": {"input": 3, "output": -1}}, "usd_per_mtok.output: expected dollars per million tokens"),
])
def test_bad_limits_say_what_is_wrong(values, words):
    with pytest.raises(ValueError) as err:
        BudgetLimits.from_mapping(values)
    assert words in str(err.value) and "\n" not in str(err.value)
