"""`mindpy run` when its bot is lost: kicked, the agent says why and comes back; when the bots' Node process is
killed, one line per bot, no traceback, and the run ends by itself. An episode whose bots' Node is killed ends as an
infrastructure error naming the lost bots."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest
import yaml

from conftest import unique_name, wait_until

pytestmark = pytest.mark.slow  # a CLI run

MINDPY = Path(sys.executable).with_name("mindpy")


def start_run(tmp_path, server, name: str):
    """`mindpy run` with one replay-model bot on the session's server; returns the process and its output lines."""
    script = tmp_path / "replies.yaml"
    script.write_text(yaml.safe_dump({"replies": [], "default": "Okay."}))
    profile = tmp_path / f"{name}.yaml"
    profile.write_text(yaml.safe_dump({"name": name, "model": f"replay:{script}", "cooldown": 0,
                                       "embedding": "none"}))
    env = {**os.environ, "MINDPY_BOTS_DIR": str(tmp_path / "bots"), "MINDPY_CACHE_DIR": str(tmp_path / "cache"),
           "MINDPY_NARRATE_BEHAVIOR": "false"}
    proc = subprocess.Popen([str(MINDPY), "run", "--profile", str(profile), "--server", f"{server.host}:{server.port}",
                             "--run-dir", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(line.rstrip("\n") for line in proc.stdout), daemon=True).start()
    return proc, lines


def bots_node(proc) -> psutil.Process:
    """The Node process of the run's bots (JSPyBridge's bridge.js)."""
    nodes = [child for child in psutil.Process(proc.pid).children()
             if any("bridge.js" in part for part in child.cmdline())]
    assert len(nodes) == 1, nodes
    return nodes[0]


def test_mindpy_run_brings_a_kicked_bot_back_and_ends_when_node_dies(server, tmp_path):
    name = unique_name("runlost")
    proc, lines = start_run(tmp_path, server, name)

    def find(pattern: str):
        return next((m for m in (re.search(pattern, line) for line in list(lines)) if m), None)

    try:
        wait_until(lambda: find(rf"{name} joined"), timeout=90, interval=0.2,
                   message=lambda: "the bot to join:\n" + "\n".join(lines))
        server.command(f"kick {name} Make room")
        wait_until(lambda: find(rf"\[{name}\] connection: rejoined"), timeout=40, interval=0.2,
                   message=lambda: "the bot to come back:\n" + "\n".join(lines))
        assert find(rf"\[{name}\] connection: lost its bot: kicked by the server: Make room; rejoining in 1 s "
                    r"\(try 1 of 5\)$")
        bots_node(proc).kill()
        code = proc.wait(timeout=60)  # the run ends by itself: no bot can join again
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    output = "\n".join(lines)
    assert code == 3 and "stopped: the bots' Node process stopped" in output, output
    assert "Traceback" not in output, output
    lost = [line for line in lines if f"[{name}] connection: lost its bot: the bots' Node process stopped" in line]
    assert len(lost) == 1 and lost[0].endswith("no bot can join again without it: the run stops"), output


def test_an_episode_whose_bots_node_dies_ends_as_an_infrastructure_error(server, tmp_path):
    """On the session's server (--server), with a model that only talks: the episode plays until the kill."""
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"planks": {"type": "techtree", "goal": "Craft oak_planks.", "agent_count": 2,
                                            "initial_inventory": {"0": {"oak_log": 1}, "1": {}},
                                            "target": "oak_planks", "number_of_target": 4, "timeout": 300}}))
    replies = tmp_path / "replies.yaml"
    replies.write_text(yaml.safe_dump({"replies": [], "default": "Thinking."}))
    run_dir = tmp_path / "episode"
    proc = subprocess.Popen([str(MINDPY), "run", "--task", str(tasks), "--task-id", "planks", "--model",
                             f"replay:{replies}", "--server", f"{server.host}:{server.port}", "--run-dir",
                             str(run_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(line.rstrip("\n") for line in proc.stdout), daemon=True).start()
    try:
        wait_until(lambda: any("world set up; playing" in line for line in list(lines)) or proc.poll() is not None,
                   timeout=120, interval=0.2, message="the episode to start")
        killed_at = len(lines)
        bots_node(proc).kill()
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    output = "\n".join(lines)
    assert code == 3, output
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "error" and result["error"] == "lost the connection of andy, jill", result
    assert "Traceback" not in output, output
    # the loss is said once: not a warning per agent tick and per command while the episode notices
    warnings = [line for line in lines[killed_at:] if " WARNING " in line]
    assert len(warnings) <= 3, "\n".join(warnings)  # at most each agent's turn in flight, and the episode's check
    console = (run_dir / "console.log").read_text()
    for name in ("andy", "jill"):
        assert console.count(f"[{name}] connection: lost its bot: the bots' Node process stopped") == 1, console
