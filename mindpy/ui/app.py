"""The dashboard's web app (FastAPI): the page, its JSON routes, and one websocket that pushes the agents' cards and
the map as they change.

    GET  /                                 the page (mindpy/ui/static/)
    WS   /ws                               {"type": "agents"|"map"|"evals", ...} whenever one changes ("map":
                                           its fields that changed since the last one); "agents"
                                           holds the cards that changed since the last one ("full": all of them,
                                           the first time; a card the page has: its name and changed fields)
                                           and the names of the agents gone
    POST /api/agents/{name}/say            {"text": "..."}: a message (or !command) from the dashboard's player
    POST /api/agents/{name}/stop|restart   stop the running action; restart the agent
    POST /api/agents/{name}/mode           {"mode": "hunting", "on": false}
    POST /api/agents/{name}/view           open (lazily) the 3D view of its bot: {"url": ...}
    POST /api/episode/end                  end the task episode being played
    POST /api/map                          {"centre": "andy" or null, "radius": 32}: what the map shows
    GET  /api/evals, /api/evals/{k}, /api/evals/{k}/episodes/{i}   evaluations, progress, an episode's transcript
    GET  /runs, /api/runs/...              the episodes of every evaluation shown, filtered and searched
                                           (mindpy.ui.runs_api)
    creating, destroying and reconfiguring agents (a live run's dashboard): mindpy.ui.agents_api

Only the dashboard's own site is answered (mindpy.ui.guard): a request's Host must be the dashboard's address or a
name the user allowed, and a request with an Origin must come from the dashboard's page; anything else gets a 403.
With a token (the dashboard bound to another address than 127.0.0.1), every request needs it: `?token=...` in
the address (the page then keeps it in a cookie) or that cookie. Every value a request gives is checked
(mindpy.ui.inputs): a bad one gets a 400 whose one line says what is allowed.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from ..errors import MindpyError
from . import controls, inputs
from .evalfeed import EvalFeed
from .feed import AgentFeed
from .guard import SiteGuard, SiteRules
from .runs_api import runs_router

STATIC = Path(__file__).resolve().parent / "static"
TOKEN_COOKIE = "mindpy_dashboard"
EVAL_PUSH_S = 1.0  # how often the evaluations' progress is pushed (when it changed)
MAP_RADII = (8, 128)  # blocks from the map's centre to its edge (the page offers 16, 32 and 64)
NAME_CHARS = 100  # an agent's or a mode's name, as a body gives it


class DashboardState:
    """What the app shows: the live agents, the evaluations (live or from disk), the 3D views, and the runs it
    could open (`mindpy dashboard` with no RUN_DIR); `manager` (a mindpy.ui.manage.AgentManager): agents can be
    created, destroyed and reconfigured from the page."""

    def __init__(self, feed: AgentFeed | None = None, evals: list[EvalFeed] | None = None, viewers: Any = None,
                 sender: str = controls.DASHBOARD_PLAYER, note: str = "", manager: Any = None):
        self.feed = feed or AgentFeed()
        self.manager = manager
        self.evals: list[EvalFeed] = list(evals or [])
        self.viewers = viewers
        self.sender = sender
        self.note = note  # a line for the page: what this dashboard shows


def card_patch(page_cards: dict[str, dict], card: dict) -> dict:
    """What the page needs to bring its copy of `card` up to date: the whole card the first time, then its name
    and the fields that changed (an agent moving sends its `world` part, not its 40 events). Notes the card as
    the page's."""
    before = page_cards.get(card["name"])
    page_cards[card["name"]] = card
    if before is None:
        return card
    return {"name": card["name"], **{k: v for k, v in card.items() if before.get(k) != v}}


