"""CoBlock's workload balance γ and the optimal split it is measured against (the paper's Algorithm 1)."""

from __future__ import annotations

import math

import pytest

from mindpy.tasks.families.coblock.workload import optimal_assignment, workload_balance


@pytest.mark.parametrize("n_a, n_b, best, gamma", [
    (10, 10, (10, 10), 0.5),
    (12, 8, (10, 10), 0.4615),
    (0, 20, (10, 10), 0.0),
    (20, 0, (10, 10), 0.0),
    (6, 3, (6, 3), 0.5),          # the optimum itself is uneven: following it is balanced
    (3, 6, (6, 3), 0.2353),       # the reverse of an uneven optimum is not
])
def test_gamma(n_a, n_b, best, gamma):
    assert workload_balance(n_a, n_b, best) == pytest.approx(gamma, abs=5e-5)


def test_gamma_is_undefined_when_agent_a_could_place_nothing():
    assert math.isnan(workload_balance(0, 5, (0, 5)))


def test_unique_colours_go_to_their_holder_and_shared_ones_even_out():
    target = ["red_wool"] * 4 + ["blue_wool"] * 6 + ["green_wool"] * 2
    # red is a's alone, green b's alone, blue both hold: 4 | 2, then blues to b until level, then alternate from a
    assert optimal_assignment({"red_wool", "blue_wool"}, {"green_wool", "blue_wool"}, target) == (6, 6)
    assert optimal_assignment({"red_wool", "blue_wool", "green_wool"}, {"blue_wool"}, target) == (6, 6)
    assert optimal_assignment({"red_wool"}, {"blue_wool"}, target) == (4, 6)


def test_ties_go_to_agent_a_and_blocks_nobody_holds_count_for_neither():
    assert optimal_assignment({"red_wool"}, {"red_wool"}, ["red_wool"] * 3) == (2, 1)
    assert optimal_assignment({"red_wool"}, {"red_wool"}, ["red_wool", "black_wool"]) == (1, 0)
