"""Importing CoordQA sheets (LLM-Coordination's CSV layout) as probes, and scoring them by the paper's answer rule.

The sheet here is made up for these tests: the paper's columns, our own scenes."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import pytest

from mindpy.probes import Probe, build_prompt, read_probes, run_probes
from mindpy.probes.answers import letter, parse_answer, parse_answer_coordqa
from mindpy.probes.cli import register
from mindpy.probes.coordqa import CoordQAError, import_coordqa, split_question
from mindpy.probes.record import parse_probes, write_probes

# The paper's columns in its order, with the quirks its sheets have: a column name written twice (the first is
# used), odd capitals ("TOM QUestion" matches "TOM Question"), columns we do not read.
HEADER = ["EC Question", "EC Answer", "EC Answer Ordinal", "JP Question", "JP Answer", "JP Answer Ordinal",
          "TOM Question", "TOM Answer", "TOM Answer Ordinal", "Game Description", "Scenario", "Tags",
          "Game Description", "JP Directive", "TOM Directive", "EC Directive", "Game", "Concept", "TOM QUestion",
          "Model outputs"]


def scene(state: str, question: str, options: list[str], heading: str = "Available Answers:") -> str:
    lines = [f"{letter(i)}. {o}" for i, o in enumerate(options)]
    return f"{state}\n\n\n{question}\n{heading}\n" + "\n".join(lines) + "\n"


KILN = "Ann stands by the kiln. Ben holds 2 clay.\nThe kiln needs 3 clay to fire a pot."
RAFT = "Ann is on the left bank with a paddle. Ben is on the raft.\nThe river runs east."
ROWS = [
    {"Game": "Kiln", "Concept": "count",
     "EC Question": scene(KILN, "How much more clay does the kiln need after Ben's?", ["0", "1", "2", "3"]),
     "EC Answer": "1", "EC Answer Ordinal": "B",
     "TOM Question": scene(KILN, "What does Ben intend to do?", ["put clay in the kiln.", "wait.", "leave."],
                           "Available Actions:"),
     "TOM Answer": "put clay in the kiln.", "TOM Answer Ordinal": "A",
     "JP Question": scene(KILN, "What action should I take next?", ["fetch clay.", "wait.", "light the kiln.",
                                                                    "fetch more clay."], "Available Actions:"),
     "JP Answer": "fetch clay.", "JP Answer Ordinal": "A, D"},          # two right answers, a space after the comma
    {"Game": "Kiln", "Concept": "firing",
     "EC Question": scene(KILN + " Ann lit the kiln.", "Is the kiln firing?", ["Yes.", "No."]),
     "EC Answer": "Yes.", "EC Answer Ordinal": "A",
     "TOM Question": scene(KILN, "What does Ben intend to do?", ["wait.", "leave.", "take a pot."]),
     "TOM Answer": "take a pot.", "TOM Answer Ordinal": "C",
     "JP Question": scene(KILN, "What action should I take next?", ["wait.", "stoke the fire."]),
     "JP Answer": "stoke the fire.", "JP Answer Ordinal": "B"},
    {"Game": "Raft", "Concept": "crossing",
     # two options written with one letter: the answer text says which B is meant
     "EC Question": f"{RAFT}\n\nWho can steer the raft?\nAvailable Answers:\nA. Ann.\nB. Ben.\nB. Nobody.\n",
     "EC Answer": "Nobody", "EC Answer Ordinal": "B",
     "TOM Question": scene(RAFT, "What does Ben intend to do?", ["wait for the paddle.", "swim."]),
     "TOM Answer": "wait for the paddle.", "TOM Answer Ordinal": "A",
     "JP Question": scene(RAFT, "What action should I take next?", ["throw the paddle to Ben.", "walk away.",
                                                                    "wait."]),
     "JP Answer": "throw the paddle to Ben.", "JP Answer Ordinal": "A"},
    {"Game": "Raft", "Concept": "bank",
     "EC Question": scene(RAFT, "Which bank is Ann on?", ["left", "right"]),
     "EC Answer": "left", "EC Answer Ordinal": "a",                    # a small letter
     "TOM Question": scene(RAFT, "What does Ben intend to do?", ["row east.", "row west.", "wait."]),
     "TOM Answer": "wait.", "TOM Answer Ordinal": "C",
     "JP Question": scene(RAFT, "What action should I take next?", ["board the raft.", "wait."]),
     "JP Answer": "board the raft.", "JP Answer Ordinal": "A"},
]
COMMON = {"Game Description": "Two players share a workshop and a river.", "Scenario": "nan", "Tags": "",
          "JP Directive": "Pick my next action. Action: <action>", "TOM Directive": "Guess my partner's action.",
          "EC Directive": "Answer about the scene. Answer: <answer>", "TOM QUestion": "an older draft",
          "Model outputs": "ignored"}


def write_sheet(path: Path, rows: list[dict], header: list[str] = HEADER) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for row in rows:
            values = {**COMMON, **row}
            writer.writerow([values.get(name, "") for name in header])
    return path


@pytest.fixture
def sheet(tmp_path) -> Path:
    return write_sheet(tmp_path / "coordqa_test.csv", ROWS)


def by_id(probes: list[Probe]) -> dict[str, Probe]:
    return {p.id: p for p in probes}


def test_one_probe_per_row_and_category_with_game_and_source(sheet):
    result = import_coordqa([sheet])
    assert result.rows == 4 and result.refused == [] and result.duplicates == []
    assert [sum(p.category == c for p in result.probes) for c in ("EC", "ToM", "JP")] == [4, 4, 4]
    games = [p.meta["game"] for p in result.probes]
    assert games.count("Kiln") == 6 and games.count("Raft") == 6
    assert len({p.id for p in result.probes}) == 12
    first = by_id(result.probes)["coordqa-coordqa-test-001-ec"]
    assert first.source_task == "coordqa_test.csv row 1" and first.meta["row"] == 1
    assert first.meta["concept"] == "count" and "scenario" not in first.meta  # "nan" is an empty cell
    assert all(p.matching == "coordqa" for p in result.probes)
    assert first.context == COMMON["Game Description"] and first.system == COMMON["EC Directive"]
    jp = by_id(result.probes)["coordqa-coordqa-test-001-jp"]
    assert jp.system == COMMON["JP Directive"]


def test_state_question_options_and_answers_are_kept(sheet):
    probes = by_id(import_coordqa([sheet]).probes)
    ec = probes["coordqa-coordqa-test-001-ec"]
    assert ec.state == KILN and ec.question == "How much more clay does the kiln need after Ben's?"
    assert ec.options == ["0", "1", "2", "3"] and ec.answer == 1 and ec.also_right == []
    assert ec.meta["answer_text"] == "1"
    jp = probes["coordqa-coordqa-test-001-jp"]
    assert jp.options == ["fetch clay.", "wait.", "light the kiln.", "fetch more clay."]
    assert (jp.answer, jp.also_right, jp.right) == (0, [3], [0, 3])
    assert probes["coordqa-coordqa-test-004-ec"].answer == 0  # ordinal "a"
    tom = probes["coordqa-coordqa-test-002-tom"]
    assert tom.options[tom.answer] == "take a pot." and tom.question == "What does Ben intend to do?"


def test_two_options_with_one_letter_are_told_apart_by_the_answer_text(sheet):
    ec = by_id(import_coordqa([sheet]).probes)["coordqa-coordqa-test-003-ec"]
    assert ec.options == ["Ann.", "Ben.", "Nobody."] and ec.answer == 2
    assert ec.meta["letters_as_written"] == "ABB"
    assert "A. Ann.\nB. Ben.\nC. Nobody." in build_prompt(ec)  # shown lettered in order


def test_probes_round_trip_and_our_own_probes_keep_their_lines(sheet, tmp_path):
    probes = import_coordqa([sheet]).probes
    write_probes(tmp_path / "p.jsonl", probes)
    loaded = read_probes(tmp_path / "p.jsonl")
    assert loaded.errors == [] and loaded.probes == probes
    own = Probe(id="x", category="EC", state="s", question="q?", options=["a", "b"], answer=1)
    assert set(own.to_dict()) == {"id", "category", "state", "question", "options", "answer", "source_task", "meta"}
    bad = json.dumps({**probes[0].to_dict(), "id": "y", "also_right": [probes[0].answer]})
    assert "also_right" in parse_probes(bad).errors[0]
    assert "matching 'fuzzy'" in parse_probes(json.dumps({**own.to_dict(), "matching": "fuzzy"})).errors[0]


def test_a_row_that_ends_early_is_refused_for_its_missing_cells_only(tmp_path):
    path = write_sheet(tmp_path / "short.csv", ROWS)
    lines = path.read_text(encoding="utf-8")
    rows = list(csv.reader(lines.splitlines(keepends=True)))
    rows[2] = rows[2][:6]  # row 2 stops after "JP Answer Ordinal": no TOM cells
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    result = import_coordqa([path])
    assert len(result.refused) == 1
    assert "row 2 (line" in result.refused[0] and ": ToM: no 'TOM Question' cell" in result.refused[0]
    assert "\n" not in result.refused[0]
    assert [sum(p.category == c for p in result.probes) for c in ("EC", "ToM", "JP")] == [4, 3, 4]


@pytest.mark.parametrize("change, words", [
    ({"JP Answer Ordinal": "E"}, "JP: answer 'E' is not among its options (A, B, C, D)"),
    ({"JP Answer Ordinal": ""}, "JP: empty 'JP Answer Ordinal' cell"),
    ({"JP Answer Ordinal": "fetch clay"}, "JP: answer ordinal 'fetch clay' is not an option letter"),
    ({"JP Question": "What action should I take next?"}, "JP: no list of lettered options"),
])
def test_a_bad_answer_or_question_is_one_line_naming_the_row(tmp_path, change, words):
    path = write_sheet(tmp_path / "bad.csv", [ROWS[0] | change] + ROWS[1:])
    result = import_coordqa([path])
    assert len(result.refused) == 1 and result.refused[0].startswith(f"{path}: row 1 (line 2): ")
    assert words in result.refused[0]
    assert len(result.probes) == 11 and "coordqa-bad-001-jp" not in by_id(result.probes)


@pytest.mark.parametrize("content, words", [
    (b"", "empty file"),
    (b"  \n\n", "empty file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a CSV file"),
    (b'{"id": "p1", "question": "q?"}\n', "not a CoordQA sheet"),
    (b"EC Question,EC Answer Ordinal\n", "missing column(s) 'TOM Question', 'TOM Answer Ordinal', 'JP Question'"),
])
def test_files_that_are_not_sheets_are_refused_whole(tmp_path, content, words):
    path = tmp_path / "x.csv"
    path.write_bytes(content)
    with pytest.raises(CoordQAError, match=None) as caught:
        import_coordqa([path])
    assert words in str(caught.value) and str(path) in str(caught.value)


def test_a_header_without_an_answer_column_is_refused(tmp_path):
    path = write_sheet(tmp_path / "nojp.csv", ROWS, [h for h in HEADER if h != "JP Answer Ordinal"])
    with pytest.raises(CoordQAError, match="missing column.*'JP Answer Ordinal'"):
        import_coordqa([path])


def test_the_same_sheet_twice_gives_each_question_once(sheet, tmp_path):
    copy = tmp_path / "again.csv"
    copy.write_bytes(sheet.read_bytes())
    result = import_coordqa([sheet, copy])
    assert result.rows == 8 and len(result.probes) == 12 and len(result.duplicates) == 12


def test_split_question_reads_the_heading_and_options():
    state, question, written, options = split_question("s1\ns2\n\nWhy?\nAvailable Actions:  \nA. x\nC.y\n\n")
    assert (state, question, written, options) == ("s1\ns2", "Why?", ["A", "C"], ["x", "y"])


def test_the_papers_rule_reads_letters_only_before_a_stop_and_otherwise_the_closest_text():
    options = ["fetch clay.", "wait.", "light the kiln."]
    assert parse_answer_coordqa("Explanation: Ben is slow.\nAction: C. light the kiln", options) == 2
    assert parse_answer_coordqa("Answer: B)", options) == 1
    assert parse_answer_coordqa("Answer: light it now", options) == 2      # no letter: the closest option
    assert parse_answer_coordqa("I would just wait", options) == 1
    assert parse_answer_coordqa("Answer: D.", options) is None            # a letter beyond the options
    assert parse_answer_coordqa("Action: A. fetch\nAnswer: C.", options) == 0  # "Action:" before "Answer:"
    # a letter with no stop after it is read as text: "B" is like no option, so the first is taken; ours reads B
    assert parse_answer_coordqa("Answer: B", ["wait", "craft", "chop"]) == 0
    assert parse_answer("Answer: B", ["wait", "craft", "chop"]) == 1
    assert parse_answer_coordqa("", options) == 0


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return args.func(args)


def answers_file(path: Path, replies: list[str]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in replies) + "\n")
    return f"replay:{path}"


def test_imported_probes_score_full_marks_with_the_truth_and_zero_with_a_wrong_answer(sheet, tmp_path, capsys):
    out = tmp_path / "coordqa.jsonl"
    assert run_cli("probe", "import", "coordqa", str(sheet), "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "read 4 rows from 1 file(s); wrote 12 probes" in printed
    assert "Kiln" in printed and "Raft" in printed
    probes = read_probes(out).probes
    truth = answers_file(tmp_path / "truth.jsonl", [f"Explanation: known.\nAnswer: {letter(p.answer)}." for p in probes])
    assert run_cli("probe", "run", str(out), "--model", truth, "--out", str(tmp_path / "truth")) == 0
    scores = json.loads((tmp_path / "truth" / "report.json").read_text())["scores"]
    assert {s["category"]: (s["mean"], s["unparsed"]) for s in scores} == \
        {"EC": (1.0, 0), "ToM": (1.0, 0), "JP": (1.0, 0), "all": (1.0, 0)}
    # the second right answer counts too
    other = [f"Action: {letter(p.right[-1])}. {p.options[p.right[-1]]}" for p in probes]
    report = run_probes(probes, create_replay(other))
    assert report.score("all").mean == 1.0
    # always the first option that is wrong: nothing right
    wrong = answers_file(tmp_path / "wrong.jsonl",
                         [f"Answer: {letter(min(set(range(len(p.options))) - set(p.right)))}." for p in probes])
    assert run_cli("probe", "run", str(out), "--model", wrong, "--out", str(tmp_path / "wrong")) == 0
    scores = json.loads((tmp_path / "wrong" / "report.json").read_text())["scores"]
    assert {s["category"]: s["mean"] for s in scores} == {"EC": 0.0, "ToM": 0.0, "JP": 0.0, "all": 0.0}
    # the random baseline counts every right option: the JP question with two right answers of four is 1/2
    jp = next(s for s in scores if s["category"] == "JP")
    assert jp["random_baseline"] == pytest.approx((2 / 4 + 1 / 2 + 1 / 3 + 1 / 2) / 4)


def create_replay(replies: list[str]):
    from mindpy.models.replay import ReplayModel

    return ReplayModel(replies)


def test_the_probe_is_asked_with_its_context_and_system_message(sheet):
    probe = import_coordqa([sheet]).probes[0]
    model = create_replay(["Answer: B."])
    run_probes([probe], model)
    call = model.calls[0]
    assert call["system"] == COMMON["EC Directive"]
    content = call["messages"][0]["content"]
    assert content.startswith(COMMON["Game Description"]) and KILN in content and "'Answer: B.'" in content


def test_cli_lists_refused_rows_and_strict_writes_nothing(tmp_path, capsys):
    path = write_sheet(tmp_path / "bad.csv", [ROWS[0] | {"EC Answer Ordinal": "Q"}] + ROWS[1:])
    out = tmp_path / "p.jsonl"
    assert run_cli("probe", "import", "coordqa", str(path), "--out", str(out)) == 0
    captured = capsys.readouterr()
    assert "refused " in captured.err and "row 1 (line 2): EC: answer 'Q'" in captured.err
    assert "(1 refused, 0 repeated)" in captured.out and len(read_probes(out).probes) == 11
    out.unlink()
    assert run_cli("probe", "import", "coordqa", str(path), "--out", str(out), "--strict") == 1
    assert not out.exists() and "--strict" in capsys.readouterr().err
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert run_cli("probe", "import", "coordqa", str(empty), "--out", str(out)) == 1
    assert "empty file" in capsys.readouterr().err and not out.exists()
