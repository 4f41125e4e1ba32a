"""The CoBlock method in the prompts: the `partner_modelling` and `reflection` options (and the prompts left as they
were without them); the coblock base profile, the paper's prompt: its XML state from real objects (goal, world,
inventory, the team's public record), its actions only, its examples as the switches have them; our options
(retrieved examples, the summary of old turns, !checkGoal) and the settings an episode records; and $STRUCTURE and
the XML <World> read from a real world."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from coblock_helpers import moved
from conftest import REPO_ROOT, isolate, wait_until
from mindpy.agent.modelling import ModellingNotes
from mindpy.memory import History
from mindpy.profiles import load_profile
from mindpy.prompts import Prompter, default_prompts
from mindpy.prompts.coblock import MODELLING_RULES, MOST_STRUCTURE_LINES, REFLECTION_RULES
from mindpy.prompts.prompter import PLACEHOLDERS, _tidy, fill, split_template
from mindpy.rag import CachedEmbedder, ExampleSelector, load_embedder
from mindpy.tasks import load_tasks
from mindpy.tasks.families.coblock.record import PLACE, WAIT, PublicRecord
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
# the same, but the coblock prompt's own parts are rendered (its steps and examples)
PAPER_VALUES = {k: v for k, v in VALUES.items() if k not in ("STEPS", "COBLOCK_EXAMPLES", "EXAMPLES")}


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
    system = str(prompter.build("conversing", agent(), extra=PAPER_VALUES).system)
    assert "# Step 2, partner modelling" in system and "# Step 3, reflection" in system  # the coblock steps
    assert REFLECTION_RULES not in system and MODELLING_RULES not in system  # not appended a second time
    task = tmp_path / "bob.yaml"
    task.write_text("name: bob\nbase_profile: task\nreflection: true\n")
    assert str(Prompter.from_profile(load_profile(task)).build("conversing", agent(), extra=VALUES).system) \
        .endswith(REFLECTION_RULES)


# ----- the coblock base profile: the paper's prompt -----
class StubBot:
    """What the prompt reads of a bot: its inventory (the site's blocks come through `built`)."""

    def __init__(self, items):
        self.items = items

    def inventory(self):
        return dict(self.items)


@pytest.fixture
def coblock_task():
    return load_tasks(REPO_ROOT / "tasks" / "coblock_test.json")["coblock_independent_0"]


def coblock_agent(task, record, monkeypatch, built=None, index=0, name="andy", **more):
    """An agent of a coblock task as the prompter reads it: its task, goal index, bot, commands and the team's
    public record; the built blocks of the site are `built` (the world is read in the test on a real world)."""
    import mindpy.prompts.coblock as prompts_coblock

    monkeypatch.setattr(prompts_coblock, "built_blocks", lambda bot, task: dict(built or {}))
    history = History(name)
    return SimpleNamespace(name=name, history=history, task=task, bot=StubBot({"blue_wool": 20, "green_wool": 20}),
                           public_record=record, context=SimpleNamespace(agent_index=index, task=task),
                           actions=SimpleNamespace(current_label=None), **more)


def paper_commands(profile, rounds=True, task=None):
    from mindpy.agent.factory import command_layer

    return command_layer(profile, SimpleNamespace(minecraft_version="1.21.1", blocked_actions=[]),
                         ["getBlueprint", "endGoal"], task, rounds)


def test_the_default_coblock_prompt_is_the_papers_with_the_real_state(coblock, coblock_task, monkeypatch):
    record = PublicRecord()
    record.join("andy")
    record.join("jill")
    record.said("andy", "Hi jill, my part is the blue column.")
    record.said("jill", 'Mine is the "orange" wall, go ahead.')
    record.acted("jill", PLACE, (102, -60, -98), "yellow_wool")
    record.acted("andy", WAIT)
    me = coblock_agent(coblock_task, record, monkeypatch, built={(102, -60, -98): "yellow_wool"},
                       commands=paper_commands(coblock, task=coblock_task))
    prompter = Prompter.from_profile(coblock, examples=ExampleSelector(coblock.conversation_examples))
    built = prompter.build("conversing", me)
    system, state = str(built.system), built.messages[-1]["content"]
    # the task description, the formats, the docs, the steps, then all the paper-style examples
    at = 0
    for part in ["You are andy, a Minecraft player", "Your partner is jill.", "At each turn you receive the state",
                 "<Motives>", "<ActionHistory>", "\nCOMMANDS\n", "How to answer", "# Step 1, the state",
                 "Step 2, the action", "=== Example 1 (independent", "=== Example 3 (goal-dependent", "round 3 ==="]:
        at = system.index(part, at) + 1
    assert "Examples of how to respond" not in system  # the retrieved chat examples are an option of ours
    assert "Partner Modelling" not in system and "Reflection:" not in system and "Review of" not in system
    # the state: my goal, the world with the partner's block, my inventory, both sides of the chat, the actions
    goal = coblock_task.fields.private_goals["0"]
    motives = state[state.index("<Motives>"):state.index("</Motives>")]
    assert [f'<block block_type="{b}" pos="({x}, {y}, {z})"/>' in motives for x, y, z, b in goal] == [True] * 9
    assert "(102, -58, -98)" not in motives  # the partner's goal is private
    assert '<World>\n<block block_type="yellow_wool" pos="(102, -60, -98)"/>\n</World>' in state
    assert '<block block_type="blue_wool" count="20"/>' in state and "<Inventory>" in state
    assert ('<Dialogue>\n<chat sender="andy" message="Hi jill, my part is the blue column."/>\n'
            '<chat sender="jill" message="Mine is the &quot;orange&quot; wall, go ahead."/>\n</Dialogue>') in state
    assert ('<ActionHistory>\n<action agent="jill" type="place" block_type="yellow_wool" pos="(102, -60, -98)"/>\n'
            '<action agent="andy" type="wait"/>\n</ActionHistory>') in state
    assert state.startswith("<Input>") and state.endswith("Continue as andy: your next action.")
    assert "Your memory" not in state  # nothing summarized: the XML holds the whole history
    assert prompter.thinks_in_comments


def test_the_baseline_offers_only_the_papers_actions_and_refuses_the_rest_in_one_line(coblock, coblock_task):
    commands = paper_commands(coblock, rounds=True, task=coblock_task)
    assert not commands.warnings  # every blocked name is a command that can be blocked (by a profile)
    offered = set(commands.available())
    docs = commands.docs()
    for name in ("placeBlock", "breakBlock", "endTask", "startConversation", "wait"):
        assert f"\n!{name}" in docs, name
    for name in ("checkGoal", "inventory", "stats", "nearbyBlocks", "entities", "goToCoordinates", "givePlayer",
                 "getBlueprint", "stay", "help", "endConversation", "goal"):
        assert f"\n!{name}" not in docs, name
    assert offered == {"placeBlock", "breakBlock", "endTask", "startConversation", "wait", "stop"}
    for call in ("!checkGoal", "!inventory", "!stats"):
        error = commands.parse(f"Let me look. {call}").error
        assert error and "\n" not in error and f"{call} is blocked for you" in error, error
    # outside round mode there is no !wait: !stay waits
    free = paper_commands(coblock, rounds=False, task=coblock_task).docs()
    assert "\n!stay" in free and "\n!wait" not in free
    # the option of ours brings !checkGoal back
    assert "\n!checkGoal" in paper_commands(dataclasses.replace(coblock, check_goal=True), task=coblock_task).docs()


@pytest.mark.parametrize("modelling, reflection", [(False, False), (True, False), (False, True), (True, True)])
def test_the_examples_follow_the_switches(coblock, modelling, reflection):
    text = str(Prompter.from_profile(dataclasses.replace(coblock, partner_modelling=modelling, reflection=reflection))
               .build("conversing", agent(), extra=PAPER_VALUES).system)
    examples = text[text.index("=== Example 1"):]
    assert examples.count("=== Example") == 9 and examples.count("# Step 1: ") == 9
    assert ("# Partner Modelling" in examples) is modelling and ("# Self Modelling" in examples) is modelling
    assert ("# Reflection: " in examples) is reflection and ("Review of the structure" in examples) is reflection
    assert ("Step 2, partner modelling" in text) is modelling and ("reflection: after each round" in text) is reflection
    # the examples act only through the paper's actions
    actions = [line for line in examples.splitlines() if line.startswith("!")]
    assert {line.split("(")[0] for line in actions} <= {"!placeBlock", "!breakBlock", "!startConversation", "!wait"}


def test_retrieved_examples_is_an_option_of_ours(coblock):
    selector = ExampleSelector(coblock.conversation_examples)
    chosen = Prompter.from_profile(dataclasses.replace(coblock, retrieved_examples=True), examples=selector)
    paper = Prompter.from_profile(coblock, examples=selector)
    extra = {k: v for k, v in PAPER_VALUES.items() if k != "COMMAND_DOCS"}
    with_option = str(chosen.build("conversing", agent(), extra=extra).system)
    assert "Examples of how to respond:" in with_option and "=== Example" not in with_option
    without = str(paper.build("conversing", agent(), extra=extra).system)
    assert "Examples of how to respond:" not in without and "=== Example 3" in without


def test_the_history_is_summarized_only_with_the_option(coblock):
    from mindpy.agent.factory import history_summarizer

    assert history_summarizer(coblock, None, None) is None
    assert callable(history_summarizer(dataclasses.replace(coblock, summarize_history=True), None, None))
    history = History("andy", summarizer=None, max_messages=6)
    for n in range(8):
        history.add("jill", f"message {n}")
    assert history.memory == "" and len(history.turns) < 8  # old turns leave, no summary is made


def test_messages_sent_and_commands_run_reach_the_team_record(coblock_task):
    from mindpy.agent.bus import InProcessBus
    from mindpy.agent.conversation import ConversationManager
    from mindpy.commands.coblock import end_task
    from mindpy.commands.rounds import wait_turn

    record = PublicRecord()
    bus = InProcessBus()
    heard = []
    bus.register("jill", lambda sender, packet: heard.append(packet["message"]))
    host = SimpleNamespace(name="andy", public_record=record, request_origin=lambda: "andy",
                           chat=lambda text: None, pause_self_prompt=lambda: None)
    ConversationManager(host, bus).send("jill", "Hi jill, I build the blue column.")
    assert bus.wait_settled(5) and heard == ["Hi jill, I build the blue column."]
    ctx = SimpleNamespace(name="andy", controls=SimpleNamespace(public_record=record),
                          task_finished=__import__("threading").Event())
    wait_turn(ctx)
    end_task(ctx, coblock_task)
    assert record.dialogue() == [("andy", "Hi jill, I build the blue column.")]
    assert [(m.agent, m.kind) for m in record.actions()] == [("andy", WAIT), ("andy", "end")]


def test_the_settings_of_an_episode_are_recorded(coblock, coblock_task):
    from mindpy.tasks.families.coblock import FAMILY
    from mindpy.tasks.families.coblock.record import record_for
    from mindpy.tasks.families.coblock.results import recorded_settings

    bus = object.__new__(type("Bus", (), {}))
    andy = SimpleNamespace(name="andy", conversations=SimpleNamespace(bus=bus),
                           prompter=Prompter.from_profile(dataclasses.replace(coblock, reflection=True)),
                           skills=SimpleNamespace(runner=SimpleNamespace(protect_blocks=lambda blocks: None)))
    jill = SimpleNamespace(**{**vars(andy), "name": "jill"})
    for member in (andy, jill):
        FAMILY.configure_agent(coblock_task, member)
    assert andy.public_record is jill.public_record is record_for(coblock_task)
    assert andy.public_record.players == ["andy", "jill"]
    assert recorded_settings(coblock_task) == {"partner_modelling": False, "reflection": True,
                                               "summarize_history": False, "check_goal": False,
                                               "retrieved_examples": False, "review_detail": False}
    jill.prompter = Prompter.from_profile(dataclasses.replace(coblock, review_detail=True))
    FAMILY.configure_agent(coblock_task, jill)
    assert recorded_settings(coblock_task)["review_detail"] == "mixed"


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
    # $STRUCTURE (lines, for templates of one's own) and the XML <World> of the coblock prompt, read from the world
    template = {"system": "You build.", "state": "Structure built so far:\n$STRUCTURE\n$COBLOCK_STATE\nGo on."}
    prompter = Prompter(prompts={"conversing": template})
    me = agent(bot=bot, task=task, context=SimpleNamespace(agent_index=0), public_record=None)

    def state() -> str:
        return prompter.build("conversing", me).messages[-1]["content"]

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
    world = state()[state().index("<World>"):state().index("</World>")]
    assert world.splitlines()[1:] == [f'<block block_type="yellow_wool" pos="({x0}, {y0}, {z0 + 2})"/>',
                                      f'<block block_type="red_wool" pos="({x1}, {y0}, {z1})"/>',
                                      f'<block block_type="blue_wool" pos="({x0}, {y0 + 1}, {z0 + 2})"/>']
    # a full layer: the list stops at its bound and counts the rest
    bot.command(f"/fill {x0} {y0 + 2} {z0} {x1} {y0 + 2} {z1} orange_wool")
    cells = (x1 - x0 + 1) * (z1 - z0 + 1)
    wait_until(lambda: bulk.block_names(bot, [(x1, y0 + 2, z1)]) == ["orange_wool"], timeout=10, message="the layer")
    text = state()
    listed = [line for line in text.splitlines() if " at (" in line]
    assert len(listed) == MOST_STRUCTURE_LINES
    assert f"...and {3 + cells - MOST_STRUCTURE_LINES} more" in text
    # outside a coblock task there is no structure to show
    assert prompter.build("conversing", agent(bot=bot, task=None)).messages[-1]["content"] == \
        "Structure built so far:\n\nGo on." or "<World>" not in prompter.build(
            "conversing", agent(bot=bot, task=None)).messages[-1]["content"]
