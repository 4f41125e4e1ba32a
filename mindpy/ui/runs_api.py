"""The runs page's routes: the episodes of every evaluation the dashboard shows, filtered; full-text search in their
transcripts; an episode's model calls. Read-only; included in the dashboard's app (mindpy.ui.app), so the site and
token rules of mindpy.ui.guard and the app apply to them as to every other route.

    GET /runs                                  the page (static/runs.html)
    GET /api/runs/episodes?family=crafting&agents=2&model=gpt&end_reason=success&score_min=0.5&score_max=1&text=craft
                                               {"episodes": [...], "total": N, "facets": {...}, "notes": [...]}
    GET /api/runs/search?q=gold+ingot          {"query": ..., "results": [{"episode", "count", "hits"}], ...}
    GET /api/runs/episode/{id}/calls           {"episode": ..., "calls": [{prompt, reply, tokens, output}], "notes"}
    GET /api/runs/episode/{id}/pictures/{agent}/0001.png   a picture a vision call sent (a call's `picture`)

A bad value (a score that is no number, agents that are no whole number, a text too long) gets a 400 whose one line
says what is allowed (mindpy.ui.inputs.BadInput, answered by the app).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from . import inputs
from .runs_calls import PICTURE
from .runs_index import EpisodeFilter, RunsIndex

STATIC = Path(__file__).resolve().parent / "static"
TEXT_CHARS = 500  # of a query or a filter's text
MAX_AGENTS = 999
EPISODE_ID = re.compile(r"[0-9a-f]{12}")
AGENT = re.compile(r"[A-Za-z0-9_]{1,16}")  # a Minecraft name: the call log's file stem


def number(value: str | None, what: str) -> float | None:
    """A finite number from a query parameter (blank: none)."""
    if value is None or not value.strip():
        return None
    try:
        out = float(value)
    except ValueError:
        out = math.nan
    if not math.isfinite(out):
        raise inputs.BadInput(f"{what}: a number such as 0.5, not {inputs.shown(value)}")
    return out


def whole(value: str | None, what: str, high: int) -> int | None:
    """A whole number from 0 to `high` from a query parameter (blank: none)."""
    if value is None or not value.strip():
        return None
    if not value.strip().isdigit() or len(value.strip()) > 6 or int(value) > high:
        raise inputs.BadInput(f"{what}: a whole number from 0 to {high}, not {inputs.shown(value)}")
    return int(value)


def words(value: str | None, what: str) -> str | None:
    """A text parameter of at most TEXT_CHARS characters (blank: none)."""
    if value is None or not value.strip():
        return None
    return inputs.text(value, what, TEXT_CHARS)


def runs_router(folders: Callable[[], Iterable[Path]], index: RunsIndex | None = None) -> APIRouter:
    """The routes over the run folders `folders()` names (read now, then refreshed as they are asked for)."""
    runs = index if index is not None else RunsIndex(folders)
    router = APIRouter()

    @router.get("/runs")
    def page() -> FileResponse:
        return FileResponse(STATIC / "runs.html", headers={"Cache-Control": "no-store"})

    @router.get("/api/runs/episodes")
    def episodes(family: str | None = None, agents: str | None = None, model: str | None = None,
                 end_reason: str | None = None, score_min: str | None = None, score_max: str | None = None,
                 text: str | None = None) -> dict:
        wanted = EpisodeFilter(family=words(family, "family"), agents=whole(agents, "agents", MAX_AGENTS),
                               model=words(model, "model"), end_reason=words(end_reason, "end_reason"),
                               score_min=number(score_min, "score_min"), score_max=number(score_max, "score_max"),
                               text=words(text, "text"))
        listed = runs.episodes(wanted)
        return {"episodes": [e.data() for e in listed], "total": len(runs.all()), "facets": runs.facets(),
                "notes": runs.notes}

    @router.get("/api/runs/search")
    def search(q: str | None = None) -> dict:
        query = words(q, "q") or ""
        return {"query": query, "results": runs.search(query), "notes": runs.notes}

    @router.get("/api/runs/episode/{episode_id}/calls")
    def calls(episode_id: str) -> dict:
        if EPISODE_ID.fullmatch(episode_id) is None:
            raise inputs.BadInput(f"episode id: 12 characters of 0-9 and a-f, not {inputs.shown(episode_id)}")
        episode = runs.get(episode_id)
        read = runs.calls(episode_id)
        if episode is None or read is None:
            raise HTTPException(404, f"no episode {episode_id}")
        found, notes = read
        return {"episode": episode.data(), "calls": [c.data() for c in found], "notes": notes}

    @router.get("/api/runs/episode/{episode_id}/pictures/{agent}/{name}")
    def picture(episode_id: str, agent: str, name: str) -> FileResponse:
        if EPISODE_ID.fullmatch(episode_id) is None or AGENT.fullmatch(agent) is None \
                or PICTURE.fullmatch(name) is None:
            raise inputs.BadInput("a picture is /api/runs/episode/<12 hex>/pictures/<agent name>/<0001.png>")
        episode = runs.get(episode_id)
        path = episode.folder / "calls" / f"{agent}-pictures" / name if episode is not None else None
        if path is None or not path.is_file():
            raise HTTPException(404, f"no picture {agent}/{name} in episode {episode_id}")
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-store"})

    return router
