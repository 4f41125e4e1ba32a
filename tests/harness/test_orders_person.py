"""A person cooking beside the dispatched cooks (an orders task's `human_count` and `usernames`, as MindAgent's
human study), played here by a Mineflayer bot the test drives: the episode waits for them, the dispatcher sees
what they hold and may not command them, and their dish in the serving chest completes an order."""

from __future__ import annotations

import json
import threading

import pytest

from conftest import unique_name, wait_for_chunks, wait_until
from mindpy.harness.episode import TASK_ORIGIN
from mindpy.harness.session import EpisodeInfraError
from mindpy.models.replay import ReplayModel
from mindpy.skills import Skills
from mindpy.tasks.families.orders.book import LEVELS
from mindpy.tasks.families.orders.cos import cos_summary
from mindpy.tasks.families.orders.generator import make_task
from mindpy.tasks.families.orders.play import CALLS_FILE, STEPS_FILE, OrdersOptions, run_orders_episode, wait_to_join
from mindpy.tasks.schema import Task

REFUSED = "is a person playing beside the cooks: you cannot command them"


def test_the_summary_keeps_episodes_with_people_apart(tmp_path):
    rows = []
    for i, (people, rate) in enumerate([(0, 0.5), (1, 1.0), (None, 0.25)]):  # None: a result from before people
        run = tmp_path / str(i)
        run.mkdir()
        rules = {} if people is None else {"person_cooks": people}
        (run / "result.json").write_text(json.dumps({"orders": {"level": "l00_golden_apple", "alpha": 3.0},
                                                     "orders_rules": rules}))
        rows.append({"agent_count": 2, "score": rate, "run_dir": str(run)})
    assert cos_summary(rows) == {"l00_golden_apple/2_agents": {"cos": 0.375, "alphas": [3.0]},
                                 "l00_golden_apple/2_agents+1_people": {"cos": 1.0, "alphas": [3.0]}}


@pytest.mark.slow
def test_waiting_for_a_person_ends_unscored_and_says_whom_it_waits_for(server, make_bot):
    reader = make_bot("reader")
    said: list[str] = []
    with pytest.raises(EpisodeInfraError, match="nobody42 did not join within 1 s to cook beside the cooks"):
        wait_to_join(reader, ["nobody42"], "cook beside the cooks", said.append, join_wait_s=1.0)
    assert said and said[0].startswith("waiting for nobody42 to join the server and cook beside the cooks")
    wait_to_join(reader, [reader.name.upper()], "cook", said.append, join_wait_s=1.0)  # online: no wait, any case


@pytest.mark.slow
def test_a_person_cooks_beside_the_cooks_and_their_dish_serves_an_order(server, make_bot, tmp_path):
    """The dispatcher (scripted replies) only tries to command the person, so the cooks serve nothing: the one
    order completed is the person's golden apple."""
    person = unique_name("steve")
    raw = make_task(LEVELS["golden_apple"], 2, 3.0, seed=5)  # an order at step 0, living 14 steps
    task = Task.from_dict("orders_person_cook", {
        **raw, "episode_steps": 8, "timeout": 80, "human_count": 1, "usernames": [person],
        "initial_inventory": {**raw["initial_inventory"], "2": {"golden_apple": 1}}})
    dispatcher = ReplayModel([f'{person}: !putInChest("golden_apple", 1)'], default="")
    said: list[str] = []
    played: dict = {}
    episode = threading.Thread(daemon=True, target=lambda: played.update(run_orders_episode(
        task, tmp_path / "run", server=f"{server.host}:{server.port}", models={"dispatcher": dispatcher},
        progress=said.append, options=OrdersOptions(person_step_s=3.0))))
    episode.start()
    wait_until(lambda: any(line.startswith(f"waiting for {person} to join") for line in said), timeout=120,
               message=lambda: f"the episode to wait for the person: {said}")
    cook = make_bot(exact_name=person)  # joins while the episode waits
    heard: list[str] = []
    cook.on("messagestr", lambda text, *rest: heard.append(str(text)))
    wait_until(lambda: cook.inventory() == {"golden_apple": 1}, timeout=30, message="the person's slot items")
    x, y, z = TASK_ORIGIN
    wait_until(lambda: abs(cook.position[0] - (x + 12)) < 1.5 and abs(cook.position[2] - (z + 5)) < 1.5,
               timeout=30, message="the person brought in front of the serving chest")
    wait_until(lambda: any("Orders: golden_apple (due step" in line for line in heard), timeout=60,
               message=lambda: f"the open order whispered to the person: {heard}")
    wait_for_chunks(cook)
    assert Skills(cook).put_in_chest("golden_apple", 1), "the person could not reach the serving chest"
    episode.join(timeout=120)
    assert not episode.is_alive(), "the episode did not end"

    steps = [json.loads(line) for line in (tmp_path / "run" / STEPS_FILE).read_text().splitlines()]
    assert ["completed", "golden_apple"] in [e[1::2] for e in played["events"]], (played["events"], steps)
    assert any(s["served"] == {"golden_apple": 1} for s in steps) and not any(s["commands"] for s in steps)
    assert played["orders_rules"]["person_cooks"] == 1 and played["orders_rules"]["person_step_s"] == 3.0
    calls = [json.loads(line) for line in (tmp_path / "run" / CALLS_FILE).read_text().splitlines()]
    prompts = [call["messages"][0]["content"] for call in calls]
    shown = [prompt.split(f"- {person}: ", 1)[1].split("\n", 1)[0] for prompt in prompts]
    assert shown[0] == "a person playing freely (you cannot command them); holds 1 golden_apple", prompts[0]
    assert shown[-1].endswith("holds nothing")  # read from the server each step: the apple went into the chest
    assert calls[0]["commands"] == {} and REFUSED in calls[0]["problems"][0], calls[0]
    assert REFUSED in prompts[1].split("## Execution feedback", 1)[1].split("## History", 1)[0]
    assert steps[0]["people"] == {person: {"golden_apple": 1}}
