"""A run-wide budget for model calls: requests and tokens per minute, and a ceiling in US dollars.

    limits = BudgetLimits(max_requests_per_minute=50, max_tokens_per_minute=40_000, max_usd=5.0)
    budget = shared_budget("runs/cooking-1", limits)      # every agent of the run gets the same one
    model = budget.wrap(create_model("claude-3-5-sonnet-latest"))
    model.send(messages, system)        # waits for the rate limits; BudgetExceeded once $5 has been spent
    model.send_image(png, prompt)       # the same, reserving IMAGE_TOKENS for the picture
    budget.spent_usd, budget.exceeded
    release_budget("runs/cooking-1")

The rate limits are token buckets that start full and refill evenly over a minute: a call takes one request and
the prompt's estimated tokens before it goes, the reply's reported usage settles the difference after it. A call
that has to wait sleeps (logged once per run and limit). Spend is counted from the usage each reply reports,
priced by `mindpy.models.prices` or by `usd_per_mtok`. When the spend reaches `max_usd` every further call raises
`BudgetExceeded` (a ModelError carrying the spend); `on_exceeded` callbacks run once, so a harness can end the run
with the reason "budget".
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from .base import IMAGE_TOKENS, ChatModel, Message, ModelError, Reply, Usage
from .prices import FREE, Price, parse_price, price_for
from .tokens import count_messages

log = logging.getLogger(__name__)

BUDGET_END_REASON = "budget"  # what a run that ran out of money records as its end


class BudgetExceeded(ModelError):
    """The run's dollar budget is spent; no more model calls. `spent_usd` and `max_usd` say by how much."""

    def __init__(self, spent_usd: float, max_usd: float):
        super().__init__(f"model budget spent: ${spent_usd:.4f} of ${max_usd:.2f}; no more model calls in this run")
        self.spent_usd = spent_usd
        self.max_usd = max_usd


@dataclass(frozen=True)
class BudgetLimits:
    """The limits of one run; None means no limit."""

    max_requests_per_minute: float | None = None
    max_tokens_per_minute: float | None = None
    max_usd: float | None = None
    usd_per_mtok: Price | None = None  # one price for every model, instead of the price table

    def __post_init__(self) -> None:
        for name in ("max_requests_per_minute", "max_tokens_per_minute", "max_usd"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value) or value <= 0):
                raise ValueError(f"{name}: expected a number above 0 (or nothing for no limit), got {value!r}")

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> BudgetLimits:
        """Limits from settings: keys max_requests_per_minute, max_tokens_per_minute, max_usd, usd_per_mtok."""
        allowed = {f.name for f in fields(cls)}
        unknown = set(values) - allowed
        if unknown:
            raise ValueError(f"unknown budget key(s) {sorted(unknown)} (allowed: {', '.join(sorted(allowed))})")
        price = values.get("usd_per_mtok")
        return cls(max_requests_per_minute=values.get("max_requests_per_minute"),
                   max_tokens_per_minute=values.get("max_tokens_per_minute"), max_usd=values.get("max_usd"),
                   usd_per_mtok=None if price is None else parse_price(price))


@dataclass
class TokenBucket:
    """`per_minute` units a minute, spent in bursts of at most `per_minute`. The level may go below zero when a
    call used more than it reserved; later calls then wait for it to refill."""

    per_minute: float
    level: float
    stamp: float

    def refill(self, now: float) -> None:
        self.level = min(self.per_minute, self.level + (now - self.stamp) * self.per_minute / 60.0)
        self.stamp = now

    def wait_for(self, amount: float, now: float) -> float:
        """Seconds until `amount` can be taken (0 when it can be now)."""
        self.refill(now)
        # the tolerance keeps rounding from asking for waits too short to move the clock
        return 0.0 if self.level >= amount - 1e-6 else (amount - self.level) * 60.0 / self.per_minute

    def take(self, amount: float, now: float) -> None:
        self.refill(now)
        self.level = min(self.per_minute, self.level - amount)


def _full_bucket(per_minute: float | None, now: float) -> TokenBucket | None:
    return None if per_minute is None else TokenBucket(float(per_minute), float(per_minute), now)


