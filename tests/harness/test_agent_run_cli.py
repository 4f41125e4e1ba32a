"""`mindpy run --profile`: a real process with its own embedded server; a player joins and talks to the bot."""

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

from conftest import wait_until
from mindpy.bridge import create_bot

pytestmark = pytest.mark.slow  # whole episodes or CLI runs: left out of `make test-fast`

MINDPY = Path(sys.executable).with_name("mindpy")


class Console:
    """Collects a process's output lines on a thread."""

    def __init__(self, proc):
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc):
        for line in proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def find(self, pattern: str):
        for line in self.lines:
            match = re.search(pattern, line)
            if match:
                return match
        return None

    def text(self) -> str:
        return "\n".join(self.lines)


def test_run_profile_plays_until_interrupted(tmp_path):
    script = tmp_path / "replies.yaml"
    script.write_text(yaml.safe_dump({"replies": ["Let me check. !inventory", "I have nothing yet."],
                                      "default": "Okay."}))
    profile = tmp_path / "runbot.yaml"
    profile.write_text(yaml.safe_dump({"name": "runbot", "model": f"replay:{script}", "cooldown": 0,
                                       "embedding": "none"}))
    env = {**os.environ, "MINDPY_BOTS_DIR": str(tmp_path / "bots"), "MINDPY_CACHE_DIR": str(tmp_path / "cache"),
           "MINDPY_NARRATE_BEHAVIOR": "false"}
    proc = subprocess.Popen([str(MINDPY), "run", "--profile", str(profile), "--run-dir", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    console = Console(proc)
    player = None
    try:
        wait_until(lambda: console.find(r"runbot joined"), timeout=90, interval=0.2,
                   message="the bot to join")
        port = int(console.find(r"Embedded server on 127\.0\.0\.1:(\d+)").group(1))
        player = create_bot("visitor", "127.0.0.1", port)
        player.chat("runbot, what do you have?")
        wait_until(lambda: console.find(r"\[runbot\] says: I have nothing yet\."), timeout=30, interval=0.2,
                   message=f"the answer on the console:\n{console.text()}")
        assert console.find(r"\[runbot\] hears: <visitor> runbot, what do you have\?")
        assert console.find(r"\[runbot\] runs: !inventory")
        assert (tmp_path / "bots" / "runbot" / "state.json").exists()
    finally:
        if player is not None:
            player.close()
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 0, console.text()
    assert "Stopping" in console.text()
