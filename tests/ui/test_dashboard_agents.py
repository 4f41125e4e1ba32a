"""The dashboard's agents page in a real browser: an embedded server, two agents with replay models run by an
AgentRunner, the dashboard's web server, and headless Chromium driving the page (Playwright). The checks wait on
the page (Playwright's expect), never on fixed sleeps."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from agent_helpers import make_profile, make_settings
from conftest import isolate, teleport, unique_name, wait_until
from dashboard_helpers import card, note_when_shown
from mindpy.agent.runner import RUNNER_WATCHERS, AgentRunner
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile
from mindpy.ui.app import DashboardState
from mindpy.ui.server import Dashboard, DashboardError
from mindpy.view import OneViewer
from mindpy.view.browser import headless_browser

FAR = 400  # blocks east of the agents: a walk there takes minutes


def script(reply_to_hello: str) -> dict:
    return {"replies": [{"match": "hello there", "reply": reply_to_hello, "times": 0},
                        {"match": "walk far", "reply": f"!goToCoordinates({FAR + 300}, -60, 300, 1)", "times": 0}],
            "default": "Okay."}


@pytest.fixture(scope="module")
def run(server, tmp_path_factory):
    """Two agents on the session's server, watched by a dashboard on a free port, and a browser page open on it."""
    tmp_path = tmp_path_factory.mktemp("dashboard")
    names = [unique_name("ann"), unique_name("bea")]
    settings = make_settings(tmp_path)
    profiles = [load_profile(make_profile(tmp_path, n), settings=settings) for n in names]
    models = {n: ReplayModel(script(f"Hi dashboard, {n} heard you!")) for n in names}
    state = DashboardState(viewers=OneViewer())
    dashboard = Dashboard(state, port=0).start()
    RUNNER_WATCHERS.append(state.feed.add_runner)  # as `--ui` does: the runner tells the dashboard it started
    runner = AgentRunner(settings, profiles, server.host, server.port, models=models)
    try:
        agents = runner.start()
        x, y, z = isolate(agents[names[0]].bot)
        teleport(agents[names[1]].bot, x + 3, y, z + 2)
        with headless_browser() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(dashboard.url)
            yield {"names": names, "agents": runner.agents, "runner": runner, "page": page, "server": server,
                   "dashboard": dashboard, "models": models}
    finally:
        RUNNER_WATCHERS.remove(state.feed.add_runner)
        runner.stop()
        dashboard.stop()


def test_both_cards_show_their_inventory_after_a_give(run):
    page, (ann, bea) = run["page"], run["names"]
    run["server"].command(f"give {ann} oak_log 5")
    run["server"].command(f"give {bea} cobblestone 3")
    expect(card(page, ann).locator('.inventory [data-item="oak_log"]')).to_have_text("oak_log ×5", timeout=15000)
    expect(card(page, bea).locator('.inventory [data-item="cobblestone"]')).to_have_text("cobblestone ×3",
                                                                                          timeout=15000)
    expect(card(page, ann).locator('.inventory [data-item="cobblestone"]')).to_have_count(0)
    expect(card(page, ann).locator(".model")).to_have_text("replay/inline")
    expect(card(page, ann).locator(".pos")).to_contain_text(",")
    expect(card(page, ann).locator(".modes span.on").first).to_be_visible()


def test_a_message_typed_in_the_page_reaches_the_agent_and_its_reply_shows(run):
    page, (ann, _) = run["page"], run["names"]
    agent = run["agents"][ann]
    reply = f"Hi dashboard, {ann} heard you!"
    expect(card(page, ann).locator(".events")).to_be_attached(timeout=15000)
    # the page notes (on this machine's clock) when the reply first shows on the card
    note_when_shown(page, ann, reply, "replyShownAt")
    card(page, ann).locator(".say input").fill("hello there, are you awake?")
    card(page, ann).locator(".say button").click()
    events = card(page, ann).locator(".events")
    expect(events).to_contain_text(reply, timeout=15000)
    said = [t for t, kind, text in agent.events if kind == "said" and text == reply]
    assert said, agent.events[-10:]
    latency = page.evaluate("window.replyShownAt") - said[-1]
    print(f"\ndashboard: the reply showed on the card {latency:.2f} s after the agent said it")
    assert latency < 15, latency  # a bound that only catches a reply that never showed; the figure is printed
    expect(events).to_contain_text("(dashboard) <dashboard> hello there, are you awake?")
    assert any(m["content"] == "dashboard: hello there, are you awake?" for m in agent.history.get()
               if m["role"] == "user"), agent.history.get()[-3:]
    expect(card(page, ann).locator(".spend")).to_contain_text("1 model calls")


def test_the_stop_button_stops_a_long_walk(run):
    page, (_, bea) = run["page"], run["names"]
    agent = run["agents"][bea]
    card(page, bea).locator(".say input").fill("walk far east please")
    card(page, bea).locator(".say button").click()
    expect(card(page, bea).locator(".action")).to_have_text("!goToCoordinates", timeout=15000)
    x0 = agent.bot.position[0]
    card(page, bea).locator("button.stop").click()
    expect(card(page, bea).locator(".action")).to_have_text("idle", timeout=10000)
    expect(card(page, bea).locator(".events")).to_contain_text("(!goToCoordinates was stopped)")
    assert agent.actions.current_label is None
    assert agent.bot.position[0] - x0 < FAR / 2  # it stopped on the way, far from where it was going


