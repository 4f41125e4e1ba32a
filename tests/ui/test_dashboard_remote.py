"""The dashboard's side of a multi-process run without processes (fast): the feed tells the workers to send cards
when the first page opens and to stop when the last one closes, a worker started again while a page is open is
told at once, a dead worker's cards show it gone and controls to its agents are refused, a worker's answer comes
back to the control that asked, and the page gets only what changed."""

from __future__ import annotations

import threading

import pytest

from mindpy.agent.remote import WorkerAgents
from mindpy.agent.steering import ControlError
from mindpy.ui.app import card_patch
from mindpy.ui.feed import AgentFeed


def card(name: str, x: float = 1.0, inventory: dict | None = None) -> dict:
    return {"name": name, "model": "replay/inline", "action": None, "idle": True, "modes": {"hunting": True},
            "goal": None, "goal_state": "stopped", "partners": [], "events": [],
            "spend": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "usd": None}, "task_goal": None,
            "world": {"position": {"x": x, "y": -60, "z": 0}, "health": 20, "hunger": 20, "held": None,
                      "gamemode": "survival", "inventory": inventory or {}, "equipment": {}},
            "world_error": None}


@pytest.fixture
def remote():
    posted: list[tuple[int, tuple]] = []
    agents = WorkerAgents(lambda worker, message: posted.append((worker, message)) or True, {1: ["wa", "wb"]})
    agents.posted = posted  # type: ignore[attr-defined]
    return agents


def test_workers_send_only_while_a_page_watches(remote):
    feed = AgentFeed()
    feed.add_remote(remote)
    remote.worker_started(1)
    assert remote.posted == []  # no page: nothing asked
    with feed.watching():
        assert remote.posted == [(1, ("watch", {"mind": 0.1, "card": 0.5}))]
        with feed.watching():  # a second page changes nothing
            pass
        assert len(remote.posted) == 1
        remote.worker_ended(1, "its process (worker 1) ended")
        remote.worker_started(1)  # started again while a page watches: told at once
        assert remote.posted[-1] == (1, ("watch", {"mind": 0.1, "card": 0.5}))
    assert remote.posted[-1] == (1, ("watch", None))  # the last page closed


def test_cards_of_a_dead_worker_show_it_gone_and_refuse_controls(remote):
    feed = AgentFeed()
    feed.add_remote(remote)
    remote.worker_started(1)
    remote.receive(1, ("cards", {"wa": card("wa"), "wb": card("wb")}))
    assert {c["name"]: c["process"] for c in feed.state["agents"]} == {"wa": 1, "wb": 1}
    assert not any(c["gone"] for c in feed.state["agents"])
    remote.worker_ended(1, "its process (worker 1) ended")
    shown = {c["name"]: c for c in feed.state["agents"]}
    assert shown["wa"]["gone"] == "its process (worker 1) ended" and shown["wa"]["world"] is None
    with pytest.raises(ControlError, match="wa is gone"):
        feed.steer("wa", "stop")
    with pytest.raises(LookupError):
        feed.steer("nobody", "stop")
    remote.worker_started(1)
    remote.receive(1, ("cards", {"wa": card("wa"), "wb": card("wb")}))
    assert not any(c["gone"] for c in feed.state["agents"])


def test_a_control_gets_the_workers_answer_or_its_refusal(remote):
    remote.worker_started(1)

    def worker_answers() -> None:  # the worker's end, as CardReporter answers
        while not any(m[0] == "steer" for _, m in remote.posted):
            threading.Event().wait(0.01)
        asked = next(m for _, m in remote.posted if m[0] == "steer")
        remote.receive(1, ("steered", asked[1], False, "no mode 'flying'; the modes are hunting"))

    threading.Thread(target=worker_answers, daemon=True).start()
    with pytest.raises(ControlError, match="no mode 'flying'"):
        remote.steer("wa", "mode", {"mode": "flying", "on": True}, timeout=5)
    (_, steer), = [(w, m) for w, m in remote.posted if m[0] == "steer"]
    assert steer[2:] == ("wa", "mode", {"mode": "flying", "on": True})


def test_the_page_gets_only_the_cards_and_fields_that_changed(remote):
    feed = AgentFeed()
    feed.add_remote(remote)
    remote.worker_started(1)
    remote.receive(1, ("cards", {"wa": card("wa"), "wb": card("wb")}))
    sent: dict[str, int] = {}
    page: dict[str, dict] = {}
    changed, removed, _ = feed.changes(sent, -1)
    assert [card_patch(page, c) for c in changed] == [feed.cards["wa"], feed.cards["wb"]]  # whole, the first time
    remote.receive(1, ("cards", {"wb": card("wb", x=5.0, inventory={"stick": 2})}))
    changed, removed, _ = feed.changes(sent, 0)
    patches = [card_patch(page, c) for c in changed]
    assert patches == [{"name": "wb", "world": feed.cards["wb"]["world"]}] and removed == []
    remote.receive(1, ("cards", {"wa": None}))
    changed, removed, _ = feed.changes(sent, 0)
    assert changed == [] and removed == ["wa"]
