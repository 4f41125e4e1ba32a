"""`mindpy eval --ray`: episodes played as tasks on a real Ray cluster (`ray start --head` on this machine, 2 CPUs),
with the same results, resuming and retries as the local runner; a Ray worker killed mid-episode is an
infrastructure error, retried, never a failure of the model. Also the one-line errors without Ray or a cluster."""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import pytest
from test_harness import SOLVED, TASKS  # the same suite as the local runner's tests: same results expected

from conftest import wait_until

MINDPY = Path(sys.executable).with_name("mindpy")
RAY = Path(sys.executable).with_name("ray")



# The cluster asks for a token of its own, given to it and to the eval commands by environment: no ~/.ray token
# file is read or written, and the eval joins an authenticated cluster as a user's would.
RAY_AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ray_node(temp: Path, *options: str) -> subprocess.Popen:
    """`ray start --block OPTIONS` (a head, or a node joining one), on 127.0.0.1 with ports of its own; returns
    once it runs (stopping that process stops the node)."""
    ports = [f"--{name}={_free_port()}" for name in ("dashboard-agent-listen-port", "dashboard-agent-grpc-port",
                                                     "metrics-export-port", "runtime-env-agent-port")]
    proc = subprocess.Popen(
        [str(RAY), "start", "--block", "--node-ip-address=127.0.0.1", "--object-store-memory=100000000",
         "--disable-usage-stats", *ports, *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=temp, start_new_session=True,
        env={**os.environ, **RAY_AUTH, "TMPDIR": str(temp)})  # the episodes' scratch folders go with the cluster
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    try:
        wait_until(lambda: any("block forever" in line for line in lines) or proc.poll() is not None, timeout=90,
                   interval=0.2, message="the Ray node to start")
        assert proc.poll() is None, "".join(lines[-20:])
    except BaseException:
        stop_ray_node(proc)
        raise
    return proc


def stop_ray_node(proc: subprocess.Popen) -> None:
    proc.terminate()  # `ray start --block` stops the node's processes on SIGTERM
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # anything of ours it left behind
    except ProcessLookupError:
        pass
    proc.wait()


def start_ray_head(temp: Path, cpus: int) -> tuple[subprocess.Popen, str]:
    """A cluster's head node with `cpus` CPUs, in the temp folder `temp`; returns it and its address."""
    port = _free_port()
    proc = start_ray_node(temp, "--head", f"--port={port}", f"--num-cpus={cpus}", "--include-dashboard=false",
                          f"--ray-client-server-port={_free_port()}", f"--temp-dir={temp}")
    return proc, f"127.0.0.1:{port}"


@pytest.fixture(scope="module")
def ray_cluster():
    """A one-machine Ray cluster with 2 CPUs, started as `ray start --head --block` in a temp folder of its own;
    yields its address."""
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'mindpy[ray]')")
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # Ray's socket paths must stay short
    try:
        head, address = start_ray_head(temp, cpus=2)
        try:
            yield address
        finally:
            stop_ray_node(head)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def replies(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "replies.yaml"
    path.write_text("default: 'Crafting. !craftRecipe(\"oak_planks\", 1)'\n")
    return path


def _eval(*args: str) -> subprocess.Popen:
    return subprocess.Popen([str(MINDPY), "eval", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env={**os.environ, **RAY_AUTH})


def _rows(out: Path) -> dict[str, dict]:
    with (out / "results.csv").open() as f:
        return {r["task_id"]: r for r in csv.DictReader(f)}


def _cmdline(pid: int | str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_eval_on_a_ray_cluster_writes_the_local_runners_results_and_resumes(ray_cluster, replies, tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(TASKS))
    out = tmp_path / "eval"
    args = [str(tasks), "--ray", ray_cluster, "--out", str(out), "--model", f"replay:{replies}"]
    proc = _eval(*args)
    text, _ = proc.communicate(timeout=400)
    assert proc.returncode == 0, text
    assert f"4 episodes: 0 already done, 4 to play, 2 at a time on the Ray cluster at {ray_cluster}" in text
    assert all(f"[{k}/4]" in text for k in range(1, 5)), text

    rows = _rows(out)
    assert set(rows) == set(TASKS)
    assert {t for t, r in rows.items() if r["success"] == "True"} == SOLVED
    assert rows["too_many_planks"]["end_reason"] == "timeout"
    assert all(r["attempts"] == "1" and r["error"] == "" for r in rows.values()), rows
    for task_id, row in rows.items():  # each run directory came back from the worker to where eval puts it
        run_dir = Path(row["run_dir"])
        assert run_dir.parent.parent == out / "episodes"
        result = json.loads((run_dir / "result.json").read_text())
        assert result["task_id"] == task_id and result["run_dir"] == str(run_dir)
        assert (run_dir / "calls" / "andy.jsonl").read_text().strip()
        assert (run_dir / "process.log").read_text().strip().splitlines()[-1].startswith("score: ")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 4 and summary["played"] == 4 and summary["errors"] == 0
    assert summary["success_rate"] == 0.75
    assert summary["by_family_and_agents"]["crafting/2_agents"]["success_rate"] == 1.0
    assert (out / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    again = _eval(*args)
    text, _ = again.communicate(timeout=120)
    assert again.returncode == 0, text
    assert "4 episodes: 4 already done, 0 to play" in text


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_a_ray_worker_killed_mid_episode_is_retried_not_scored(ray_cluster, replies, tmp_path):
    """The worker playing `long_planks` is killed once its world is set up: its episode process goes with it, the
    attempt is an infrastructure error, and the retry plays the episode to its end (a timeout: 40 planks from one
    log cannot be made in 10 s by crafting alone)."""
    tasks = tmp_path / f"kill_{uuid.uuid4().hex[:8]}.json"  # the worker's copy keeps the name: we find it by it
    tasks.write_text(json.dumps({"long_planks": {**TASKS["too_many_planks"], "timeout": 10},  # it is killed at once
                                 **{t: TASKS[t] for t in SOLVED}}))
    out = tmp_path / "eval"
    proc = _eval(str(tasks), "--ray", ray_cluster, "--out", str(out), "--model", f"replay:{replies}")
    try:
        child = wait_until(lambda: _playing_episode(tasks.name, "long_planks"), timeout=240, interval=0.2,
                           message="the long episode to start playing")
        worker = _parent(child)
        assert _cmdline(worker)[0].startswith("ray::"), _cmdline(worker)  # a Ray worker runs the task
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: not Path(f"/proc/{child}").exists() or "zombie" in _state(child), timeout=60,
                   message="the killed worker's episode process to stop")
        text, _ = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, text
    assert "long_planks: attempt 1 failed (the Ray task failed: WorkerCrashedError" in text, text
    rows = _rows(out)
    assert set(rows) == {"long_planks", *SOLVED}
    assert rows["long_planks"]["attempts"] == "2" and rows["long_planks"]["end_reason"] == "timeout", rows
    assert all(rows[t]["success"] == "True" for t in SOLVED), rows
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 4 and summary["played"] == 4 and summary["errors"] == 0


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_a_stopped_eval_on_ray_stops_its_episodes_at_once(ray_cluster, replies, tmp_path):
    """`kill PID` (as Ctrl-C) of a Ray eval cancels its tasks: the episode processes on the worker stop at once
    (they do not play on to their time limit), and nothing of the cut-off episode is counted."""
    tasks = tmp_path / f"stop_{uuid.uuid4().hex[:8]}.json"
    tasks.write_text(json.dumps({"long_planks": {**TASKS["too_many_planks"], "timeout": 60}}))
    out = tmp_path / "eval"
    proc = _eval(str(tasks), "--ray", ray_cluster, "--out", str(out), "--model", f"replay:{replies}")
    try:
        child = wait_until(lambda: _playing_episode(tasks.name, "long_planks"), timeout=240, interval=0.2,
                           message="the episode to start playing")
        proc.send_signal(signal.SIGTERM)
        text, _ = proc.communicate(timeout=60)
        wait_until(lambda: not Path(f"/proc/{child}").exists() or "zombie" in _state(child), timeout=30,
                   message="the episode process on the worker to stop")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, text
    assert "Stopped. Rerun the same command" in text
    assert not list(out.glob("episodes/*/*/result.json"))
    assert not (out / "results.csv").exists() or not _rows(out)


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_worker_nodes_join_a_head_without_cpus_and_a_node_that_dies_mid_episode_is_retried_on_another(replies,
                                                                                                        tmp_path):
    """As across machines (README): a head that plays nothing (0 CPUs), then two worker nodes that join it with
    `ray start --address`. Before any has joined, the eval says it waits for a CPU. The node playing the episode
    dies whole (raylet, Ray worker, episode process): Ray's NodeDiedError is an infrastructure error, and the retry
    is played to its end on the other node."""
    temp = Path(tempfile.mkdtemp(prefix="rayn", dir="/tmp"))
    nodes: dict[int, subprocess.Popen] = {}
    head, address = start_ray_head(temp, cpus=0)
    tasks = tmp_path / f"node_{uuid.uuid4().hex[:8]}.json"
    tasks.write_text(json.dumps({"long_planks": {**TASKS["too_many_planks"], "timeout": 10}}))  # killed at once
    out = tmp_path / "eval"
    proc = _eval(str(tasks), "--ray", address, "--out", str(out), "--model", f"replay:{replies}")
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    try:
        wait_until(lambda: any("has no CPU for an episode (0 CPUs in all)" in line for line in lines), timeout=120,
                   message=lambda: f"the eval to say it waits for a CPU: {lines}")
        for _ in range(2):
            node = start_ray_node(temp, f"--address={address}", "--num-cpus=1")
            nodes[node.pid] = node
        child = wait_until(lambda: _playing_episode(tasks.name, "long_planks"), timeout=240, interval=0.2,
                           message="the episode to start playing")
        playing = _ancestor_among(child, nodes)
        os.killpg(playing, signal.SIGKILL)  # the whole machine, as far as this cluster can tell
        nodes.pop(playing).wait()
        proc.wait(timeout=400)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for node in [*nodes.values(), head]:
            stop_ray_node(node)
        shutil.rmtree(temp, ignore_errors=True)
    text = "".join(lines)
    assert proc.returncode == 0, text
    assert "long_planks: attempt 1 failed (the Ray task failed: NodeDiedError" in text, text
    row = _rows(out)["long_planks"]
    assert row["attempts"] == "2" and row["end_reason"] == "timeout" and row["error"] == "", row
    assert (Path(row["run_dir"]) / "result.json").exists()


def _ancestor_among(pid: int, candidates) -> int:
    """Which of `candidates` (pids) `pid` descends from."""
    while pid > 1:
        if pid in candidates:
            return pid
        pid = _parent(pid)
    raise AssertionError(f"the process is not under any of {list(candidates)}")


def _playing_episode(file_name: str, task_id: str) -> int | None:
    """The pid of the episode process playing `task_id` of the task file named `file_name`, once it plays."""
    for entry in Path("/proc").glob("[0-9]*"):
        args = _cmdline(entry.name)
        if file_name in " ".join(args) and task_id in args and "--run-dir" in args:
            log = Path(args[args.index("--run-dir") + 1]) / "process.log"
            try:
                if "world set up; playing" in log.read_text():
                    return int(entry.name)
            except OSError:
                pass
    return None


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "zombie"


def _one_task(tmp_path: Path) -> Path:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"planks_alone": TASKS["planks_alone"]}))
    return tasks


