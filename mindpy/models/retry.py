"""Retries with exponential backoff and jitter for transient model failures (429, 5xx, timeouts, refused
connections). A call that failed every attempt means the endpoint cannot be used now: ModelUnreachable."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .base import ModelUnreachable

log = logging.getLogger(__name__)
T = TypeVar("T")


class Transient(Exception):
    """Raised by a call that may succeed if tried again; `retry_after` is the server's hint in seconds."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class RetryPolicy:
    """How often and how long to retry a failed call: exponential backoff with jitter, capped."""

    attempts: int = 4          # calls in all, the first included
    base_delay: float = 1.0    # seconds before the first retry
    max_delay: float = 30.0    # cap of one wait
    jitter: float = 0.5        # each wait is scaled by a random factor in [1 - jitter, 1]

    def delay(self, retry: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Wait before retry number `retry` (0-based). Jitter spreads out bots that failed together."""
        wait = min(self.max_delay, self.base_delay * (2 ** retry))
        wait *= 1.0 - self.jitter * (rng.random() if rng else random.random())
        if retry_after is not None:  # the server knows best, within our cap
            wait = max(wait, min(float(retry_after), self.max_delay))
        return wait


def call_with_retries(fn: Callable[[], T], policy: RetryPolicy, what: str = "call",
                      sleep: Callable[[float], None] = time.sleep) -> tuple[T, int]:
    """Run `fn` until it returns or raises something other than `Transient`, at most `policy.attempts` times.

    Returns (result, attempts used). After the last attempt the final `Transient` propagates.
    """
    attempts = max(1, int(policy.attempts))
    for attempt in range(attempts):
        try:
            return fn(), attempt + 1
        except Transient as exc:
            if attempt + 1 >= attempts:
                raise
            wait = policy.delay(attempt, exc.retry_after)
            log.info("%s failed (%s); retry %d/%d in %.2f s", what, exc, attempt + 1, attempts - 1, wait)
            sleep(wait)
    raise AssertionError("unreachable")


def call_or_fail(fn: Callable[[], T], policy: RetryPolicy, what: str, url: str = "") -> tuple[T, int]:
    """call_with_retries, with a call that failed every attempt turned into ModelUnreachable (naming `url`, the
    endpoint called, and the last cause): the endpoint is down, not the model wrong."""
    try:
        return call_with_retries(fn, policy, what=f"{what} at {url}" if url else what)
    except Transient as exc:
        raise ModelUnreachable(url or what, str(exc), what if url else "", max(1, int(policy.attempts))) from None
