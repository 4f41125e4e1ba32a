"""The collaboration score: the paper's tables reproduced from their per-α fractions, and scores of simulated
episodes (nobody serves: 0; every order served at once: 1)."""

from __future__ import annotations

import pytest

from mindpy.tasks.families.orders.book import ALPHAS, LEVELS, OrderBook, OrderEvent, OrderStream
from mindpy.tasks.families.orders.cos import Tally, completion_rate, cos, tally


def _cos_of(fractions: list[str]) -> float:
    return cos({alpha: Tally.parse(f).rate for alpha, f in zip(ALPHAS, fractions, strict=True)})


# (row, the five per-α fractions, the CoS the paper prints); Table 7: level 3, 2 agents, GPT-4 ablations
TABLE_7 = [
    ("GPT-4", ["10/26", "10/17", "11/13", "12/12", "11/11"], 0.764),
    ("GPT-4 w/ few-step", ["8/26", "11/19", "11/13", "9/11", "10/10"], 0.710),
    ("GPT-4 w/o inference knowledge", ["8/25", "9/17", "10/12", "8/9", "9/9"], 0.714),
    ("GPT-4 w/o feedback", ["4/25", "4/17", "4/12", "1/9", "5/7"], 0.311),
]
# Table 6 (level 3, other models): the 2-agent columns
TABLE_6_TWO_AGENTS = [
    ("GPT-4", ["10/26", "10/17", "11/18", "11/13", "11/11"], 0.686),
    ("Claude-2", ["3/24", "3/16", "3/12", "3/9", "4/6"], 0.3125),
    ("LLaMA", ["0", "0", "0", "0", "0"], 0.0),
    ("ChatGPT", ["0/24", "0/15", "0/12", "0/9", "0/6"], 0.0),
]


def test_gpt4_two_agent_row_of_table_7():
    assert round(_cos_of(TABLE_7[0][1]), 4) == 0.7638


def test_claude_2_row_is_exactly_0_3125():
    assert _cos_of(TABLE_6_TWO_AGENTS[1][1]) == pytest.approx(0.3125, abs=1e-12)


@pytest.mark.parametrize("row, fractions, printed", TABLE_7 + TABLE_6_TWO_AGENTS, ids=lambda v: str(v)[:20])
def test_every_row_gives_the_cos_the_paper_prints(row, fractions, printed):
    digits = len(str(printed).split(".")[1])
    assert round(_cos_of(fractions), digits) == printed


def test_tally_reads_the_tables_fractions():
    assert Tally.parse("10/26") == Tally(completed=10, failed=16)
    assert Tally.parse("0") == Tally(0, 0)
    assert Tally(0, 0).rate == 0.0  # nothing ended: contributes 0
    for bad in ("ten/26", "27/26", "10"):
        with pytest.raises(ValueError):
            Tally.parse(bad)


def test_completion_rate_counts_completed_and_expired_only():
    events = [OrderEvent(0, "created", 0, "bread"), OrderEvent(0, "created", 1, "cake"),
              OrderEvent(1, "created", 2, "bread"), OrderEvent(2, "completed", 0, "bread"),
              OrderEvent(5, "expired", 1, "cake")]  # order 2 is still open: it counts in neither
    assert tally(events) == Tally(1, 1)
    assert completion_rate(events) == 0.5
    assert completion_rate([(0, "created", 0, "bread")]) == 0.0


def _episode_rate(level_name: str, alpha: float, serve: bool) -> float:
    """Play one episode: either nobody acts, or every order is served the step it arrives."""
    book = OrderBook(OrderStream.for_level(LEVELS[level_name], alpha, episode_steps=60, seed=4))
    for t in range(60):
        for event in book.step(t):
            if serve and event.kind == "created":
                assert book.complete(event.dish, t) is not None
    return completion_rate(book.events)


@pytest.mark.parametrize("level", ["golden_apple", "banquet"])
def test_an_episode_with_no_actions_scores_0_and_serving_everything_scores_1(level):
    assert cos({a: _episode_rate(level, a, serve=False) for a in ALPHAS}) == 0.0
    assert cos({a: _episode_rate(level, a, serve=True) for a in ALPHAS}) == 1.0


def test_cos_refuses_incomplete_or_impossible_rates():
    with pytest.raises(ValueError, match="missing"):
        cos({1.0: 0.5, 2.0: 0.5})
    assert cos({1.0: 0.5, 2.0: 0.25}, alphas=None) == 0.375
    with pytest.raises(ValueError, match="from 0 to 1"):
        cos(dict.fromkeys(ALPHAS, 1.5))
    with pytest.raises(ValueError, match="at least one"):
        cos({})