def test_eval_with_ray_but_without_ray_installed_says_how_to_install_it(tmp_path):
    tasks = _one_task(tmp_path)
    code = ("import sys; sys.modules['ray'] = None  # as if it were not installed\n"
            "from mindpy.cli import main\n"
            f"sys.exit(main(['eval', {str(tasks)!r}, '--ray', 'auto', '--out', {str(tmp_path / 'out')!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == ["mindpy: error: --ray needs Ray, which is not installed: "
                                                "pip install 'mindpy[ray]'"]
    assert not (tmp_path / "out").exists()


def test_eval_with_ray_at_an_address_where_nothing_listens_is_one_line(tmp_path):
    pytest.importorskip("ray", reason="the ray extra is not installed")
    tasks = _one_task(tmp_path)
    port = _free_port()
    proc = subprocess.run([str(MINDPY), "eval", str(tasks), "--ray", f"127.0.0.1:{port}", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mindpy: error: --ray 127.0.0.1:{port}: no Ray cluster there"), \
        lines
    assert not (tmp_path / "out").exists()


def test_an_episode_archive_unpacks_inside_its_run_directory_only(tmp_path):
    """What a worker sends back lands in the episode's folder (links left out, result.json naming the folder);
    an entry that would land outside it is refused, and nothing is written."""
    import io
    import tarfile

    from mindpy.harness.ray_runner import pack_run_dir, unpack_run_dir

    played = tmp_path / "worker" / "run"
    (played / "calls").mkdir(parents=True)
    (played / "calls" / "andy.jsonl").write_text("{}\n")
    (played / "result.json").write_text(json.dumps({"score": 1.0, "run_dir": str(played)}))
    (played / "link").symlink_to(tmp_path / "elsewhere")
    run_dir = tmp_path / "out" / "episode"
    run_dir.mkdir(parents=True)
    unpack_run_dir(pack_run_dir(played), run_dir)
    assert sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*")) == ["calls", "calls/andy.jsonl",
                                                                              "result.json"]
    assert json.loads((run_dir / "result.json").read_text()) == {"score": 1.0, "run_dir": str(run_dir)}

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in ("result.json", "../escaped.txt"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    other = tmp_path / "out" / "other"
    other.mkdir()
    with pytest.raises(ValueError, match="outside its run directory"):
        unpack_run_dir(buffer.getvalue(), other)
    assert not (tmp_path / "out" / "escaped.txt").exists() and not list(other.iterdir())
