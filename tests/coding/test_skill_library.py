"""The skill library without a server: names, the skill files and their index, skipping files that cannot be used,
saved skills called by name in the real sandbox, and the rule that decides what is saved.

The bots and the model are in tests/agent/test_agent_skills.py; here the sandbox runs for real (a child process
per run) with no bot behind `skills.*`.
"""

from __future__ import annotations

import json
import logging
import shutil

from mindpy.coding import CodingOutcome, check_code, run_code
from mindpy.coding.library import SkillLibrary, SkillRecorder
from mindpy.coding.library.naming import describe, skill_name

PLANKS = 'print("crafted:", skills.craft_recipe("oak_planks", 1))'


def test_a_name_and_a_description_come_from_the_request():
    assert skill_name("Collect the oak log next to you and make planks") == "collect_oak_log_make_planks"
    assert skill_name("collect the oak log", taken={"collect_oak_log"}) == "collect_oak_log_2"
    assert skill_name("print it") == "print_skill"  # never hides a name the code uses
    assert skill_name("!!! ???") == "skill"
    assert skill_name("Place the 45 missing blocks of level 0") == "place_45_missing_blocks_level"
    assert skill_name("3 torches on the wall") == "skill_3_torches_wall"
    assert describe("  build\n a   wall ") == "build a wall"
    assert len(describe("word " * 100)) <= 203


def test_a_saved_skill_is_a_readable_file_listed_in_the_index_and_loaded_again(tmp_path):
    library = SkillLibrary(tmp_path / "skills", agent="andy")
    skill = library.save("collect the oak log next to you and make planks", PLANKS + "\n")
    assert skill is not None and skill.name == "collect_oak_log_make_planks"
    text = (tmp_path / "skills" / "collect_oak_log_make_planks.py").read_text()
    assert text.startswith("# description: collect the oak log next to you and make planks\n# saved: 20")
    assert text.endswith("\n\n" + PLANKS + "\n") and "# agent: andy" in text
    index = json.loads((tmp_path / "skills" / "index.json").read_text())
    assert [(s["name"], s["signature"], s["file"]) for s in index["skills"]] == \
        [("collect_oak_log_make_planks", "collect_oak_log_make_planks()", "collect_oak_log_make_planks.py")]

    assert library.save("make planks again", PLANKS) == skill  # the same code is one skill
    assert SkillLibrary(tmp_path / "skills").skills() == [skill]  # a restart
    shutil.copytree(tmp_path / "skills", tmp_path / "bots" / "bob" / "skills")  # shared with another agent
    again = SkillLibrary(tmp_path / "bots" / "bob" / "skills", agent="bob")
    assert again.skills() == [skill]
    listing = again.listing()
    assert listing.startswith("SAVED_SKILLS (1;")
    assert f"- collect_oak_log_make_planks(): collect the oak log next to you and make planks (saved " \
           f"{skill.saved[:10]}" in listing
    assert "no saved skills" in SkillLibrary(tmp_path / "empty").listing()


