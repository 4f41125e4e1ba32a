"""The paper's ablations as episode options: no communication (its Table 3), no tools (Table 4), the initial
message and the temperature by name; what each blocks or sets, how it crosses to an episode's process, and one
real episode played with conversation blocked."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT
from mindpy.commands.catalog import all_commands
from mindpy.errors import ConfigError
from mindpy.harness.ablations import (
    PAPER_INIT_MESSAGE,
    Ablations,
    ablations_from_args,
    add_ablation_options,
    init_message_value,
    prompt_value,
    temperature_value,
)
from mindpy.harness.options import EpisodeOptions

MINDPY = Path(sys.executable).with_name("mindpy")
SWORD = "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents"


def parse(*argv: str) -> Ablations:
    parser = argparse.ArgumentParser()
    add_ablation_options(parser)
    return ablations_from_args(parser.parse_args(list(argv)))


def test_what_each_ablation_blocks():
    assert Ablations().blocked_actions() == []
    assert Ablations(communication=False).blocked_actions() == ["startConversation", "endConversation"]
    no_tools = Ablations(tools=False).blocked_actions()
    names = {c.name for c in all_commands()}
    assert set(no_tools) == names - {"startConversation", "endConversation"} and "craftRecipe" in no_tools
    assert set(Ablations(communication=False, tools=False).blocked_actions()) == names


def test_flags_named_values_and_refusals():
    assert parse() == Ablations()
    chosen = parse("--no-communication", "--init-message", "paper", "--temperature", "0.3")
    assert chosen == Ablations(communication=False, init_message=PAPER_INIT_MESSAGE, temperature=0.3)
    assert chosen.record() == {"communication": False, "tools": True, "init_message": "paper", "temperature": 0.3,
                               "prompt": "full"}
    assert parse("--prompt", "Compact").prompt == "compact"
    with pytest.raises(argparse.ArgumentTypeError, match="a prompt is one of full, compact"):
        prompt_value("tiny")
    assert parse("--init-message", "Say hi.").record()["init_message"] == "custom"
    assert init_message_value("NONE") == "" and temperature_value("default") is None
    for bad in ("hot", "2.5", "-0.1", "nan"):
        with pytest.raises(argparse.ArgumentTypeError, match="temperature"):
            temperature_value(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="at most 2000"):
        init_message_value("x" * 2001)


def test_the_joining_message_is_each_family_s_paper_s_unless_asked_otherwise():
    """MineCollab's families tell each bot the MINDcraft paper's message by default; a family whose play sends
    none records none; asking a family for a message its play never sends is refused, asking for none is not."""
    from mindpy.tasks.family import family_named

    crafting, construction, defuse = (family_named(n) for n in ("crafting", "construction", "defuse"))
    assert Ablations().for_family(crafting).init_message == PAPER_INIT_MESSAGE
    assert Ablations().for_family(crafting).record()["init_message"] == "paper"
    assert Ablations().for_family(defuse).init_message == ""
    assert parse("--init-message", "none").for_family(construction).record()["init_message"] == "none"
    assert parse("--init-message", "Hi.").for_family(crafting).init_message == "Hi."
    assert Ablations().unhonoured(defuse) is None and parse("--init-message", "none").unhonoured(defuse) is None
    assert "--init-message" in (parse("--init-message", "paper").unhonoured(defuse) or "")
    # an evaluation's summary records them as its episodes' families applied them
    assert Ablations().record([crafting, construction])["init_message"] == "paper"
    assert Ablations().record([crafting, defuse])["init_message"] == "mixed"
    assert Ablations().record([defuse])["init_message"] == "none"
    assert parse("--init-message", "none").record([crafting, defuse])["init_message"] == "none"


def test_the_temperature_goes_into_each_model_spec_unless_the_spec_sets_its_own():
    warm = Ablations(temperature=0.7)
    assert warm.with_temperature("gpt-4o-mini") == {"model": "gpt-4o-mini", "params": {"temperature": 0.7}}
    own = {"model": "m", "url": "http://x", "params": {"temperature": 0.1, "top_p": 0.5}}
    assert warm.with_temperature(own)["params"] == {"temperature": 0.1, "top_p": 0.5}
    assert Ablations().with_temperature("gpt-4o-mini") == "gpt-4o-mini" and warm.with_temperature(None) is None


def test_ablations_cross_to_an_episode_process_and_bad_ones_are_refused():
    options = EpisodeOptions(model="oracle", ablations=Ablations(tools=False, init_message="Hello.", temperature=0))
    assert EpisodeOptions.from_json(options.to_json()) == options
    assert EpisodeOptions.from_json('{"model": "oracle"}').ablations == Ablations()
    for bad in ('{"ablations": {"loud": true}}', '{"ablations": {"temperature": 9}}'):
        with pytest.raises(ConfigError, match="episode options"):
            EpisodeOptions.from_json(bad)


@pytest.mark.slow  # a whole episode
def test_an_episode_with_conversation_blocked(tmp_path):
    tasks = json.loads((REPO_ROOT / "tasks" / "crafting_test.json").read_text())
    task = {**tasks[SWORD], "timeout": 40}
    assert task["conversation"]  # the task opens with a conversation: blocked, it is never sent
    (tmp_path / "quiet.json").write_text(json.dumps({"quiet": task}))
    # jill tries to talk first (a script), then hands over what she holds as the oracle would
    script = tmp_path / "jill.yaml"
    script.write_text(yaml.safe_dump({"replies": ['Hi andy! !startConversation("andy", "I have a table.")',
                                                  '!givePlayer("andy", "crafting_table", 1)',
                                                  '!givePlayer("andy", "oak_planks", 1)'], "default": "!stay(5)"}))
    run_dir = tmp_path / "run"
    proc = subprocess.run([str(MINDPY), "run", "--task", str(tmp_path / "quiet.json"), "--task-id", "quiet",
                           "--run-dir", str(run_dir), "--model", "oracle", "--team", f"jill=replay:{script}",
                           "--no-communication", "--temperature", "0.2"],  # the joining message: the paper's
                          capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": ""})
    console = (run_dir / "console.log").read_text() if (run_dir / "console.log").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + console[-2000:]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["ablations"] == {"communication": False, "tools": True, "init_message": "paper",
                                   "temperature": 0.2, "prompt": "full"}
    assert "[jill] refused: Command !startConversation is blocked" in console  # she tried, and was refused
    assert task["conversation"] not in console and "says: (To " not in console  # nobody said a word to anyone
    for name in ("andy", "jill"):
        calls = [json.loads(line) for line in (run_dir / "calls" / f"{name}.jsonl").open()]
        turns = json.dumps([c["messages"] for c in calls])
        assert "(FROM OTHER BOT)" not in turns  # no message from a teammate ever reached it
        # told once the world is set up (at spawn it would act on a world still being set up)
        assert PAPER_INIT_MESSAGE in [m["content"] for m in calls[0]["messages"]]
    profiles = {name: yaml.safe_load((run_dir / "profiles" / f"{name}.yaml").read_text()) for name in ("andy", "jill")}
    assert profiles["andy"]["model"] == {"model": "oracle", "params": {"temperature": 0.2}}
    assert profiles["jill"]["model"] == {"model": f"replay:{script}", "params": {"temperature": 0.2}}


def test_a_temperature_for_no_named_model_is_refused_before_anything_starts(tmp_path):
    tasks = json.loads((REPO_ROOT / "tasks" / "crafting_test.json").read_text())
    (tmp_path / "t.json").write_text(json.dumps({"t": tasks[SWORD]}))
    proc = subprocess.run([str(MINDPY), "run", "--task", str(tmp_path / "t.json"), "--task-id", "t", "--run-dir",
                           str(tmp_path / "run"), "--temperature", "0.3"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "OPENAI_API_KEY": ""})
    assert proc.returncode != 0 and "--temperature sets the temperature of a model you name" in proc.stderr
    assert not (tmp_path / "run" / "server").exists()  # refused before a server started


@pytest.mark.parametrize("file,task_id,flags,refused", [
    ("orders_test.json", "orders_l00_golden_apple_2_agents_alpha_1", ["--no-communication"], "--no-communication"),
    ("defuse_test.json", "defuse_0", ["--init-message", "paper", "--temperature", "0.1", "--model", "oracle"],
     "--init-message"),
])
def test_an_ablation_a_family_s_play_does_not_apply_is_refused_not_recorded(file, task_id, flags, refused,
                                                                            tmp_path):
    """Orders and defuse play by rules of their own: a setting they never apply would be recorded as if it had been."""
    proc = subprocess.run([str(MINDPY), "run", "--task", str(REPO_ROOT / "tasks" / file), "--task-id", task_id,
                           "--run-dir", str(tmp_path / "run"), *flags], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "OPENAI_API_KEY": ""})
    assert proc.returncode != 0 and f"{refused}: " in proc.stderr and "do not take this setting" in proc.stderr, \
        proc.stderr[-2000:]
    assert "--temperature" not in proc.stderr.split("(they take")[0]  # defuse does apply a temperature
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "run" / "server").exists()


def test_an_eval_skips_the_tasks_whose_play_would_not_apply_its_ablations(tmp_path):
    from mindpy.harness.evaluate import Evaluation

    evaluation = Evaluation([str(REPO_ROOT / "tasks" / "orders_test.json"), str(REPO_ROOT / "tasks" / "defuse_test.json")],
                            out=tmp_path / "out", model="oracle", limit=2, ablations=Ablations(temperature=0.5))
    assert [ep.family for ep in evaluation.episodes] == ["defuse", "defuse"]  # defuse applies a temperature
    assert [(s.reason, s.task_id) for s in evaluation.skipped] == \
        [("not playable", "orders_l00_golden_apple_2_agents_alpha_1"),
         ("not playable", "orders_l00_golden_apple_2_agents_alpha_1.5")]
    assert "--temperature: orders episodes are played by rules of their own" in evaluation.skipped[0].problems[0]
