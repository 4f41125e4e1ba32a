"""Hosted providers by name: which api a name picks, and each vendor's request shape against a local server that
speaks its protocol (OpenAI chat completions for Gemini, DeepSeek, Mistral, xAI and Qwen; Messages for Claude)."""

from __future__ import annotations

import pytest
from model_http_fakes import RecordingServer, anthropic_reply, openai_reply

from mindpy.models import ModelError, create_model, parse_model_spec
from mindpy.models.anthropic_messages import AnthropicModel, to_turns
from mindpy.models.presets import PRESETS
from mindpy.models.registry import missing_key

KEY = "sk-vendor-test-0123456789SECRET"
MSGS = [{"role": "user", "content": "steve: get wood"}]
ALL_KEY_VARS = [p.key_env for p in PRESETS.values() if p.key_env]
ALL_URL_VARS = [p.url_env for p in PRESETS.values() if p.url_env]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ALL_KEY_VARS + ALL_URL_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("name, api, model", [
    ("claude-3-5-sonnet", "anthropic", "claude-3-5-sonnet"),
    ("anthropic/claude-3-haiku-20240307", "anthropic", "claude-3-haiku-20240307"),
    ("gemini-2.0-flash", "google", "gemini-2.0-flash"),
    ("google/gemini-2.5-pro", "google", "gemini-2.5-pro"),
    ("gemini/gemini-1.5-flash", "google", "gemini-1.5-flash"),
    ("qwen-max", "qwen", "qwen-max"),
    ("dashscope/qwen-plus", "qwen", "qwen-plus"),
    ("deepseek-reasoner", "deepseek", "deepseek-reasoner"),
    ("mistral-large-latest", "mistral", "mistral-large-latest"),
    ("grok-3-mini", "xai", "grok-3-mini"),
    ("gpt-4o", "openai", "gpt-4o"),
    ("o4-mini", "openai", "o4-mini"),
    ("openai/o1", "openai", "o1"),
    ("Qwen/Qwen2.5-7B-Instruct", "ollama", "Qwen/Qwen2.5-7B-Instruct"),  # a Hugging Face name, not DashScope
    ("openrouter/google/gemini-2.0-flash", "openrouter", "google/gemini-2.0-flash"),
    ("Claude-3-5-Sonnet", "anthropic", "Claude-3-5-Sonnet"),                   # bare names in any case
    ("anthropic/ claude-3-haiku", "anthropic", "claude-3-haiku"),
    ("claude/claude-3-haiku", "anthropic", "claude-3-haiku"),
    ("grok/grok-3", "xai", "grok-3"),
    ("qwen3-max", "qwen", "qwen3-max"),
    ("deepseek-ai/DeepSeek-R1", "ollama", "deepseek-ai/DeepSeek-R1"),          # an owner's name: not the vendor's
    ("mistralai/Mistral-7B-Instruct-v0.3", "ollama", "mistralai/Mistral-7B-Instruct-v0.3"),
    ("Gemini/gemini-2.0-flash", "ollama", "Gemini/gemini-2.0-flash"),          # api names are lower case
    ("deepseek-r1:7b", "ollama", "deepseek-r1:7b"),                            # an Ollama tag: a local model
    ("gpt-oss:20b", "ollama", "gpt-oss:20b"),
    ("mistral:7b", "ollama", "mistral:7b"),
    ("ollama/deepseek-r1:7b", "ollama", "deepseek-r1:7b"),
])
def test_names_pick_their_vendor(name, api, model):
    parsed = parse_model_spec(name)
    assert (parsed.api, parsed.model) == (api, model)


@pytest.mark.parametrize("name, variable", [
    ("claude-3-5-sonnet", "ANTHROPIC_API_KEY"), ("gemini-2.0-flash", "GEMINI_API_KEY"),
    ("qwen-max", "DASHSCOPE_API_KEY"), ("deepseek-chat", "DEEPSEEK_API_KEY"),
    ("mistral-small-latest", "MISTRAL_API_KEY"), ("grok-3", "XAI_API_KEY"), ("gpt-4o-mini", "OPENAI_API_KEY"),
])
def test_a_missing_key_names_its_variable(name, variable):
    expected = f"{name} needs {variable}; set it or pick another model"
    assert missing_key(name) == expected
    with pytest.raises(ModelError) as err:
        create_model(name)
    assert str(err.value) == expected


