"""Workload balance of a two-agent build (CoBlock's γ): how evenly the agents shared the work, measured against the
best split their inventories allow.

    best = optimal_assignment({"red_wool", "blue_wool"}, {"blue_wool"}, ["red_wool", "blue_wool", "blue_wool"])
    best                                          # (2, 1): red is agent a's alone; the blues go to whoever has less
    workload_balance(n_a=2, n_b=1, best=best)     # 0.5: as balanced as the inventories allow

The optimal split (the paper's Algorithm 1): a target block whose colour only one agent holds is that agent's; a
block of a colour both hold goes, one at a time, to the agent with fewer blocks so far (agent a on a tie). Then
a = N_a * N_b* / N_a*, b = N_b and γ = ab / (a² + b²): 0.5 when the actions split as the optimum does, lower the
further they are from it, 0 when one agent did nothing. γ is NaN when N_a* is 0 (agent a could place nothing).
A target block neither agent holds is nobody's and counts for neither.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def optimal_assignment(colours_a: Iterable[str], colours_b: Iterable[str], target: Sequence[str]) -> tuple[int, int]:
    """(N_a*, N_b*): how many of the target's blocks (one colour per block) each agent places in the best split."""
    mine, theirs = set(colours_a), set(colours_b)
    mutual = mine & theirs
    count_a = sum(1 for colour in target if colour in mine - mutual)
    count_b = sum(1 for colour in target if colour in theirs - mutual)
    for colour in target:
        if colour not in mutual:
            continue
        if count_a <= count_b:
            count_a += 1
        else:
            count_b += 1
    return count_a, count_b


def workload_balance(n_a: int, n_b: int, best: tuple[int, int]) -> float:
    """γ for agents that took n_a and n_b building actions, given the optimal split `best` = (N_a*, N_b*)."""
    best_a, best_b = best
    if best_a == 0:
        return math.nan
    a = n_a * best_b / best_a
    b = float(n_b)
    if a == 0 and b == 0:
        return 0.0  # nobody did anything: no balance to speak of
    return a * b / (a * a + b * b)
