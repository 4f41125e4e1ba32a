"""MindAgent's collaboration score (CoS): the order completion rate, averaged over the order intervals (α) played.

    rate = completion_rate(book.events)          # completed / (completed + failed) in one episode
    cos({1.0: 0.38, 1.5: 0.59, 2.0: 0.85, 2.5: 1.0, 3.0: 1.0})   # 0.764: the mean over the five α

An order counts as failed when it expired (and, with our cap on open orders, when its arrival was skipped because
the kitchen was full); orders still open at the end count in neither. An episode (one α) where no order was
completed or failed has rate 0: nothing was served, so it adds nothing to the score rather than being left out of
the mean.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from .book import ALPHAS, OrderEvent


@dataclass(frozen=True)
class Tally:
    """Completed and failed orders of one episode."""

    completed: int
    failed: int

    def __post_init__(self) -> None:
        if self.completed < 0 or self.failed < 0:
            raise ValueError(f"order counts cannot be negative, got {self.completed} completed, {self.failed} failed")

    @property
    def rate(self) -> float:
        """completed / (completed + failed); 0 when there is neither."""
        total = self.completed + self.failed
        return self.completed / total if total else 0.0

    @classmethod
    def parse(cls, fraction: str) -> Tally:
        """'10/26' (as the paper's tables print it) -> 10 completed, 16 failed; '0' -> nothing ended."""
        text = fraction.strip()
        if text == "0":
            return cls(0, 0)
        done, _, total = text.partition("/")
        try:
            completed, ended = int(done), int(total)
        except ValueError:
            raise ValueError(f"a tally is written 'completed/total' such as '10/26', got {fraction!r}") from None
        if ended < completed:
            raise ValueError(f"tally {fraction!r}: more completed than ended")
        return cls(completed, ended - completed)


def tally(events: Iterable[OrderEvent | tuple]) -> Tally:
    """Count the completed and failed (expired or skipped) orders among an episode's (t, kind, order_id, dish)
    events."""
    kinds = [event[1] for event in events]
    return Tally(kinds.count("completed"), kinds.count("expired") + kinds.count("skipped"))


def completion_rate(events: Iterable[OrderEvent | tuple]) -> float:
    """completed / (completed + failed) for one episode (one α); 0 when no order was completed or failed."""
    return tally(events).rate


def cos(rates_by_alpha: Mapping[float, float], alphas: Sequence[float] | None = ALPHAS) -> float:
    """CoS = (1/M) Σ rate over the M α settings. With `alphas` given (the default: the five of ALPHAS) the rates
    must be for exactly those; alphas=None takes whatever α the mapping has."""
    if not rates_by_alpha:
        raise ValueError("CoS needs the completion rate of at least one alpha")
    if alphas is not None and set(rates_by_alpha) != set(alphas):
        missing = sorted(set(alphas) - set(rates_by_alpha))
        extra = sorted(set(rates_by_alpha) - set(alphas))
        raise ValueError(f"CoS is over alphas {', '.join(f'{a:g}' for a in alphas)}: missing "
                         f"{missing or 'none'}, unexpected {extra or 'none'} (pass alphas=None to use any)")
    bad = {a: r for a, r in rates_by_alpha.items() if not 0 <= r <= 1}
    if bad:
        raise ValueError(f"completion rates must be from 0 to 1, got {bad}")
    # exact sum, so the score does not depend on the order of the α
    return float(sum(Fraction(r) for r in rates_by_alpha.values()) / len(rates_by_alpha))


def cos_summary(rows: list[dict]) -> dict | None:
    """Orders episodes: CoS (the mean completion rate over the α played; `cos` above) per level and agent
    count, read from each episode's result.json; None without orders episodes. A level played at fewer than the
    five α says which it has. Episodes with people cooking beside the agents (`orders_rules.person_cooks`) have
    keys of their own ('l00_golden_apple/2_agents+1_people'): a person's dishes are not the dispatcher's."""
    rates: dict[str, dict[float, list[float]]] = {}
    for r in rows:
        try:
            result = json.loads((Path(r["run_dir"]) / "result.json").read_text())
            level, alpha = result["orders"]["level"], float(result["orders"]["alpha"])
            people = int((result.get("orders_rules") or {}).get("person_cooks") or 0)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        key = f"{level}/{r['agent_count']}_agents" + (f"+{people}_people" if people else "")
        rates.setdefault(key, {}).setdefault(alpha, []).append(float(r["score"]))
    if not rates:
        return None
    return {key: {"cos": cos({a: sum(v) / len(v) for a, v in by_alpha.items()}, alphas=None),
                  "alphas": sorted(by_alpha)} for key, by_alpha in sorted(rates.items())}
