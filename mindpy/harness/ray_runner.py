"""`mindpy eval --ray auto|HOST:PORT`: each episode is a Ray task, played on whichever node of the cluster has a
CPU free, as the same child `mindpy run --task` process the local runner starts (with its own embedded server).

The node that plays an episode may be another machine: the task carries the task file's bytes, the child plays
into a scratch folder there, and the task returns that run directory as a tar archive, which the driver unpacks
into the episode's folder of the output directory (where the local runner would have written it). Environment
variables that choose models and keys (MINDPY_*, *_API_KEY, *_BASE_URL) go with the task, since a worker node does
not have the driver's environment; other files named in the options (a `replay:` script) must be at the same path
on every node.

A worker or node that dies mid-episode makes Ray raise (WorkerCrashedError, NodeDiedError, a RayTaskError...):
that is an infrastructure error, which the Evaluation retries and never counts as a failure of the model. Ray's
own retries are off, so every attempt is the Evaluation's to count.
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..errors import ConfigError, SetupError
from ..tasks.records import EpisodeResult
from ..userfiles import one_line
from .runners import EpisodeJob, play_in_child

EPISODE_CPUS = 1  # what Ray reserves for an episode: its server, its bots' Node process and the agents
EXIT_RAY_ERROR = 3  # as `mindpy run`'s infrastructure error: the episode could not be played
MACHINE_VARIABLES = ("MINDPY_NODE_SETUP", "MINDPY_CACHE")  # paths of this machine: a worker keeps its own
CONNECT_PROBE_S = 5.0
NO_CPU_REPORT_S = 10.0  # an episode waiting this long on a cluster without a CPU for it is reported, then as often
SCRATCH_PREFIX = "mindpy-episode-"  # + the worker's pid: a folder left by a worker that died is found and removed


def require_ray():
    """The ray module, or SetupError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise SetupError("--ray needs Ray, which is not installed: pip install 'mindpy[ray]'") from None
    return ray


class RayRunner:
    """Plays episodes as Ray tasks on the cluster at `address` ("auto": the one started on this machine with
    `ray start`; None: the cluster this process already joined with ray.init, else a private one started here)."""

    def __init__(self, address: str | None = "auto"):
        self.ray = require_ray()
        self.address = address
        self.where = f" on the Ray cluster at {address}" if address else " on a local Ray cluster"
        self._last_no_cpu_report = 0.0
        self._lock = threading.Lock()
        self._remote = None  # the Ray task, made once connected
        self._files: dict[Path, object] = {}  # task file -> its bytes in the object store (put once)
        self._running: set = set()  # refs of the tasks under way

    def connect(self) -> None:
        """Join the cluster now (it is joined on first use otherwise); from the main thread, so that the process
        keeps its own Ctrl-C and SIGTERM handling. ConfigError (one line) when there is no cluster to join."""
        self._connect()

    def slots(self) -> int:
        """The episodes the cluster can play at once: its CPUs, one per episode."""
        self._connect()
        cpus = int(self.ray.cluster_resources().get("CPU", 0))
        return max(1, cpus // EPISODE_CPUS)

    def play(self, job: EpisodeJob, report: Callable[[str], None] | None = None) -> tuple[int, str]:
        """Play the episode as a Ray task and unpack its run directory into job.run_dir; Ray's errors are the
        infrastructure's (exit code 3 and the error), as `mindpy run` reports a server that failed."""
        remote = self._connect()
        ref = remote.remote(list(job.options), job.task_id, job.task_file.name, self._file_ref(job.task_file),
                            shipped_environment())
        with self._lock:
            self._running.add(ref)
        try:
            self._wait(ref, report)
            code, tail, packed = self.ray.get(ref)
        except self.ray.exceptions.RayError as exc:  # the worker or node died, the task was cancelled...
            return EXIT_RAY_ERROR, f"the Ray task failed: {one_line(f'{type(exc).__name__}: {exc}')}"
        finally:
            with self._lock:
                self._running.discard(ref)
        try:
            unpack_run_dir(packed, job.run_dir)
        except (OSError, ValueError, tarfile.TarError) as exc:
            return EXIT_RAY_ERROR, f"the episode's run directory could not be unpacked: {one_line(str(exc))}"
        return code, tail

    def _wait(self, ref, report: Callable[[str], None] | None) -> None:
        """Until the task has ended. Ray holds a task while no node has a CPU for it, silently and for good: a
        cluster whose only CPUs were on a node that died, or a head started without CPUs before its workers join.
        That wait goes to `report` (at most once every NO_CPU_REPORT_S for all episodes together)."""
        while not self.ray.wait([ref], timeout=NO_CPU_REPORT_S)[0]:
            cpus = self.ray.cluster_resources().get("CPU", 0)
            if report is None or cpus >= EPISODE_CPUS or not self._no_cpu_report_due():
                continue
            at = f" at {self.address}" if self.address else ""
            report(f"waiting: the Ray cluster{at} has no CPU for an episode ({cpus:g} CPUs in all); start a "
                        f"worker node with `ray start --address=HEAD_IP:PORT`")

    def _no_cpu_report_due(self) -> bool:
        with self._lock:
            if time.monotonic() - self._last_no_cpu_report < NO_CPU_REPORT_S:
                return False
            self._last_no_cpu_report = time.monotonic()
            return True

    def stop(self) -> None:
        """Cancel the tasks under way. Ray interrupts a running task only by killing its worker (force): the
        episode's process gets SIGTERM as its worker dies (_die_with_parent) and stops its server and bots."""
        with self._lock:
            running = list(self._running)
        for ref in running:
            self.ray.cancel(ref, force=True)

    def close(self) -> None:
        """Leave the cluster (and stop it, when this runner started it)."""
        if self.ray.is_initialized():
            self.ray.shutdown()
        self._remote = None
        self._files.clear()

    def _connect(self):
        with self._lock:
            if self._remote is None:
                if not self.ray.is_initialized():
                    self._init()
                self._remote = self.ray.remote(num_cpus=EPISODE_CPUS, max_retries=0)(play_on_node)
            return self._remote

    def _init(self) -> None:
        import logging
        import signal

        if self.address and self.address != "auto" and "://" not in self.address:
            _probe(self.address)  # Ray would wait minutes for an address where nothing listens
        options = {"include_dashboard": False} if self.address is None else {}
        main = threading.current_thread() is threading.main_thread()
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
        try:
            self.ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING, **options)
            for sig, handler in handlers.items():  # Ray puts in its own, which aborts on SIGTERM: keep ours
                if handler is not None:
                    signal.signal(sig, handler)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise ConfigError(f"--ray {self.address}: could not join a Ray cluster there ({one_line(str(exc), 120)});"
                              f" start one with `ray start --head`, and if it asks for a token, set RAY_AUTH_MODE=token"
                              f" (and RAY_AUTH_TOKEN) here as on the cluster") from None

    def _file_ref(self, path: Path):
        with self._lock:
            if path not in self._files:
                self._files[path] = self.ray.put(path.read_bytes())
            return self._files[path]