def test_a_mode_chip_toggles_the_mode(run):
    page, (ann, _) = run["page"], run["names"]
    agent = run["agents"][ann]
    assert agent.modes.get("self_defense").on
    card(page, ann).locator('.modes span[data-mode="self_defense"]').click()
    expect(card(page, ann).locator('.modes span[data-mode="self_defense"]')).to_have_class("off")
    assert not agent.modes.get("self_defense").on
    card(page, ann).locator('.modes span[data-mode="self_defense"]').click()
    expect(card(page, ann).locator('.modes span[data-mode="self_defense"]')).to_have_class("on")


def test_the_map_shows_both_agents_over_the_blocks(run):
    page, names = run["page"], run["names"]
    page.wait_for_function("n => window.dashboard.map && window.dashboard.map.markers.filter(m => m.agent).length >= n",
                           arg=len(names), timeout=15000)
    data = page.evaluate("window.dashboard.map")
    assert {m["name"] for m in data["markers"] if m["agent"]} == set(names)
    assert "grass_block" in data["names"]
    # the canvas was drawn: its pixels vary (blocks and markers), it is not one flat colour
    spread = page.evaluate("""() => {
        const c = document.querySelector('#map'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data
        const values = new Set(); for (let i = 0; i < d.length; i += 4 * 97) values.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2])
        return values.size }""")
    assert spread >= 3, spread


def test_the_3d_view_of_a_bot_is_not_blank(run):
    page, (ann, _) = run["page"], run["names"]
    card(page, ann).locator("button.view3d").click()
    frame = page.locator("#view")
    expect(frame).to_be_visible(timeout=30000)
    url = frame.get_attribute("src")
    assert url and url.startswith("http://127.0.0.1:")
    # the view draws with WebGL in the page's iframe: wait until its canvas shows a scene, not one flat colour
    inner = page.frame_locator("#view").locator("canvas").first
    expect(inner).to_be_visible(timeout=30000)
    variance = 0.0
    deadline = time.monotonic() + 60
    while variance < 100 and time.monotonic() < deadline:
        shot = inner.screenshot()
        variance = pixel_variance(shot)
        if variance < 100:
            page.wait_for_timeout(500)  # the next frame of the render, polled (the scene streams in)
    assert variance >= 100, variance


def pixel_variance(png: bytes) -> float:
    import io

    from PIL import Image, ImageStat

    return ImageStat.Stat(Image.open(io.BytesIO(png)).convert("L")).var[0]


def test_the_page_needs_its_token_when_bound_beyond_this_machine(run):
    state = DashboardState()
    with Dashboard(state, host="0.0.0.0", port=0) as open_dashboard:
        assert open_dashboard.token
        base = f"http://127.0.0.1:{open_dashboard.port}"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/api/info", timeout=5)
        assert refused.value.code == 403
        with urllib.request.urlopen(f"{base}/api/info?token={open_dashboard.token}", timeout=5) as answer:
            assert json.loads(answer.read())["agents"] is False
    with pytest.raises(DashboardError, match=f"port {run['dashboard'].port} on 127.0.0.1 is in use"):
        Dashboard(state, port=run["dashboard"].port)


def test_restart_brings_the_agent_back_on_its_card(run):
    page, (ann, _) = run["page"], run["names"]
    first = run["agents"][ann]
    card(page, ann).locator("button.restart").click()
    wait_until(lambda: run["runner"].agents[ann] is not first, timeout=30, message="a restarted agent")
    expect(card(page, ann).locator(".pos")).to_contain_text(",", timeout=20000)


def test_end_episode_ends_the_task_episode_being_played(run, tmp_path):
    """A task episode played in this process (its runner tells the dashboard, as with `mindpy run --task --ui`): the
    page shows the task, and End episode ends it as an agent's !endTask would."""
    import threading

    from mindpy.harness.episode import run_episode
    from mindpy.tasks.loader import load_task

    page, server = run["page"], run["server"]
    (tmp_path / "tasks.json").write_text(json.dumps({"planks_slowly": {
        "type": "techtree", "goal": "Craft oak_planks.", "agent_count": 1, "initial_inventory": {"0": {"oak_log": 1}},
        "target": "oak_planks", "number_of_target": 4, "timeout": 240}}))
    task = load_task(tmp_path / "tasks.json", "planks_slowly")
    result: dict = {}
    episode = threading.Thread(target=lambda: result.update(run_episode(
        task, tmp_path / "episode", server=f"{server.host}:{server.port}",
        models={"andy": ReplayModel([], default="Let me think about it.")})), daemon=True)
    episode.start()
    try:
        expect(page.locator("#run")).to_contain_text("planks_slowly", timeout=60000)
        expect(card(page, "andy")).to_be_visible()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#end-episode").click()
        wait_until(lambda: not episode.is_alive(), timeout=30, message="the episode to end")
    finally:
        episode.join(timeout=60)
    assert result["end_reason"] == "ended" and result["score"] == 0.0, result
    expect(page.locator("#run")).not_to_contain_text("planks_slowly", timeout=10000)
    expect(card(page, "andy")).to_have_count(0)
