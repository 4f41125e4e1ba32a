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


@pytest.mark.parametrize(("profile_fields", "settings_fields", "named"), [
    ({"model": "gpt-4o-mini"}, {}, "OPENAI_API_KEY"),
    ({}, {"minecraft_version": "9.9"}, "minecraft_version"),
])
def test_run_refuses_before_anything_starts(tmp_path, profile_fields, settings_fields, named):
    # a key that is not set or a version there is no data for used to be found after the embedded server started
    profile = tmp_path / "andy.yaml"
    profile.write_text(yaml.safe_dump({"name": "andy", **profile_fields}))
    settings = tmp_path / "settings.yaml"
    settings.write_text(yaml.safe_dump(settings_fields or {"auth": "offline"}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    run_dir = tmp_path / "run"
    done = subprocess.run([str(MINDPY), "run", "--profile", str(profile), "--settings", str(settings),
                           "--run-dir", str(run_dir)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert not (run_dir / "server").exists(), sorted(p.name for p in run_dir.rglob("*"))
