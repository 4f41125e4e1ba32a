"""Chat model providers against a real local HTTP server speaking the OpenAI chat-completions API."""

from __future__ import annotations

import json
import logging

import pytest
from model_http_fakes import ECHO_AUTH, HANG, RecordingServer, openai_reply

from mindpy.models import ModelError, create_model, parse_model_spec, register_provider
from mindpy.models.base import ChatModel, Usage, strip_thinking
from mindpy.models.openai_compat import OpenAICompatModel
from mindpy.models.replay import ReplayModel
from mindpy.models.retry import RetryPolicy

SECRET = "sk-test-0123456789abcdefSECRET"


@pytest.fixture
def server():
    with RecordingServer() as srv:
        yield srv


def make(server, **kw) -> OpenAICompatModel:
    kw.setdefault("attempts", 3)
    kw.setdefault("base_delay", 0.01)
    return create_model({"api": "vllm", "model": "test-model", "url": server.url + "/v1"}, **kw)


MSGS = [{"role": "user", "content": "steve: hello"}]


def test_429_twice_then_ok_is_retried(server):
    server.script = [(429, {"error": {"message": "slow down"}}), (429, {"error": {"message": "slow down"}}),
                     (200, openai_reply("Hello there!", prompt=40, completion=3, cached=32))]
    model = make(server, attempts=4)
    reply = model.send(MSGS, system="You are a bot.")
    assert reply.text == "Hello there!"
    assert len(server.requests) == 3
    u = reply.usage
    assert (u.prompt_tokens, u.cached_tokens, u.completion_tokens, u.attempts) == (40, 32, 3, 3)
    assert u.latency_s > 0 and not u.estimated
    assert model.usage_log == [u]
    body = server.requests[-1].body
    assert body["model"] == "test-model"
    assert body["messages"][0] == {"role": "system", "content": "You are a bot."}
    assert body["messages"][1:] == MSGS


def test_500_forever_ends_in_model_error(server):
    server.script = [(500, {"error": {"message": "the GPU caught fire"}})]
    model = make(server, attempts=3)
    with pytest.raises(ModelError) as err:
        model.send(MSGS)
    text = str(err.value)
    assert "unreachable" in text and "(after 3 attempts)" in text and "HTTP 500" in text
    assert "the GPU caught fire" in text and "vllm/test-model" in text
    assert len(server.requests) == 3


def test_client_errors_are_not_retried(server):
    server.script = [(400, {"error": {"message": "context too long"}})]
    with pytest.raises(ModelError, match="HTTP 400: context too long"):
        make(server).send(MSGS)
    assert len(server.requests) == 1


def test_timeouts_are_retried(server):
    server.script = [(200, openai_reply("late"), HANG), (200, openai_reply("on time"))]
    reply = make(server, timeout=0.3).send(MSGS)
    assert reply.text == "on time" and reply.usage.attempts == 2


def test_think_is_stripped_and_params_sent(server):
    server.script = [(200, openai_reply("<think>They want wood.\nI should act.</think>\n\nOn it! !collectBlocks(\"oak_log\", 4)"))]
    model = create_model({"api": "ollama", "model": "qwen3", "url": server.url + "/v1",
                          "params": {"temperature": 0.2, "top_k": 20}})
    reply = model.send(MSGS)
    assert reply.text == 'On it! !collectBlocks("oak_log", 4)'
    assert "<think>" in reply.raw_text
    body = server.requests[0].body
    assert body["temperature"] == 0.2 and body["top_k"] == 20  # unknown params travel in the body


def test_missing_usage_is_estimated(server):
    payload = openai_reply("fine")
    del payload["usage"]
    server.script = [(200, payload)]
    u = make(server).send(MSGS, system="Be brief.").usage
    assert u.estimated and u.prompt_tokens > 0 and u.completion_tokens == 1


