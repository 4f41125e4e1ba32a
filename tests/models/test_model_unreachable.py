"""A model endpoint that cannot be used (nothing listens, server errors that outlast the retries, a refused key, a
model not found) is told apart from a bad reply: ModelUnreachable names the URL really called and the cause."""

from __future__ import annotations

import pytest
from model_http_fakes import RecordingServer, anthropic_reply, openai_reply

from mindpy.models import ModelError, ModelUnreachable, create_model
from mindpy.models.outage import OutageWatch

MSGS = [{"role": "user", "content": "steve: get wood"}]
CLOSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
QUICK = {"attempts": 3, "base_delay": 0.01}  # retries as the policy sets them, without waiting long
KEY = "sk-unreachable-test-0123456789SECRET"


def error_body(message: str) -> dict:
    return {"error": {"message": message, "type": "x"}}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_a_closed_port_is_unreachable_and_named():
    model = create_model({"api": "openai", "model": "x", "url": CLOSED, **QUICK})
    with pytest.raises(ModelUnreachable) as err:
        model.send(MSGS)
    text = str(err.value)
    assert err.value.url == CLOSED and err.value.attempts == 3
    assert CLOSED in text and "refused" in text.lower() and "\n" not in text, text


def test_the_url_from_openai_base_url_is_the_one_named(monkeypatch):
    """The openai api without a url in the spec calls OPENAI_BASE_URL: errors name it, not api.openai.com."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", CLOSED)
    with pytest.raises(ModelUnreachable) as err:
        create_model("openai/x", **QUICK).send(MSGS)
    assert err.value.url == CLOSED and "api.openai.com" not in str(err.value), err.value
    assert KEY not in str(err.value)


@pytest.mark.parametrize("status, attempts, said", [
    (500, 3, "HTTP 500"),     # retried, then given up
    (503, 3, "HTTP 503"),
    (401, 1, "HTTP 401"),     # no retry changes a refused key
    (403, 1, "HTTP 403"),
    (404, 1, "HTTP 404"),     # nor a model that is not there
])
def test_server_errors_and_refusals_are_unreachable(status, attempts, said):
    with RecordingServer([(status, error_body(f"no luck {KEY}"))]) as server:
        model = create_model({"api": "openai", "model": "x", "url": server.url + "/v1", **QUICK})
        with pytest.raises(ModelUnreachable) as err:
            model.send(MSGS)
    assert len(server.requests) == attempts
    text = str(err.value)
    assert said in text and server.url + "/v1" in text and "\n" not in text, text


def test_a_bad_request_is_the_models_error_not_an_outage():
    """HTTP 400 (a prompt too long, a parameter the server does not take) is about this call, not the endpoint."""
    with RecordingServer([(400, error_body("context too long"))]) as server:
        model = create_model({"api": "openai", "model": "x", "url": server.url + "/v1", **QUICK})
        with pytest.raises(ModelError) as err:
            model.send(MSGS)
    assert not isinstance(err.value, ModelUnreachable) and len(server.requests) == 1


def test_anthropic_endpoint_failures_are_unreachable(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with pytest.raises(ModelUnreachable) as err:
        create_model({"api": "anthropic", "model": "claude-3-5-sonnet", "url": "http://127.0.0.1:9", **QUICK}).send(MSGS)
    assert err.value.url == "http://127.0.0.1:9" and err.value.attempts == 3
    with RecordingServer([(401, error_body("bad key"))]) as server:
        with pytest.raises(ModelUnreachable, match="HTTP 401"):
            create_model({"api": "anthropic", "model": "claude-3-5-sonnet", "url": server.url, **QUICK}).send(MSGS)
    assert len(server.requests) == 1
    with RecordingServer([(200, anthropic_reply("fine"))]) as server:
        assert create_model({"api": "anthropic", "model": "claude-3-5-sonnet", "url": server.url}).send(MSGS).text \
            == "fine"


def test_an_outage_watch_hears_of_the_first_unreachable_call_only():
    heard: list[ModelUnreachable] = []
    watch = OutageWatch()
    watch.listen(heard.append)
    with RecordingServer([(400, error_body("too long")), (200, openai_reply("hi")), (401, error_body("no"))]) as s:
        model = watch.wrap(create_model({"api": "openai", "model": "x", "url": s.url + "/v1", **QUICK}))
        with pytest.raises(ModelError):
            model.send(MSGS)  # a bad request: not an outage
        assert model.send(MSGS).text == "hi" and watch.down is None and heard == []
        with pytest.raises(ModelUnreachable):
            model.send(MSGS)
        with pytest.raises(ModelUnreachable):
            model.send(MSGS)
    assert watch.down is heard[0] and len(heard) == 1
    late: list[ModelUnreachable] = []
    watch.listen(late.append)  # a listener added after the outage hears of it at once
    assert late == [watch.down]
    assert model.describe() == "openai/x" and model.usage_log  # everything else is the model's


@pytest.mark.parametrize("body", ["<html><body>Welcome to nginx</body></html>", [1, 2]])
def test_an_endpoint_that_does_not_speak_the_api_is_unreachable_at_once(body):
    """A URL that reaches another service (a web page, some other JSON) answers 200 with something that is not a
    chat completion: the URL is wrong, and no retry changes that."""
    with RecordingServer([(200, body)]) as server:
        model = create_model({"api": "openai", "model": "x", "url": server.url + "/v1", **QUICK})
        with pytest.raises(ModelUnreachable, match="not a chat completion"):
            model.send(MSGS)
    assert len(server.requests) == 1


def test_a_completion_without_choices_is_a_bad_reply_not_an_outage():
    with RecordingServer([(200, {"id": "x", "choices": []})]) as server:
        model = create_model({"api": "openai", "model": "x", "url": server.url + "/v1", **QUICK})
        with pytest.raises(ModelError, match="no choices") as err:
            model.send(MSGS)
    assert not isinstance(err.value, ModelUnreachable)


def test_a_servers_error_text_cannot_act_on_a_terminal():
    """Error texts are printed and logged: escape sequences and line breaks in them are shown, never sent as is."""
    hostile = "\x1b]0;pwned\x07\x1b[2Jgone\nFAKE LOG LINE\u202e"
    with RecordingServer([(500, error_body(hostile))]) as server:
        model = create_model({"api": "openai", "model": "x", "url": server.url + "/v1", **QUICK})
        with pytest.raises(ModelUnreachable) as err:
            model.send(MSGS)
    text = str(err.value)
    assert "\x1b" not in text and "\x07" not in text and "\n" not in text and "\u202e" not in text, text
    assert "\\x1b[2Jgone" in text
