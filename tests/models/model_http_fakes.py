"""Local HTTP servers that answer as a provider would and record every request (path, headers, JSON body).

    with RecordingServer([(200, openai_reply("hi"))]) as server:
        server.url                      # http://127.0.0.1:PORT
        server.requests[0].headers["authorization"], server.requests[0].body["model"]
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


class RecordingServer:
    """Answers POSTs from `script`, a list of (status, JSON body); the last entry repeats."""

    def __init__(self, script: list[tuple[int, dict]]):
        self.script = script
        self.requests: list[Recorded] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, payload = outer.script[min(len(outer.requests), len(outer.script)) - 1]
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                if status == 429:
                    self.send_header("retry-after", "0")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> RecordingServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
