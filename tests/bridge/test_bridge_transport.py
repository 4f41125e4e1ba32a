"""The transport under the JS proxies: a reply that comes after its caller gave up is dropped, not fatal; calls
from many threads each get their own answer; a call waiting on Node does not hold up the others."""

from __future__ import annotations

import threading
import time

import pytest

from conftest import TESTS_DIR, wait_until
from mindpy.bridge import js_module, runtime
from mindpy.bridge.runtime import call_js
from mindpy.errors import BridgeError, BridgeTimeout


def helpers():
    return js_module(TESTS_DIR / "js" / "bridge_helpers.js")


def test_a_reply_after_its_caller_gave_up_is_dropped_and_the_bridge_lives_on():
    js = helpers()
    transport = runtime().transport
    dropped = transport.dropped
    for _ in range(3):  # more than once: each late reply used to be a barrier nobody joined
        with pytest.raises(BridgeTimeout):
            call_js(lambda: js.answerAfter(1500, "late", timeout=0.3), "a slow call", timeout=0.3)
    wait_until(lambda: transport.dropped >= dropped + 3, timeout=10, message="the three late replies dropped")
    time.sleep(6)  # a hand-over barrier nobody joins breaks after 5 s, and used to take the receiving thread along
    assert js.echo("still here", timeout=5) == "still here"
    assert transport.thread.is_alive()


def test_calls_from_many_threads_each_get_their_own_answer():
    js = helpers()
    wrong = []

    def worker(k: int) -> None:
        for i in range(150):
            value = f"{k}-{i}"
            answer = js.echo(value, timeout=30)
            if answer != value:
                wrong.append((value, answer))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "calls hung"
    assert wrong == []


def test_a_call_waiting_on_node_does_not_hold_up_other_calls():
    js = helpers()
    slow = threading.Thread(target=lambda: js.answerAfter(20000, "slow", timeout=60), daemon=True)
    slow.start()
    time.sleep(0.2)
    for i in range(20):
        assert js.echo(i, timeout=10) == i
    assert slow.is_alive(), "the quick calls were answered only after the slow one"


def test_a_huge_time_limit_is_capped_not_an_overflow():
    js = helpers()
    assert js.answerAfter(10, "ok", timeout=1e12) == "ok"
    assert js.answerAfter(10, "ok", timeout=float("inf")) == "ok"


def test_a_nan_argument_is_refused_at_once_and_the_bridge_lives_on():
    """Node cannot read Python's NaN in JSON: the request was lost and its caller waited out the whole limit."""
    js = helpers()
    for value in (float("nan"), float("inf")):
        with pytest.raises(BridgeError, match="NaN or infinite"):
            call_js(lambda value=value: js.echo(value, timeout=30), "echoing a number", timeout=30)
    assert js.echo("still here", timeout=5) == "still here"