def play_on_node(options: list[str], task_id: str, file_name: str, task_bytes: bytes,
                 environment: dict[str, str]) -> tuple[int, str, bytes]:
    """The Ray task: play the episode in a scratch folder of this node; (exit code, last line, run dir as tar)."""
    _remove_orphaned_scratch()
    scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
    try:
        task_file = scratch / file_name  # the name is kept: its ending says JSON or YAML
        task_file.write_bytes(task_bytes)
        run_dir = scratch / "run"
        run_dir.mkdir()
        job = EpisodeJob(task_file, task_id, run_dir, tuple(options))
        code, tail = play_in_child(job.command(), run_dir, env={**os.environ, **environment},
                                   preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        return code, tail, pack_run_dir(run_dir)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _remove_orphaned_scratch() -> None:
    """Remove the scratch folders of workers that died mid-episode (they had no chance to)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        pid = folder.name[len(SCRATCH_PREFIX):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _die_with_parent() -> None:
    """In the child, before it starts: the kernel sends it SIGTERM when the Ray worker dies (killed, out of
    memory), so the episode stops its server and bots instead of playing on for nobody. Linux only."""
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def shipped_environment() -> dict[str, str]:
    """The driver's variables that choose models, keys and settings, for the child on the worker node."""
    return {name: value for name, value in os.environ.items()
            if (name.startswith("MINDPY_") and name not in MACHINE_VARIABLES)
            or name.endswith(("_API_KEY", "_BASE_URL"))}


def pack_run_dir(run_dir: Path) -> bytes:
    """The run directory's files as a gzipped tar, paths relative to it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(run_dir, arcname=".")
    return buffer.getvalue()


def unpack_run_dir(packed: bytes, run_dir: Path) -> None:
    """Unpack a run directory packed on a worker node into `run_dir`; its result.json then names this folder, as
    the local runner's does."""
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]  # links and devices are left out
        for member in members:
            if not (run_dir / member.name).resolve().is_relative_to(run_dir.resolve()):
                raise ValueError(f"an episode's archive holds a path outside its run directory: {member.name!r}")
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12 and later check the entries once more
            tar.extractall(run_dir, members=members, filter="data")
        else:
            tar.extractall(run_dir, members=members)
    result_path = run_dir / "result.json"
    try:
        result = EpisodeResult.read(result_path)
    except ValueError:  # none, or malformed: left as it came
        return
    if "run_dir" in result.key_order:
        replace(result, run_dir=str(run_dir)).write(result_path)


def _probe(address: str) -> None:
    """ConfigError unless something listens at HOST:PORT."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=CONNECT_PROBE_S):
            return
    except ValueError:
        raise ConfigError(f"--ray {address}: give 'auto' or HOST:PORT of the cluster's head node") from None
    except OSError as exc:
        raise ConfigError(f"--ray {address}: no Ray cluster there ({one_line(str(exc), 80)}); start one with "
                          f"`ray start --head --port={port}`") from None

