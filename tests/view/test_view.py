"""The 3D view and vision, against real parts: the embedded server and real bots, the system Chromium driven by
Playwright, and a local HTTP server speaking the OpenAI and Anthropic protocols that records what it was sent."""

from __future__ import annotations

import base64
import dataclasses
import io
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import isolate, teleport, wait_until
from conftest import run_command as run
from mindpy.commands import AgentContext
from mindpy.commands.vision import Vision
from mindpy.models import create_model
from mindpy.models.base import ModelError
from mindpy.view import BrowserMissing, headless_browser, open_viewer, pixel_stddev, snapshot
from mindpy.view.snapshot import BLANK_STDDEV

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import RecordingServer, anthropic_reply, openai_reply  # noqa: E402

DESCRIPTION = "A tall grey stone column stands right in front of me on flat grass."
BLANK_PAGE = ("<html><body style='margin:0'><canvas id=c width=320 height=180></canvas><script>"
              "const g = document.getElementById('c').getContext('2d'); g.fillStyle = 'lightblue';"
              "g.fillRect(0, 0, 320, 180)</script></body></html>")


def port_is_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def center_color(png: bytes) -> tuple[int, int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        w, h = image.size
        crop = image.convert("RGB").crop((w // 2 - 8, h // 2 - 8, w // 2 + 8, h // 2 + 8)).resize((1, 1))
        return crop.getpixel((0, 0))


def changed_pixels(before: bytes, after: bytes) -> int:
    from PIL import Image, ImageChops

    with Image.open(io.BytesIO(before)) as a, Image.open(io.BytesIO(after)) as b:
        difference = ImageChops.difference(a.convert("L"), b.convert("L")).point(lambda v: 255 if v > 24 else 0)
        return difference.histogram()[255]


def stone_column_north(bot, distance: int = 3, height: int = 5) -> tuple[int, int, int]:
    """A column of stone `distance` blocks north of `bot` (which stands in an area of its own); returns the
    position of its middle block once the bot sees the whole column."""
    x, y, z = isolate(bot)
    bot.command(f"fill {x} {y} {z - distance} {x} {y + height - 1} {z - distance} stone")
    wait_until(lambda: all((b := bot.js.blockAt(bot.js.entity.position.floored().offset(0, dy, -distance)))
                           and b.name == "stone" for dy in range(height)), message="the stone column")
    return x, y + height // 2, z - distance


def test_viewer_page_draws_the_world_and_closing_frees_its_port(make_bot):
    bot = make_bot("viewer")
    stone_column_north(bot)
    listening = {event: bot.js.listenerCount(event) for event in ("move", "blockUpdate", "chunkColumnLoad")}
    viewer = open_viewer(bot, view_distance=2)
    assert bot.js.listenerCount("move") == listening["move"] + 1
    try:
        assert viewer.url.startswith("http://127.0.0.1:") and viewer.port > 0
        with headless_browser() as browser:
            page = browser.new_page(viewport={"width": 480, "height": 270})
            page.goto(viewer.url)
            columns = viewer.status()["columns"]
            assert columns == 9  # 3x3 columns around the bot
            page.wait_for_function("n => window.mindpyView.drawn(n)", arg=columns, timeout=60_000, polling=100)
            png = page.locator("canvas").screenshot()
            spread = pixel_stddev(png)
            assert spread > BLANK_STDDEV * 5, f"the viewer's picture is blank (grey-level spread {spread:.1f})"

            # a block placed now shows up: the page gets the change and meshes its section again
            meshes = page.evaluate("window.mindpyView.state.meshes")
            x, y, z = (int(v // 1) for v in bot.position)
            bot.command(f"fill {x + 2} {y} {z + 1} {x + 3} {y + 1} {z + 2} gold_block")
            page.wait_for_function("m => window.mindpyView.state.meshes > m", arg=meshes, timeout=30_000)
            page.wait_for_function("n => window.mindpyView.drawn(n)", arg=columns, timeout=30_000, polling=100)
            changed = changed_pixels(png, page.locator("canvas").screenshot())
            assert changed > 200, f"the gold blocks did not show ({changed} pixels changed)"

            # the same check fails for a canvas of one colour, as an undrawn view is
            page.set_content(BLANK_PAGE)
            blank = pixel_stddev(page.locator("canvas").screenshot())
            assert blank < BLANK_STDDEV, blank
    finally:
        viewer.close()
    assert not port_is_open(viewer.port)
    assert {event: bot.js.listenerCount(event) for event in listening} == listening  # no more updates
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(viewer.url, timeout=2)
    viewer.close()  # twice is fine


def test_look_at_position_with_vision_sends_the_picture_and_returns_the_description(layer, make_bot):
    bot = make_bot("vision")
    x, y, z = stone_column_north(bot)
    with RecordingServer([(200, openai_reply(DESCRIPTION, prompt=400, completion=15))]) as server:
        model = create_model({"api": "vllm", "model": "seeing-model", "url": server.url + "/v1"}, attempts=1)
        vision = Vision(model, size=(320, 180))
        ctx = dataclasses.replace(AgentContext.for_bot(bot), vision=vision)
        started = time.monotonic()
        out = run(layer, ctx, f"!lookAtPosition({x}, {y}, {z})")
        took = time.monotonic() - started

        assert out.ok, out
        assert "Looking at" in out and f"You see: {DESCRIPTION}" in out, out
        assert len(server.requests) == 1
        body = server.requests[0].body
        assert body["model"] == "seeing-model"
        parts = body["messages"][-1]["content"]
        assert parts[0]["type"] == "text" and "Describe" in parts[0]["text"]
        url = parts[1]["image_url"]["url"]
        assert parts[1]["type"] == "image_url" and url.startswith("data:image/png;base64,")
        png = base64.b64decode(url.split(",", 1)[1])
        assert pixel_stddev(png) > BLANK_STDDEV * 5
        # the bot looks at the column's middle block: the middle of the picture is grey stone, not sky or grass
        r, g, b = center_color(png)
        assert max(r, g, b) - min(r, g, b) < 30 and 60 < r < 200, (r, g, b)
        print(f"look + snapshot + description: {took:.1f} s (snapshot {vision.timings[-1]:.1f} s)")

        # !lookAtPlayer does the same
        partner = make_bot("seen")
        teleport(partner, x + 3, y - 2, z + 3)
        wait_until(lambda: bot.js.players[partner.name] and bot.js.players[partner.name].entity,
                   message="the partner in view")
        out = run(layer, ctx, f'!lookAtPlayer("{partner.name}", "at")')
        assert out.ok and f"Looking at {partner.name}" in out and DESCRIPTION in out, out
        assert len(server.requests) == 2
        assert server.requests[1].body["messages"][-1]["content"][1]["type"] == "image_url"

    # vision off: the command is as it was, and nothing is rendered
    plain = run(layer, AgentContext.for_bot(bot), f"!lookAtPosition({x}, {y}, {z})")
    assert plain.ok and "You see" not in plain and "Vision" not in plain


def test_missing_browser_gives_the_install_hint_and_the_look_still_works(layer, make_bot, monkeypatch):
    monkeypatch.setenv("MINDPY_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(BrowserMissing) as raised:
        with headless_browser():
            pass
    message = str(raised.value)
    assert "\n" not in message and "apt-get install chromium" in message and "make setup" in message

    bot = make_bot("nobrowser")
    x, y, z = (int(v) for v in bot.position)
    with RecordingServer() as server:
        ctx = dataclasses.replace(AgentContext.for_bot(bot), vision=Vision(
            create_model({"api": "vllm", "model": "m", "url": server.url + "/v1"}, attempts=1)))
        out = run(layer, ctx, f"!lookAtPosition({x + 3}, {y}, {z})")
        assert out.ok, out
        assert "apt-get install chromium" in out and "Traceback" not in out, out
        assert server.requests == []  # no picture, no model call
    with pytest.raises(BrowserMissing):
        snapshot(bot)


def test_providers_take_images_or_say_they_cannot(monkeypatch):
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with RecordingServer([(200, anthropic_reply("a red pixel"))]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        claude = create_model({"api": "anthropic", "model": "claude-x"}, attempts=1)
        reply = claude.send_image(png, "What is this?")
        assert reply.text == "a red pixel"
        content = server.requests[0].body["messages"][0]["content"]
        assert content[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                          "data": base64.b64encode(png).decode()}}
        assert content[1] == {"type": "text", "text": "What is this?"}

    with RecordingServer([(200, openai_reply("x"))]) as server:
        model = create_model({"api": "vllm", "model": "m", "url": server.url + "/v1"}, attempts=1)
        with pytest.raises(ModelError, match="PNG"):
            model.send_image(b"not a picture", "What is this?")
        assert server.requests == []

    oracle = create_model({"api": "oracle", "model": "oracle"})
    with pytest.raises(ModelError, match="cannot take images"):
        oracle.send_image(png, "What is this?")
    assert "cannot take images" in Vision(oracle).look(bot=None)


def test_profiles_turn_vision_on_with_their_own_or_the_agents_model(tmp_path):
    from mindpy.agent.factory import make_vision
    from mindpy.profiles import ProfileError, load_profile
    from mindpy.settings import Settings

    plain = tmp_path / "plain.json"
    plain.write_text('{"name": "andy", "model": "gpt-4o-mini"}')
    assert load_profile(plain).allow_vision is False  # off unless asked for

    seeing = tmp_path / "seeing.json"  # MINDcraft's field names, in a MINDcraft JSON profile
    seeing.write_text('{"name": "andy", "model": "gpt-4o-mini", "allow_vision": true, '
                      '"vision_model": {"api": "vllm", "model": "llava", "url": "http://127.0.0.1:9/v1"}}')
    profile = load_profile(seeing)
    assert profile.allow_vision is True and "vision_model" not in profile.extra
    own = create_model({"api": "oracle", "model": "oracle"})
    assert make_vision(profile, Settings(), own).model.describe() == "vllm/llava"
    profile.vision_model = None
    assert make_vision(profile, Settings(), own).model is own

    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "andy", "allow_vision": "yes"}')
    with pytest.raises(ProfileError, match="allow_vision"):
        load_profile(bad)
    bad.write_text('{"name": "andy", "vision_model": {"api": "opnai", "model": "gpt-4o"}}')
    with pytest.raises(ProfileError, match="vision_model"):
        load_profile(bad)


def test_the_shared_browser_takes_jobs_from_several_threads_and_stops_when_idle():
    import threading

    from mindpy.view.browser import SharedBrowser

    shared = SharedBrowser(idle_s=0.5)
    try:
        versions: list[str] = []
        threads = [threading.Thread(target=lambda: versions.append(shared.run(lambda b: b.version, timeout=60)))
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
        assert len(versions) == 3 and versions[0] and shared.launches == 1  # one browser for all three
        with pytest.raises(ZeroDivisionError):  # a job's error reaches its caller, and the browser carries on
            shared.run(lambda b: 1 / 0)
        wait_until(lambda: not shared.running, timeout=30, message="the idle browser to stop")
        assert shared.run(lambda b: b.is_connected()) is True and shared.launches == 2
    finally:
        shared.close()
    assert not shared.running
