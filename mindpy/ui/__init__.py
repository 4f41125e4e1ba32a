"""The web dashboard: `mindpy dashboard RUN_DIR` and `--ui` on `mindpy run` and `mindpy eval` (see mindpy.ui.cli).

feed.py gathers the agents' snapshots (snapshot.py reads one agent and the map, with mindpy.agent.cards; a worker
process of `mindpy run --processes N` sends its agents' cards through mindpy.agent.remote), controls.py steers an
agent (mindpy.agent.steering, here or in the agent's worker), evalfeed.py reads an evaluation's progress and
transcripts, app.py is the FastAPI app, server.py runs it with uvicorn, view.py opens the 3D view; the page is
static/.
"""