def test_key_never_reaches_logs_or_files(server, tmp_path, monkeypatch):
    """The key comes from the environment, goes out in the Authorization header, and nowhere else."""
    monkeypatch.setenv("MINDPY_TEST_KEY", SECRET)
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        server.script = [(500, {"error": {"message": "boom"}}), (200, openai_reply("ok")), (401, ECHO_AUTH)]
        model = create_model({"api": "openai", "model": "gpt-x", "url": server.url + "/v1",
                              "key_env": "MINDPY_TEST_KEY"}, attempts=2, base_delay=0.01)
        reply = model.send(MSGS, system="sys")
        with pytest.raises(ModelError) as err:
            model.send(MSGS)
        assert SECRET not in str(err.value) and "***" in str(err.value)
        # what gets saved: history state, usage, the model's repr
        from mindpy.memory import BotState, History

        history = History("andy", state=BotState("andy", tmp_path))
        history.add("steve", "hi")
        history.add("andy", reply.text)
        history.add("system", f"(The model could not be reached: {err.value})")
        (tmp_path / "usage.json").write_text(json.dumps([u.to_dict() for u in model.usage_log]))
        (tmp_path / "repr.txt").write_text(repr(model) + str(parse_model_spec({"model": "gpt-x", "key_env": "MINDPY_TEST_KEY"})))
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # it was really used
    assert records, "expected some log records at DEBUG"
    for r in records:
        assert SECRET not in r.getMessage(), r.getMessage()
        assert SECRET not in repr(r.__dict__)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(), path


def test_hosted_api_without_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    with pytest.raises(ModelError, match="llama-3.1-8b-instant needs GROQ_API_KEY; set it or pick another model"):
        create_model("groq/llama-3.1-8b-instant")


def test_unreachable_server_is_a_model_error():
    model = create_model({"api": "llamacpp", "model": "x", "url": "http://127.0.0.1:9/v1"}, attempts=2,
                         base_delay=0.01)
    with pytest.raises(ModelError, match="http://127.0.0.1:9/v1 is unreachable: cannot connect"):
        model.send(MSGS)


@pytest.mark.parametrize("spec, api, model, url", [
    ("gpt-4o-mini", "openai", "gpt-4o-mini", None),
    ("openai/gpt-4o", "openai", "gpt-4o", None),
    ("ollama/llama3.2", "ollama", "llama3.2", None),
    ("openrouter/anthropic/claude-3.5-sonnet", "openrouter", "anthropic/claude-3.5-sonnet", None),
    ("deepseek-chat", "deepseek", "deepseek-chat", None),
    ("grok-2", "xai", "grok-2", None),
    ("llama3", "ollama", "llama3", None),
    ("replay:tests/scripts/x.yaml", "replay", "tests/scripts/x.yaml", None),
    ({"api": "vllm", "model": "Qwen/Qwen2.5-7B", "url": "http://gpu:8000/v1"}, "vllm", "Qwen/Qwen2.5-7B",
     "http://gpu:8000/v1"),
    ({"model": "local-model", "url": "http://127.0.0.1:8080/v1"}, "openai", "local-model", "http://127.0.0.1:8080/v1"),
])
def test_spec_parser(spec, api, model, url):
    parsed = parse_model_spec(spec)
    assert (parsed.api, parsed.model, parsed.url) == (api, model, url)


def test_spec_errors():
    with pytest.raises(ValueError, match="needs a 'model'"):
        parse_model_spec({"api": "openai"})
    with pytest.raises(ValueError, match="unknown key"):
        parse_model_spec({"model": "x", "apikey": "no keys here"})
    with pytest.raises(ModelError, match="no provider for api 'claudeai'.*claude-\\*"):
        create_model({"api": "claudeai", "model": "claude-3-5-sonnet"})


def test_presets_cover_the_listed_servers():
    from mindpy.models.openai_compat import PRESETS

    for api in ("openai", "vllm", "ollama", "lmstudio", "llamacpp", "openrouter", "deepseek", "groq", "together",
                "mistral", "xai"):
        assert api in PRESETS and PRESETS[api].key_env


