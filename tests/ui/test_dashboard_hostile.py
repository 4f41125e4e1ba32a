"""Hostile requests against real dashboards (fast: no Minecraft server, no browser): the dashboard answers only its
own site (Host on every request and websocket, Origin where a page of another site could send one), every number
it takes is checked (400 and a one-line message saying what is allowed, never a 500), and tokens and cookies are
compared safely. Each request is written byte by byte on a socket, so that its Host, Origin and body are exactly
the hostile ones.

The dashboards show one worker agent's card (mindpy.agent.remote, as `mindpy run --processes N --ui` has them) and
one finished episode, so that what a foreign page could read and change is real."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from dashboard_helpers import OWN, Answer, exchange, send_raw, upgrade
from mindpy.agent.remote import WorkerAgents
from mindpy.ui.app import TOKEN_COOKIE, DashboardState
from mindpy.ui.evalfeed import EvalFeed
from mindpy.ui.guard import SiteRules
from mindpy.ui.server import Dashboard, DashboardError

SECRET_GOAL = "dig to the hidden vault"
TOKEN = "s3cret-dashboard-token"


def websocket(port: int, host: str | None = OWN, origin: str | None = OWN, query: str = "",
              headers: tuple = ()) -> Answer:
    """Open the dashboard's /ws as a browser would (origin None: as a non-browser client, with no Origin)."""
    return upgrade(port, f"/ws{query}", host=host, origin=origin, headers=headers)


def post(port: int, path: str, payload, origin: str | None = OWN, host: str | None = OWN,
         headers: tuple = ()) -> Answer:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    sent = [("Content-Type", "application/json"), *headers]
    if origin is not None:
        sent.append(("Origin", f"http://127.0.0.1:{port}" if origin == OWN else origin))
    return exchange(port, "POST", path, host=host, headers=tuple(sent), body=body)


def refused_in_one_line(answer: Answer, status: int = 403) -> str:
    assert answer.status == status, (answer.status, answer.body[:300])
    text = answer.body.decode("utf-8", "replace").strip()
    try:
        message = json.loads(text)
        text = message.get("detail") or message.get("error") or ""
    except ValueError:
        pass
    assert text and "\n" not in text, answer.body[:300]
    return text


# ---- the dashboards -------------------------------------------------------------------------------------------
def worker_card(name: str) -> dict:
    return {"name": name, "model": "secret-model/v1", "action": None, "idle": True, "modes": {"hunting": True},
            "goal": SECRET_GOAL, "goal_state": "active", "partners": [], "events": [],
            "spend": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "usd": None}, "task_goal": None,
            "world": None, "world_error": None}


def shown_state(tmp_path) -> tuple[DashboardState, list]:
    """A dashboard's state with one worker agent "wa" (its worker answers every control at once) and one finished
    episode; and the list of the controls the worker received."""
    steered: list[tuple] = []
    remote: WorkerAgents

    def worker_post(worker: int, message: tuple) -> bool:
        if message[0] == "steer":
            steered.append(message[2:])
            threading.Thread(target=remote.receive, args=(worker, ("steered", message[1], True, "done")),
                             daemon=True).start()
        return True

    remote = WorkerAgents(worker_post, {1: ["wa"]})
    state = DashboardState()
    state.feed.add_remote(remote)
    remote.worker_started(1)
    remote.receive(1, ("cards", {"wa": worker_card("wa")}))
    episode = tmp_path / "episode"
    episode.mkdir()
    (episode / "result.json").write_text(json.dumps({"task_id": "planks", "type": "techtree", "score": 1.0,
                                                     "end_reason": "success", "agent_names": ["wa"]}))
    (episode / "console.log").write_text("12:00:01 [wa] runs: !craftRecipe(\"oak_planks\", 1)\n")
    state.evals.append(EvalFeed.from_dir(episode))
    return state, steered


@pytest.fixture(scope="module")
def dash(tmp_path_factory):
    """A dashboard on 127.0.0.1 (no token), as `mindpy run --ui` starts it."""
    state, steered = shown_state(tmp_path_factory.mktemp("hostile"))
    with Dashboard(state, port=0) as dashboard:
        dashboard.steered = steered  # type: ignore[attr-defined]
        yield dashboard


