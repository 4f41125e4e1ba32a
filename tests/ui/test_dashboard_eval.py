"""The dashboard's evaluation page in a real browser: a 2-episode `mindpy eval` played by the oracle (no API key;
each episode in its own process with its own embedded server) shown live as it plays, then the finished run
directory as `mindpy dashboard RUN_DIR` shows it, with an episode's transcript. Also the one-line answers of the
command line: `mindpy dashboard` with nothing to show, and a dashboard port that is taken."""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from mindpy.harness.evaluate import EVALUATION_WATCHERS, Evaluation
from mindpy.ui.app import DashboardState
from mindpy.ui.evalfeed import EvalFeed
from mindpy.ui.server import Dashboard
from mindpy.view.browser import headless_browser

pytestmark = pytest.mark.slow  # whole episodes: left out of `make test-fast`

MINDPY = Path(sys.executable).with_name("mindpy")
TASKS = {
    "planks_alone": {"type": "techtree", "goal": "Craft oak_planks.", "agent_count": 1,
                     "initial_inventory": {"0": {"oak_log": 1}}, "target": "oak_planks", "number_of_target": 4,
                     "timeout": 60},
    "planks_two": {"type": "techtree", "goal": "Craft oak_planks.", "conversation": "Let's craft planks.",
                   "agent_count": 2, "initial_inventory": {"0": {"oak_log": 1}, "1": {}}, "target": "oak_planks",
                   "number_of_target": 4, "timeout": 60},
}


def counts(out: Path) -> tuple[int, int, dict[str, str]]:
    """(episodes, successes, {group: "wins/played"}) as results.csv has them."""
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    groups: dict[str, list[int]] = {}
    for row in rows:
        group = groups.setdefault(f"{row['family']} / {row['agent_count']} agents", [0, 0])
        group[0] += row["success"] == "True"
        group[1] += 1
    return len(rows), sum(r["success"] == "True" for r in rows), {g: f"{w}/{p}" for g, (w, p) in groups.items()}


def test_a_live_evaluation_then_its_run_directory(tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(TASKS))
    out = tmp_path / "eval"
    state = DashboardState()
    watch = lambda evaluation: state.evals.append(EvalFeed.live(evaluation))  # as `mindpy eval --ui` does
    EVALUATION_WATCHERS.append(watch)
    evaluation = Evaluation([str(tasks)], out=out, model="oracle", parallel=2, progress=lambda line: None)
    played: dict = {}
    thread = threading.Thread(target=lambda: played.update(evaluation.run()), daemon=True)
    try:
        with Dashboard(state, port=0) as dashboard, headless_browser() as browser:
            thread.start()
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.goto(dashboard.url + "#evals")
            expect(page.locator("#eval-done")).to_have_text("0/2", timeout=20000)
            expect(page.locator('.episode[data-status="playing"]').first).to_be_visible(timeout=60000)
            expect(page.locator("#eval-done")).to_have_text("2/2", timeout=150000)
            thread.join(timeout=60)
            assert not thread.is_alive() and played["episodes"] == 2
            episodes, wins, groups = counts(out)
            expect(page.locator("#eval-success")).to_have_text(f"{wins}/2")
            expect(page.locator("#eval-errors")).to_have_text(str(played["errors"]))
            expect(page.locator("#eval-eta")).to_have_text("0 s")
            for group, shown in groups.items():
                expect(page.locator(".groups tr", has_text=group)).to_contain_text(shown)
            assert wins == round(played["success_rate"] * played["played"])

            # the finished run directory, as `mindpy dashboard RUN_DIR` opens it
            finished = DashboardState(evals=[EvalFeed.from_dir(out)])
            with Dashboard(finished, port=0) as again:
                page.goto(again.url + "#evals")
                expect(page.locator("#eval-done")).to_have_text("2/2", timeout=15000)
                expect(page.locator("#eval-success")).to_have_text(f"{wins}/2")
                expect(page.locator(".episode")).to_have_count(2)
                page.locator(".episode a", has_text="planks_two").click()
                expect(page.locator("#episode h2")).to_contain_text("planks_two")
                transcript = page.locator(".transcript")
                expect(transcript).to_contain_text("!craftRecipe")     # a command...
                expect(transcript.locator("tr.ev.sees").first).to_be_visible()  # ...and an output
                result = json.loads(next(out.glob("episodes/*/planks_two-*/result.json")).read_text())
                expect(page.locator("#episode")).to_contain_text(f"score {result['score']:g}, ended by {result['end_reason']}")
    finally:
        EVALUATION_WATCHERS.remove(watch)
        thread.join(timeout=120)


def mindpy(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(MINDPY), *args], capture_output=True, text=True, timeout=60, cwd=cwd,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_the_command_line_says_what_it_can_show_and_why_it_cannot_start(tmp_path):
    nothing = mindpy("dashboard", cwd=tmp_path)
    assert nothing.returncode == 2
    assert "Nothing to show" in nothing.stderr and "mindpy dashboard RUN_DIR" in nothing.stderr

    not_a_run = mindpy("dashboard", str(tmp_path), cwd=tmp_path)
    assert not_a_run.returncode == 2
    assert not_a_run.stderr.strip().count("\n") == 0 and "is no run directory" in not_a_run.stderr

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        busy = mindpy("eval", str(tmp_path / "none.json"), "--ui", "--ui-port", str(port), cwd=tmp_path)
    assert busy.returncode == 2
    assert busy.stderr.strip() == (f"mindpy: error: port {port} on 127.0.0.1 is in use (another dashboard?): "
                                   f"choose another with --ui-port PORT (0: any free port)")

    # without the ui extra's web libraries (here: fastapi blocked in the process) the rest of the CLI still works
    # and the dashboard says what to install
    blocked = subprocess.run([sys.executable, "-c", "import sys; sys.modules['fastapi'] = None; "
                              "from mindpy.cli import main; sys.exit(main(['dashboard']))"],
                             capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert blocked.returncode == 2
    assert blocked.stderr.strip() == ("mindpy: error: the dashboard needs the ui extra (fastapi missing): "
                                      "pip install 'mindpy[ui]' (make setup installs it)")