async def json_body(request: Request) -> dict:
    """The request's body as a JSON object (a 413 past inputs.MAX_BODY_BYTES, refused before it is read whole)."""
    too_large = HTTPException(413, f"the body is too large: at most {inputs.MAX_BODY_BYTES} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > inputs.MAX_BODY_BYTES:
        raise too_large
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > inputs.MAX_BODY_BYTES:
            raise too_large
    return inputs.json_object(bytes(raw))



class AsciiJSONResponse(JSONResponse):
    """JSON with every non-ASCII character escaped: a lone surrogate (a model's or a player's broken text on a card)
    cannot be encoded as UTF-8, and made the answer a 500."""

    def render(self, content: Any) -> bytes:
        return ascii_json(content).encode("ascii")


def ascii_json(content: Any) -> str:
    """`content` as compact JSON text in ASCII only."""
    return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


async def send_json(socket: WebSocket, content: Any) -> None:
    """Send `content` as ASCII JSON text (see AsciiJSONResponse: one card with a lone surrogate stopped the feed of
    every page for good)."""
    await socket.send_text(ascii_json(content))

def create_app(state: DashboardState, site: SiteRules, token: str | None = None) -> FastAPI:
    """The app over `state`, answering only the site `site` allows; `token`: required on every request when
    given."""
    app = FastAPI(title="mindpy dashboard", docs_url=None, redoc_url=None, openapi_url=None,
                  default_response_class=AsciiJSONResponse)

    def allowed(query_token: str | None, cookie_token: str | None) -> bool:
        if token is None:
            return True
        # as bytes: compare_digest refuses str with characters beyond ASCII (a raised error, not a refusal)
        return any(t is not None and hmac.compare_digest(t.encode("utf-8", "surrogateescape"), token.encode())
                   for t in (query_token, cookie_token))

    @app.middleware("http")
    async def check_token(request: Request, call_next):
        query_token = request.query_params.get("token")
        if not allowed(query_token, request.cookies.get(TOKEN_COOKIE)):
            return AsciiJSONResponse({"error": "this dashboard needs its token: open the address it printed"},
                                status_code=403)
        response: Response = await call_next(request)
        if token is not None and query_token is not None:
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    app.add_middleware(SiteGuard, rules=site)  # added last: the outermost, before the token and every route

    @app.exception_handler(inputs.BadInput)
    async def bad_input(request: Request, exc: inputs.BadInput) -> JSONResponse:
        return AsciiJSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()))
        return AsciiJSONResponse({"detail": f"{where}: {first.get('msg', 'not understood')}"}, status_code=400)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(runs_router(lambda: [e.out for e in state.evals]))  # the runs page (read-only)

    @app.get("/")
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    @app.get("/api/info")
    def info() -> dict:
        return {"agents": bool(state.feed.runners or state.feed.remotes), "evals": len(state.evals), "note": state.note,
                "sender": state.sender, "view": state.viewers is not None, "manage": state.manager is not None}

    if state.manager is not None:
        from .agents_api import agents_router

        app.include_router(agents_router(state.manager, json_body), default_response_class=AsciiJSONResponse)

    # ---- steering ------------------------------------------------------------------------------------------
    # this process's agents directly, a worker's (mindpy run --processes N) through its process: the same checks
    def steer(name: str, what: str, args: dict | None = None) -> dict:
        try:
            message = state.feed.steer(name, what, args)
        except LookupError:
            raise HTTPException(404, f"no running agent named {inputs.shown(name)}") from None
        except MindpyError as exc:
            raise HTTPException(400, str(exc)) from None
        return {"ok": True, "message": message}

    def done(run) -> dict:
        try:
            message = run()
        except MindpyError as exc:
            raise HTTPException(400, str(exc)) from None
        state.feed.poke()
        return {"ok": True, "message": message}

    @app.post("/api/agents/{name}/say")
    def say(name: str, body: dict = Depends(json_body)) -> dict:  # noqa: B008 (FastAPI's way of reading a body)
        return steer(name, "say", {"text": inputs.text(body.get("text"), "text"), "sender": state.sender})

    @app.post("/api/agents/{name}/stop")
    def stop(name: str) -> dict:
        return steer(name, "stop")

    @app.post("/api/agents/{name}/restart")
    def restart(name: str) -> dict:
        return steer(name, "restart")

    @app.post("/api/agents/{name}/mode")
    def mode(name: str, body: dict = Depends(json_body)) -> dict:  # noqa: B008
        return steer(name, "mode", {"mode": inputs.text(body.get("mode"), "mode", NAME_CHARS),
                                    "on": inputs.flag(body.get("on"), "on")})

    @app.post("/api/episode/end")
    def end_episode() -> dict:
        runners = [r for r in state.feed.runners if not getattr(r, "stopped", False) and r.task is not None]
        if not runners:
            raise HTTPException(400, "no task episode is being played")
        return done(lambda: controls.end_episode(runners[-1]))

    @app.post("/api/map")
    def map_view(body: dict = Depends(json_body)) -> dict:  # noqa: B008
        # both checked before either is changed: a refused body changes nothing
        centre = inputs.text(body.get("centre"), "centre (an agent's name)", NAME_CHARS, optional=True)
        radius = body.get("radius")
        if radius is not None:
            radius = inputs.whole_number(radius, "radius", *MAP_RADII, unit="blocks")
        state.feed.map_centre = centre or None
        if radius is not None:
            state.feed.map_radius = radius
        state.feed.poke(map_too=True)
        return {"ok": True, "centre": state.feed.map_centre, "radius": state.feed.map_radius}

    @app.post("/api/agents/{name}/view")
    def view(name: str) -> dict:
        if state.viewers is None:
            raise HTTPException(400, "this dashboard has no 3D view (it shows a finished run)")
        target = state.feed.agents().get(name)
        remote = state.feed.remote_of(name) if target is None else None
        if target is None and remote is None:
            raise HTTPException(404, f"no running agent named {inputs.shown(name)}")
        try:
            if remote is None:
                for other in state.feed.remotes:  # one view at a time
                    other.close_views()
                return {"url": state.viewers.open(target)}
            state.viewers.close()
            # the worker's Node process serves the view on 127.0.0.1, as this process's does
            return {"url": remote.open_view(name)}
        except MindpyError as exc:
            raise HTTPException(400, str(exc)) from None

    # ---- evaluations -------------------------------------------------------------------------------------
    def evaluation(k: str) -> EvalFeed:
        number = inputs.index(k, "evaluation index", lambda: len(state.evals))
        if number >= len(state.evals):
            raise HTTPException(404, f"no evaluation {number}")
        return state.evals[number]

    @app.get("/api/evals")
    def evals() -> list[dict]:
        return [{"index": k, "out": str(e.out), "live": e.evaluation is not None} for k, e in enumerate(state.evals)]

    @app.get("/api/evals/{k}")
    def eval_progress(k: str) -> dict:
        return evaluation(k).progress()

    @app.get("/api/evals/{k}/episodes/{i}")
    def transcript(k: str, i: str) -> dict:
        feed = evaluation(k)
        number = inputs.index(i, "episode index", lambda: len(feed.entries()))
        try:
            return feed.transcript(number)
        except IndexError:
            raise HTTPException(404, f"no episode {number}") from None

    # ---- the live feed -------------------------------------------------------------------------------------
    @app.websocket("/ws")
    async def feed_socket(socket: WebSocket) -> None:
        if not allowed(socket.query_params.get("token"), socket.cookies.get(TOKEN_COOKIE)):
            await socket.close(code=4403)
            return
        await socket.accept()
        feed = state.feed
        sent_version = sent_map = sent_run = -1
        sent_cards: dict[str, int] = {}  # name -> the card version the page has
        page_cards: dict[str, dict] = {}  # name -> the card as the page has it
        page_map: dict = {}  # the map as the page has it
        sent_evals: list = []
        last_evals = 0.0
        loop = asyncio.get_running_loop()
        try:
            with feed.watching():
                while not feed.closed:  # closing: end here (the server waits for every socket to end)
                    if feed.version != sent_version:
                        sent_version = feed.version
                        full = sent_run < 0
                        changed, removed, run_version = feed.changes(sent_cards, sent_run)
                        if full or changed or removed or run_version != sent_run:
                            sent_run = run_version
                            for name in removed:
                                page_cards.pop(name, None)
                            await send_json(socket, {"type": "agents", "full": full,
                                                    "agents": [card_patch(page_cards, c) for c in changed],
                                                    "removed": removed, "run": feed.run})
                    if feed.map_version != sent_map and feed.map is not None:
                        sent_map = feed.map_version
                        # the whole map the first time, then only its parts that changed (the blocks of an idle
                        # area stay as they are: its markers move), nothing when only the read time did
                        now = feed.map
                        patch = {k: v for k, v in now.items() if k != "read_ms" and page_map.get(k) != v}
                        page_map = now
                        if patch:
                            await send_json(socket, {"type": "map", **patch, "read_ms": now.get("read_ms")})
                    if state.evals and loop.time() - last_evals >= EVAL_PUSH_S:
                        last_evals = loop.time()
                        progress = await asyncio.to_thread(lambda: [e.progress() for e in state.evals])
                        if progress != sent_evals:
                            sent_evals = progress
                            await send_json(socket, {"type": "evals", "evals": progress})
                    await asyncio.to_thread(feed.wait_for_change, sent_version, sent_map,
                                            EVAL_PUSH_S if state.evals else 2.0)
        except (WebSocketDisconnect, RuntimeError):
            return

    return app