def test_registry_is_open_for_new_providers():
    from mindpy.models import registry

    class Echo(ChatModel):
        api = "echo"

        def _complete(self, messages, system):
            return "echo: " + messages[-1]["content"], Usage()

    register_provider("echo", lambda spec: Echo(spec.model))
    try:
        assert create_model({"api": "echo", "model": "e"}).send(MSGS).text == "echo: steve: hello"
        with pytest.raises(ValueError):  # an api name is not silently taken over
            register_provider("echo", lambda spec: Echo(spec.model))
    finally:
        registry._PROVIDERS.pop("echo", None)


def test_backoff_grows_with_jitter():
    import random

    policy = RetryPolicy(attempts=5, base_delay=1.0, max_delay=10.0, jitter=0.5)
    rng = random.Random(1)
    waits = [policy.delay(i, rng=rng) for i in range(6)]
    for i, w in enumerate(waits):
        full = min(10.0, 2 ** i)
        assert full * 0.5 <= w <= full
    assert policy.delay(0, retry_after=4.0, rng=rng) >= 4.0
    assert policy.delay(0, retry_after=99.0, rng=rng) <= 10.0


def test_strip_thinking():
    assert strip_thinking("<think>a</think>b") == "b"
    assert strip_thinking("plain") == "plain"
    assert strip_thinking("x</think>y</think> z ") == "z"


def test_two_think_tags_are_cut_at_the_last_on_every_path():
    # a reasoning model may close </think> twice (or quote the tag): only what follows the last one is the answer
    from mindpy.agent.agent import strip_thinking as agent_strip
    from mindpy.coding import extract_code

    reply = "<think>a</think>!stats</think> !inventory "
    assert agent_strip(reply) == strip_thinking(reply) == "!inventory"

    class Thinker(ChatModel):
        api = "thinker"

        def _complete(self, messages, system):
            return reply, Usage()

    sent = Thinker("t").send(MSGS)
    assert sent.text == "!inventory" and sent.raw_text == reply
    code = "<think>a</think>```python\nbad()\n```</think>\n```python\ngood()\n```"
    assert extract_code(code) == "good()"


def test_providers_plug_in_by_entry_point(tmp_path, monkeypatch):
    """A package declaring `[project.entry-points."mindpy.models"]` is found without registering by hand; its
    module is imported only when a model of its api is made."""
    import sys

    from mindpy.models import available_apis, registry

    (tmp_path / "echo_provider_pkg.py").write_text(
        "from mindpy.models.base import ChatModel, Usage\n"
        "class Echo(ChatModel):\n"
        "    api = 'echoplug'\n"
        "    def _complete(self, messages, system):\n"
        "        return 'echo: ' + messages[-1]['content'], Usage()\n"
        "def create(spec):\n"
        "    return Echo(spec.model)\n")
    info = tmp_path / "echo_provider_pkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-provider-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mindpy.models]\nechoplug = echo_provider_pkg:create\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_loaded", False)
    try:
        assert {"echoplug", "oracle", "openai", "replay"} <= set(available_apis())
        assert "echo_provider_pkg" not in sys.modules
        assert parse_model_spec("echoplug").model == "echoplug"
        assert str(parse_model_spec("echoplug:big")) == "echoplug/big"
        assert create_model("echoplug").send(MSGS).text == "echo: steve: hello"
    finally:
        registry._PROVIDERS.pop("echoplug", None)
        registry._PLUGGED_IN.discard("echoplug")
        sys.modules.pop("echo_provider_pkg", None)


# ---- replay ----------------------------------------------------------------------------------------------