@pytest.fixture(scope="module")
def tokened(tmp_path_factory):
    state, _ = shown_state(tmp_path_factory.mktemp("hostile_token"))
    with Dashboard(state, port=0, token=TOKEN) as dashboard:
        yield dashboard


# ---- the site: Host ---------------------------------------------------------------------------------------
def test_a_foreign_host_is_refused_on_http_and_on_the_websocket(dash):
    port = dash.port
    assert exchange(port, "GET", "/api/info").status == 200
    for host in ("evil.example", f"evil.example:{port}"):
        assert "not this dashboard's address" in refused_in_one_line(exchange(port, "GET", "/api/info", host=host))
        assert exchange(port, "GET", "/", host=host).status == 403
        answer = websocket(port, host=host, origin=None)
        assert answer.status == 403 and answer.frame is None
        assert b"wa" not in answer.body and SECRET_GOAL.encode() not in answer.body


HOSTS = [  # (Host header, allowed); PORT: the dashboard's port
    ("127.0.0.1:PORT", True), ("localhost:PORT", True), ("[::1]:PORT", True), ("LocalHost:PORT", True),
    ("evil.example", False), ("evil.example:PORT", False), ("localhost:1", False), ("127.0.0.1", False),
    ("localhost", False), ("127.0.0.1.evil.example:PORT", False), ("localhost.evil.example:PORT", False),
    ("evil.example@127.0.0.1:PORT", False), ("127.0.0.1:PORT@evil.example", False), ("0.0.0.0:PORT", False),
    ("127.0.0.2:PORT", False), ("2130706433:PORT", False), ("127.1:PORT", False), ("[::ffff:7f00:1]:PORT", False),
    ("localhost:PORT:PORT", False), ("localhost:+PORT", False), ("localhost:99999999999999999999", False),
    ("", False), ("x" * 5000, False), ("127.0.0.1:PORT/evil", False), ("[::1:PORT", False),
    (None, False),  # no Host at all (HTTP/1.0)
]


@pytest.mark.parametrize(("host", "allowed"), HOSTS, ids=[repr(h)[:40] for h, _ in HOSTS])
def test_only_the_dashboards_own_host_is_answered(dash, host, allowed):
    port = dash.port
    value = None if host is None else host.replace("PORT", str(port))
    answer = exchange(port, "GET", "/api/info", host=value, version="HTTP/1.0" if host is None else "HTTP/1.1")
    if allowed:
        assert answer.status == 200, answer
        assert websocket(port, host=value, origin=None).message()["type"] == "agents"
    else:
        assert answer.status in (400, 403), answer  # 400: the HTTP parser's own refusal of a malformed Host
        assert websocket(port, host=value, origin=None).status in (400, 403)


def test_two_host_headers_are_refused(dash):
    answer = exchange(dash.port, "GET", "/api/info", headers=(("Host", "evil.example"),))
    assert answer.status in (400, 403)


# ---- the site: Origin -------------------------------------------------------------------------------------
def test_a_websocket_from_a_foreign_page_gets_no_cards_and_the_pages_own_origin_does(dash):
    port = dash.port
    foreign = websocket(port, origin="http://evil.example")
    assert foreign.status == 403 and foreign.frame is None
    assert SECRET_GOAL.encode() not in foreign.body and b"secret-model" not in foreign.body
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", None):
        own = websocket(port, origin=origin)
        assert own.status == 101, own
        assert own.message()["type"] == "agents" and own.message()["agents"][0]["goal"] == SECRET_GOAL


ORIGINS = [  # (Origin header, allowed)
    ("http://127.0.0.1:PORT", True), ("http://localhost:PORT", True), ("http://[::1]:PORT", True),
    ("http://evil.example", False), ("https://evil.example", False), ("http://evil.example:PORT", False),
    ("null", False), ("http://127.0.0.1:1", False), ("http://127.0.0.1", False), ("file://", False),
    ("http://localhost.evil.example:PORT", False), ("http://127.0.0.1:PORT.evil.example", False),
    ("http://evil.example, http://127.0.0.1:PORT", False), ("http://127.0.0.1:PORT/path", False),
    ("http://user@127.0.0.1:PORT", False), ("chrome-extension://abcdef", False), ("", False),
    ("ws://127.0.0.1:PORT", False), ("http://0.0.0.0:PORT", False),
]


