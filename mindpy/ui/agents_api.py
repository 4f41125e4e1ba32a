"""The control panel's HTTP routes, for the page and for other programs (curl, scripts): they read the request,
call mindpy.ui.manage, and answer its refusals with their status and one line.

    GET    /api/profiles                  the profile files to pick, the base profiles, the modes, can_create/why
    POST   /api/agents                    {"profile": "andy.yaml"} | {"text": "..."} | {"name", "model",
                                          "base_profile", "modes"}; "restore": true keeps saved memory
    DELETE /api/agents/{name}             the agent leaves the game, its memory saved
    POST   /api/agents/stop_all           every agent of the run leaves the game
    GET    /api/agents/{name}/profile     {"name", "format", "text", "path"}
    PUT    /api/agents/{name}/profile     {"text": "...", "format"?: "yaml"|"json"}: saved, the agent restarts
    POST   /api/agents/{name}/picture     render what its bot sees now (mindpy.ui.pictures): {"id", "t", "url", ...}
    GET    /api/agents/{name}/pictures    the pictures kept (the last few), oldest first, each with its "url"
    GET    /api/agents/{name}/pictures/{id}.png   one of them

The dashboard's guard and token rules (mindpy.ui.app) cover these routes as every other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import Response

from ..errors import MindpyError
from ..userfiles import one_line
from . import inputs
from .manage import AgentManager, ManageError
from .pictures import Pictures


def agents_router(manager: AgentManager, json_body: Callable[..., Any], pictures: Pictures | None = None) -> APIRouter:
    """The routes over `manager` (and `pictures`); `json_body`: the app's dependency that reads a bounded JSON
    object body."""
    pictures = pictures or Pictures()
    router = APIRouter()
    body_of = Depends(json_body)

    def answer(action: Callable[[], Any]) -> Any:
        try:
            return action()
        except ManageError as exc:
            raise HTTPException(exc.status, str(exc)) from None
        except inputs.BadInput:
            raise  # the app answers it (400, its one line)
        except MindpyError as exc:  # a profile file unreadable, a bot that would not join...
            raise HTTPException(400, one_line(str(exc), 400)) from None

    @router.get("/api/profiles")
    def profiles() -> dict:
        return manager.catalogue()

    @router.post("/api/agents/stop_all")
    def stop_all() -> dict:
        return {"ok": True, **answer(manager.stop_all)}

    @router.post("/api/agents")
    def create(body: dict = body_of) -> dict:
        return {"ok": True, **answer(lambda: manager.create(body))}

    @router.delete("/api/agents/{name}")
    def destroy(name: str) -> dict:
        return {"ok": True, "message": answer(lambda: manager.destroy(name))}

    @router.get("/api/agents/{name}/profile")
    def profile(name: str) -> dict:
        return answer(lambda: manager.profile_text(name))

    @router.put("/api/agents/{name}/profile")
    def edit(name: str, body: dict = body_of) -> dict:
        return {"ok": True, "message": answer(lambda: manager.edit_profile(name, body.get("text"),
                                                                           body.get("format")))}

    def with_url(name: str, picture: dict) -> dict:
        return {**picture, "url": f"/api/agents/{name}/pictures/{picture['id']}.png"}

    @router.post("/api/agents/{name}/picture")
    def picture(name: str) -> dict:
        agent = manager.feed.agents().get(name)
        if agent is None:
            worker = manager.feed.remote_of(name) is not None
            where = "plays in a worker process: no picture of it" if worker else "is no running agent"
            raise HTTPException(404, f"{inputs.shown(name)} {where}")
        try:
            return with_url(name, pictures.take(agent))
        except MindpyError as exc:
            raise HTTPException(400, f"no picture of {name}: {one_line(str(exc), 300)}") from None

    @router.get("/api/agents/{name}/pictures")
    def picture_list(name: str) -> dict:
        return {"pictures": [with_url(name, p) for p in pictures.list(name)]}

    @router.get("/api/agents/{name}/pictures/{number}.png")
    def picture_png(name: str, number: str) -> Response:
        if inputs.INDEX.fullmatch(number) is None:
            raise inputs.BadInput(f"picture id: a whole number (from GET /api/agents/NAME/pictures), not "
                                  f"{inputs.shown(number)}")
        png = pictures.png(name, int(number))
        if png is None:
            raise HTTPException(404, f"no picture {number} of {inputs.shown(name)} (the last {pictures.keep} are kept)")
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    return router
