"""One run's agents in two processes (ProcessRunner, as `mindpy run --processes 2` has them): every bot joins, a bot
of this process and one of the worker talk over the run's hub, the worker's console lines reach this process's
console, `!restart` works in the worker, a worker that dies is reported and started again, and stopping leaves
no process behind. The same through `mindpy run --processes 2` and Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from agent_helpers import make_profile, make_settings
from conftest import unique_name, wait_until
from mindpy.agent.processes import ProcessRunner
from mindpy.bridge import create_bot
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


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (children, their children...)."""
    found, todo = set(), [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


@pytest.mark.slow  # a CLI run with its own server
def test_mindpy_run_with_two_processes_shows_both_and_ctrl_c_ends_every_process(tmp_path):
    names = [unique_name("cliproc") for _ in range(2)]
    for name in names:
        script = tmp_path / f"{name}.script.yaml"
        script.write_text(yaml.safe_dump({"replies": [], "default": f"I am {name}."}))
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump({"name": name, "model": f"replay:{script}",
                                                               "cooldown": 0, "embedding": "none"}))
    env = {**os.environ, "MINDPY_BOTS_DIR": str(tmp_path / "bots"), "MINDPY_CACHE_DIR": str(tmp_path / "cache"),
           "MINDPY_NARRATE_BEHAVIOR": "false"}
    command = [str(Path(sys.executable).with_name("mindpy")), "run", "--processes", "2",
               "--run-dir", str(tmp_path / "run")]
    for name in names:
        command += ["--profile", str(tmp_path / f"{name}.yaml")]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(line.rstrip("\n") for line in proc.stdout), daemon=True).start()

    def find(pattern: str):
        return next((m for m in (re.search(pattern, line) for line in list(lines)) if m), None)

    visitor = None
    below: set[int] = set()
    try:
        wait_until(lambda: find(r"joined 127\.0\.0\.1"), timeout=90, interval=0.2, message="the bots to join")
        below = descendants(proc.pid)  # the server's Node, this run's Node, the worker and its Node
        assert len(below) >= 4, below
        port = int(find(r"Embedded server on 127\.0\.0\.1:(\d+)").group(1))
        visitor = create_bot(unique_name("visitor"), "127.0.0.1", port)
        visitor.chat(f"{names[0]} and {names[1]}, who are you?")
        for name in names:  # the first plays in the run's own process, the second in the worker
            wait_until(lambda name=name: find(rf"\[{name}\] says: I am {name}\."), timeout=30, interval=0.2,
                       message=f"{name}'s answer on the console:\n" + "\n".join(lines))
    finally:
        if visitor is not None:
            visitor.close()
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 0, "\n".join(lines)
    wait_until(lambda: not any(alive(pid) for pid in below), timeout=10,
               message="every process the run started to end")


def test_the_hub_relays_between_processes_as_one_bus_would():
    """The hub and two clients over real sockets (in one process here): names reach every end, messages reach
    their recipient wherever it is registered, and the names of a client whose connection ends are dropped."""
    from mindpy.agent.hub import Hub, HubClient

    hub = Hub()
    one = HubClient(hub.address, hub.key, 1)
    two = HubClient(hub.address, hub.key, 2)
    got: dict[str, list] = {"main": [], "one": [], "two": []}
    try:
        hub.bus.register("main", lambda sender, payload: got["main"].append((sender, payload["n"])))
        one.bus.register("one", lambda sender, payload: got["one"].append((sender, payload["n"])))
        two.bus.register("two", lambda sender, payload: got["two"].append((sender, payload["n"])))
        for bus in (hub.bus, one.bus, two.bus):
            wait_until(lambda bus=bus: bus.names() == ["main", "one", "two"], timeout=5,
                       message=f"every name at every end ({bus.names()})")
        assert one.bus.send("one", "two", {"n": 1}) and two.bus.send("two", "main", {"n": 2})
        assert hub.bus.send("main", "one", {"n": 3}) and one.bus.send("one", "one", {"n": 4})
        assert not one.bus.send("one", "nobody", {"n": 5})
        # each is handed over on a thread of its own, as InProcessBus does: compare without their order
        wait_until(lambda: {k: sorted(v) for k, v in got.items()} == {"main": [("two", 2)],
                                                                      "one": [("main", 3), ("one", 4)],
                                                                      "two": [("one", 1)]},
                   timeout=5, message=f"every message delivered ({got})")
        for n in range(50):  # many at once from one sender: all arrive
            one.bus.send("one", "two", {"n": 100 + n})
        wait_until(lambda: sorted(n for _, n in got["two"]) == [1, *range(100, 150)], timeout=5,
                   message="50 messages in a row")
        one.close()  # its process ended: its names leave every other end
        for bus in (hub.bus, two.bus):
            wait_until(lambda bus=bus: not bus.is_present("one"), timeout=5, message="'one' gone")
        assert not two.bus.send("two", "one", {"n": 6})
        two.bus.unregister("two")
        wait_until(lambda: hub.bus.names() == ["main"], timeout=5, message="'two' unregistered")
    finally:
        two.close()
        hub.close()