@pytest.mark.parametrize(("origin", "allowed"), ORIGINS, ids=[repr(o)[:40] for o, _ in ORIGINS])
def test_a_websocket_opens_only_for_the_dashboards_own_origin(dash, origin, allowed):
    answer = websocket(dash.port, origin=origin.replace("PORT", str(dash.port)))
    assert answer.status == (101 if allowed else 403), answer
    assert (answer.frame is not None) == allowed


def test_a_post_from_a_foreign_page_is_refused_and_changes_nothing(dash):
    port, feed = dash.port, dash.state.feed
    radius = feed.map_radius
    steered = len(dash.steered)
    for origin in ("http://evil.example", "null", f"http://evil.example:{port}"):
        refused = post(port, "/api/map", {"radius": 16, "centre": "wa"}, origin=origin)
        assert "not this dashboard's page" in refused_in_one_line(refused)
        refused_in_one_line(post(port, "/api/agents/wa/mode", {"mode": "hunting", "on": False}, origin=origin))
        refused_in_one_line(post(port, "/api/agents/wa/say", b"text=hi", origin=origin,
                                 headers=(("Content-Type", "text/plain"),)))
        refused_in_one_line(post(port, "/api/episode/end", {}, origin=origin))
    assert feed.map_radius == radius and feed.map_centre is None and len(dash.steered) == steered
    # the page's own origin, and a client without one (no browser: the token rules, here none on 127.0.0.1)
    assert post(port, "/api/agents/wa/mode", {"mode": "hunting", "on": False}).status == 200
    assert dash.steered[-1] == ("wa", "mode", {"mode": "hunting", "on": False})
    assert post(port, "/api/map", {"radius": radius}, origin=None).json()["radius"] == radius


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "GET"])
def test_any_method_with_a_foreign_origin_is_refused_and_no_cors_is_granted(dash, method):
    answer = exchange(dash.port, method, "/api/map", headers=(("Origin", "http://evil.example"),
                                                              ("Access-Control-Request-Method", "POST")))
    assert answer.status == 403
    assert not any(h.startswith("access-control-") for h in answer.headers)


# ---- numbers and bodies -----------------------------------------------------------------------------------
BAD_NUMBERS = [  # (JSON text of the value, id)
    ("1e999", "1e999"), ("-1e999", "-1e999"), ('"nan"', "nan-string"), ("NaN", "NaN"), ("Infinity", "Infinity"),
    ("-Infinity", "-Infinity"), ("true", "true"), ("false", "false"), ('"12"', "string-12"), ("[]", "list"),
    ("{}", "object"), (str(10**30), "10**30"), ("-5", "-5"), ("12.5", "12.5"), ("0", "0"), ("129", "129"),
    ("1e308", "1e308"), ("9" * 5000, "5000-digits"), ("-0.0", "-0.0"),
]


@pytest.mark.parametrize(("value", "_"), BAD_NUMBERS, ids=[i for _, i in BAD_NUMBERS])
def test_a_bad_map_radius_is_refused_with_its_range(dash, value, _):
    before = dash.state.feed.map_radius
    answer = post(dash.port, "/api/map", f'{{"centre": null, "radius": {value}}}'.encode())
    message = refused_in_one_line(answer, 400)
    assert "radius" in message and "8" in message and "128" in message, message
    assert dash.state.feed.map_radius == before


@pytest.mark.parametrize("radius", [8, 16, 64, 128, 16.0])
def test_a_good_map_radius_is_taken(dash, radius):
    answer = post(dash.port, "/api/map", {"centre": None, "radius": radius})
    assert answer.status == 200 and answer.json()["radius"] == int(radius)
    post(dash.port, "/api/map", {"centre": None, "radius": 32})