@dataclass
class Budget:
    """The shared state of one run's limits. Thread-safe: every agent's model calls `acquire` and `settle`."""

    limits: BudgetLimits
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    on_exceeded: list[Callable[[BudgetExceeded], None]] = field(default_factory=list)
    spent_usd: float = 0.0
    requests: int = 0
    cached: int = 0  # calls answered from the response cache: neither requests nor spend
    tokens: int = 0
    waited_s: float = 0.0
    exceeded: BudgetExceeded | None = None
    _requests: TokenBucket | None = field(default=None, repr=False)
    _tokens: TokenBucket | None = field(default=None, repr=False)
    _logged: set[str] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        now = self.clock()
        self._requests = _full_bucket(self.limits.max_requests_per_minute, now)
        self._tokens = _full_bucket(self.limits.max_tokens_per_minute, now)

    def summary(self) -> dict[str, Any]:
        """What the run spent, for its result file: dollars, requests, tokens, seconds waited, whether it ran out,
        and the calls answered from the response cache instead."""
        with self._lock:
            return {"usd": round(self.spent_usd, 6), "max_usd": self.limits.max_usd, "requests": self.requests,
                    "cached": self.cached,
                    "tokens": self.tokens, "waited_s": round(self.waited_s, 3), "exceeded": self.exceeded is not None}

    def price(self, described: str) -> Price:
        """The price of a model (`api/model`); ValueError when a dollar limit is set and none is known."""
        found = price_for(described, self.limits.usd_per_mtok)
        if found is None:
            if self.limits.max_usd is not None:
                raise ValueError(f"no price known for {described}: give usd_per_mtok (e.g. {{input: 3, output: 15}} "
                                 f"dollars per million tokens) to budget it")
            return FREE
        return found

    def wrap(self, model: ChatModel) -> BudgetedModel:
        """`model` with this budget in front of it (refused at once if its spend could not be counted)."""
        return BudgetedModel(model, self, self.price(model.describe()))

    def acquire(self, estimated_tokens: int) -> int:
        """Wait until a call of `estimated_tokens` prompt tokens fits the rate limits, then take them. Returns the
        tokens reserved. Raises BudgetExceeded once the money is spent."""
        while True:
            with self._lock:
                if self.exceeded is not None:
                    raise self.exceeded
                now = self.clock()
                reserve = 0
                waits = {}
                if self._requests is not None:
                    waits["requests"] = self._requests.wait_for(1, now)
                if self._tokens is not None:
                    reserve = min(int(estimated_tokens), int(self._tokens.per_minute))  # a huge prompt still goes
                    waits["tokens"] = self._tokens.wait_for(reserve, now)
                kind, wait = max(waits.items(), key=lambda kv: kv[1], default=("", 0.0))
                if wait <= 0:
                    if self._requests is not None:
                        self._requests.take(1, now)
                    if self._tokens is not None:
                        self._tokens.take(reserve, now)
                    self.requests += 1
                    return reserve
                self.waited_s += wait
                first = kind not in self._logged
                self._logged.add(kind)
            # logged once per limit: with many agents a busy run would otherwise log on every call
            if first:
                limit = self.limits.max_requests_per_minute if kind == "requests" else self.limits.max_tokens_per_minute
                log.warning("model calls wait for the limit of %g %s per minute (%.1f s this time; further waits "
                            "are not logged)", limit, kind, wait)
            self.sleep(wait)

    def count_cached(self) -> None:
        """A call answered from the response cache: counted apart, never waited for nor paid."""
        with self._lock:
            self.cached += 1

    def settle(self, usage: Usage, reserved: int, price: Price) -> float:
        """Count a finished call: its tokens against the minute's (beyond what was reserved) and its cost against
        the dollars. Returns the call's cost."""
        used = usage.prompt_tokens + usage.completion_tokens
        cost = price.cost(usage)
        crossed: BudgetExceeded | None = None
        with self._lock:
            if self._tokens is not None:
                self._tokens.take(used - reserved, self.clock())
            self.tokens += used
            self.spent_usd += cost
            cap = self.limits.max_usd
            if cap is not None and self.exceeded is None and self.spent_usd >= cap:
                crossed = self.exceeded = BudgetExceeded(self.spent_usd, cap)
        if crossed is not None:
            log.warning("%s", crossed)
            for callback in list(self.on_exceeded):
                callback(crossed)
        return cost


class BudgetedModel(ChatModel):
    """A chat model whose calls go through a Budget. Usage is the wrapped model's own (one log, not two)."""

    def __init__(self, model: ChatModel, budget: Budget, price: Price):
        super().__init__(model.model)
        self.inner = model
        self.budget = budget
        self.price = price
        self.api = model.api
        self.usage_log = model.usage_log
        self._lock = model._lock

    def __getattr__(self, name: str) -> Any:  # provider extras (url, calls, ...) are the wrapped model's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def send(self, messages: list[Message], system: str = "") -> Reply:
        answered = getattr(self.inner, "answers_from_cache", None)
        if answered is not None and answered(messages, system):  # a recorded reply: nothing to wait for or pay
            reply = self.inner.send(messages, system)
            if reply.usage.from_cache:
                self.budget.count_cached()
            else:  # the entry could not be read after all: a real call, paid for
                self.budget.settle(reply.usage, 0, self.price)
            return reply
        reserved = self.budget.acquire(count_messages(list(messages), str(system)))
        reply = self.inner.send(messages, system)
        self.budget.settle(reply.usage, reserved, self.price)
        return reply

    @property
    def takes_images(self) -> bool:  # type: ignore[override]  # the wrapped model's, read-only here
        return bool(self.inner.takes_images)

    def send_image(self, png: bytes, prompt: str, system: str = "") -> Reply:
        if not self.inner.takes_images:
            return self.inner.send_image(png, prompt, system)  # its refusal, before anything is reserved
        reserved = self.budget.acquire(count_messages([{"role": "user", "content": prompt}], str(system))
                                       + IMAGE_TOKENS)
        reply = self.inner.send_image(png, prompt, system)
        self.budget.settle(reply.usage, reserved, self.price)
        return reply

    def _complete(self, messages: list[Message], system: str) -> tuple[str, Usage]:
        raise NotImplementedError("BudgetedModel sends through the model it wraps")

    def describe(self) -> str:
        return self.inner.describe()

    def close(self) -> None:
        self.inner.close()


_BUDGETS: dict[str, Budget] = {}
_REGISTRY_LOCK = threading.Lock()


def shared_budget(run: str, limits: BudgetLimits | None = None, **options: Any) -> Budget:
    """The budget of run `run` in this process, made from `limits` on first use (`options`: clock, sleep,
    on_exceeded). Every agent of a run asks with the same key and gets the same object."""
    with _REGISTRY_LOCK:
        budget = _BUDGETS.get(run)
        if budget is None:
            if limits is None:
                raise ValueError(f"no budget for run {run!r} yet: give its limits the first time")
            budget = _BUDGETS[run] = Budget(limits, **options)
        elif limits is not None and limits != budget.limits:
            raise ValueError(f"run {run!r} already has a budget with other limits ({budget.limits}); release it "
                             f"first")
        return budget


def release_budget(run: str) -> Budget | None:
    """Forget run `run`'s budget (at the end of the run); returns it for its totals."""
    with _REGISTRY_LOCK:
        return _BUDGETS.pop(run, None)
