"""The CoBlock method in the prompts: the `partner_modelling` and `reflection` options (and the prompts left as they
were without them), the coblock base profile with its examples and command docs, and $STRUCTURE read from a real
world."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from coblock_helpers import moved
from conftest import REPO_ROOT, isolate, wait_until
from mindpy.agent.modelling import ModellingNotes
from mindpy.commands import AgentCommands, default_registry
from mindpy.memory import History
from mindpy.profiles import load_profile
from mindpy.prompts import Prompter, default_prompts
from mindpy.prompts.coblock import MODELLING_RULES, MOST_STRUCTURE_LINES, REFLECTION_RULES
from mindpy.prompts.prompter import PLACEHOLDERS, _tidy, fill, split_template
from mindpy.rag import CachedEmbedder, ExampleSelector, load_embedder
from mindpy.tasks import load_tasks
from mindpy.tasks.families.coblock.site import site_box
from mindpy.world import bulk

PROFILES = REPO_ROOT / "profiles"
NOTES = "# Partner Modelling\n# Long-term goal: the red base\n# Self Modelling\n# Short-term goal: wait for the base"
REPLY = """# Partner Modelling
# Long-term goal: Build the orange wall
# Short-term goal: Placing the orange wall now
# Partner inventory: [orange_wool: 8, yellow_wool: 1]
# Explanation: they told me
# Self Modelling
# Long-term goal: the blue tower
# Short-term goal: the blue blocks at y = -59
# My inventory: [blue_wool: 4, green_wool: 3]
# Explanation: my ground blocks are placed
!placeBlock("blue_wool", 101, -59, -98)"""


def agent(**more):
    """An agent as the prompter sees it (values of the world come through `extra` or the attributes)."""
    history = History("andy")
    history.add("maya", "hi andy, I lack blue_wool, can you place it at (1, -60, 2)?")
    return SimpleNamespace(name="andy", history=history, task_goal="Build your part.",
                           task_inventory="At the start of the task you had: 4 blue_wool.", **more)


VALUES = {name: f"<{name}>" for name in PLACEHOLDERS if name not in ("METHOD", "MODELLING", "STRUCTURE")}


@pytest.fixture(scope="module")
def coblock():
    return load_profile(PROFILES / "andy.yaml", base="coblock")


# ----- without the options nothing changes -----
@pytest.mark.parametrize("base", [None, "task", "coblock"])
def test_without_the_options_each_prompt_is_its_template_filled(base):
    """The reference is the template itself filled with the values: nothing added, nothing moved."""
    prompts = load_profile(PROFILES / "andy.yaml", base=base).prompts if base else {}
    prompter = Prompter(prompts=prompts)
    for kind in ("conversing", "coding", "saving_memory", "bot_responder"):
        template = {**default_prompts(), **prompts}[kind]
        stable, state = split_template(template)
        # even with an agent that carries notes, and values offered for the method's placeholders
        built = prompter.build(kind, agent(modelling_notes=NOTES), turns=[],
                               extra={**VALUES, "METHOD": "<METHOD>", "MODELLING": "<MODELLING>"})
        assert str(built.system) == _tidy(fill(stable, VALUES)), (base, kind)
        assert built.messages[-1]["content"] == _tidy(fill(state, {**VALUES, "STRUCTURE": ""})), (base, kind)


def test_without_the_options_notes_on_the_agent_change_nothing():
    plain = Prompter().build("conversing", agent(), extra=VALUES)
    noted = Prompter(partner_modelling=False, reflection=False).build("conversing", agent(modelling_notes=NOTES),
                                                                      extra=VALUES)
    assert (str(plain.system), plain.messages) == (str(noted.system), noted.messages)
    assert "Partner Modelling" not in str(noted.system) + str(noted.messages)


# ----- partner modelling -----
def test_partner_modelling_asks_for_the_sections_and_shows_the_last_ones():
    prompter = Prompter(partner_modelling=True)
    built = prompter.build("conversing", agent(modelling_notes=NOTES), extra=VALUES)
    system, state = str(built.system), built.messages[-1]["content"]
    assert system.endswith(MODELLING_RULES) and "<EXAMPLES>" in system  # after the examples, in the stable part
    order = ["# Partner Modelling", "# Long-term goal", "# Short-term goal", "# Partner inventory", "# Explanation",
             "# Self Modelling", "# Long-term goal", "# Short-term goal", "# My inventory", "# Explanation"]
    at = 0
    for field in order:  # the paper's fields, in its order
        at = system.index(field, at) + 1
    assert 'every line starting with "#"' in system and REFLECTION_RULES not in system
    assert state.endswith(f"Your notes from your last turn:\n{NOTES}\nContinue the conversation above as <NAME>.")
    assert NOTES not in system
    # before the first notes, a line that says so
    fresh = prompter.build("conversing", agent(), extra=VALUES).messages[-1]["content"]
    assert fresh.endswith("<ACTION>\nYour notes from your last turn: none yet.\nContinue the conversation above as "
                          "<NAME>.")


def test_a_reply_in_the_asked_format_comes_back_in_the_next_prompt():
    notes = ModellingNotes()
    me = agent(modelling_notes="")
    rest = notes.observe(REPLY)
    me.modelling_notes = notes.text
    assert rest == '!placeBlock("blue_wool", 101, -59, -98)'
    state = Prompter(partner_modelling=True).build("conversing", me, extra=VALUES).messages[-1]["content"]
    assert "# Partner inventory: [orange_wool: 8, yellow_wool: 1]" in state and "!placeBlock" not in state


def test_new_notes_keep_the_cached_prefix():
    prompter = Prompter(partner_modelling=True)
    me = agent(modelling_notes=NOTES)
    first = prompter.build("conversing", me, extra=VALUES)
    me.modelling_notes = NOTES.replace("wait for the base", "the blue blocks")
    second = prompter.build("conversing", me, extra=VALUES)
    assert second.shared_prefix_tokens >= first.stable_prefix_tokens - 8
    assert "the blue blocks" in second.messages[-1]["content"]


# ----- reflection -----
def test_reflection_announces_the_review_and_asks_to_reflect():
    built = Prompter(reflection=True).build("conversing", agent(modelling_notes=NOTES), extra=VALUES)
    system = str(built.system)
    assert system.endswith(REFLECTION_RULES) and MODELLING_RULES not in system
    for words in ("After each round you get a review of the structure", "your role", "helping", "asking"):
        assert words in system, words
    assert NOTES not in built.messages[-1]["content"]  # notes belong to partner modelling
    both = str(Prompter(partner_modelling=True, reflection=True).build("conversing", agent(), extra=VALUES).system)
    assert both.endswith(f"{MODELLING_RULES}\n\n{REFLECTION_RULES}")


def test_a_template_may_place_the_method_itself():
    template = {"system": "You are $NAME.\n$METHOD\nDocs: $COMMAND_DOCS", "state": "$MODELLING\nGo on."}
    prompter = Prompter(prompts={"conversing": template}, partner_modelling=True, reflection=True)
    built = prompter.build("conversing", agent(modelling_notes=NOTES), extra=VALUES)
    system = str(built.system)
    assert system.startswith(f"You are <NAME>.\n{MODELLING_RULES}") and system.endswith("Docs: <COMMAND_DOCS>")
    assert system.count("Partner Modelling") == 1
    assert built.messages[-1]["content"] == f"Your notes from your last turn:\n{NOTES}\nGo on."
    # a MINDcraft single-string template gets them too, in its stable and changing parts
    single = Prompter(prompts={"conversing": "You are $NAME.\n$STATS\n$COMMAND_DOCS"}, partner_modelling=True)
    built = single.build("conversing", agent(modelling_notes=NOTES), extra=VALUES)
    assert str(built.system).endswith(MODELLING_RULES) and NOTES in built.messages[-1]["content"]


def test_the_options_come_from_the_profile(tmp_path, coblock):
    assert Prompter.from_profile(coblock).partner_modelling is False
    own = tmp_path / "ann.yaml"
    own.write_text("name: ann\nbase_profile: coblock\npartner_modelling: true\nreflection: true\n")
    prompter = Prompter.from_profile(load_profile(own))
    assert prompter.partner_modelling and prompter.reflection
    assert str(prompter.build("conversing", agent(), extra=VALUES).system).endswith(REFLECTION_RULES)


# ----- the coblock base profile -----
def test_the_coblock_prompt_in_the_papers_order(coblock):
    commands = AgentCommands(default_registry(), blocked=coblock.blocked_actions)
    assert not commands.warnings  # every blocked name is a command that can be blocked
    selector = ExampleSelector(coblock.conversation_examples)
    prompter = Prompter.from_profile(dataclasses.replace(coblock, partner_modelling=True), examples=selector)
    me = agent(commands=commands, actions=SimpleNamespace(current_label=None))
    system = str(prompter.build("conversing", me).system)
    parts = ["You are andy, a Minecraft bot", "Your task: Build your part.", "How the game works:",
             "!placeBlock(\"red_wool\", x, y, z)", "What you see each turn:", "Structure built so far",
             "\nCOMMANDS\n", "!placeBlock", "Examples of how to respond:", "# Partner Modelling"]
    at = 0
    for part in parts:
        at = system.index(part, at) + 1
    docs = commands.docs()
    for name in ("placeBlock", "breakBlock", "checkGoal", "endTask", "startConversation", "goToCoordinates"):
        assert f"!{name}" in docs, name
    for name in ("getBlueprint", "checkBlueprint", "givePlayer", "discard", "newAction", "collectBlocks", "setMode"):
        assert f"!{name}" not in docs, name  # the blueprint is the whole structure; blocks are not handed over
    full = AgentCommands(default_registry()).docs()
    assert len(docs) < len(full) / 2
    assert coblock.modes["cheat"] is False and coblock.modes["torch_placing"] is False


@pytest.fixture(scope="module")
def selector(coblock, tmp_path_factory):
    embedder = load_embedder()
    assert embedder is not None, "all-MiniLM-L6-v2 must load offline"
    return ExampleSelector(coblock.conversation_examples, CachedEmbedder(embedder, tmp_path_factory.mktemp("emb")))


def example_type(example) -> str:
    """The type of a shipped coblock example, from the comment above it in coblock_examples.yaml."""
    text = (PROFILES / "coblock_examples.yaml").read_text()
    at = text.index(example[0]["content"].split(":", 1)[1].strip()[:30])
    comment = text[:at].rsplit("\n# ", 1)[1]
    return comment.split(":", 1)[0]


def test_the_examples_cover_the_three_types(coblock):
    types = [example_type(e) for e in coblock.conversation_examples]
    assert types.count("independent") == 2 and types.count("skill-dependent") == 3
    assert types.count("goal-dependent") == 3
    for example in coblock.conversation_examples:
        assert any("!" in t["content"] for t in example if t["role"] == "assistant")
        assert all(t["content"].split(":", 1)[0].isidentifier() for t in example if t["role"] == "user")


@pytest.mark.parametrize("message, expected", [
    ("kai: I have no green_wool at all, could you put green_wool at (3, -60, 4) for me?", "skill-dependent"),
    ("kai: my blocks sit on top of yours, so please finish your part first", "goal-dependent"),
    ("kai: my part is a purple tower and I hold every block of it, what about you?", "independent"),
])
def test_retrieval_picks_an_example_of_the_situation(selector, message, expected):
    """Among the two examples a prompt shows (num_examples), one is of the situation's type."""
    shown = selector.select([{"role": "user", "content": message}], k=2)
    assert expected in [example_type(e) for e in shown], [e[0]["content"] for e in shown]


