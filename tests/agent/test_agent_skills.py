"""The skill library through a whole agent: a replay model writes the code, the sandbox runs it against a real bot
on the embedded server, what worked is saved in the agent's library, and after a restart the coding prompt shows it
(retrieved with the real MiniLM embeddings) and new code calls it by name; with the skills_dir setting the library
outlives the run folder, as a later episode's agent (a run folder of its own) finds it."""

from __future__ import annotations

import logging

from agent_helpers import beside_a_log, make_profile, make_settings, system_turns
from conftest import unique_name, wait_until
from mindpy.agent.factory import build_agent, embedding_load
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile

REQUEST = "collect the oak log next to you and make planks"
SKILL = "collect_oak_log_make_planks"
COLLECT_AND_CRAFT = '''```python
print("collected:", skills.collect_blocks("oak_log", 1))
print("crafted:", skills.craft_recipe("oak_planks", 1))
```'''
# Shares more words with the second request than the saved skill does: word overlap would show this one.
DECOY = "# description: turn around and look at a tree from far away\n# saved: 2024-01-01T00:00:00Z\n\nprint('looked')\n"
SECOND_REQUEST = "gather wood from a tree and turn it into planks"
CALLS_THE_SKILL = f'''```python
{SKILL}()
print("planks now:", world.inventory()["items"].get("oak_planks", 0))
```'''


def said_after(agent, words: str) -> bool:
    return any(kind == "said" and words in text for _, kind, text in agent.events)


def test_code_that_worked_is_saved_listed_and_called_by_name_after_a_restart(make_bot, tmp_path, caplog):
    name = unique_name("coder")
    library = tmp_path / "library"  # the skills_dir setting: the library outside the run folder (bots/)
    settings = make_settings(tmp_path, allow_insecure_coding=True, skills_dir=str(library))
    profile = load_profile(make_profile(tmp_path, name, embedding="local", skills_in_prompt=1), settings=settings)
    folder = library / name
    bot = make_bot(exact_name=name)
    first = build_agent(profile, bot, settings, model=ReplayModel([f'!newAction("{REQUEST}")', COLLECT_AND_CRAFT,
                                                                   "Done: I have planks now."], default="Okay."))
    first.start()
    try:
        beside_a_log(first)
        first.handle_message("system", "make some planks")
        wait_until(lambda: (folder / f"{SKILL}.py").exists(), timeout=60, message=f"the saved skill: {first.events}")
        assert (folder / f"{SKILL}.py").read_text().endswith(COLLECT_AND_CRAFT.split("\n", 1)[1][:-3])
        assert first.bot.inventory().get("oak_planks") == 4
        assert f"- {SKILL}(): {REQUEST} (saved " in first.run_command("!skills")
    finally:
        first.close()

    # A restart: a new agent for the same bot reads its folder, where a hand-written skill and a broken file lie too.
    # It plays in another run folder, as a later episode's agent does: the skills_dir setting finds the library.
    (folder / "look_at_tree.py").write_text(DECOY)
    (folder / "broken.py").write_text("print('no header')\n")
    later = make_settings(tmp_path / "later_episode", allow_insecure_coding=True, skills_dir=str(library))
    model = ReplayModel([f'!newAction("{SECOND_REQUEST}")', CALLS_THE_SKILL, "Done."], default="Okay.")
    with caplog.at_level(logging.WARNING, logger="mindpy.coding.library"):
        second = build_agent(profile, bot, later, model=model)
    assert not (tmp_path / "later_episode" / "bots" / name / "skills").exists()
    assert any("broken.py skipped" in r.getMessage() for r in caplog.records)
    second.start()
    try:
        loading = embedding_load()
        assert loading is not None and loading.wait(60), "the embedding model did not load"
        beside_a_log(second)
        second.handle_message("system", "more planks please")
        wait_until(lambda: second.bot.inventory().get("oak_planks") == 8, timeout=60,
                   message=f"planks from the saved skill: {system_turns(second)}")
        wait_until(lambda: any("planks now: 8" in t for t in system_turns(second)), timeout=10,
                   message="the new code's output")
        coding_prompt = next(c["system"] for c in model.calls if "acts by writing Python code" in c["system"])
        assert f"{SKILL}(): {REQUEST}" in coding_prompt
        assert "look_at_tree" not in coding_prompt  # k = 1: the embeddings chose, not shared words
        listing = second.run_command("!skills")
        assert SKILL in listing and "look_at_tree" in listing and "broken" not in listing
    finally:
        second.close()


def test_failed_code_and_code_followed_by_a_failure_are_not_saved(make_bot, tmp_path):
    name = unique_name("coder")
    settings = make_settings(tmp_path, allow_insecure_coding=True)
    profile = load_profile(make_profile(tmp_path, name), settings=settings)
    replies = ['!newAction("count the diamonds you carry")',
               '```python\nprint(world.inventory()["items"]["diamond"])\n```', "I cannot.", "No.", "No.",
               '!newAction("say hello")', '```python\nprint("hello")\n```',
               '!craftRecipe("diamond_pickaxe", 1)', "I could not make it."]
    agent = build_agent(profile, make_bot(exact_name=name), settings, model=ReplayModel(replies, default="Okay."))
    agent.start()
    try:
        agent.handle_message("system", "do your things")
        wait_until(lambda: said_after(agent, "I could not make it."), timeout=60,
                   message=f"the end of the turn: {agent.events}")
        turns = system_turns(agent)
        assert any("KeyError: 'diamond'" in t for t in turns) and any("hello" in t for t in turns)
        assert any(kind == "command failed" and "craftRecipe" in text for _, kind, text in agent.events)
        assert not list((tmp_path / "bots" / name / "skills").glob("*.py"))
        assert "no saved skills" in agent.run_command("!skills")
    finally:
        agent.close()
