"""Process lifetimes and failure isolation: no Node process outlives its owner; crashes stay contained."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TESTS_DIR, unique_name, wait_until
from mindpy.bridge import create_bot, runtime
from mindpy.errors import BridgeError, UnsupportedVersion
from mindpy.server import EmbeddedServer

SCRIPT = TESTS_DIR / "scripts" / "bots_then_exit.py"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0): read its state
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def start_child(tmp_path, mode):
    child = subprocess.Popen([sys.executable, str(SCRIPT), str(tmp_path), mode],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = child.stdout.readline()
    assert line, f"child failed: {child.stderr.read()}"
    pids = json.loads(line)
    assert alive(pids["server_pid"]) and alive(pids["bridge_pid"])
    return child, pids


@pytest.mark.parametrize("mode", ["close", "exit"])
def test_no_node_process_left_after_close_or_exit(tmp_path, mode):
    child, pids = start_child(tmp_path, mode)
    assert child.wait(timeout=60) == 0, child.stderr.read()
    wait_until(lambda: not alive(pids["server_pid"]) and not alive(pids["bridge_pid"]), timeout=5,
               message="both Node processes to end")


def test_no_node_process_left_when_python_is_killed(tmp_path):
    child, pids = start_child(tmp_path, "hang")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    wait_until(lambda: not alive(pids["server_pid"]) and not alive(pids["bridge_pid"]), timeout=5,
               message="orphaned Node processes to notice and exit")


def test_server_crash_does_not_take_the_bridge_down(tmp_path):
    doomed = EmbeddedServer(run_dir=tmp_path / "doomed").start()
    bot = create_bot(unique_name("crash"), doomed.host, doomed.port)
    os.kill(doomed.process.pid, signal.SIGKILL)
    doomed.stop()
    # the bridge still works: a new server and a new bot
    with EmbeddedServer(run_dir=tmp_path / "fresh") as fresh:
        other = create_bot(unique_name("after"), fresh.host, fresh.port)
        assert runtime().is_alive()
        assert other.position[1] == pytest.approx(-60, abs=1)
        other.close()
    bot.close()


def test_bridge_crash_does_not_take_the_server_down(tmp_path, server):
    child, pids = start_child(tmp_path, "hang")
    os.kill(pids["bridge_pid"], signal.SIGKILL)
    wait_until(lambda: not alive(pids["bridge_pid"]), timeout=5, message="bridge to die")
    time.sleep(0.5)
    assert alive(pids["server_pid"]), "the server died with the bridge"
    from mindpy.server.probe import status

    assert status("127.0.0.1", pids["port"])["version"]["name"] == "1.21.1"
    child.kill()
    child.wait(timeout=10)


def test_connecting_to_a_closed_port_fails_fast_naming_host_and_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound but not listening: connections are refused
        started = time.monotonic()
        with pytest.raises(BridgeError) as info:
            create_bot(unique_name("nobody"), "127.0.0.1", port, timeout=5)
    assert time.monotonic() - started < 6
    assert f"127.0.0.1:{port}" in str(info.value)


def test_silent_server_times_out_naming_host_and_port():
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()  # accepts, never answers the Minecraft handshake
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(BridgeError) as info:
            create_bot(unique_name("silent"), "127.0.0.1", port, timeout=3)
    assert 2.5 < time.monotonic() - started < 8
    assert f"127.0.0.1:{port}" in str(info.value)


def test_bad_minecraft_version_is_refused_with_the_supported_list(tmp_path, server):
    with pytest.raises(UnsupportedVersion) as bot_error:
        create_bot(unique_name("old"), server.host, server.port, version="1.2.5")
    assert "1.21.1" in str(bot_error.value) and "1.2.5" in str(bot_error.value)
    with pytest.raises(UnsupportedVersion) as server_error:
        EmbeddedServer(run_dir=tmp_path, version="1.99.9").start()
    assert "Supported:" in str(server_error.value) and "1.21.1" in str(server_error.value)
