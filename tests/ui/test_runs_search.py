"""The runs page: the episodes of two evaluations (written by a real Evaluation whose runner writes each episode's
files as an episode does, tests/runs_helpers.py) filtered and searched as plain Python, through the HTTP API of a
real dashboard (with its site and token rules), and in a real browser. A run folder with a broken calls line and
an episode without result.json is listed with notes, never in the way."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from dashboard_helpers import exchange
from mindpy.ui.app import DashboardState
from mindpy.ui.evalfeed import EvalFeed
from mindpy.ui.runs_index import EpisodeFilter, RunsIndex
from mindpy.ui.server import Dashboard
from mindpy.view.browser import headless_browser
from runs_helpers import COOKING, CRAFTING, ROOT, Script, Step, scripted_eval

CLOCK = "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents"
BARS = "multiagent_crafting_iron_bars_partial_plan_requires_ctable__depth_0__3_agents"
STEW = "multiagent_cooking_2_agents_cooked_beef_golden_carrot"


PICTURE = (ROOT / "docs" / "dashboard.png").read_bytes()  # a real PNG, as a vision call's picture


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """Evaluation a (the oracle): the sword crafted, the stew left half done. Evaluation b (another model): the
    sword not crafted (no coal), the iron bars crafted by three agents; plus an episode whose process died (no
    result.json, a broken calls line) and a broken line in a finished episode's calls."""
    root = tmp_path_factory.mktemp("runs")
    a = scripted_eval(root / "a", {
        CLOCK: Script(1.0, steps=[
            Step("andy", "jill, give me your oak_planks. !inventory", "oak_planks: 1"),
            Step("jill", "Here you go. !givePlayer(\"andy\", \"oak_planks\", 1)", "andy received 1 oak_planks."),
            Step("andy", "Crafting the sword. !craftRecipe(\"wooden_sword\", 1)", "Crafted 1 wooden_sword.")]),
        STEW: Script(0.5, "timeout", steps=[
            Step("andy", "I'll cook the beef. !smeltItem(\"beef\", 1)", "Cooked 1 beef."),
            Step("jill", "Looking for carrots. !searchForBlock(\"carrots\", 32)", "Found carrots at 3, -60, 7.")]),
    }, [CRAFTING, COOKING], model="oracle", described="oracle/oracle")
    b = scripted_eval(root / "b", {
        CLOCK: Script(0.0, "timeout", steps=[
            Step("andy", "I'll smelt some charcoal. !smeltItem(\"oak_log\", 1)",
                 "Cannot smelt: the furnace is out of coal."),
            Step("jill", "Waiting. !stay(5)", "Stayed for 5 seconds.")]),
        BARS: Script(1.0, steps=[
            Step("bob", "Crafting the bars. !craftRecipe(\"iron_bars\", 1)", "Crafted 16 iron_bars.",
                 picture=PICTURE)]),
    }, [CRAFTING], model=None, described="tiny-llm/test-model")
    died = b / "episodes" / "extra-0000" / "lost_task-2_agents-trial_1"
    (died / "calls").mkdir(parents=True)
    (died / "calls" / "andy.jsonl").write_text(
        json.dumps({"agent": "andy", "kind": "conversing", "model": "other/model", "system": "s", "messages": [],
                    "reply": "Digging for diamonds. !collectBlocks(\"diamond_ore\", 1)"}) + "\n{broken line\n")
    bars_calls = next(b.glob(f"episodes/*/{BARS}*/calls/bob.jsonl"))
    with bars_calls.open("a") as f:
        f.write('{"agent": "bob", "reply": "cut off\n')
    return a, b


def labels(episodes) -> list[str]:
    return sorted(f"{e.run_dir.name}:{e.task_id or e.folder.name}" for e in episodes)


