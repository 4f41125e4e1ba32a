"""An agent with a real OpenAI-compatible server (`transformers serve` with SmolLM2-135M-Instruct) on the embedded server."""

from __future__ import annotations

import pytest

from agent_helpers import make_settings, start_agent_with_model
from conftest import wait_until
from mindpy.models import create_model


@pytest.mark.llm
def test_an_agent_plays_with_a_real_openai_compatible_server(openai_server, make_bot, tmp_path):
    """The whole agent (real bot, full prompt, openai client over HTTP): whatever the small model answers is
    handled, a command runs or is refused with an explanation, and the agent never crashes."""
    model = create_model({"api": "transformers", "model": openai_server.model, "url": openai_server.url,
                          "params": {"max_tokens": 40, "temperature": 0.0, "seed": 1}}, attempts=2, timeout=180)
    settings = make_settings(tmp_path, max_commands=2)
    agent = start_agent_with_model(make_bot, tmp_path, model, settings=settings, prefix="smol")
    try:
        player = make_bot("player")
        player.chat(f"{agent.name}, what is in your inventory? Use !inventory")
        wait_until(lambda: any(t["role"] == "assistant" for t in agent.history.get()), timeout=240, interval=0.5,
                   message="the model's reply in the history")
        wait_until(lambda: agent.is_idle(), timeout=240, interval=0.5, message="the loop to finish")
        turns = agent.history.get()
        assert turns[0]["content"].endswith("Use !inventory")
        assert not any("could not be reached" in t["content"] for t in turns)
        assert len(model.usage_log) >= 1 and not model.usage_log[0].estimated
        for i, turn in enumerate(turns):
            if turn["role"] != "assistant":
                continue
            parsed = agent.commands.parse(turn["content"])
            if parsed.command or parsed.error:  # a command ran (its output follows) or was refused (the reason)
                assert turns[i + 1]["role"] == "system", turns
        player.chat("!stats")  # the agent is still alive and answering
        wait_until(lambda: any("STATS" in e[2] for e in agent.events if e[1] == "output"), timeout=20,
                   message="the stats output")
    finally:
        agent.close()


@pytest.mark.llm
def test_the_committed_probe_set_runs_against_a_real_openai_compatible_server(openai_server, tmp_path):
    """`mindpy probe run`'s path with a real model over HTTP, on two probes of each category of the committed set:
    every question is asked, every reply read or counted unread, and the report is written."""
    from conftest import REPO_ROOT
    from mindpy.probes import read_probes, run_probes, write_report

    loaded = read_probes(REPO_ROOT / "tasks" / "probes_coordqa.jsonl")
    assert not loaded.errors
    chosen = [p for c in ("EC", "ToM", "JP") for p in [q for q in loaded.probes if q.category == c][:2]]
    model = create_model({"api": "transformers", "model": openai_server.model, "url": openai_server.url,
                          "params": {"max_tokens": 12, "temperature": 0.0, "seed": 1}}, attempts=2, timeout=180)
    report = run_probes(chosen, model)
    assert [s.questions for s in report.scores] == [2, 2, 2, 6]
    assert all(not a.error for a in report.answers), [a.error for a in report.answers]
    assert all(a.reply for a in report.answers)
    written = write_report(report, tmp_path / "report")
    assert (tmp_path / "report" / "report.json") in written


@pytest.mark.llm
def test_tom_probes_in_a_defuse_game_are_answered_by_a_real_openai_compatible_server(openai_server):
    """The theory-of-mind probes of a defuse game (the scripted team plays one round) asked of a real model over
    HTTP: every question gets a reply, and each level is scored against the knowledge tracker."""
    from pathlib import Path

    from mindpy.oracle.provider import OracleModel
    from mindpy.tasks.families.defuse.play import TeamPlay, defuse_game
    from mindpy.tasks.loader import read_task_file

    task = read_task_file(Path(__file__).resolve().parents[2] / "tasks" / "defuse_test.json").task("defuse_4")
    game = defuse_game(task, round_limit=1)
    goals = [task.goal_for(i) for i in range(game.agent_count)]
    model = create_model({"api": "transformers", "model": openai_server.model, "url": openai_server.url,
                          "params": {"max_tokens": 8, "temperature": 0.0, "seed": 1}}, attempts=2, timeout=180)
    play = TeamPlay(game, [OracleModel() for _ in goals], goals, names=["a", "b", "c"], tom_probes=True,
                    probe_models=[model] * len(goals), probe_seed=1)
    play.run()
    summary = play.probe_score.summary()
    assert all(s["asked"] > 0 for s in summary.values()), summary
    assert len(model.usage_log) == len(play.probe_records) == sum(s["asked"] for s in summary.values())
    assert all(r["reply"] for r in play.probe_records)   # the server answered every question
    assert all(0 <= s["correct"] <= s["answered"] <= s["asked"] for s in summary.values())