BAD_INDICES = ["1e999", "-1e999", "nan", "NaN", "Infinity", "true", "-5", "-1", str(10**30), "1.5", "0x1", "1_0",
               "%EF%BC%90", "%200", "0%20", "+0", "%00"]


@pytest.mark.parametrize("index", BAD_INDICES)
def test_a_bad_evaluation_or_episode_index_is_refused_with_its_range(dash, index):
    for path in (f"/api/evals/{index}", f"/api/evals/0/episodes/{index}", f"/api/evals/{index}/episodes/0"):
        message = refused_in_one_line(exchange(dash.port, "GET", path), 400)
        assert "a whole number from 0" in message, (path, message)


def test_an_index_past_the_end_is_not_found_and_a_good_one_answers(dash):
    assert exchange(dash.port, "GET", "/api/evals/0").json()["total"] == 1
    assert exchange(dash.port, "GET", "/api/evals/0/episodes/0").json()["lines"][0]["agent"] == "wa"
    assert exchange(dash.port, "GET", "/api/evals/00").status == 200
    assert "no evaluation 1" in refused_in_one_line(exchange(dash.port, "GET", "/api/evals/1"), 404)
    assert "no episode 7" in refused_in_one_line(exchange(dash.port, "GET", "/api/evals/0/episodes/7"), 404)


BAD_BODIES = [  # (path, body, what the message names)
    ("/api/map", b"radius=5", "JSON"), ("/api/map", b"", "JSON"), ("/api/map", b"[]", "object"),
    ("/api/map", b'"text"', "object"), ("/api/map", b"null", "object"), ("/api/map", b"\xff\xfe{}", "JSON"),
    ("/api/map", b"[" * 30000 + b"]" * 30000, "JSON"), ("/api/map", b'{"radius": 16', "JSON"),
    ("/api/map", b'{"radius": 16, "radius": NaN}', "radius"), ("/api/map", b'{"centre": {"a": 1}}', "centre"),
    ("/api/map", b'{"centre": 5}', "centre"), ("/api/map", json.dumps({"centre": "x" * 5000}).encode(), "centre"),
    ("/api/agents/wa/say", b'{"text": 5}', "text"), ("/api/agents/wa/say", b'{"text": ["hi"]}', "text"),
    ("/api/agents/wa/say", b'{"text": null}', "text"), ("/api/agents/wa/say", b"{}", "text"),
    ("/api/agents/wa/mode", b'{"mode": "hunting", "on": "false"}', "on"),
    ("/api/agents/wa/mode", b'{"mode": "hunting", "on": 0}', "on"),
    ("/api/agents/wa/mode", b'{"mode": "hunting", "on": null}', "on"),
    ("/api/agents/wa/mode", b'{"mode": "hunting"}', "on"), ("/api/agents/wa/mode", b'{"mode": 5, "on": true}', "mode"),
    ("/api/agents/wa/mode", b'{"mode": ["hunting"], "on": true}', "mode"),
]


@pytest.mark.parametrize(("path", "body", "named"), BAD_BODIES, ids=[f"{p}:{b[:24]!r}" for p, b, _ in BAD_BODIES])
def test_a_bad_body_is_refused_in_one_line_and_reaches_no_agent(dash, path, body, named):
    steered = len(dash.steered)
    message = refused_in_one_line(post(dash.port, path, body), 400)
    assert named in message, message
    assert len(dash.steered) == steered


def test_a_body_too_large_is_refused_before_it_is_read(dash):
    head = (f"POST /api/agents/wa/say HTTP/1.1\r\nHost: 127.0.0.1:{dash.port}\r\nContent-Type: application/json\r\n"
            f"Connection: close\r\n")
    # it says 2 MB and sends 12 bytes: the answer comes without waiting for the rest
    declared = send_raw(dash.port, (head + "Content-Length: 2000000\r\n\r\n").encode() + b'{"text": "aa')
    assert "too large" in refused_in_one_line(declared, 413)
    # no length said, 100 kB in chunks
    chunk = b'{"text": "' + b"a" * 100_000 + b'"}'
    chunked = send_raw(dash.port, (head + "Transfer-Encoding: chunked\r\n\r\n").encode()
                       + b"%x\r\n" % len(chunk) + chunk + b"\r\n0\r\n\r\n")
    assert "too large" in refused_in_one_line(chunked, 413)
    assert dash.steered == [] or all(s[1] != "say" for s in dash.steered)