def test_a_set_key_or_an_own_server_needs_nothing_more(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert missing_key("claude-3-5-sonnet") is None
    assert missing_key({"api": "xai", "model": "grok-3", "url": "http://127.0.0.1:9/v1"}) is None
    assert missing_key("replay:whatever.yaml") is None and missing_key("llama3") is None


@pytest.mark.parametrize("name, fix", [
    ("opnai/gpt-4o", "openai/gpt-4o"), ("antropic/claude-3-haiku", "anthropic/claude-3-haiku"),
    ("olama/llama3", "ollama/llama3"), ("vlm/Qwen2.5-7B", "vllm/Qwen2.5-7B"),
])
def test_an_api_one_slip_away_is_refused_with_the_fix(name, fix):
    with pytest.raises(ValueError, match=f"no api '{name.split('/')[0]}'; did you mean '{fix}'"):
        parse_model_spec(name)
    assert parse_model_spec(f"ollama/{name}").model == name  # the way to mean a local owner of that name


def test_an_unknown_owner_is_a_local_model():
    assert (parse_model_spec("nosuch/x").api, parse_model_spec("meta-llama/Llama-3.2-1B").api) == ("ollama", "ollama")


@pytest.mark.parametrize("name", ["anthropic/", "gemini/ "])
def test_an_api_without_a_model_name_is_refused(name):
    with pytest.raises(ValueError, match=f"no model name after '{name.strip()}'"):
        parse_model_spec(name)


def test_an_unknown_api_lists_the_known_names():
    with pytest.raises(ModelError) as err:
        create_model({"api": "claudeai", "model": "claude-3"})
    text = str(err.value)
    assert "no provider for api 'claudeai'" in text and "\n" not in text
    for prefix in ("claude-*", "gemini-*", "qwen-*", "deepseek-*", "mistral-*", "grok-*", "gpt-*", "anthropic",
                   "google"):
        assert prefix in text


@pytest.mark.parametrize("name, key_var, url_var, default_url", [
    ("gemini-2.0-flash", "GEMINI_API_KEY", "GEMINI_BASE_URL",
     "https://generativelanguage.googleapis.com/v1beta/openai"),
    ("deepseek-chat", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "https://api.deepseek.com/v1"),
    ("mistral-large-latest", "MISTRAL_API_KEY", "MISTRAL_BASE_URL", "https://api.mistral.ai/v1"),
    ("grok-3", "XAI_API_KEY", "XAI_BASE_URL", "https://api.x.ai/v1"),
    ("qwen-plus", "DASHSCOPE_API_KEY", "DASHSCOPE_BASE_URL", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1"),
])
def test_openai_compatible_vendors_send_chat_completions(monkeypatch, name, key_var, url_var, default_url):
    monkeypatch.setenv(key_var, KEY)
    assert create_model(name).url == default_url
    with RecordingServer([(200, openai_reply("On it!", prompt=321, completion=9, cached=256))]) as server:
        monkeypatch.setenv(url_var, server.url + "/v1")
        model = create_model(name, attempts=1)
        reply = model.send(MSGS, system="You are andy.")
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == name
    assert request.body["messages"] == [{"role": "system", "content": "You are andy."}, *MSGS]
    assert reply.text == "On it!"
    u = reply.usage
    assert (u.prompt_tokens, u.cached_tokens, u.completion_tokens, u.estimated) == (321, 256, 9, False)
    assert u.model == f"{parse_model_spec(name).api}/{name}"


def test_anthropic_messages_request_and_usage(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    reply_body = anthropic_reply("Getting wood! !collectBlocks(\"oak_log\", 4)", input_tokens=20, output_tokens=11,
                                 cache_read=1500, cache_write=64)
    history = [{"role": "assistant", "content": "I am here."}, {"role": "user", "content": "steve: hi"},
               {"role": "system", "content": "STATS: health 20"}, {"role": "user", "content": "steve: get wood"}]
    with RecordingServer([(200, reply_body)]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        model = create_model({"model": "claude-3-5-sonnet-latest", "api": "anthropic",
                              "params": {"temperature": 0.3, "stop": "\n\n"}}, attempts=1)
        assert isinstance(model, AnthropicModel)
        reply = model.send(history, system="You are andy, a Minecraft bot.")
    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY and "authorization" not in request.headers
    assert request.headers["anthropic-version"] == "2023-06-01"
    body = request.body
    assert body["model"] == "claude-3-5-sonnet-latest" and body["max_tokens"] > 0
    assert body["system"] == [{"type": "text", "text": "You are andy, a Minecraft bot.",
                               "cache_control": {"type": "ephemeral"}}]
    assert body["temperature"] == 0.3 and body["stop_sequences"] == ["\n\n"] and "stop" not in body
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user"]  # starts with the user, alternates, no system turns
    assert "STATS: health 20" in body["messages"][-1]["content"] and "steve: get wood" in body["messages"][-1]["content"]
    assert reply.text == 'Getting wood! !collectBlocks("oak_log", 4)'
    u = reply.usage
    assert (u.prompt_tokens, u.cached_tokens, u.cache_write_tokens, u.completion_tokens) == (1584, 1500, 64, 11)
    assert not u.estimated and u.model == "anthropic/claude-3-5-sonnet-latest"


def test_anthropic_max_tokens_from_params_and_no_system(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with RecordingServer([(200, anthropic_reply("ok"))]) as server:
        model = create_model({"api": "anthropic", "model": "claude-3-5-haiku-latest", "url": server.url + "/v1",
                              "params": {"max_tokens": 77}}, attempts=1)
        model.send(MSGS)
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/messages"  # a base URL ending in /v1 works too
    assert body["max_tokens"] == 77 and "system" not in body


def test_anthropic_overload_is_retried_and_refusals_are_not(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with RecordingServer([(529, overloaded), (429, overloaded), (200, anthropic_reply("fine"))]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        reply = create_model("claude-3-5-sonnet", attempts=3, base_delay=0.01).send(MSGS)
    assert reply.text == "fine" and reply.usage.attempts == 3 and len(server.requests) == 3
    refused = {"type": "error", "error": {"type": "invalid_request_error", "message": f"bad key {KEY}"}}
    with RecordingServer([(400, refused)]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        with pytest.raises(ModelError) as err:
            create_model("claude-3-5-sonnet", attempts=3, base_delay=0.01).send(MSGS)
    assert len(server.requests) == 1
    assert "HTTP 400" in str(err.value) and "bad key ***" in str(err.value) and KEY not in str(err.value)


def test_anthropic_unreachable_is_a_model_error(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    model = create_model({"api": "anthropic", "model": "claude-3-5-sonnet", "url": "http://127.0.0.1:9"},
                         attempts=2, base_delay=0.01)
    with pytest.raises(ModelError, match="http://127.0.0.1:9 is unreachable: cannot connect.*after 2 attempts"):
        model.send(MSGS)


def test_turns_for_the_messages_api():
    assert to_turns([]) == [{"role": "user", "content": "(the conversation so far)"}]
    turns = to_turns([{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
                      {"role": "assistant", "content": "  "}, {"role": "assistant", "content": "c \n"}])
    assert turns == [{"role": "user", "content": "a\n\nb"}, {"role": "assistant", "content": "c"}]


def test_the_spec_url_beats_the_base_url_variable(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    monkeypatch.setenv("DEEPSEEK_BASE_URL", "http://127.0.0.1:9/proxy/v1")
    assert create_model("deepseek-chat").url == "http://127.0.0.1:9/proxy/v1"
    assert create_model({"api": "deepseek", "model": "deepseek-chat", "url": "http://gpu:8000/v1"}).url == \
        "http://gpu:8000/v1"
