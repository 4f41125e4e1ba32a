"""Agents that never read examples by embeddings (the oracle's, `embedding: none`) never load the embedding model:
each case runs in a fresh Python process and looks at what it imported. An agent that does read them loads it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import yaml

from conftest import REPO_ROOT

HEAVY = ("torch", "sentence_transformers", "onnxruntime", "tokenizers")

AGENT = textwrap.dedent("""
    import json, sys
    from unittest.mock import MagicMock
    from mindpy.agent.factory import build_agent, embedding_load, start_embedder
    from mindpy.models.replay import ReplayModel
    from mindpy.profiles import load_profile
    from mindpy.settings import load_settings

    profile_path, work, replay, heavy = sys.argv[1], sys.argv[2], sys.argv[3] == "replay", sys.argv[4].split(",")
    settings = load_settings(None, env={}, bots_dir=work + "/bots", cache_dir=work + "/cache",
                             allow_insecure_coding=True)
    profile = load_profile(profile_path, settings=settings)
    model = ReplayModel(["Hello. !stats"]) if replay else None
    started = start_embedder([profile], settings, {profile.name: model} if replay else None)
    bot = MagicMock()  # build_agent only hands the bot on; nothing here talks to a server
    bot.name = profile.name
    agent = build_agent(profile, bot, settings, model=model)
    loading = embedding_load()
    if loading is not None:
        loading.wait(120)
    chosen = agent.prompter.examples.select([{"role": "user", "content": "nora: I'm starving, got anything to eat?"}], 1)
    print(json.dumps({"started": started, "loading": loading is not None,
                      "imported": [m for m in heavy if m in sys.modules],
                      "first": next(t["content"] for t in chosen[0] if t["role"] != "assistant")}))
""")


def start_agent(tmp_path, model: str, embedding: str) -> dict:
    profile = tmp_path / "andy.yaml"
    data = {"name": "andy", "embedding": embedding}
    if model == "oracle":
        data["model"] = "oracle"
    profile.write_text(yaml.safe_dump(data))
    done = subprocess.run([sys.executable, "-c", AGENT, str(profile), str(tmp_path), model, ",".join(HEAVY)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("model, embedding", [("oracle", "local"), ("replay", "none")])
def test_agents_without_embedding_ranking_never_load_the_model(tmp_path, model, embedding):
    seen = start_agent(tmp_path, model, embedding)
    assert seen["started"] is False and seen["loading"] is False
    assert seen["imported"] == [], f"imported {seen['imported']} for an agent that never uses the model"
    assert seen["first"]  # examples are still chosen, by word overlap


def test_an_agent_reading_examples_loads_the_model(tmp_path):
    seen = start_agent(tmp_path, "replay", "local")
    assert seen["started"] is True and seen["loading"] is True
    assert {"tokenizers"} <= set(seen["imported"]) and "torch" not in seen["imported"]
    assert seen["first"].startswith("felix: I'm hungry"), seen["first"]  # chosen by the model, not word overlap


@pytest.mark.parametrize("fields, coding, model_object, expected", [
    ({"model": "oracle"}, True, None, False),
    ({"model": "chaos:3"}, True, None, False),
    ({"model": "gpt-4o-mini"}, True, None, True),
    ({"model": "gpt-4o-mini", "embedding": "none"}, True, None, False),
    ({"model": "gpt-4o-mini", "conversation_examples": [], "coding_examples": []}, False, None, False),
    ({"model": "gpt-4o-mini", "conversation_examples": [], "coding_examples": []}, True, None, True),  # ranks docs
    ({}, True, "oracle", False),  # a ready model object decides over the profile
    ({"model": "oracle"}, True, "replay", True),
])
def test_which_agents_need_the_model(tmp_path, fields, coding, model_object, expected):
    from mindpy.agent.factory import needs_embedder
    from mindpy.models.replay import ReplayModel
    from mindpy.oracle.provider import OracleModel
    from mindpy.profiles import load_profile
    from mindpy.settings import load_settings

    settings = load_settings(None, env={}, allow_insecure_coding=coding)
    path = tmp_path / "andy.yaml"
    path.write_text(yaml.safe_dump({"name": "andy", **fields}))
    model = {"oracle": OracleModel(), "replay": ReplayModel(["hi"]), None: None}[model_object]
    assert needs_embedder(load_profile(path, settings=settings), settings, model) is expected