def test_replay_yaml_script(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text(
        "replies:\n"
        "  - 'First reply !stats'\n"
        "  - {match: 'wood|log', reply: 'Getting wood! !collectBlocks(\"oak_log\", 4)'}\n"
        "  - {match: 'summar', reply: 'memory note', times: 0}\n"
        "  - 'Second reply'\n"
        "default: 'I have nothing to say.'\n")
    model = create_model(f"replay:{script}")
    assert isinstance(model, ReplayModel)
    u = lambda text: [{"role": "user", "content": text}]  # noqa: E731
    assert model.send(u("steve: hi")).text == "First reply !stats"
    assert model.send(u("steve: get some wood")).text.startswith("Getting wood!")
    assert model.send(u("steve: more logs please")).text == "Second reply"  # keyed entry used up
    assert model.send(u("please summarize")).text == "memory note"
    assert model.send(u("summarize again")).text == "memory note"  # times: 0 repeats
    assert model.send(u("anything")).text == "I have nothing to say."
    assert len(model.calls) == 6
    assert model.calls[1]["messages"] == u("steve: get some wood")
    assert model.usage_log[0].prompt_tokens > 0 and model.usage_log[0].estimated


def test_replay_matches_last_user_message_and_jsonl(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text('{"match": "^alex:", "reply": "hi alex"}\n"plain"\n{"reply": "<think>hmm</think>done"}\n')
    model = ReplayModel(script)
    msgs = [{"role": "user", "content": "alex: yo"}, {"role": "system", "content": "STATS: ..."}]
    assert model.send(msgs, system="s").text == "hi alex"
    assert model.calls[0]["system"] == "s"
    assert model.send(msgs).text == "plain"
    assert model.send(msgs).text == "done"
    with pytest.raises(ModelError, match="no reply left"):
        model.send(msgs)


def test_replay_script_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {reply: 1}\n")
    with pytest.raises(ModelError, match=r"bad.yaml: entry 1"):
        ReplayModel(bad)
    bad.write_text("- {match: '(', reply: x}\n")
    with pytest.raises(ModelError, match="bad pattern"):
        ReplayModel(bad)
    with pytest.raises(ModelError, match="cannot read"):
        ReplayModel(tmp_path / "missing.yaml")


# ---- a real OpenAI-compatible server: llama.cpp serving SmolLM2-135M-Instruct --------------------------

@pytest.mark.llm
def test_real_openai_compatible_server(openai_server, tmp_path):
    import re

    from mindpy.memory import BotState, History
    from mindpy.prompts import Prompter

    model = create_model({"api": "transformers", "model": openai_server.model, "url": openai_server.url,
                          "params": {"max_tokens": 48, "temperature": 0.0, "seed": 1}}, attempts=2, timeout=120)
    prompter = Prompter(name="andy", providers={
        "COMMAND_DOCS": "*COMMAND DOCS*\n!stop: stop what you are doing.\n!goToPlayer(player_name, closeness): "
                        "walk to a player.\n!inventory: list your items.",
        "STATS": "STATS\n- health: 20", "INVENTORY": "INVENTORY\n- oak_log: 3"})
    history = History("andy", summarizer=lambda memory, turns: prompter.summarize(model, memory, turns),
                      max_messages=6, state=BotState("andy", tmp_path))
    history.add("steve", "hi andy, come here please")
    system, messages = prompter.build("conversing", turns=history.turns).as_pair()
    reply = model.send(messages, system)
    assert isinstance(reply.text, str)
    u = reply.usage
    assert u.prompt_tokens > 100 and u.completion_tokens > 0 and not u.estimated and u.latency_s > 0
    assert u.stable_prefix_tokens == system.stable_prefix_tokens
    # whatever it said is handled: a command is found or the reply is plain chat
    command = re.search(r"!(\w+)(?:\((.*?)\))?", reply.text)
    history.add("andy", reply.text or "(no reply)")
    assert command is None or command.group(1)
    # memory summarization through the real model stays within 500 characters
    for i in range(4):
        history.add("steve" if i % 2 == 0 else "system", f"note {i}: the house goes by the river")
    assert len(history.turns) < 6 and len(history.memory) <= 500
    assert len(model.usage_log) == 2

