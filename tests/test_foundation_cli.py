"""The command line: `mindpy doctor`, `mindpy server`, `mindpy demo`, and the missing-setup error."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from mindpy.nodejs import node_setup_dir
from mindpy.server.probe import status

MINDPY = [sys.executable, "-m", "mindpy.cli"]


def run(args, env=None, timeout=120):
    return subprocess.run(MINDPY + args, capture_output=True, text=True, timeout=timeout, env=env)


def test_doctor_passes_on_this_machine():
    result = run(["doctor"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "npm packages" in result.stdout and "embedding model" in result.stdout
    assert "FAIL" not in result.stdout
    # the Minecraft versions: the embedded server's with the default, and the bots' on a real server
    assert re.search(r"versions \(embedded\)\s+1\.18\.2, .*1\.21\.1, .*\(default 1\.21\.1;", result.stdout), result.stdout
    assert re.search(r"versions \(HOST:PORT\)\s+1\.18\.2, .*1\.21\.4", result.stdout), result.stdout


def test_doctor_and_bridge_report_missing_npm_packages(tmp_path):
    # a Node side whose package.json names a package that is not installed
    fake = tmp_path / "node_side"
    fake.mkdir()
    manifest = json.loads((node_setup_dir() / "package.json").read_text())
    (fake / "package.json").write_text(json.dumps(manifest))
    env = dict(os.environ, MINDPY_NODE_SETUP=str(fake))
    result = run(["doctor"], env=env)
    assert result.returncode == 1
    assert "missing: " in result.stdout and "mineflayer" in result.stdout and "make setup" in result.stdout
    demo = run(["demo"], env=env)
    assert demo.returncode == 2
    assert "npm packages missing" in demo.stderr and "make setup" in demo.stderr
    assert "Traceback" not in demo.stderr


def test_server_command_runs_in_the_foreground_until_interrupted(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(MINDPY + ["server", "--port", str(port), "--run-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline() + proc.stdout.readline()
        assert f"127.0.0.1:{port}" in banner
        assert status("127.0.0.1", port)["version"]["name"] == "1.21.1"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    time.sleep(0.5)
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0, "the server still listens after Ctrl-C"


@pytest.mark.slow
def test_demo_plays_a_crafting_task_with_oracle_players(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}  # no key: the oracle plays
    result = run(["demo", "--run-dir", str(tmp_path)], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert out.strip().splitlines()[-1] == "score: 1.0"
    assert "[andy] runs: !startConversation('jill'" in out  # the game is shown as it is played
    assert "runs: !craftRecipe('wooden_pickaxe', 1)" in out
    assert json.loads((tmp_path / "result.json").read_text())["end_reason"] == "success"
