"""A small OpenAI-compatible chat server that records every request and answers with a reply of your choosing,
and the measures of the prompts it recorded (tokens, sections, the prefix shared with the previous call).

    with PromptRecorder(lambda agent, n: "!inventory" if n == 1 else "Okay.") as recorder:
        spec = {"api": "vllm", "model": "recorder", "url": recorder.url}     # a model for the agents
        ...                                                               # the agents talk; then
        calls = recorder.calls("andy")                                      # andy's conversing prompts
        measure(calls[0]).tokens
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mindpy.models.tokens import common_prefix_tokens, count_messages, count_tokens, encode

DOCS_HEADING = "COMMANDS\n"
EXAMPLES_HEADING = "Examples of how to respond:"
_NAME = re.compile(r"You are (\w+),")


@dataclass
class Recorded:
    """One chat request: who sent it and its messages (the system prompt first)."""

    agent: str
    messages: list[dict]

    @property
    def system(self) -> str:
        first = self.messages[0] if self.messages else {}
        return str(first.get("content", "")) if first.get("role") == "system" else ""

    @property
    def conversing(self) -> bool:
        """The agent's main prompt (the one with the command docs), not memory or respond-or-ignore prompts."""
        return DOCS_HEADING in self.system

    def stream(self) -> list[int]:
        """The request as one token stream (roles between the messages), for prefix comparisons."""
        return encode("".join(f"\x00{m['role']}\x00{m.get('content', '')}" for m in self.messages))


@dataclass
class Measure:
    tokens: int          # the whole request (cl100k, with the chat format's overhead)
    system: int
    docs: int            # the command docs section of the system prompt
    examples: int        # the examples section


def sections(system: str) -> tuple[str, str]:
    """(command docs, examples) of a system prompt; "" for a section it does not have."""
    docs_at = system.find(DOCS_HEADING)
    examples_at = system.find(EXAMPLES_HEADING)
    docs_end = examples_at if examples_at > docs_at else len(system)
    docs = system[docs_at:docs_end].strip() if docs_at >= 0 else ""
    return docs, system[examples_at:].strip() if examples_at >= 0 else ""


def measure(call: Recorded) -> Measure:
    docs, examples = sections(call.system)
    return Measure(count_messages(call.messages[1:], call.system), count_tokens(call.system), count_tokens(docs),
                   count_tokens(examples))


def shared_shares(calls: list[Recorded]) -> list[float]:
    """For each call after the first: the share of its tokens that start identically to the previous call."""
    streams = [c.stream() for c in calls]
    return [common_prefix_tokens(a, b) / len(b) for a, b in zip(streams, streams[1:], strict=False) if b]


class PromptRecorder:
    """Answers POST /v1/chat/completions with `reply(agent, n)` (n: that agent's n-th conversing call, from 1; 0
    for its other prompts) and keeps every request."""

    def __init__(self, reply: Callable[[str, int], str]):
        self.reply = reply
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                text = outer._answer(body.get("messages") or [])
                data = json.dumps(_completion(text)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _answer(self, messages: list[dict]) -> str:
        system = str(messages[0].get("content", "")) if messages else ""
        found = _NAME.search(system)
        call = Recorded(found.group(1) if found else "?", messages)
        with self._lock:
            self.requests.append(call)
            n = len(self.calls(call.agent)) if call.conversing else 0
        return self.reply(call.agent, n)

    def calls(self, agent: str | None = None) -> list[Recorded]:
        """The conversing prompts recorded so far (of one agent, or of all)."""
        return [r for r in list(self.requests) if r.conversing and (agent is None or r.agent == agent)]

    def wait_for(self, agent: str, n: int, timeout: float) -> list[Recorded]:
        """The agent's conversing prompts once there are `n` of them (or what there is after `timeout` s)."""
        deadline = time.monotonic() + timeout
        while len(self.calls(agent)) < n and time.monotonic() < deadline:
            time.sleep(0.1)
        return self.calls(agent)

    def __enter__(self) -> PromptRecorder:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def _completion(text: str) -> dict:
    return {"id": "chatcmpl-rec", "object": "chat.completion", "created": int(time.time()), "model": "recorder",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
