"""Profiles (YAML and MINDcraft JSON) merged over base profiles and defaults; settings with env overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from mindpy.agent.modes import MODE_NAMES
from mindpy.profiles import ProfileError, load_profile, load_profiles
from mindpy.settings import Settings, SettingsError, load_settings

ROOT = REPO_ROOT
PROFILES = ROOT / "profiles"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_shipped_profiles_load_over_every_base():
    for base in ("survival", "creative", "god_mode", "task"):
        p = load_profile(PROFILES / "andy.yaml", base=base)
        assert p.name == "andy" and p.model == "gpt-4o-mini" and p.cooldown == 3
        assert set(p.modes) == set(MODE_NAMES)
        assert len(p.conversation_examples) >= 20 and len(p.coding_examples) >= 5
    assert load_profile(PROFILES / "andy.yaml", base="god_mode").modes["cheat"] is True
    assert load_profile(PROFILES / "andy.yaml", base="creative").modes["hunting"] is False
    task = load_profile(PROFILES / "andy.yaml", base="task")
    assert "$TASK_GOAL" in task.prompts["conversing"]["system"]


def test_coblock_base_and_the_method_options(tmp_path):
    p = load_profile(PROFILES / "andy.yaml", base="coblock")
    assert (p.partner_modelling, p.reflection) == (False, False)  # off unless a profile turns them on
    assert len(p.conversation_examples) == 8 and "$COBLOCK_STATE" in p.prompts["conversing"]["state"]
    assert "!getBlueprint" in p.blocked_actions and "!placeBlock" not in p.blocked_actions
    # the paper's setting: every option of ours off, the summary of old turns too (on for every other base)
    assert (p.summarize_history, p.check_goal, p.retrieved_examples, p.review_detail) == (False,) * 4
    assert load_profile(PROFILES / "andy.yaml", base="task").summarize_history is True
    for option in ("summarize_history", "check_goal", "retrieved_examples", "review_detail"):
        on = load_profile(write(tmp_path / f"o_{option[:6]}.yaml", f"name: o_{option[:6]}\nbase_profile: coblock\n"
                                                                    f"{option}: true\n"))
        assert getattr(on, option) is True, option
    assert p.modes["cheat"] is False and set(p.modes) == set(MODE_NAMES)
    own = write(tmp_path / "ann.yaml", "name: ann\nbase_profile: coblock\npartner_modelling: true\n")
    p = load_profile(own)
    assert (p.partner_modelling, p.reflection) == (True, False)
    assert load_profile(write(tmp_path / "bob.yaml", "name: bob\nreflection: true\n")).reflection is True
    with pytest.raises(ProfileError) as err:
        load_profile(write(tmp_path / "cyd.yaml", "name: cyd\nreflection: sometimes\n"))
    assert str(err.value) == f"{tmp_path / 'cyd.yaml'}: field 'reflection': must be true or false, got \"sometimes\""


def test_merge_order_defaults_base_own(tmp_path):
    base = write(tmp_path / "base.yaml", "cooldown: 5\nmodes: {hunting: false, cheat: true}\n"
                                         "coding: 'base coding prompt'\n")
    own = write(tmp_path / "bob.yaml", "name: bob\nmodes: {cheat: false}\nmodel: ollama/llama3.2\n")
    p = load_profile(own, base=base)
    assert p.cooldown == 5                     # from the base
    assert p.modes["hunting"] is False         # from the base
    assert p.modes["cheat"] is False           # the bot's own wins
    assert p.modes["unstuck"] is True          # built-in default
    assert p.prompts == {"coding": "base coding prompt"}
    assert p.model_spec().api == "ollama" and p.code_model_spec().model == "llama3.2"
    assert p.sources == ["built-in defaults", str(base), str(own)]


def test_base_from_the_profile_or_settings(tmp_path):
    own = write(tmp_path / "eve.yaml", "name: eve\nbase_profile: god_mode\n")
    assert load_profile(own).modes["cheat"] is True
    plain = write(tmp_path / "sam.yaml", "name: sam\n")
    assert load_profile(plain, settings=Settings(base_profile="creative")).modes["self_defense"] is False


def test_mindcraft_json_profile_loads_unchanged(tmp_path):
    profile = {
        "name": "Jill_0",
        "model": {"api": "vllm", "model": "meta-llama/Llama-3.3-70B-Instruct", "url": "http://localhost:8000/v1",
                  "params": {"temperature": 0.6}},
        "embedding": "openai",
        "cooldown": 3000,
        "conversing": "You are a bot named $NAME.\n$SELF_PROMPT Be brief.\nSummarized memory: '$MEMORY'\n$STATS\n"
                      "$INVENTORY\n$COMMAND_DOCS\n$EXAMPLES\nConversation Begin:",
        "saving_memory": "You are $NAME. Summarize $TO_SUMMARIZE with '$MEMORY'.",
        "conversation_examples": [[{"role": "user", "content": "miner_32: Hey! What are you up to?"},
                                   {"role": "assistant", "content": "Nothing much miner_32, what do you need?"}]],
        "coding_examples": [[{"role": "user", "content": "greg: Collect 10 wood"},
                             {"role": "assistant", "content": "```await skills.collectBlock(bot, 'oak_log', 10);```"}]],
        "modes": {"self_preservation": True, "hunting": False, "cheat": False},
        "speak": False,
    }
    path = write(tmp_path / "jill.json", json.dumps(profile, indent=4))
    p = load_profile(path, base="survival")
    assert p.name == "Jill_0" and p.cooldown == 3.0  # MINDcraft gives milliseconds
    spec = p.model_spec()
    assert (spec.api, spec.url, spec.params) == ("vllm", "http://localhost:8000/v1", {"temperature": 0.6})
    assert p.embedding == "local"  # remote embeddings are not used
    assert p.prompts["conversing"].startswith("You are a bot named $NAME.")
    assert len(p.conversation_examples) == 1 and p.modes["hunting"] is False and p.modes["unstuck"] is True
    assert p.extra == {"speak": False}


@pytest.mark.parametrize("text, field", [
    ("name: x\n", "name"),
    ("name: bob\nmodes: {flying: true}\n", "modes"),
    ("name: bob\nmodes: {hunting: maybe}\n", "modes"),
    ("name: bob\ncooldown: soon\n", "cooldown"),
    ("name: bob\nmodel: {api: openai}\n", "model"),
    ("name: bob\nconversation_examples: [[{role: bot, content: hi}]]\n", "conversation_examples"),
    ("name: bob\nconversation_examples: nowhere.yaml\n", "conversation_examples"),
    ("name: bob\nconversing: {system: 1}\n", "conversing"),
    ("name: bob\nprompts: {chatting: hi}\n", "prompts.chatting"),
    ("model: gpt-4o\n", "name"),
    ("name: bob\npartner_modelling: 'true'\n", "partner_modelling"),
    ("name: bob\nreflection: 1\n", "reflection"),
    ("name: bob\nskills_in_prompt: -1\n", "skills_in_prompt"),
    ("name: bob\nskills_in_prompt: many\n", "skills_in_prompt"),
    ("name: bob\nsave_skills: sometimes\n", "save_skills"),
])
def test_errors_name_file_and_field(tmp_path, text, field):
    path = write(tmp_path / "bad.yaml", text)
    with pytest.raises(ProfileError) as err:
        load_profile(path, base="survival")
    assert str(path) in str(err.value) and f"field '{field}'" in str(err.value), str(err.value)


def test_unreadable_profiles(tmp_path):
    with pytest.raises(ProfileError, match="not valid YAML"):
        load_profile(write(tmp_path / "b.yaml", "name: [unclosed\n"))
    with pytest.raises(ProfileError, match="not valid JSON"):
        load_profile(write(tmp_path / "b.json", "{\"name\": \n"))
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "missing.yaml")
    with pytest.raises(ProfileError, match="base profile 'winter' not found"):
        load_profile(write(tmp_path / "c.yaml", "name: cal\n"), base="winter")


def test_duplicate_names(tmp_path):
    a = write(tmp_path / "a.yaml", "name: twin\n")
    b = write(tmp_path / "b.yaml", "name: twin\n")
    with pytest.raises(ProfileError, match="'twin' is already used"):
        load_profiles(Settings(profiles=[str(a), str(b)]))


# ---- settings -------------------------------------------------------------------------------------------

def test_settings_defaults_match_the_reference():
    s = load_settings(env={})
    assert (s.minecraft_version, s.max_messages, s.num_examples, s.relevant_docs_count, s.max_commands) == \
        ("1.21.1", 15, 2, 5, -1)
    assert s.allow_insecure_coding is False and s.auth == "offline" and s.base_profile == "survival"


def test_settings_file_then_env(tmp_path):
    path = write(tmp_path / "settings.yaml", "port: 25570\nmax_messages: 30\nonly_chat_with: [steve]\n"
                                             "blocked_actions: ['!newAction']\nload_memory: true\n")
    env = {"MINDPY_MAX_MESSAGES": "20", "MINDPY_ALLOW_INSECURE_CODING": "yes", "MINDPY_PROFILES": "a.yaml, b.yaml",
           "MINDPY_BLOCKED_ACTIONS": '["!attack", "!discard"]', "MINDPY_CODE_TIMEOUT_MINS": "2.5",
           "UNRELATED": "x"}
    s = load_settings(path, env=env)
    assert s.port == 25570 and s.load_memory is True and s.only_chat_with == ["steve"]
    assert s.max_messages == 20 and s.allow_insecure_coding is True
    assert s.profiles == ["a.yaml", "b.yaml"] and s.blocked_actions == ["!attack", "!discard"]
    assert s.code_timeout_mins == 2.5
    assert load_settings(path, env=env, max_messages=16).max_messages == 16


def test_real_environment_is_read(monkeypatch):
    monkeypatch.setenv("MINDPY_MAX_MESSAGES", "20")
    assert load_settings().max_messages == 20


@pytest.mark.parametrize("text, message", [
    ("max_mesages: 20\n", "unknown setting 'max_mesages' (did you mean 'max_messages'?)"),
    ("port: lots\n", "setting 'port' expects an integer"),
    ("port: 70000\n", "setting 'port' must be between 1 and 65535"),
    ("auth: magic\n", "setting 'auth' must be one of offline, microsoft"),
    ("- a list\n", "must be a mapping"),
    ("load_memory: perhaps\n", "setting 'load_memory' expects true or false"),
])
def test_settings_file_errors(tmp_path, text, message):
    path = write(tmp_path / "settings.yaml", text)
    with pytest.raises(SettingsError) as err:
        load_settings(path, env={})
    assert str(path) in str(err.value) and message in str(err.value)


def test_settings_env_error_names_the_variable():
    with pytest.raises(SettingsError, match="environment variable MINDPY_MAX_MESSAGES: setting 'max_messages' "
                                            "expects an integer, got 'many'"):
        load_settings(env={"MINDPY_MAX_MESSAGES": "many"})
