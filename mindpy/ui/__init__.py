"""The web dashboard: `mindpy dashboard RUN_DIR` and `--ui` on `mindpy run` and `mindpy eval` (see mindpy.ui.cli).

feed.py gathers the agents' snapshots (snapshot.py reads one agent and the map), controls.py steers an agent,
evalfeed.py reads an evaluation's progress and transcripts, app.py is the FastAPI app, server.py runs it with
uvicorn, view.py opens the 3D view; the page is static/.
"""