# ----- $STRUCTURE on a real world -----
def test_structure_lists_the_built_blocks_of_the_site(coblock, make_bot):
    bot = make_bot("looker")
    x, _, z = isolate(bot)
    task = moved(load_tasks(REPO_ROOT / "tasks" / "coblock_test.json")["coblock_independent_0"], x - 105, z + 95)
    (x0, y0, z0), (x1, y1, z1) = task.blueprint.bounds()
    sx0, sy0, sz0, sx1, sy1, sz1 = site_box(task)  # the blueprint's box and a margin
    prompter = Prompter.from_profile(coblock)
    me = agent(bot=bot, task=task)

    def state() -> str:
        return prompter.build("conversing", me, extra={"INVENTORY": "", "MEMORY": ""}).messages[-1]["content"]

    bot.command(f"/fill {sx0} {sy0} {sz0} {sx1} {sy1} {sz1} air")
    wait_until(lambda: "Structure built so far:\nnothing built yet\n" in state(), timeout=10, message="an empty site")
    placed = {(x0, y0, z0 + 2): "yellow_wool", (x0, y0 + 1, z0 + 2): "blue_wool", (x1, y0, z1): "red_wool",
              (sx1 + 1, y0, z1): "stone"}  # the last is outside the site
    for (bx, by, bz), name in placed.items():
        bot.command(f"/setblock {bx} {by} {bz} {name}")
    wait_until(lambda: bulk.block_map(bot, placed) == placed, timeout=10, message="the blocks set")
    assert (f"Structure built so far:\nyellow_wool at ({x0}, {y0}, {z0 + 2})\nred_wool at ({x1}, {y0}, {z1})\n"
            f"blue_wool at ({x0}, {y0 + 1}, {z0 + 2})\n") in state()  # bottom up
    assert "stone" not in state()
    # a full layer: the list stops at its bound and counts the rest
    bot.command(f"/fill {x0} {y0 + 2} {z0} {x1} {y0 + 2} {z1} orange_wool")
    cells = (x1 - x0 + 1) * (z1 - z0 + 1)
    wait_until(lambda: bulk.block_names(bot, [(x1, y0 + 2, z1)]) == ["orange_wool"], timeout=10, message="the layer")
    text = state()
    listed = [line for line in text.splitlines() if " at (" in line]
    assert len(listed) == MOST_STRUCTURE_LINES
    assert f"...and {3 + cells - MOST_STRUCTURE_LINES} more" in text
    # outside a coblock task there is no structure to show
    assert "nothing built yet" not in Prompter.from_profile(coblock).build(
        "conversing", agent(bot=bot, task=None), extra={"INVENTORY": ""}).messages[-1]["content"]
