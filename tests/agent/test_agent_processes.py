"""One run's agents in two processes (ProcessRunner, as `mindpy run --processes 2` has them): every bot joins, a bot
of this process and one of the worker talk over the run's hub, the worker's console lines reach this process's
console, `!restart` works in the worker, a worker that dies is reported and started again, and stopping leaves
no process behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import yaml

from agent_helpers import make_profile, make_settings
from conftest import unique_name, wait_until
from mindpy.agent.processes import ProcessRunner
from mindpy.profiles import load_profile


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def scripted_profile(tmp_path, name: str, replies: list, default: str = ""):
    """A profile whose model answers from a replay script file (a worker builds its model from the profile)."""
    script = tmp_path / f"{name}.script.yaml"
    script.write_text(yaml.safe_dump({"replies": replies, "default": default}))
    return make_profile(tmp_path, name, model=f"replay:{script}")


def test_two_processes_join_talk_restart_and_stop_cleanly(server, make_bot, tmp_path):
    a0, a1, b0, b1 = (unique_name(prefix) for prefix in ("procA", "procA", "procB", "procB"))
    settings = make_settings(tmp_path)
    paths = [
        scripted_profile(tmp_path, a0, [{"match": "greet your partner", "reply": f'!startConversation("{b0}", '
                                                                                 f'"hello from {a0}")'}]),
        scripted_profile(tmp_path, a1, []),
        scripted_profile(tmp_path, b0, [{"match": f"hello from {a0}", "reply": f"hi {a0}, {b0} here", "times": 0}]),
        scripted_profile(tmp_path, b1, [{"match": "are you back", "reply": "Back again.", "times": 0}]),
    ]
    profiles = [load_profile(path, settings=settings) for path in paths]
    events: list[tuple[str, str, str]] = []
    reports: list[str] = []
    player = make_bot("player")
    heard: list[tuple[str, str]] = []
    player.on("chat", lambda username, message, *rest: heard.append((username, message)))
    joined: list[str] = []
    player.on("playerJoined", lambda who, *rest: joined.append(who["username"]))
    runner = ProcessRunner(settings, profiles, server.host, server.port, processes=2,
                           console=lambda who, kind, text: events.append((who, kind, text)), report=reports.append)
    worker_pids: set[int] = set()
    node_pids: set[int] = set()
    try:
        runner.start()
        assert sorted(runner.agents) == sorted([a0, a1])  # the first share plays here, the second in the worker
        worker = runner.pids()[1]
        worker_pids.add(worker)
        node_pids.update(children_of(worker))
        assert runner.ask(1, "pids") == {"python": worker, "node": min(node_pids)}  # its own Node process
        wait_until(lambda: all(player.js.players[name] is not None for name in (a0, a1, b0, b1)), timeout=20,
                   message="every bot in the player list")
        wait_until(lambda: {a0, a1, b0, b1} <= set(runner.bus.names()), timeout=10, message="every agent on the bus")

        # a bot of this process starts a conversation with a bot of the worker, which answers
        player.chat(f"{a0}, greet your partner")
        wait_until(lambda: any(f"(FROM OTHER BOT)hi {a0}, {b0} here" in turn["content"]
                               for turn in runner.agents[a0].history.get()), timeout=30,
                   message=f"{b0}'s answer in {a0}'s history (events: {events})")
        assert (b0, "to bot", f"(to {a0}) hi {a0}, {b0} here") in events  # the worker's console line, here
        assert any(who == a0 for who, _, _ in events)

        # !restart of an agent of the worker: it leaves, joins again and answers
        joined.clear()
        player.chat(f"{b1} !restart")
        wait_until(lambda: (b1, "command", "!restart") in events, timeout=15,
                   message=f"the restart command in the console (events: {events})")
        wait_until(lambda: b1 in joined and b1 in runner.bus.names(), timeout=30, message=f"{b1} to join again")
        player.chat(f"{b1}, are you back?")
        wait_until(lambda: (b1, "Back again.") in heard, timeout=30, message="the restarted agent answering")

        # a worker that dies is reported, started again, and its agents come back
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: any("joined again" in line for line in reports), timeout=45,
                   message=f"the worker started again (reports: {reports})")
        assert sum("ended with exit code -9" in line for line in reports) == 1, reports
        wait_until(lambda: {b0, b1} <= set(runner.bus.names()), timeout=10, message="the worker's agents back")
        new_worker = runner.pids()[1]
        assert new_worker != worker
        worker_pids.add(new_worker)
        node_pids.update(children_of(new_worker))
    finally:
        runner.stop()
    wait_until(lambda: not any(alive(pid) for pid in worker_pids | node_pids), timeout=10,
               message="the workers and their Node processes to end")
    assert not any(alive(pid) for pid in children_of(os.getpid()) if pid in worker_pids)