def test_files_that_cannot_be_used_are_skipped_with_a_one_line_warning(tmp_path, caplog):
    folder = tmp_path / "skills"
    SkillLibrary(folder).save("make planks", PLANKS)
    (folder / "not_text.py").write_bytes(b"# description: x\n# saved: now\n\n\xff\xfe print(1)\n")
    (folder / "no_header.py").write_text("print('hello')\n")
    (folder / "escapes.py").write_text("# description: read files\n# saved: now\n\nimport os\nprint(os.listdir())\n")
    (folder / "broken.py").write_text("# description: broken\n# saved: now\n\nfor x in\n")
    (folder / "Bad-Name.py").write_text("# description: x\n# saved: now\n\nprint(1)\n")
    (folder / "calls_another.py").write_text("# description: planks twice\n# saved: now\n\nmake_planks()\n"
                                             "make_planks()\n")
    with caplog.at_level(logging.WARNING, logger="mindpy.coding.library"):
        library = SkillLibrary(folder)
    assert sorted(s.name for s in library.skills()) == ["calls_another", "make_planks"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 5 and all("\n" not in w and "skipped" in w for w in warnings), warnings
    for name, why in (("not_text", "not UTF-8"), ("no_header", "no description or saved"),
                      ("escapes", "importing os is not allowed"), ("broken", "syntax error"),
                      ("Bad-Name", "lower-case letters")):
        assert any(f"{name}.py" in w and why in w for w in warnings), (name, warnings)
    # a new skill never takes the name of a file that was skipped
    assert library.save("no header", "print('new')").name == "no_header_2"


def test_saved_skills_are_functions_the_code_calls_by_name_in_the_sandbox():
    library = {"say_hello": "greeting = 'hello'\nprint(greeting, 'from a skill')",
               "say_twice": "say_hello()\nsay_hello()",
               "fails": "items = {}\nprint(items['diamond'])"}
    run = run_code("say_twice()\nprint('after the skill')", timeout=20, library=library)
    assert run.ok, run.error
    assert run.output == "hello from a skill\nhello from a skill\nafter the skill\n"
    failed = run_code("print('before')\nfails()", timeout=20, library=library)
    assert not failed.ok and "KeyError: 'diamond'" in failed.error and "line 2: fails()" in failed.error
    # without the library the name is unknown: the checker refuses the code before anything runs
    refused = run_code("say_hello()", timeout=20)
    assert refused.refused and "the name say_hello is not defined" in refused.error
    assert check_code("say_hello()", extra_names=library).ok


def test_a_skill_runs_under_the_sandbox_like_the_code():
    # a file edited by hand is checked when loaded; were one to slip through, the child's own layers still hold
    sneaky = "bi = print.__globals__['__builtins__']\nbi.__import__('socket')"
    run = run_code("sneaky()", timeout=20, library={"sneaky": sneaky})
    assert not run.ok and "blocked by the sandbox: import" in run.error, run.error
    # the function that runs a skill holds `exec`: it still runs only the skills' own code
    reuse = ("f = lambda: print('escaped')\nfor cell in hello.__closure__:\n    v = cell.cell_contents\n"
             "    if callable(v) and v.__name__ == 'exec':\n        v(f.__code__, {})\n")
    run = run_code(reuse, timeout=20, library={"hello": "print('hello')"}, check=False)
    assert not run.ok and "blocked by the sandbox" in run.error and "escaped" not in run.output, run.error


def outcome(ok: bool, code: str = PLANKS) -> CodingOutcome:
    return CodingOutcome(ok, "", code=code)


def test_with_a_task_code_is_saved_when_the_score_goes_up(tmp_path):
    score = [0.0]
    recorder = SkillRecorder(SkillLibrary(tmp_path / "a"), score=lambda: score[0])
    before = recorder.begin()
    score[0] = 0.5  # during the run
    assert recorder.ran("make planks", outcome(True), before).name == "make_planks"

    flat = SkillRecorder(SkillLibrary(tmp_path / "b"), score=lambda: score[0])
    before = flat.begin()
    assert flat.ran("make planks", outcome(True), before) is None
    assert flat.command_ended(failed=False) is None  # the !newAction's own end
    assert flat.command_ended(failed=False) is None and len(flat.library) == 0  # no progress by the next one

    later = SkillRecorder(SkillLibrary(tmp_path / "c"), score=lambda: score[0])
    before = later.begin()
    later.ran("make planks", outcome(True), before)
    score[0] = 1.0  # right after the run: the task checker ticks every 0.3 s
    later.command_ended(failed=False)
    assert later.command_ended(failed=True).name == "make_planks"  # the score decides, not the command


def test_without_a_task_the_next_turn_decides(tmp_path):
    recorder = SkillRecorder(SkillLibrary(tmp_path / "a"))
    recorder.ran("make planks", outcome(True), recorder.begin())
    recorder.command_ended(failed=False)
    assert recorder.command_ended(failed=True) is None and len(recorder.library) == 0

    recorder.ran("make planks", outcome(True), recorder.begin())
    recorder.command_ended(failed=False)
    assert recorder.replied().name == "make_planks"  # words without a command: no error followed

    recorder.ran("look around", outcome(False, "print(1)"), recorder.begin())  # failed code: never a candidate
    recorder.command_ended(failed=False)
    assert recorder.replied() is None
    recorder.ran("look around", outcome(True, "print(2)"), recorder.begin())
    assert recorder.close() is None and len(recorder.library) == 1  # closed before its next turn: unconfirmed
