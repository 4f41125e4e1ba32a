"""The response cache against a real local OpenAI-compatible HTTP server that counts requests: a request asked
before is answered from disk (no request, no spend, marked as cached), any change to the model, its sampling
parameters or the prompt asks the server, failures are never kept, and processes share the folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mindpy.harness.calls import CallLog, read_calls
from mindpy.models import BudgetLimits, ModelUnreachable, create_model
from mindpy.models.budget import Budget

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_http_fakes import RecordingServer, openai_reply  # noqa: E402

HELLO = [{"role": "user", "content": "hello"}]


def spec(server: RecordingServer, **params) -> dict:
    return {"api": "openai", "model": "gpt-4o-mini", "url": server.url + "/v1", "params": params,
            "base_delay": 0.01, "max_delay": 0.02}


def test_a_request_asked_before_is_answered_from_the_cache_without_spending(tmp_path):
    with RecordingServer([(200, openai_reply("first answer", prompt=1_000_000, completion=0))]) as server:
        budget = Budget(BudgetLimits(max_usd=100))
        log = CallLog(None, tmp_path / "calls" / "andy.jsonl", "andy")
        model = log.wrap(budget.wrap(create_model(spec(server), cache=str(tmp_path / "cache"))))
        assert model.send(HELLO, "be brief").text == "first answer"
        again = model.send(HELLO, "be brief")
        log.close()
    assert again.text == "first answer" and again.usage.from_cache
    assert again.usage.prompt_tokens == again.usage.completion_tokens == 0
    assert len(server.requests) == 1
    spent = budget.summary()
    assert spent["requests"] == 1 and spent["cached"] == 1 and spent["usd"] == 0.15, spent  # only the first paid
    first, second = read_calls(tmp_path / "calls" / "andy.jsonl")
    assert "from_cache" not in first and first["prompt_tokens"] == 1_000_000
    assert second["from_cache"] is True and second["prompt_tokens"] == 0 and second["reply"] == "first answer"


def test_the_model_its_parameters_and_the_prompt_are_part_of_the_key(tmp_path):
    cache = str(tmp_path / "cache")
    with RecordingServer() as server:
        create_model(spec(server), cache=cache).send(HELLO, "sys")
        create_model(spec(server, temperature=0.5), cache=cache).send(HELLO, "sys")       # other parameters
        create_model({**spec(server), "model": "gpt-4o"}, cache=cache).send(HELLO, "sys")  # another model
        create_model(spec(server), cache=cache).send(HELLO, "other system prompt")
        create_model(spec(server), cache=cache).send([{"role": "user", "content": "hello!"}], "sys")
        assert len(server.requests) == 5
        for again in (spec(server), spec(server, temperature=0.5)):
            assert create_model(again, cache=cache).send(HELLO, "sys").usage.from_cache
        assert len(server.requests) == 5
        assert server.requests[1].body["temperature"] == 0.5


def test_failures_are_not_kept(tmp_path):
    cache = str(tmp_path / "cache")
    with RecordingServer([(500, {"error": {"message": "down"}}), (200, openai_reply("back"))]) as server:
        model = create_model({**spec(server), "attempts": 1}, cache=cache)
        try:
            model.send(HELLO)
        except ModelUnreachable:
            pass
        else:
            raise AssertionError("a 500 must fail the call")
        assert not list(Path(cache).rglob("*.json"))
        assert model.send(HELLO).text == "back"
        assert len(server.requests) == 2


def test_several_processes_share_the_cache_folder(tmp_path):
    cache = tmp_path / "cache"
    script = ("import sys; from mindpy.models import create_model; "
              "m = create_model({'api': 'openai', 'model': 'gpt-4o-mini', 'url': sys.argv[1]}, cache=sys.argv[2]); "
              "r = m.send([{'role': 'user', 'content': 'hello'}]); print(r.text, r.usage.from_cache)")
    with RecordingServer([(200, openai_reply("shared"))]) as server:
        runs = [subprocess.run([sys.executable, "-c", script, server.url + "/v1", str(cache)], capture_output=True,
                               text=True, timeout=60, env={"OPENAI_API_KEY": "test", "PATH": ""})
                for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["shared", "False"], ["shared", "True"]], [r.stderr for r in runs]
    assert len(server.requests) == 1
    [entry] = list(cache.rglob("*.json"))
    assert json.loads(entry.read_text())["raw"] == "shared"
    assert not list(cache.rglob("*.tmp"))  # written whole, then renamed
