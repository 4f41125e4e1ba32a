"""MessageRateLimit: a token bucket per player, on a clock the test moves itself."""

from __future__ import annotations

import pytest

from mindpy.agent.rate_limit import DROPPED, FIRST_DROPPED, MAX_PLAYERS, PASS, MessageRateLimit


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


def test_a_burst_passes_the_bucket_then_drops_and_says_so_once(clock):
    limit = MessageRateLimit(5, clock=clock)
    verdicts = [limit.check("mallory") for _ in range(30)]
    assert verdicts == [PASS] * 5 + [FIRST_DROPPED] + [DROPPED] * 24


def test_the_bucket_refills_at_its_rate_and_a_new_burst_is_told_again(clock):
    limit = MessageRateLimit(5, window_s=10, clock=clock)
    for _ in range(7):
        limit.check("mallory")
    clock.now += 2.0  # one message's worth
    assert [limit.check("mallory") for _ in range(3)] == [PASS, FIRST_DROPPED, DROPPED]
    clock.now += 100.0  # a long pause: a full bucket, never more
    assert [limit.check("mallory") for _ in range(7)] == [PASS] * 5 + [FIRST_DROPPED, DROPPED]


def test_one_players_burst_takes_nothing_from_another(clock):
    limit = MessageRateLimit(2, clock=clock)
    assert [limit.check("mallory") for _ in range(50)][:3] == [PASS, PASS, FIRST_DROPPED]
    assert [limit.check("bob"), limit.check("bob"), limit.check("bob")] == [PASS, PASS, FIRST_DROPPED]


def test_zero_is_no_limit(clock):
    limit = MessageRateLimit(0, clock=clock)
    assert not limit.enabled and {limit.check("mallory") for _ in range(1000)} == {PASS}


def test_a_negative_size_is_refused():
    with pytest.raises(ValueError, match="per_window"):
        MessageRateLimit(-1)


def test_a_stream_of_new_names_keeps_the_table_bounded_and_keeps_a_busy_players_bucket(clock):
    limit = MessageRateLimit(3, clock=clock)
    for _ in range(3):
        limit.check("mallory")
    for i in range(MAX_PLAYERS + 100):
        limit.check(f"name{i}")
    assert len(limit._buckets) <= MAX_PLAYERS
    assert limit.check("mallory") == FIRST_DROPPED  # still empty: not forgotten while the others came and went


def test_the_setting_defaults_to_5_reads_a_variable_and_refuses_a_negative_number():
    from mindpy.settings import SettingsError, load_settings

    assert load_settings(None, env={}).player_messages_per_10s == 5
    assert load_settings(None, env={"MINDPY_PLAYER_MESSAGES_PER_10S": "0"}).player_messages_per_10s == 0
    with pytest.raises(SettingsError, match="player_messages_per_10s.*from 0 \\(no limit\\)"):
        load_settings(None, env={}, player_messages_per_10s=-1)
