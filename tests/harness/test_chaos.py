"""Episodes of every task family played by the careless `chaos` model end normally (by score or timeout), with
no dead bridge, hang or traceback. `benchmarks/bench_chaos.py` plays many more."""

from __future__ import annotations

import time

import pytest

from conftest import REPO_ROOT
from mindpy.harness.chaos import FAMILY_TASKS, finish_episode, start_episode
from mindpy.models.registry import create_model

pytestmark = pytest.mark.slow  # whole episodes: left out of `make test-fast`


def test_the_chaos_model_is_seeded_and_draws_every_kind_of_trouble():
    first, again = create_model("chaos:3"), create_model("chaos:3")
    replies = [first.reply() for _ in range(300)]
    assert replies == [again.reply() for _ in range(300)]
    assert set(first.kinds) == {"extreme_argument", "malformed", "other_agents", "huge", "code_request",
                                "slash_chat", "empty", "sensible"}
    assert replies != [create_model("chaos:4").reply() for _ in range(300)]
    with pytest.raises(ValueError, match="whole number"):
        create_model("chaos:abc")  # not silently seed 0


def test_chaos_episodes_of_every_family_end_normally(tmp_path):
    started = time.monotonic()
    procs = [(start_episode(REPO_ROOT, family, seed, tmp_path, timeout_s=25), family, seed)
             for seed, family in enumerate(FAMILY_TASKS)]
    endings = [finish_episode(proc, family, seed, tmp_path, 300, started) for proc, family, seed in procs]
    for ending in endings:
        assert ending.normal, ending
