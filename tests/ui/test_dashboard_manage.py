"""The dashboard's control panel over plain HTTP, as another program drives it (no browser): agents created from a
profile file, a text and the form's fields join the session's server and answer a player's whisper (replay
models from the profile: deterministic answers), an edited profile restarts the agent with its new modes and its
memory, a refused edit changes nothing, a picture shows what it sees, destroy and stop all take agents out of the game with their memory saved.
Waits are on events (a chat line, a player list, an agent object replaced), never fixed sleeps."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.error
import urllib.request

import pytest
import yaml

from agent_helpers import listen, make_settings, side_by_side
from conftest import MINDPY, unique_name, wait_until
from dashboard_helpers import control_panel, exchange
from mindpy.agent.runner import AgentRunner
from mindpy.ui.app import DashboardState
from mindpy.ui.manage import AgentManager, NotAllowed
from mindpy.view.snapshot import BLANK_STDDEV, pixel_stddev

GREETING = "Hello from the control panel!"


def call(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """One request as a script would send it (no Origin): (status, JSON answer)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def panel(server, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("panel")
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"replies": [{"match": "hello there", "reply": GREETING, "times": 0}],
                                      "default": "Okay."}))
    with control_panel(server, tmp_path) as (dashboard, runner):
        yield {"port": dashboard.port, "runner": runner, "script": script, "picks": tmp_path / "profiles",
               "saved": tmp_path / "saved", "bots": tmp_path / "bots"}


def profile_fields(panel, name: str, **modes: bool) -> dict:
    return {"name": name, "model": f"replay:{panel['script']}", "cooldown": 0, "embedding": "none",
            "modes": {"idle_staring": False, "elbow_room": False, "hunting": False, **modes}}


def joined(player, name: str) -> None:
    wait_until(lambda: player.js.players[name] is not None, timeout=20, message=f"{name} in the player list")


def answers_a_whisper(panel, player, name: str) -> None:
    side_by_side(player, panel["runner"].agents[name])
    heard = listen(player)
    player.command(f"/tell {name} hello there")
    wait_until(lambda: (name, GREETING) in heard, timeout=20, message=lambda: f"{name}'s answer; heard {heard}")


def test_an_agent_from_a_profile_file_joins_answers_a_whisper_and_restarts_with_its_edited_modes(panel, make_bot):
    port, runner = panel["port"], panel["runner"]
    name = unique_name("cat")
    panel["picks"].mkdir(exist_ok=True)
    (panel["picks"] / "cat.yaml").write_text(yaml.safe_dump(profile_fields(panel, name)))
    status, catalogue = call(port, "GET", "/api/profiles")
    assert status == 200 and {"file": "cat.yaml", "name": name, "model": f"replay:{panel['script']}"} in \
        catalogue["profiles"] and catalogue["can_create"], catalogue
    player = make_bot("player")

    status, answer = call(port, "POST", "/api/agents", {"profile": "cat.yaml"})
    assert status == 200 and answer["name"] == name, answer
    joined(player, name)
    answers_a_whisper(panel, player, name)
    first = runner.agents[name]
    assert not first.modes.get("hunting").on

    status, shown = call(port, "GET", f"/api/agents/{name}/profile")
    assert status == 200 and shown["format"] == "yaml" and yaml.safe_load(shown["text"])["modes"]["hunting"] is False
    # a refused edit: one line that names the field, and nothing changes (the agent, the file it plays from)
    broken = shown["text"].replace("hunting: false", "hunting: maybe")
    status, refused = call(port, "PUT", f"/api/agents/{name}/profile", {"text": broken})
    assert status == 400 and "mode 'hunting' must be true or false" in refused["detail"], refused
    assert "\n" not in refused["detail"]
    status, refused = call(port, "PUT", f"/api/agents/{name}/profile", {"text": shown["text"].replace(name, "other")})
    assert status == 400 and f"the name stays {name}" in refused["detail"], refused
    assert runner.agents[name] is first and call(port, "GET", f"/api/agents/{name}/profile")[1] == shown

    edited = yaml.safe_load(shown["text"])
    edited["modes"].update(hunting=True, cowardice=True)
    status, answer = call(port, "PUT", f"/api/agents/{name}/profile", {"text": yaml.safe_dump(edited)})
    assert status == 200, answer
    wait_until(lambda: runner.agents.get(name) not in (None, first), timeout=30, message=f"{name} restarted")
    again = runner.agents[name]
    assert again.modes.get("hunting").on and again.modes.get("cowardice").on
    assert any(m["content"] == f"{player.name}: hello there" for m in again.history.get()), again.history.get()
    assert (panel["saved"] / f"{name}.yaml").is_file()
    assert "hunting: false" in (panel["picks"] / "cat.yaml").read_text()  # the file picked is never written
    answers_a_whisper(panel, player, name)

    # a picture of what it sees, kept under its card
    status, shot = call(port, "POST", f"/api/agents/{name}/picture", {})
    assert status == 200, shot
    assert [p["id"] for p in call(port, "GET", f"/api/agents/{name}/pictures")[1]["pictures"]] == [shot["id"]]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{shot['url']}", timeout=10) as answer:
        png = answer.read()
    assert png.startswith(b"\x89PNG") and pixel_stddev(png) >= BLANK_STDDEV