PATHS = [  # (method, path, status)
    ("GET", "/static/../../../../etc/passwd", 404), ("GET", "/static/%2e%2e/%2e%2e/app.py", 404),
    ("GET", "/static/..%2f..%2fapp.py", 404), ("GET", "/nothing-here", 404), ("POST", "/api/agents/%00/stop", 404),
    ("POST", "/api/agents/" + "n" * 3000 + "/stop", 404), ("POST", "/api/agents/..%2F..%2Fx/stop", 404),
    ("GET", "/api/map", 405), ("TRACE", "/", 405), ("GET", "/api/evals/0/episodes/0/../../1", 404),
    ("GET", "/static/app.js", 200), ("GET", "/", 200),
]


@pytest.mark.parametrize(("method", "path", "status"), PATHS, ids=[f"{m} {p[:40]}" for m, p, _ in PATHS])
def test_odd_paths_and_methods_get_a_plain_answer(dash, method, path, status):
    answer = exchange(dash.port, method, path, body=b"{}" if method == "POST" else None)
    assert answer.status == status, answer
    assert b"root:" not in answer.body and b"def create_app" not in answer.body


# ---- tokens and cookies -----------------------------------------------------------------------------------
TOKENS = [  # (query, cookie, allowed)
    ("", None, False), ("?token=wrong", None, False), (f"?token={TOKEN[:-1]}", None, False),
    (f"?token={TOKEN}x", None, False), ("?token=%C3%A9", None, False), ("?token=%00", None, False),
    ("?token=", None, False), ("", "wrong", False), ("", "é", False), ("", "", False),
    (f"?token={TOKEN}", None, True), ("", TOKEN, True), ("?token=wrong", TOKEN, True),
    (f"?token={TOKEN}&token=wrong", None, None), (f"?token=wrong&token={TOKEN}", None, None),
]


@pytest.mark.parametrize(("query", "cookie", "allowed"), TOKENS, ids=[f"{q}|{c}" for q, c, _ in TOKENS])
def test_the_token_is_compared_safely(tokened, query, cookie, allowed):
    headers = () if cookie is None else (("Cookie", f"{TOKEN_COOKIE}={cookie}"),)
    answer = exchange(tokened.port, "GET", f"/api/info{query}",
                      headers=tuple((k, v.encode().decode("latin-1")) for k, v in headers))
    if allowed is None:  # the right token and a wrong one: either answer, but an answer
        assert answer.status in (200, 403)
        return
    assert answer.status == (200 if allowed else 403), answer
    socket_answer = websocket(tokened.port, query=query, origin=None,
                              headers=tuple((k, v.encode().decode("latin-1")) for k, v in headers))
    assert socket_answer.status == (101 if allowed else 403)


def test_the_token_does_not_open_the_site_to_a_foreign_host_or_page(tokened):
    port = tokened.port
    assert exchange(port, "GET", f"/api/info?token={TOKEN}", host="evil.example").status == 403
    assert websocket(port, query=f"?token={TOKEN}", origin="http://evil.example").status == 403
    answer = exchange(port, "GET", f"/?token={TOKEN}")
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


# ---- other addresses, and the names the user allows ---------------------------------------------------------
def test_a_dashboard_on_every_address_answers_its_machines_names_only(tmp_path):
    state, _ = shown_state(tmp_path)
    with Dashboard(state, host="0.0.0.0", port=0) as open_dashboard:
        port, query = open_dashboard.port, f"?token={open_dashboard.token}"
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"{socket.gethostname()}:{port}"):
            assert exchange(port, "GET", f"/api/info{query}", host=host).status == 200, host
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}"):
            assert exchange(port, "GET", f"/api/info{query}", host=host).status == 403, host
        assert websocket(port, query=query, origin=f"http://{socket.gethostname()}:{port}").status == 101
        assert websocket(port, query=query, origin="http://evil.example").status == 403


