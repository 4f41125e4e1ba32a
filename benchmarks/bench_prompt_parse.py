"""Do a small real model's replies still hold a command that parses with the compact docs? The same requests are
sent with the docs as they were (every command in full) and as they are now (one line per offered command).

A real OpenAI-compatible server is started (`transformers serve` with SmolLM2-135M-Instruct, as the tests marked
llm use it); the prompts are the real free-play prompt (profiles/andy.yaml on the survival base, its examples,
a fixed world state) for N players' requests. Printed per docs form: the share of replies holding a command that
parses (mindpy.commands.parse_reply), the share that try one (parsed or refused), and the mean prompt size.

    .venv/bin/python benchmarks/bench_prompt_parse.py            # 20 requests per form (minutes to half an hour on CPU)
    .venv/bin/python benchmarks/bench_prompt_parse.py --n 5 --url http://127.0.0.1:8000/v1 --model FOLDER
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

from mindpy.commands import AgentCommands, command_docs, default_registry, parse_reply
from mindpy.commands.coblock import blocked_outside_coblock
from mindpy.commands.rounds import blocked_outside_rounds
from mindpy.memory import History
from mindpy.models import create_model
from mindpy.profiles import load_profile
from mindpy.prompts import Prompter
from mindpy.rag import ExampleSelector

ROOT = Path(__file__).resolve().parent.parent
STATS = ("STATS\n- Position: x: 8, y: -60, z: 29\n- Gamemode: survival\n- Health: 20 / 20\n- Hunger: 18 / 20\n"
         "- Biome: plains\n- Weather: Clear\n- Time: Morning\n- Holding: nothing\n- Other players nearby: steve")
INVENTORY = "INVENTORY\n- oak_log: 3\n- cobblestone: 12\n- stick: 4\n- free slots: 33"
REQUESTS = ("can you get me some wood?", "come here please", "what do you have in your inventory?",
            "craft a crafting table", "follow me", "stop what you are doing", "give me 2 oak logs",
            "mine some stone for me", "find a cow", "make some sticks", "where are you?", "attack that zombie",
            "eat something, you look hungry", "put the cobblestone in the chest", "dig down 5 blocks",
            "go to 10, -60, 20", "make a wooden pickaxe", "what can you craft right now?", "stay here",
            "collect 5 dirt", "smelt the iron you have", "look for some sand", "equip your sword",
            "drop the sticks", "tell jill hello")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def model_server() -> Iterator[tuple[str, str]]:
    """`transformers serve` with SmolLM2-135M-Instruct on a free port: (url, model folder)."""
    from mindpy.models.local import local_smollm2

    folder = str(local_smollm2())
    port = free_port()
    cli = Path(sys.executable).with_name("transformers")
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen([str(cli), "serve", folder, "--host", "127.0.0.1", "--port", str(port), "--device",
                                 "cpu"], stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
        try:
            deadline = time.monotonic() + 300
            while not _healthy(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise SystemExit(f"transformers serve did not start: {log.read()[-2000:].decode(errors='replace')}")
                time.sleep(0.5)
            yield f"http://127.0.0.1:{port}/v1", folder
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def prompts(form: str, n: int) -> list[tuple[str, list[dict], int]]:
    """(system, messages, prompt tokens) of the free-play prompt for the first n requests, with the docs in
    `form`: "full" (every command in full, as before) or "short" (now)."""
    profile = load_profile(ROOT / "profiles" / "andy.yaml", base="survival")
    layer = AgentCommands(default_registry(), blocked=[*blocked_outside_coblock(None), *blocked_outside_rounds(False)])
    context = SimpleNamespace(task=None, controls=SimpleNamespace(coder=None))
    docs = command_docs(layer.registry, layer.blocked, "full") if form == "full" else layer.docs(context)
    prompter = Prompter.from_profile(profile, examples=ExampleSelector(profile.conversation_examples),
                                     providers={"STATS": STATS, "INVENTORY": INVENTORY, "COMMAND_DOCS": docs})
    out = []
    for request in REQUESTS[:n]:
        history = History("andy")
        history.add("steve", f"andy, {request}")
        built = prompter.build("conversing", SimpleNamespace(name="andy", history=history,
                                                             actions=SimpleNamespace(current_label=None)))
        out.append((str(built.system), built.messages, built.prompt_tokens))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20, help=f"requests per docs form (at most {len(REQUESTS)})")
    parser.add_argument("--url", default=None, help="a running OpenAI-compatible server (default: start one)")
    parser.add_argument("--model", default=None, help="the model name at --url")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--show", type=int, default=0, metavar="K", help="print the first K replies of each form")
    parser.add_argument("--docs", choices=("full", "short", "both"), default="both",
                        help="the docs form: full (before), short (now), or both")
    args = parser.parse_args()
    if not 1 <= args.n <= len(REQUESTS):
        raise SystemExit(f"--n must be 1-{len(REQUESTS)}, got {args.n}")
    if args.url and not args.model:
        raise SystemExit("--url needs --model (the model name the server serves)")
    registry = default_registry()
    with (contextlib.nullcontext((args.url, args.model)) if args.url else model_server()) as (url, name):
        model = create_model({"api": "transformers", "model": name, "url": url,
                              "params": {"max_tokens": args.max_tokens, "temperature": 0.0, "seed": 1}},
                             attempts=2, timeout=600)
        for form in ("full", "short") if args.docs == "both" else (args.docs,):
            started, parsed, tried, sizes = time.monotonic(), 0, 0, []
            for i, (system, messages, tokens) in enumerate(prompts(form, args.n)):
                text = model.send(messages, system).text
                if i < args.show:
                    print(f"  {form} reply to {messages[0]['content']!r}: {text!r}", flush=True)
                reply = parse_reply(text, registry)
                parsed += reply.ok
                tried += reply.command is not None or reply.error is not None
                sizes.append(tokens)
            print(f"{form:5s} docs: {parsed}/{args.n} replies hold a command that parses ({parsed / args.n:.0%}); "
                  f"{tried}/{args.n} try one; prompt {statistics.mean(sizes):.0f} tokens on average "
                  f"({time.monotonic() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
