"""The control panel in a real browser (headless Chromium, Playwright): an agent created from the page's form joins
and its card appears, its Profile button opens the editor, a refused edit shows its one line and keeps the text,
and Stop all takes its card away; an agent created from a profile file picked on the page answers a message typed
on its card, restarts with the modes its edited profile gives, and Destroy takes it away. The checks wait on the
page (Playwright's expect), never on fixed sleeps."""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import expect

from conftest import unique_name
from dashboard_helpers import card, control_panel
from mindpy.view.browser import headless_browser


@pytest.fixture(scope="module")
def page(server, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("panel-page")
    with control_panel(server, tmp_path) as (dashboard, runner), headless_browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(dashboard.url)
        yield page, runner, tmp_path


def test_an_agent_created_from_the_form_gets_a_card_and_stop_all_removes_it(page):
    page, runner, tmp_path = page
    name = unique_name("dan")
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"replies": [], "default": "Okay."}))
    form = page.locator("#create-agent")
    expect(form).to_be_visible(timeout=15000)
    form.locator('input[name="name"]').fill(name)
    form.locator('input[name="model"]').fill(f"replay:{script}")
    form.locator('input[name="mode"][value="hunting"]').uncheck()
    form.locator("button").click()
    expect(card(page, name)).to_be_visible(timeout=30000)
    expect(page.locator("#manage-flash")).to_contain_text(f"{name} joined")
    expect(card(page, name).locator('.modes span[data-mode="hunting"]')).to_have_class("off", timeout=15000)
    assert name in runner.agents

    card(page, name).locator("button.profile").click()
    editor = page.locator("#profile-text")
    expect(editor).to_have_value(re.compile(f"name: {name}"), timeout=10000)
    broken = editor.input_value().replace("hunting: false", "hunting: sometimes")
    editor.fill(broken)
    page.locator("#profile-save").click()
    expect(page.locator("#profile-error")).to_contain_text("mode 'hunting' must be true or false")
    assert editor.input_value() == broken  # the text stays, to be fixed
    page.locator("#profile-cancel").click()

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#stop-all").click()
    expect(card(page, name)).to_have_count(0, timeout=20000)
    expect(page.locator("#manage-flash")).to_contain_text(f"stopped {name}")
    assert not runner.agents


def test_an_agent_from_a_profile_file_answers_restarts_with_its_edited_modes_and_is_destroyed(page):
    page, runner, tmp_path = page
    name = unique_name("eve")
    greeting = f"Hi dashboard, {name} heard you!"
    script = tmp_path / "greeter.yaml"
    script.write_text(yaml.safe_dump({"replies": [{"match": "are you there", "reply": greeting, "times": 0}],
                                      "default": "Okay."}))
    (tmp_path / "profiles").mkdir(exist_ok=True)
    (tmp_path / "profiles" / f"{name}.yaml").write_text(yaml.safe_dump({
        "name": name, "model": f"replay:{script}", "cooldown": 0, "embedding": "none",
        "modes": {"idle_staring": False, "elbow_room": False, "hunting": False}}))
    page.reload()  # the page lists the profile files it finds when it loads
    chooser = page.locator("#create-from-file")
    expect(chooser.locator("select option", has_text=f"{name}.yaml")).to_have_count(1, timeout=15000)
    chooser.locator("select").select_option(value=f"{name}.yaml")
    chooser.locator("button").click()
    expect(card(page, name)).to_be_visible(timeout=30000)

    card(page, name).locator(".say input").fill("hello, are you there?")
    card(page, name).locator(".say button").click()
    expect(card(page, name).locator(".events")).to_contain_text(greeting, timeout=20000)

    hunting = card(page, name).locator('.modes span[data-mode="hunting"]')
    expect(hunting).to_have_class("off", timeout=15000)
    card(page, name).locator("button.profile").click()
    editor = page.locator("#profile-text")
    expect(editor).to_have_value(re.compile("hunting: false"), timeout=10000)
    editor.fill(editor.input_value().replace("hunting: false", "hunting: true"))
    page.locator("#profile-save").click()
    expect(page.locator("#profile-editor")).to_be_hidden(timeout=30000)
    expect(hunting).to_have_class("on", timeout=30000)  # the restarted agent plays with its new profile
    assert runner.agents[name].modes.get("hunting").on is True

    page.once("dialog", lambda dialog: dialog.accept())
    card(page, name).locator("button.destroy").click()
    expect(card(page, name)).to_have_count(0, timeout=20000)
    assert name not in runner.agents