def test_names_the_user_allows_are_answered(tmp_path):
    state, _ = shown_state(tmp_path)
    with Dashboard(state, port=0, allowed_hosts=["Dash.Example", "tunnel.example:9000"]) as allowing:
        port = allowing.port
        for host in (f"dash.example:{port}", "dash.example", "dash.example:443", "tunnel.example:9000",
                     f"127.0.0.1:{port}"):
            assert exchange(port, "GET", "/api/info", host=host).status == 200, host
        for host in ("tunnel.example", f"tunnel.example:{port}", "evil.example", "sub.dash.example"):
            assert exchange(port, "GET", "/api/info", host=host).status == 403, host
        assert websocket(port, host="dash.example", origin="https://dash.example").status == 101
        assert websocket(port, host="tunnel.example:9000", origin="http://tunnel.example:9000").status == 101
        assert websocket(port, origin="http://tunnel.example").status == 403
        assert post(port, "/api/map", {"radius": 16}, origin="https://dash.example").status == 200


def test_the_command_line_takes_allowed_hosts():
    from mindpy.cli import build_parser

    parser = build_parser()
    run = parser.parse_args(["run", "--ui", "--ui-allowed-host", "a.example", "--ui-allowed-host", "b.example:80"])
    assert run.ui_allowed_host == ["a.example", "b.example:80"]
    dashboard = parser.parse_args(["dashboard", "--allowed-host", "a.example"])
    assert dashboard.allowed_host == ["a.example"]
    with pytest.raises(Exception, match="allowed host"):
        Dashboard(DashboardState(), port=0, allowed_hosts=["evil example/"])


def test_the_dashboard_stops_while_a_page_is_connected(tmp_path):
    state, _ = shown_state(tmp_path)
    dashboard = Dashboard(state, port=0).start()
    handshake = (f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{dashboard.port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 f"Sec-WebSocket-Version: 13\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", dashboard.port), timeout=10) as page:
        page.sendall(handshake)
        assert page.recv(12) == b"HTTP/1.1 101"
        dashboard.stop()  # the page is still connected
    assert not dashboard._thread.is_alive()  # its socket ended with the feed: the server could stop


def test_on_every_address_the_address_a_client_reached_is_its_own():
    rules = SiteRules.for_address("::", 8765)
    assert rules.host_allowed("192.0.2.7:8765", "::ffff:192.0.2.7")  # an IPv4 client of a socket bound to "::"
    assert rules.host_allowed("[2001:db8::7]:8765", "2001:db8::7")
    assert not rules.host_allowed("192.0.2.8:8765", "::ffff:192.0.2.7")
    assert not rules.host_allowed("192.0.2.7:8766", "::ffff:192.0.2.7")
    assert not rules.host_allowed("[::ffff:7f00:1]:8765", "127.0.0.1")


@pytest.mark.parametrize("port", [70000, -1, 10**30, True, "8765"])
def test_a_bad_port_is_a_one_line_error(port):
    with pytest.raises(DashboardError, match="port: a whole number from 0 to 65535"):
        Dashboard(DashboardState(), port=port)


def test_a_card_with_broken_text_still_reaches_every_page(tmp_path):
    # a lone surrogate (a model's or a player's broken text) on a card could not be sent as UTF-8: every page's
    # feed stopped for good, and the say box that put it there answered 500
    state, steered = shown_state(tmp_path)
    with Dashboard(state, port=0) as dashboard:
        assert post(dashboard.port, "/api/agents/wa/say", {"text": "broken \ud800 text"}).status == 200
        assert steered[-1][:2] == ("wa", "say")
        state.feed.remotes[0].receive(1, ("cards", {"wa": {**worker_card("wa"), "goal": "half \udc00 a pair"}}))
        page = websocket(dashboard.port)
        assert page.status == 101 and page.message()["agents"][0]["goal"] == "half \udc00 a pair"


def test_a_long_unknown_agent_name_is_not_repeated_whole(dash):
    answer = post(dash.port, "/api/agents/" + "n" * 10_000 + "/say", {"text": "hi"})
    assert "no running agent named" in refused_in_one_line(answer, 404)
    assert len(answer.body) < 500