def test_filters_and_search_find_the_right_episodes(runs):
    a, b = runs
    index = RunsIndex(lambda: [a, b])
    everything = index.episodes()
    assert labels(everything) == sorted([f"a:{CLOCK}", f"a:{STEW}", f"b:{CLOCK}", f"b:{BARS}",
                                        "b:lost_task-2_agents-trial_1"])
    pick = lambda **kw: set(labels(index.episodes(EpisodeFilter(**kw))))  # noqa: E731
    assert pick(family="cooking") == {f"a:{STEW}"}
    assert pick(agents=3) == {f"b:{BARS}"}
    assert pick(model="tiny-llm") == {f"b:{BARS}", f"b:{CLOCK}"}
    assert pick(model="oracle") == {f"a:{CLOCK}", f"a:{STEW}"}
    assert pick(end_reason="timeout") == {f"a:{STEW}", f"b:{CLOCK}"}
    assert pick(end_reason="unfinished") == {"b:lost_task-2_agents-trial_1"}
    assert pick(score_min=0.4, score_max=0.6) == {f"a:{STEW}"}
    assert pick(score_min=1) == {f"a:{CLOCK}", f"b:{BARS}"}
    assert pick(text="craftRecipe") == {f"a:{CLOCK}", f"b:{BARS}"}
    assert pick(text="out of coal") == set()  # an output: neither a message nor a command
    assert pick(family="crafting", model="tiny", score_max=0.5) == {f"b:{CLOCK}"}

    found = index.search("OUT OF COAL")
    assert [r["episode"]["task_id"] for r in found] == [CLOCK] and found[0]["episode"]["run_dir"] == str(b)
    assert {h["kind"] for h in found[0]["hits"]} == {"output"} and found[0]["hits"][0]["agent"] == "andy"
    assert sorted(r["episode"]["run_dir"][-1] for r in index.search('"wooden_sword" andy')) == ["a"]
    assert index.search("diamond_ore")[0]["episode"]["end_reason"] == "unfinished"
    assert index.search("nothing like this") == [] and index.search("  ") == []

    lost = next(e for e in everything if e.task_id == "")
    assert any("no result.json" in n for n in lost.notes) and any("line 2: not JSON" in n for n in lost.notes)
    bars = next(e for e in everything if e.task_id == BARS)
    assert any("bob.jsonl line 3" in n for n in bars.notes) and bars.calls == 2 and bars.agent_count == 3

    sword = next(e for e in everything if e.task_id == CLOCK and e.run_dir == a)
    calls, notes = index.calls(sword.id)
    assert notes == [] and [c.agent for c in calls] == ["andy", "andy", "jill"]
    assert [c.command for c in calls] == ["!inventory", '!craftRecipe("wooden_sword", 1)',
                                          '!givePlayer("andy", "oak_planks", 1)']
    # from andy's next prompt, from the console (andy's last call, jill's only one)
    assert [c.output for c in calls] == ["Action output:\noak_planks: 1", "Action output: Crafted 1 wooden_sword.",
                                         "Action output: andy received 1 oak_planks."]
    assert calls[1].prompt_tokens > 0 and calls[1].messages[-1]["content"].startswith("Your memory")


