"""Local HTTP servers that answer as a provider would and record every request (path, headers, JSON body).

    with RecordingServer([(200, openai_reply("hi"))]) as server:
        server.url                      # http://127.0.0.1:PORT
        server.requests[0].headers["authorization"], server.requests[0].body["model"]
    RecordingServer([(200, openai_reply("late"), HANG), (401, ECHO_AUTH)])   # a hung answer, a careless error
    RecordingServer(port=port)          # the endpoint of a closed server, back again
    RecordingServer(respond=lambda body: (200, openai_reply("...")))    # the answer chosen from the request
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HANG = "hang"            # third item of a script entry: answer only once the server closes (the client gave up)
ECHO_AUTH = "echo-auth"  # a body that repeats the request's Authorization header in an error, as careless servers do
HANG_LIMIT_S = 30.0      # a hung answer is released by close(); this only keeps a forgotten server from hanging on


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]  # names in lower case
    body: dict


def openai_reply(text: str, prompt: int = 12, completion: int = 5, cached: int | None = None) -> dict:
    usage: dict = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": usage}


def anthropic_reply(text: str, input_tokens: int = 20, output_tokens: int = 7, cache_read: int = 0,
                    cache_write: int = 0) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                      "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write}}


MILLION = 1_000_000


def priced_server(text: str, completion: int = 0) -> RecordingServer:
    """A server whose every reply is `text` and counts a million prompt tokens: $0.15 at gpt-4o-mini's price
    (priced_spec), so a test's dollars add up to round figures."""
    return RecordingServer([(200, openai_reply(text, prompt=MILLION, completion=completion))])


def priced_spec(server: RecordingServer) -> dict:
    """The model spec of an OpenAI client of `server` as gpt-4o-mini (a model with a known price)."""
    return {"api": "openai", "model": "gpt-4o-mini", "url": server.url + "/v1"}


class RecordingServer:
    """Answers POSTs from `script`, a list of (status, JSON body) or (status, JSON body, HANG); the last entry
    repeats. `script` may be replaced between calls; by default every call gets openai_reply("hi")."""

    def __init__(self, script: list[tuple] | None = None, port: int = 0, respond=None):
        """`port`: 0 for any free one; a port of a server closed before brings that endpoint back. `respond(body)`:
        (status, JSON body) for each request, chosen from it, instead of the script."""
        self.script: list[tuple] = list(script or [(200, openai_reply("hi"))])
        self.requests: list[Recorded] = []
        self.released = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if respond is not None:
                    status, payload, how = *respond(body), []
                else:
                    status, payload, *how = outer.script[min(len(outer.requests), len(outer.script)) - 1]
                if HANG in how:
                    outer.released.wait(HANG_LIMIT_S)
                if payload == ECHO_AUTH:
                    payload = {"error": {"message": f"bad key {self.headers.get('authorization')}"}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    if status == 429:
                        self.send_header("retry-after", "0")
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a hung answer)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # a short poll: close() waits for the serving loop to notice
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> RecordingServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
