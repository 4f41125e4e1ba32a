"""Running probe sets: scoring against ground truth and random guessing, trials, reports, bad lines, the CLI."""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import pytest

from mindpy.models import ChatModel, Usage
from mindpy.models.replay import ReplayModel
from mindpy.probes import CATEGORIES, Probe, build_prompt, format_table, read_probes, run_probes, write_report
from mindpy.probes.answers import letter
from mindpy.probes.cli import register
from mindpy.probes.record import parse_probes, write_probes

EXAMPLE = Path(__file__).resolve().parents[2] / "tasks" / "probes_example.jsonl"


class GuessingModel(ChatModel):
    """Answers every question with a uniformly random letter among its options (seeded)."""

    api = "guess"

    def __init__(self, seed: int):
        super().__init__(f"seed{seed}")
        self.rng = random.Random(seed)

    def _complete(self, messages, system):
        count = len(re.findall(r"^[A-Z]\. ", messages[-1]["content"], re.M))
        return f"Answer: {letter(self.rng.randrange(count))}", Usage()


def generated_probes(count: int, seed: int) -> list[Probe]:
    rng = random.Random(seed)
    probes = []
    for i in range(count):
        n = rng.randint(2, 5)
        probes.append(Probe(id=f"g{i}", category=CATEGORIES[i % 3], state=f"scene {i}", question=f"question {i}?",
                            options=[f"option {k} of {i}" for k in range(n)], answer=rng.randrange(n)))
    return probes


def example_probes() -> list[Probe]:
    loaded = read_probes(EXAMPLE)
    assert not loaded.errors
    return loaded.probes


def test_example_file_covers_every_category_with_two_or_three_questions():
    probes = example_probes()
    assert 6 <= len(probes) <= 9
    for category in CATEGORIES:
        assert 2 <= sum(p.category == category for p in probes) <= 3
    assert all(p.meta.get("example") for p in probes)
    assert {p.source_task.split("_")[1] for p in probes} == {"cooking", "crafting"}


def test_prompt_has_state_question_lettered_options_and_the_answer_instruction():
    probe = example_probes()[0]
    prompt = build_prompt(probe)
    assert probe.state in prompt and probe.question in prompt
    for i, option in enumerate(probe.options):
        assert f"{letter(i)}. {option}" in prompt
    assert "Answer:" in prompt


def test_an_answerer_that_knows_the_truth_scores_full_marks_and_a_wrong_one_zero():
    probes = example_probes()
    right = ReplayModel([f"Answer: {letter(p.answer)}." for p in probes] * 2)
    report = run_probes(probes, right, trials=2)
    assert [s.category for s in report.scores] == ["EC", "ToM", "JP", "all"]
    for s in report.scores:
        assert (s.mean, s.std, s.per_trial, s.unparsed) == (1.0, 0.0, [1.0, 1.0], 0)
    assert len(right.calls) == 2 * len(probes) and right.calls[0]["messages"][0]["content"] == build_prompt(probes[0])

    wrong = ReplayModel([f"Answer: {letter((p.answer + 1) % len(p.options))}" for p in probes])
    assert run_probes(probes, wrong).score("all").mean == 0.0


def test_a_random_guesser_lands_near_the_random_baseline():
    probes = generated_probes(300, seed=7)
    report = run_probes(probes, GuessingModel(seed=11), trials=3)
    overall = report.score("all")
    expected = sum(1 / len(p.options) for p in probes) / len(probes)
    assert overall.random_baseline == pytest.approx(expected)
    assert 0.3 < expected < 0.4  # 2-5 options
    assert abs(overall.mean - overall.random_baseline) < 0.05
    for category in CATEGORIES:
        s = report.score(category)
        assert s.questions == 100 and abs(s.mean - s.random_baseline) < 0.1
    assert overall.std > 0  # independent guesses differ from trial to trial


def test_trials_give_mean_and_spread():
    probes = example_probes()
    # trial 0 all right, trial 1 all wrong, trial 2 right on the first three only
    replies = [letter(p.answer) for p in probes]
    replies += [letter((p.answer + 1) % len(p.options)) for p in probes]
    replies += [letter(p.answer if i < 3 else (p.answer + 1) % len(p.options)) for i, p in enumerate(probes)]
    report = run_probes(probes, ReplayModel(replies), trials=3)
    overall = report.score("all")
    assert overall.per_trial == pytest.approx([1.0, 0.0, 3 / len(probes)])
    mean = (1 + 3 / len(probes)) / 3
    assert overall.mean == pytest.approx(mean)
    assert overall.std == pytest.approx((sum((x - mean) ** 2 for x in overall.per_trial) / 3) ** 0.5)
    assert "±" in format_table(report)


def test_unreadable_replies_and_failed_calls_count_as_wrong():
    probes = example_probes()[:3]
    report = run_probes(probes, ReplayModel([f"Answer: {letter(probes[0].answer)}", "no idea"]))  # 3rd call fails
    assert report.score("all").per_trial == pytest.approx([1 / 3])
    assert report.score("all").unparsed == 2
    assert report.answers[2].error and not report.answers[2].correct