def test_destroy_leaves_the_game_with_memory_saved_and_stop_all_stops_every_agent(panel, make_bot):
    port, runner = panel["port"], panel["runner"]
    player = make_bot("player")
    ann, bob = unique_name("ann"), unique_name("bob")
    left: list[str] = []
    player.on("playerLeft", lambda who, *rest: left.append(who["username"]))

    status, answer = call(port, "POST", "/api/agents", {"text": json.dumps(profile_fields(panel, ann))})
    assert status == 200, answer
    fields = profile_fields(panel, bob)
    status, answer = call(port, "POST", "/api/agents", {"name": bob, "model": fields["model"], "base_profile":
                                                        "survival", "modes": {"hunting": False, "cowardice": True}})
    assert status == 200, answer
    assert runner.agents[bob].modes.get("cowardice").on and (panel["saved"] / f"{ann}.json").is_file()
    status, refused = call(port, "POST", "/api/agents", {"text": json.dumps(profile_fields(panel, ann))})
    assert status == 409 and "already playing" in refused["detail"], refused
    joined(player, ann)
    answers_a_whisper(panel, player, ann)

    status, answer = call(port, "DELETE", f"/api/agents/{ann}")
    assert status == 200 and ann not in runner.agents, answer
    wait_until(lambda: ann in left, timeout=20, message=f"{ann} to leave the game")
    assert call(port, "DELETE", f"/api/agents/{ann}")[0] == 404
    # created again with restore: the memory it saved when it left
    status, answer = call(port, "POST", "/api/agents", {"text": json.dumps(profile_fields(panel, ann)),
                                                        "restore": True})
    assert status == 200, answer
    assert any(m["content"] == f"{player.name}: hello there" for m in runner.agents[ann].history.get())

    status, answer = call(port, "POST", "/api/agents/stop_all", {})
    assert status == 200 and {ann, bob} <= set(answer["stopped"]) and not runner.agents, answer
    wait_until(lambda: left.count(ann) == 2 and bob in left, timeout=20, message="both to leave the game")
    assert call(port, "POST", "/api/agents/stop_all", {})[1]["message"] == "no agent to stop"


def test_creating_and_editing_are_for_players_who_may_give_commands(tmp_path, server):
    """With player_commands: trusted_players, the dashboard's player must be listed; nothing joins otherwise."""
    settings = make_settings(tmp_path, player_commands="trusted_players", trusted_players=["alice"])
    state = DashboardState()
    manager = AgentManager(state.feed, tmp_path / "saved", profiles_dir=tmp_path)
    runner = AgentRunner(settings, [], server.host, server.port)
    state.feed.add_runner(runner)
    with pytest.raises(NotAllowed, match="add 'dashboard' to the settings' trusted_players"):
        manager.create({"name": unique_name("eve"), "model": "replay"})
    assert not runner.agents and not (tmp_path / "saved").exists()
    trusted = AgentManager(state.feed, tmp_path / "saved", sender="alice")
    assert trusted.refusal() is None


def test_a_page_of_another_site_cannot_create_an_agent(panel):
    body = json.dumps({"name": unique_name("evil"), "model": "replay"}).encode()
    answer = exchange(panel["port"], "POST", "/api/agents", headers=(("Origin", "http://evil.example"),
                                                                      ("Content-Type", "application/json")), body=body)
    assert answer.status == 403 and b"not this dashboard's page" in answer.body, answer
    assert not any(n.startswith("evil") for n in panel["runner"].agents)


def test_mindpy_dashboard_with_a_server_starts_empty_and_creates_agents_over_http(panel, server, make_bot, tmp_path):
    """The command as a user starts it: no agents, then one created by a script, then Ctrl-C stops everything."""
    player = make_bot("player")
    proc = subprocess.Popen([str(MINDPY), "dashboard", "--server", f"{server.host}:{server.port}", "--port", "0",
                             "--agents-dir", str(tmp_path / "run")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=tmp_path, start_new_session=True)
    try:
        lines = []
        while not any(line.startswith("Dashboard:") for line in lines):
            line = proc.stdout.readline()
            assert line, f"the dashboard ended: {lines}"
            lines.append(line)
        port = int(re.search(r":(\d+)/", lines[-1]).group(1))
        assert call(port, "GET", "/api/info")[1]["manage"] is True
        name = unique_name("eli")
        status, answer = call(port, "POST", "/api/agents", {"text": yaml.safe_dump(profile_fields(panel, name))})
        assert status == 200, answer
        joined(player, name)
        assert (tmp_path / "run" / "profiles" / f"{name}.yaml").is_file()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