def test_new_episodes_appear_without_a_restart(runs, tmp_path):
    a, _ = runs
    index = RunsIndex(lambda: [a, tmp_path / "c"], refresh_s=0)
    assert len(index.episodes()) == 2 and any("not found" in n for n in index.notes)
    scripted_eval(tmp_path / "c", {BARS: Script(1.0, steps=[Step("bob", "Done. !stay(1)", "Stayed.")])},
                  [CRAFTING], model="oracle", described="oracle/oracle")
    assert len(index.episodes()) == 3 and index.notes == []
    assert [r["episode"]["run_dir"] for r in index.search("Done.")] == [str(tmp_path / "c")]


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_http_api(runs):
    a, b = runs
    state = DashboardState(evals=[EvalFeed.from_dir(a), EvalFeed.from_dir(b)])
    with Dashboard(state, port=0, token="s3cret") as dashboard:
        base = f"http://127.0.0.1:{dashboard.port}"
        status, listed = get(f"{base}/api/runs/episodes?family=crafting&agents=2&score_max=0.5&token=s3cret")
        assert status == 200 and [e["run_dir"] for e in listed["episodes"]] == [str(b)]
        assert listed["total"] == 5 and listed["facets"]["families"] == ["cooking", "crafting"]
        status, listed = get(f"{base}/api/runs/episodes?model=oracle&text=smeltItem&token=s3cret")
        assert [e["task_id"] for e in listed["episodes"]] == [STEW]
        status, found = get(f"{base}/api/runs/search?q=furnace&token=s3cret")
        assert status == 200 and [r["episode"]["task_id"] for r in found["results"]] == [CLOCK]
        status, calls = get(f"{base}/api/runs/episode/{found['results'][0]['episode']['id']}/calls?token=s3cret")
        assert status == 200 and calls["calls"][0]["output"] == "Action output: Cannot smelt: the furnace is out of coal."
        assert calls["calls"][0]["system"].startswith("You are andy") and calls["calls"][0]["completion_tokens"] > 0
        assert get(f"{base}/api/runs/episode/0123456789ab/calls?token=s3cret")[0] == 404
        # a vision call's picture, saved beside the call log, is served for the transcript
        status, listed = get(f"{base}/api/runs/episodes?text=iron_bars&token=s3cret")
        bars = listed["episodes"][0]["id"]
        status, calls = get(f"{base}/api/runs/episode/{bars}/calls?token=s3cret")
        assert [(c["kind"], c["picture"]) for c in calls["calls"]] == [("conversing", None), ("vision", "0001.png")]
        with urllib.request.urlopen(f"{base}/api/runs/episode/{bars}/pictures/bob/0001.png?token=s3cret") as got:
            assert got.headers["Content-Type"] == "image/png" and got.read() == PICTURE
        assert get(f"{base}/api/runs/episode/{bars}/pictures/bob/0002.png?token=s3cret")[0] == 404
        assert get(f"{base}/api/runs/episode/{bars}/pictures/bob/..%2Fbob.jsonl?token=s3cret")[0] in (400, 404)
        assert get(f"{base}/api/runs/episode/{bars}/pictures/bob/0001.png")[0] == 403
        status, bad = get(f"{base}/api/runs/episodes?score_min=high&token=s3cret")
        assert status == 400 and "score_min" in bad["detail"]
        assert get(f"{base}/api/runs/episodes?agents=-1&token=s3cret")[0] == 400
        assert get(f"{base}/api/runs/episode/..%2F..%2Fetc/calls?token=s3cret")[0] in (400, 404)
        # read-only routes still keep to the site and token rules
        assert get(f"{base}/api/runs/search?q=furnace")[0] == 403
        assert exchange(dashboard.port, "GET", "/api/runs/search?q=x&token=s3cret", host="evil.example").status == 403
        assert exchange(dashboard.port, "GET", "/runs?token=s3cret").status == 200


def test_the_command_line_opens_several_runs(runs, tmp_path):
    a, b = runs
    process = subprocess.Popen([str(Path(sys.executable).with_name("mindpy")), "dashboard", str(a), str(b),
                                "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=tmp_path)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("Dashboard of 2 runs:"), (lines, process.stderr)
        assert lines[1].startswith("Search their episodes and transcripts: http://127.0.0.1:")
        page = lines[1].split(": ", 1)[1].strip()
        assert page.endswith("/runs")
        assert get(page.removesuffix("runs") + "api/runs/episodes?end_reason=timeout")[1]["total"] == 5
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
    not_a_run = subprocess.run([str(Path(sys.executable).with_name("mindpy")), "dashboard", str(a), str(tmp_path)],
                               capture_output=True, text=True, timeout=60)
    assert not_a_run.returncode == 2 and f"{tmp_path} is no run directory" in not_a_run.stderr


def test_the_page_finds_an_episode_and_shows_its_calls(runs):
    a, b = runs
    state = DashboardState(evals=[EvalFeed.from_dir(a), EvalFeed.from_dir(b)])
    with Dashboard(state, port=0) as dashboard, headless_browser() as browser:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(dashboard.url + "runs")
        expect(page.locator("#episodes tr.episode")).to_have_count(5)
        expect(page.locator("tr.episode", has_text="lost_task")).to_contain_text("no result.json")
        page.fill("#q", "out of coal")
        page.press("#q", "Enter")
        results = page.locator("#results-list .result")
        expect(results).to_have_count(1)
        expect(results.first).to_contain_text(CLOCK)
        expect(results.first.locator("mark", has_text="coal")).to_have_count(1)
        page.fill("#filters input[name=model]", "oracle")
        page.click("#filters button[type=submit]")
        expect(page.locator("#episodes tr.episode")).to_have_count(2)
        results.first.locator("h3").click()
        calls = page.locator("#calls .call")
        expect(calls).to_have_count(2)
        expect(calls.first.locator(".output")).to_have_text("Action output: Cannot smelt: the furnace is out of coal.")
        prompt = calls.first.locator("details.prompt")
        expect(prompt.locator(".prompt-body")).to_be_empty()
        prompt.locator("summary").click()
        expect(prompt.locator(".prompt-body")).to_contain_text("You are andy, a Minecraft bot.")