def test_malformed_lines_are_listed_with_their_line_numbers_and_good_ones_used(tmp_path):
    good = generated_probes(2, seed=1)
    path = tmp_path / "p.jsonl"
    write_probes(path, good)
    lines = path.read_text().splitlines()
    bad = {
        3: "{not json",
        4: json.dumps({**good[0].to_dict(), "id": "x", "category": "XY"}),
        5: json.dumps({**good[0].to_dict(), "id": "y", "answer": 9}),
        6: json.dumps({**good[0].to_dict(), "id": "z", "colour": "red"}),
        7: json.dumps(good[1].to_dict()),                               # duplicate id
        8: json.dumps({"id": "w", "category": "EC"}),
    }
    path.write_text("\n".join(lines + list(bad.values())) + "\n")
    loaded = read_probes(path)
    assert [p.id for p in loaded.probes] == [p.id for p in good]
    assert [int(re.search(r"line (\d+):", e).group(1)) for e in loaded.errors] == list(bad)
    assert all("\n" not in e for e in loaded.errors)
    assert "category 'XY'" in loaded.errors[1] and f"0..{len(good[0].options) - 1}" in loaded.errors[2] and "colour" in loaded.errors[3]
    assert "duplicate" in loaded.errors[4] and "missing" in loaded.errors[5]


@pytest.mark.parametrize("changes, field, expected", [
    ({"answer": "B"}, "answer", 1),                      # the answer as its letter
    ({"answer": " c "}, "answer", 2),
    ({"options": [0, 1, 3.5]}, "options", ["0", "1", "3.5"]),  # numbers written without quotes
    ({"category": "tom"}, "category", "ToM"),            # the category in any case
    ({"state": None, "meta": None}, "state", ""),        # null for an optional field
])
def test_hand_written_lines_are_read(changes, field, expected):
    line = {"id": "h1", "category": "EC", "state": "s", "question": "q?", "options": ["x", "y", "z"], "answer": 0}
    loaded = parse_probes(json.dumps({**line, **changes}))
    assert not loaded.errors and getattr(loaded.probes[0], field) == expected


@pytest.mark.parametrize("changes, words", [
    ({"id": None}, "'id' must be text, got null"),
    ({"question": None}, "'question' must be text, got null"),
    ({"options": ["x", None]}, "'options' must be text"),
    ({"answer": "D"}, "(or its letter A..C), got 'D'"),
    ({"answer": "1"}, "got '1'"),
])
def test_hand_written_mistakes_are_listed(changes, words):
    line = {"id": "h1", "category": "EC", "question": "q?", "options": ["x", "y", "z"], "answer": 0}
    loaded = parse_probes(json.dumps({**line, **changes}))
    assert loaded.probes == [] and len(loaded.errors) == 1 and words in loaded.errors[0]


def test_a_byte_order_mark_and_windows_line_ends_are_read(tmp_path):
    probes = generated_probes(2, seed=5)
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(json.dumps(p.to_dict()) for p in probes).encode())
    loaded = read_probes(path)
    assert loaded.errors == [] and loaded.probes == probes


def test_probes_round_trip_through_jsonl(tmp_path):
    probes = generated_probes(5, seed=3)
    write_probes(tmp_path / "p.jsonl", probes)
    assert read_probes(tmp_path / "p.jsonl").probes == probes
    assert parse_probes("").probes == []


@pytest.mark.parametrize("kwargs, message", [
    ({"trials": 0}, "trials must be at least 1"),
    ({"probes": []}, "no probes"),
])
def test_bad_run_arguments_are_clear_errors(kwargs, message):
    args = {"probes": example_probes(), "model": ReplayModel([], default="A"), "trials": 1} | kwargs
    with pytest.raises(ValueError, match=message):
        run_probes(**args)


def test_report_files_hold_the_scores(tmp_path):
    probes = example_probes()
    report = run_probes(probes, ReplayModel([letter(p.answer) for p in probes]))
    written = write_report(report, tmp_path / "out")
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {s["category"]: s["mean"] for s in data["scores"]} == {"EC": 1.0, "ToM": 1.0, "JP": 1.0, "all": 1.0}
    assert len(data["answers"]) == len(probes)
    assert (tmp_path / "out" / "report.txt").read_text().startswith("model ")
    pytest.importorskip("matplotlib")
    assert (tmp_path / "out" / "report.png") in written and (tmp_path / "out" / "report.png").stat().st_size > 1000


def test_cli_runs_a_probe_file(tmp_path, capsys):
    probes = example_probes()
    script = tmp_path / "answers.jsonl"
    script.write_text("\n".join(json.dumps(f"Answer: {letter(p.answer)}") for p in probes) + "\n")
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["probe", "run", str(EXAMPLE), "--model", f"replay:{script}", "--out",
                              str(tmp_path / "out")])
    assert args.func(args) == 0
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["source"] == str(EXAMPLE) and data["scores"][-1]["mean"] == 1.0
    assert "all" in capsys.readouterr().out


def test_cli_refuses_a_model_spec_that_does_not_parse(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["probe", "run", str(EXAMPLE), "--model", "anthropic/", "--out", str(tmp_path)])
    assert args.func(args) == 1
    assert "--model: model 'anthropic/': no model name" in capsys.readouterr().err
