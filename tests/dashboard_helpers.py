"""What the dashboard's tests share: a card of the page, the time a text first shows on it, and requests written
byte by byte on a socket (so that their Host, Origin and body are exactly the ones a test means)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

OWN = "own"  # as a Host: the address's own (127.0.0.1:PORT)
ANSWER_TIMEOUT_S = 10


@contextmanager
def control_panel(server, tmp_path: Path, viewers=None) -> Iterator[tuple]:
    """A run with no agents on the session's server and a dashboard (free port) that creates them, as
    `mindpy dashboard --server` starts them: (dashboard, runner). Profiles to pick: tmp_path/profiles; profiles
    written from the page: tmp_path/saved."""
    from agent_helpers import make_settings
    from mindpy.agent.runner import AgentRunner
    from mindpy.ui.app import DashboardState
    from mindpy.ui.manage import AgentManager
    from mindpy.ui.server import Dashboard

    runner = AgentRunner(make_settings(tmp_path), [], server.host, server.port)
    runner.start()
    state = DashboardState(viewers=viewers)
    state.manager = AgentManager(state.feed, tmp_path / "saved", profiles_dir=tmp_path / "profiles")
    state.feed.add_runner(runner)
    dashboard = Dashboard(state, port=0).start()
    try:
        yield dashboard, runner
    finally:
        runner.stop()
        dashboard.stop()


def card(page, name: str):
    """The agent card of `name` on the page (a Playwright locator)."""
    return page.locator(f'.card[data-agent="{name}"]')


def note_when_shown(page, name: str, text: str, key: str) -> None:
    """From now on, the page notes in `window[key]` (its own clock, in seconds) when `text` first shows in the
    events of `name`'s card: the latency of the page, measured where it is seen."""
    page.evaluate("""([name, text, key]) => {
        const events = document.querySelector(`.card[data-agent="${name}"] .events`)
        new MutationObserver((_, observer) => {
            if (events.textContent.includes(text)) { window[key] = Date.now() / 1000; observer.disconnect() }
        }).observe(events, { childList: true, subtree: true, characterData: true }) }""", [name, text, key])


@dataclass
class Answer:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    frame: bytes | None = None  # the websocket's first message, after a 101

    def json(self) -> dict:
        return json.loads(self.body)

    def message(self) -> dict:
        """The websocket's first message, as JSON."""
        assert self.frame is not None, self
        return json.loads(self.frame)


def exchange(port: int, method: str, path: str, host: str | None = OWN, headers: tuple = (), body: bytes | None = None,
             version: str = "HTTP/1.1") -> Answer:
    """Send one request exactly as given (host None: no Host header; OWN: 127.0.0.1:PORT) and read the answer."""
    lines = [f"{method} {path} {version}"]
    if host is not None:
        lines.append(f"Host: {f'127.0.0.1:{port}' if host == OWN else host}")
    lines += [f"{k}: {v}" for k, v in headers]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "surrogateescape") + (body or b"")
    return send_raw(port, raw)


def read_answer(sock: socket.socket) -> Answer:
    """The status, headers and body of the answer on `sock` (read to its end), or a websocket's first frame."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = headers.get(name.strip().lower(), "") + value.strip()
    answer = Answer(int(status_line.split()[1]), headers)
    if answer.status == 101:
        answer.frame = read_frame(sock, rest)
        return answer
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    answer.body = rest
    return answer


def read_frame(sock: socket.socket, data: bytes) -> bytes:
    """The payload of the first websocket frame (a server's frames are not masked)."""
    def need(n: int) -> None:
        nonlocal data
        while len(data) < n:
            chunk = sock.recv(65536)
            assert chunk, "the socket closed before a whole frame came"
            data += chunk

    need(2)
    length, start = data[1] & 0x7F, 2
    if length == 126:
        need(4)
        length, start = int.from_bytes(data[2:4], "big"), 4
    elif length == 127:
        need(10)
        length, start = int.from_bytes(data[2:10], "big"), 10
    need(start + length)
    return data[start:start + length]


def upgrade(port: int, path: str, host: str | None = OWN, origin: str | None = OWN, headers: tuple = ()) -> Answer:
    """Open a websocket on `path` as a browser would (origin OWN: http://127.0.0.1:PORT; None: as a non-browser
    client, with no Origin) and read its answer (after a 101: its first message, in `frame`)."""
    extra = [("Upgrade", "websocket"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
             ("Sec-WebSocket-Version", "13")]
    if origin is not None:
        extra.append(("Origin", f"http://127.0.0.1:{port}" if origin == OWN else origin))
    lines = [f"GET {path} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {f'127.0.0.1:{port}' if host == OWN else host}")
    lines += [f"{k}: {v}" for k, v in [*extra, *headers]] + ["Connection: Upgrade"]
    return send_raw(port, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))


def send_raw(port: int, raw: bytes) -> Answer:
    """Send `raw` bytes on a new connection to 127.0.0.1:PORT and read the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_TIMEOUT_S) as sock:
        sock.sendall(raw)
        return read_answer(sock)
