"""The oracle model on prompts built by the real Prompter (task profile): its next reply for a given state."""

from __future__ import annotations

import pytest
import yaml

from conftest import REPO_ROOT
from mindpy.commands import command_docs, default_registry
from mindpy.commands.docs import Situation
from mindpy.commands.parser import parse_reply
from mindpy.models.registry import create_model, parse_model_spec
from mindpy.oracle import OracleModel
from mindpy.oracle.construction import parse_check
from mindpy.oracle.crafting import crafter_step
from mindpy.oracle.goals import parse_goal
from mindpy.oracle.player import MAX_REPEATS
from mindpy.oracle.prompt import read_prompt
from mindpy.prompts.prompter import Prompter

TASK_PROFILE = yaml.safe_load((REPO_ROOT / "profiles" / "task.yaml").read_text())
PICKAXE = "Collaborate with the other agents to craft a wooden_pickaxe."


def inventory_text(items: dict) -> str:
    lines = ["INVENTORY"] + [f"- {k}: {v}" for k, v in sorted(items.items())] or []
    if not items:
        lines.append("- nothing")
    return "\n".join(lines + [f"- free slots: {36 - len(items)}"])


class Scene:
    """A fake agent state the prompter reads: turns, inventory, goal."""

    def __init__(self, name: str, goal: str, others: list[str], items: dict, self_prompting: bool = True,
                 docs: str = "*COMMAND DOCS*"):
        self.name = name
        self.turns: list[dict] = []
        self.items = dict(items)
        self.goal = goal + (f" The other agents are: {', '.join(others)}." if others else "")
        self.self_prompting = self_prompting
        self.prompter = Prompter(name=name, prompts={"conversing": TASK_PROFILE["conversing"]}, providers={
            "STATS": lambda: "STATS\n- Position: x: 0, y: -60, z: 0\n- Other players nearby: " + ", ".join(others),
            "INVENTORY": lambda: inventory_text(self.items),
            "COMMAND_DOCS": docs,
            "TASK_GOAL": lambda: self.goal,
            "TASK_INVENTORY": "",
            "MEMORY": "",
            "ACTION": "none",
            "SELF_PROMPT": lambda: (f'Your current goal, which you set yourself: "{goal}"'
                                    if self.self_prompting else ""),
        })

    def add(self, role: str, content: str) -> Scene:
        self.turns.append({"role": role, "content": content})
        return self

    def self_prompt(self) -> Scene:
        return self.add("system", f"You are self-prompting with the goal: '{self.goal}'. Your next response MUST "
                                  f"contain a command with this syntax: !commandName. Respond:")

    def hear(self, sender: str, text: str) -> Scene:
        return self.add("user", f"{sender}: (FROM OTHER BOT){text}")

    def ask(self, model: OracleModel) -> str:
        prompt = self.prompter.build("conversing", turns=self.turns)
        reply = model.send(prompt.messages, prompt.system).text
        self.add("assistant", reply)
        return reply


def command(reply: str):
    parsed = parse_reply(reply, default_registry())
    assert not parsed.error, (reply, parsed.error)
    return parsed.command, list(parsed.args)


def test_registered_under_oracle(monkeypatch):
    from mindpy.models import registry

    monkeypatch.setattr(registry, "_loaded", False)  # another test may have swapped the "oracle" provider out
    assert "oracle" in registry.available_apis()  # from mindpy's own entry point (pyproject.toml)
    assert parse_model_spec("oracle").api == "oracle"
    assert isinstance(create_model({"api": "oracle", "model": "oracle"}), OracleModel)


def test_prompt_reading():
    scene = Scene("ann1", PICKAXE, ["ben2"], {"stick": 2, "oak_planks": 1}).self_prompt()
    prompt = scene.prompter.build("conversing", turns=scene.turns)
    view = read_prompt(prompt.messages, prompt.system)
    assert view.name == "ann1" and view.others == ["ben2"]
    assert view.inventory == {"stick": 2, "oak_planks": 1}
    assert view.goal.startswith(PICKAXE)


def test_prompt_reading_keeps_every_partner_in_agent_order():
    scene = Scene("jill", PICKAXE, ["andy", "bob", "sally"], {}).self_prompt()
    prompt = scene.prompter.build("conversing", turns=scene.turns)
    assert read_prompt(prompt.messages, prompt.system).others == ["andy", "bob", "sally"]


def test_hells_kitchen_gift_goes_to_the_agent_who_makes_the_dish_i_hold():
    goal = ("You must make cake, but you do not have its recipe: agent 0 has it. You hold the recipe for "
            "golden_carrot, which agent 2 must make. Exchange recipes with the others and keep your own dish.\n"
            "Recipe for golden_carrot:\nStep 1: Harvest a carrot.\nStep 2: Get 8 gold nuggets.")
    scene = Scene("jill", goal, ["andy", "bob", "sally"], {"egg": 1, "gold_nugget": 2}).self_prompt()
    assert command(scene.ask(OracleModel())) == ("givePlayer", ["bob", "gold_nugget", 2])


def test_goal_phrasings():
    assert parse_goal(PICKAXE).targets == {"wooden_pickaxe": 1}
    assert parse_goal("Craft 2 stick.").targets == {"stick": 2}
    g = parse_goal("Collaborate with the other agents to craft a chest. Nobody has the oak_log it takes: gather it "
                   "nearby. The other agents are: a, b.")
    assert g.targets == {"chest": 1} and g.missing_items == ["oak_log"]
    g = parse_goal("Collaborate with the other agents to make baked_potato, golden_carrot and rabbit_stew. In the "
                   "end, one agent should hold all of the dishes.\nRecipe for baked_potato:\nStep 1: Harvest.")
    assert g.kind == "cooking" and list(g.targets) == ["baked_potato", "golden_carrot", "rabbit_stew"]
    g = parse_goal("You must make cake, but you do not have its recipe: agent 1 has it. You hold the recipe for "
                   "bread, which agent 1 must make. Exchange recipes with the others and keep your own dish.\n"
                   "Recipe for bread:\nStep 1: Harvest 3 wheat.\nStep 2: At the crafting table, make bread.")
    assert g.hells_kitchen and g.targets == {"cake": 1} and g.partner_dish == "bread"
    assert g.recipes["bread"][0] == "Harvest 3 wheat."
    assert parse_goal("Build the house of the blueprint together with the other agent.").kind == "construction"


def test_helper_gives_the_crafter_its_items_then_stops():
    model = OracleModel()
    scene = Scene("ben2", PICKAXE, ["ann1"], {"stick": 2, "crafting_table": 1})
    scene.hear("ann1", "Let's work together to craft a wooden_pickaxe.")
    first = scene.ask(model)
    assert command(first) == ("givePlayer", ["ann1", "crafting_table", 1])
    assert "(FROM OTHER BOT)" not in first
    scene.items.pop("crafting_table")
    scene.add("system", "Gave ann1 1 crafting_table.")
    assert command(scene.ask(model)) == ("givePlayer", ["ann1", "stick", 2])
    scene.items.pop("stick")
    scene.add("system", "Gave ann1 2 stick.")
    told = scene.ask(model)
    assert "everything" in told and "!" not in told.replace("Over to you!", "")  # a plain message to the crafter


def test_crafter_crafts_step_by_step_from_its_inventory():
    model = OracleModel()
    scene = Scene("ann1", PICKAXE, ["ben2"], {"oak_planks": 3, "stick": 2, "crafting_table": 1}).self_prompt()
    assert command(scene.ask(model)) == ("craftRecipe", ["wooden_pickaxe", 1])
    scene.items = {"wooden_pickaxe": 1}
    scene.add("system", "Crafted 1 wooden_pickaxe.")
    done = scene.ask(model)
    assert command(done)[0] == "endGoal" and "wooden_pickaxe" in done


def test_crafter_plans_intermediate_steps():
    model = OracleModel()
    scene = Scene("ann1", PICKAXE, ["ben2"], {"oak_log": 2, "crafting_table": 1}).self_prompt()
    assert command(scene.ask(model)) == ("craftRecipe", ["oak_planks", 2])


def test_crafter_waits_then_asks_for_what_it_lacks():
    model = OracleModel()
    scene = Scene("ann1", PICKAXE, ["ben2"], {"stick": 1}).self_prompt()
    replies = [scene.ask(model) for _ in range(4)]
    assert [command(r)[0] for r in replies[:3]] == ["stay", "stay", "stay"]
    name, args = command(replies[3])
    assert name == "startConversation" and args[0] == "ben2" and "everything you have" in args[1]


def test_crafter_opens_with_its_role_and_thanks_at_the_end():
    model = OracleModel()
    scene = Scene("ann1", PICKAXE, ["ben2"], {"stick": 1})
    scene.hear("ben2", "Let's work together to craft a wooden_pickaxe.")
    opening = scene.ask(model)
    assert "give me everything" in opening and "!" not in opening
    scene.items = {"stick": 2, "oak_planks": 3, "crafting_table": 1}
    scene.hear("ben2", "Here you go, ann1: 3 oak_planks.")
    thanks = scene.ask(model)
    assert command(thanks) == ("endConversation", ["ben2"]) and thanks.startswith("Thanks")
    assert command(scene.add("system", "Ended the conversation with ben2.").ask(model))[0] == "craftRecipe"


def test_where_tasks_block_ending_the_crafter_works_on_in_the_conversation_and_never_says_thanks_twice():
    """MINDcraft's tasks block !endConversation and !endGoal (the episode does too): the oracle reads its docs."""
    docs = command_docs(default_registry("1.21.1"), blocked=["endConversation", "endGoal"])
    model = OracleModel()
    scene = Scene("ann1", PICKAXE, ["ben2"], {"stick": 1}, docs=docs)
    scene.hear("ben2", "Let's work together to craft a wooden_pickaxe.")
    assert "give me everything" in scene.ask(model)
    scene.items = {"stick": 2, "oak_planks": 3, "crafting_table": 1}
    scene.hear("ben2", "Here you go, ann1: 3 oak_planks.")
    assert command(scene.ask(model)) == ("craftRecipe", ["wooden_pickaxe", 1])
    scene.items = {"wooden_pickaxe": 1}
    scene.add("system", "Successfully crafted wooden_pickaxe, you now have 1 wooden_pickaxe.")
    done = scene.ask(model)
    assert "task is done" in done and command(done) == (None, [])
    scene.hear("ben2", "Thanks, ann1!")
    assert scene.ask(model) == ""  # an answer to thanks would be thanked again


def test_missing_log_is_collected():
    model = OracleModel()
    goal = "Collaborate with the other agents to craft a wooden_pickaxe. Nobody has the oak_log it takes: gather it nearby."
    scene = Scene("ann1", goal, ["ben2"], {"stick": 2, "crafting_table": 1}).self_prompt()
    assert command(scene.ask(model)) == ("collectBlocks", ["oak_log", 1])


def test_requests_are_answered():
    model = OracleModel()
    scene = Scene("ben2", "Collaborate with the other agents to make cake and bread. In the end, one agent "
                          "should hold all of the dishes.", ["ann1"], {"egg": 1})
    scene.hear("ann1", "I need 1 egg and 1 bowl for the cake. Can you give them to me?")
    assert command(scene.ask(model)) == ("givePlayer", ["ann1", "egg", 1])
    scene.items = {}
    scene.add("system", "Gave ann1 1 egg.")
    sorry = scene.ask(model)
    assert "don't have any bowl" in sorry and "!" not in sorry


COOKING = ("Collaborate with the other agents to make baked_potato and rabbit_stew. In the end, one agent should "
           "hold all of the dishes.")


@pytest.mark.parametrize("items,expected", [
    ({}, ("attack", ["rabbit"])),  # the stew first: it would eat a finished baked_potato
    ({"cooked_rabbit": 1}, ("collectBlocks", ["potatoes", 1])),
    ({"potato": 3, "cooked_rabbit": 1}, ("smeltItem", ["potato", 1])),
    ({"baked_potato": 1, "bowl": 1}, ("attack", ["rabbit"])),
    ({"baked_potato": 1, "bowl": 1, "rabbit": 1}, ("smeltItem", ["rabbit", 1])),
    ({"baked_potato": 2, "cooked_rabbit": 1, "bowl": 1, "carrot": 1}, ("collectBlocks", ["brown_mushroom", 1])),
    ({"baked_potato": 2, "cooked_rabbit": 1, "bowl": 1, "carrot": 1, "brown_mushroom": 1},
     ("craftRecipe", ["rabbit_stew", 1])),
])
def test_cooking_lead_next_step(items, expected):
    scene = Scene("ann1", COOKING, ["ben2"], items).self_prompt()
    assert command(scene.ask(OracleModel())) == expected


def test_cooking_lead_makes_the_composite_dish_first_and_finishes():
    scene = Scene("ann1", COOKING, ["ben2"], {"baked_potato": 1, "rabbit_stew": 1}).self_prompt()
    assert command(scene.ask(OracleModel()))[0] == "endGoal"


def test_cooking_helper_gives_the_bowl_to_the_lead():
    scene = Scene("ben2", COOKING, ["ann1"], {"bowl": 1}).self_prompt()
    assert command(scene.ask(OracleModel())) == ("givePlayer", ["ann1", "bowl", 1])


def test_hells_kitchen_sends_the_recipe_and_asks_for_what_it_lacks():
    goal = ("You must make cake, but you do not have its recipe: agent 1 has it. You hold the recipe for bread, "
            "which agent 1 must make. Exchange recipes with the others and keep your own dish.\n"
            "Recipe for bread:\nStep 1: Harvest 3 wheat.\nStep 2: At the crafting table, make bread from the 3 wheat.")
    scene = Scene("ann1", goal, ["ben2"], {"milk_bucket": 3})
    scene.hear("ben2", "We need to make cake and bread, one dish each. Let's exchange recipes and get cooking!")
    opening = scene.ask(OracleModel())
    assert "recipe for bread" in opening and "Harvest 3 wheat" in opening
    assert "1 egg" in opening and "!" not in opening.replace("cooking!", "")


CHECK = """Level 0 requires the following fixes:
Place sandstone at coordinates X: 150, Y: -60, Z: -170
Place spruce_planks at coordinates X: 151, Y: -60, Z: -170
Remove the dirt at coordinates X: 152, Y: -60, Z: -170
Level 1 requires the following fixes:
Place oak_door at coordinates X: 151, Y: -59, Z: -170
"""


def test_check_output_parsing():
    fixes = parse_check(CHECK)
    assert [(f.level, f.kind, f.block) for f in fixes] == [
        (0, "place", "sandstone"), (0, "place", "spruce_planks"), (0, "remove", "air"), (1, "place", "oak_door")]
    assert parse_check("Blueprint is complete") == []
    assert parse_check("Gave ann1 1 stick.") is None


def test_construction_checks_builds_with_code_and_finishes():
    model = OracleModel()
    goal = "Build the house of the blueprint together with the other agent, lowest level first."
    scene = Scene("ann1", goal, ["ben2"], {"sandstone": 10, "diamond_pickaxe": 1}).self_prompt()
    assert command(scene.ask(model)) == ("checkBlueprint", [])
    scene.add("system", CHECK)
    name, args = command(scene.ask(model))
    assert name == "newAction" and "level 0" in args[0]
    code = model.send([{"role": "user", "content": args[0]}],
                      "You are ann1, a Minecraft bot that acts by writing Python code. Your task: " + args[0]).text
    assert "skills.place_block('sandstone', 150, -60, -170)" in code or "('sandstone', 150, -60, -170)" in code
    assert "(152, -60, -170)" in code and "spruce_planks" not in code  # ann1 is the lead: it clears
    compile(code.split("```python\n")[1].split("```")[0], "<code>", "exec")
    scene.add("system", "Code output:\nLevel 0: placed 1 of 1 blocks; cleared 1")
    assert command(scene.ask(model)) == ("checkBlueprint", [])
    scene.add("system", "Blueprint is complete")
    assert command(scene.ask(model))[0] == "endGoal"


def test_a_build_reply_dropped_as_stale_is_made_again():
    """An agent drops a reply that a newer message made stale and asks again with the same prompt. The retry count
    of a level's build counts calls, not how often one call plans the build (answering a partner plans it too):
    before, one dropped reply used up the tries and the oracle waited for a level only it could build (a
    construction episode stalled at level 6)."""
    model = OracleModel()
    goal = "Build the house of the blueprint together with the other agent, lowest level first."
    docs = "!stats: Get your stats.\n!newAction(prompt): Write code.\n!checkBlueprint: Check the blueprint."
    scene = Scene("ann1", goal, ["ben2"], {"sandstone": 10, "diamond_pickaxe": 1}, docs=docs).self_prompt()
    scene.hear("ben2", "Hi ann1, let's build.").ask(model)
    scene.add("system", CHECK).hear("ben2", "I'm on it.")
    for _ in range(MAX_REPEATS):  # each reply is dropped: the same prompt comes back
        prompt = scene.prompter.build("conversing", turns=scene.turns)
        name, args = command(model.send(prompt.messages, prompt.system).text)
        assert name == "newAction" and "level 0" in args[0]


@pytest.mark.parametrize("form", ["full", "short"])
def test_the_oracle_reads_what_it_may_do_from_the_real_command_docs(form):
    """The oracle learns its commands from the prompt's docs: a change of the doc format once turned off
    !givePlayer and !endConversation for every oracle agent without a unit test noticing."""
    def view(blocked=(), coding=False):
        docs = command_docs(default_registry(), blocked, form, situation=Situation(coding=coding, task="crafting"))
        scene = Scene("ann1", "Craft a stick.", ["ben2"], {}, docs=docs).self_prompt()
        prompt = scene.prompter.build("conversing", turns=scene.turns)
        return read_prompt(prompt.messages, prompt.system)
    plain = view()
    assert all(plain.may(c) for c in ("givePlayer", "endConversation", "startConversation", "craftRecipe"))
    assert not plain.may("newAction") and view(coding=True).may("newAction")
    assert not view(blocked=["givePlayer"]).may("givePlayer")


def test_a_partner_named_only_in_the_nudge_is_left_when_it_does_not_answer():
    model = OracleModel()
    docs = "!stats: Get your stats.\n!endConversation(\"player_name\"): End a conversation."
    scene = Scene("jill", "Craft a stick.", ["andy"], {}, docs=docs).self_prompt()
    scene.add("system", "andy hasn't responded in 30 seconds, respond with a message to them or your own action.")
    assert command(scene.ask(model)) == ("endConversation", ["andy"])


def test_other_prompts():
    model = OracleModel()
    assert model.send([{"role": "user", "content": "x"}], "Reply with exactly one word: respond or ignore.").text \
        == "ignore"
    note = model.send([{"role": "user", "content": "x"}], "You are ann1, a Minecraft bot working on a task with "
                      "other players: craft. Your memory is a short note you keep for yourself.").text
    assert 0 < len(note) <= 500


def test_deterministic():
    def run():
        model = OracleModel()
        scene = Scene("ann1", COOKING, ["ben2"], {"potato": 1}).self_prompt()
        return [scene.ask(model) for _ in range(3)]
    assert run() == run()


def test_a_harvest_that_keeps_failing_becomes_a_request_to_a_partner():
    model = OracleModel()
    scene = Scene("ann1", "Collaborate with the other agents to make bread.", ["ben2"], {}).self_prompt()
    commands = []
    for _ in range(10):
        reply = scene.ask(model)
        parsed = parse_reply(reply, default_registry())
        commands.append((parsed.command, list(parsed.args)) if parsed.command else ("", []))
        if parsed.command == "collectBlocks":
            scene.add("system", "Action output: No wheat nearby to collect.")
        elif parsed.command == "stay":
            scene.add("system", "Action output: Stayed for 5 seconds.")
        if parsed.command == "startConversation":
            break
    collects = [c for c in commands if c[0] == "collectBlocks"]
    assert collects and len(collects) <= 4, commands  # given up on after a few tries, not run forever
    name, args = commands[-1]
    assert name == "startConversation" and args[0] == "ben2" and "wheat" in args[1], commands


# ---- goal wordings: ours, MINDcraft's and rewordings ---------------------------------------------------------
BREAD_STEPS = "Recipe for bread:\nStep 1: Harvest 3 wheat.\nStep 2: At the crafting table, make bread."
HK_WORDINGS = [
    # (goal, my dish, the partner's dish, the partner's number, recipes shown)
    ("You need to make golden_apple, but you don't have the recipe for it, your partner has it!\n\nYour partner "
     "needs to make bread. You have their recipe:\n" + BREAD_STEPS + "\n\nTalk it over and finish both dishes. "
     "Note: you may only guide your partner with the steps.", "golden_apple", "bread", None, ["bread"]),
    ("You must make golden_apple, but you do not have its recipe: agent 0 has it. You hold the recipe for bread, "
     "which agent 1 must make. Exchange recipes with the others and keep your own dish.\n" + BREAD_STEPS,
     "golden_apple", "bread", 1, ["bread"]),
    ("Your job is to cook a golden apple. Your teammate has to prepare bread; you hold the recipe for it.\n"
     + BREAD_STEPS, "golden_apple", "bread", None, ["bread"]),
    ("You should prepare golden apple x1 and your partner should bake the bread. Only your partner knows how to "
     "make a golden apple.", "golden_apple", "bread", None, []),
    ("Golden apple is your dish. Your partner's dish is bread, whose recipe is yours:\n" + BREAD_STEPS,
     "golden_apple", "bread", None, ["bread"]),
    ("Together with your partner, you have to make 1 golden_apple. Bread is what agent 2 must cook, and you know "
     "how to make it.", "golden_apple", "bread", 2, []),
    ("Your goal is to cook a golden apple; your partner's goal is to bake bread. Only they know how to make a golden "
     "apple.", "golden_apple", "bread", None, []),
    # every duty by number: the one of my number is mine
    ("Agent 0 must make a golden apple. Agent 1 must make bread. You are agent 0, and you hold the recipe for "
     "bread.\n" + BREAD_STEPS, "golden_apple", "bread", 1, ["bread"]),
    # MINDcraft's "full" variant shows both recipes: the one that is not mine is the partner's
    ("You need to make golden_apple, but you don't have the recipe for it, your partner has it!Recipe for "
     "golden_apple:\n['Step 1: Get an apple and 8 gold ingots.', 'Step 2: Surround the apple.']Recipe for bread:\n"
     "['Step 1: Harvest 3 wheat.', 'Step 2: Craft bread.']", "golden_apple", "bread", None,
     ["golden_apple", "bread"]),
]


@pytest.mark.parametrize("goal,mine,partner,index,recipes", HK_WORDINGS, ids=range(len(HK_WORDINGS)))
def test_hells_kitchen_wordings(goal, mine, partner, index, recipes):
    g = parse_goal(goal + " The other agents are: jill.")
    assert (g.kind, g.hells_kitchen, g.targets) == ("cooking", True, {mine: 1}), g
    assert (g.partner_dish, g.partner_index) == (partner, index), g
    assert list(g.recipes) == recipes
    if "bread" in recipes:
        assert g.recipes["bread"][0].startswith("Harvest 3 wheat")


@pytest.mark.parametrize("goal,targets,recipes", [
    ("Collaborate with agents around you to make 1 golden_apple, 1 bread. Recipe for golden_apple:\n['Step 1: Get "
     "an apple and 8 gold ingots.', 'Step 2: Surround the apple.']Recipe for bread:\n['Step 1: Harvest 3 wheat.', "
     "'Step 2: Craft bread.']", {"golden_apple": 1, "bread": 1}, {"golden_apple": 2, "bread": 2}),
    ("Collaborate with other agents around you to make bread, cake, The recipes are as follows:\nRecipe for bread:"
     "\n['Step 1: Harvest 3 wheat.']\n", {"bread": 1, "cake": 1}, {"bread": 1}),
    ("Collaborate with the other agents to make baked_potato, golden_carrot and rabbit_stew. In the end, one agent "
     "should hold all of the dishes.\n" + BREAD_STEPS.replace("bread", "baked_potato"),
     {"baked_potato": 1, "golden_carrot": 1, "rabbit_stew": 1}, {"baked_potato": 2}),
    ("We have to cook 2 baked potatoes & a cake together.", {"baked_potato": 2, "cake": 1}, {}),
    ("Work together to prepare cookie x2 and one mushroom stew.", {"cookie": 2, "mushroom_stew": 1}, {}),
    ("Make bread.", {"bread": 1}, {}),
    # one goal text for the whole team: a partner's part is the team's too; cooking raw food makes the cooked one
    ("Bake 1 potato, and let your partner cook 2 beef.", {"baked_potato": 1, "cooked_beef": 2}, {}),
])
def test_cooking_wordings(goal, targets, recipes):
    g = parse_goal(goal)
    assert (g.kind, g.hells_kitchen, g.targets) == ("cooking", False, targets), g
    assert {name: len(steps) for name, steps in g.recipes.items()} == recipes


@pytest.mark.parametrize("goal,targets,missing", [
    ("Collaborate with other agents to craft an pink_wool", {"pink_wool": 1}, []),
    ("Collaborate with other agents to build a wooden pickaxe.", {"wooden_pickaxe": 1}, []),
    ("Collaborate with other agents to build a shear.", {"shears": 1}, []),
    ("Your team must craft two sticks.", {"stick": 2}, []),
    ("Make 4 oak planks together with the others.", {"oak_planks": 4}, []),
    ("Craft a crafting table. No one has the oak log it takes: go and get it.", {"crafting_table": 1}, ["oak_log"]),
    ("You and the others must craft a crafting table, then a wooden pickaxe.",
     {"crafting_table": 1, "wooden_pickaxe": 1}, []),
])
def test_crafting_wordings(goal, targets, missing):
    g = parse_goal(goal)
    assert (g.kind, g.targets, g.missing_items) == ("crafting", targets, missing), g


@pytest.mark.parametrize("goal", ["Make a structure with the blueprint below", "Build a house",
                                  "Build the house of the blueprint together with the other agent."])
def test_construction_wordings(goal):
    assert parse_goal(goal).kind == "construction"


MINDCRAFT_HK = ("You need to make bread, but you don't have the recipe for it, your partner has it!\n\nYour partner "
                "needs to make golden_apple. You have their recipe:\nRecipe for golden_apple:\nStep 1: Get 1 apple "
                "and 8 gold ingots.\nStep 2: Surround the apple with the gold ingots.\n\nTalk it over and finish "
                "both dishes.")


def test_prompt_reading_keeps_a_goal_with_blank_lines_whole():
    scene = Scene("andy", MINDCRAFT_HK, ["jill"], {}).self_prompt()
    prompt = scene.prompter.build("conversing", turns=scene.turns)
    goal = read_prompt(prompt.messages, prompt.system).goal
    assert goal.startswith("You need to make bread") and goal.endswith("The other agents are: jill.")
    assert "Your partner needs to make golden_apple" in goal and "Step 2: Surround" in goal


def test_mindcraft_hells_kitchen_gift_goes_to_the_only_partner():
    # no agent numbers: "your partner" is the other agent; my gold is for its golden apple
    model = OracleModel()
    scene = Scene("andy", MINDCRAFT_HK, ["jill"], {"gold_ingot": 5, "apple": 1}).self_prompt()
    gift = scene.ask(model)
    assert command(gift) == ("givePlayer", ["jill", "apple", 1])
    assert "Here is the recipe for golden_apple: 1) Get 1 apple and 8 gold ingots." in gift  # passed on once
    scene.items.pop("apple")
    second = scene.add("system", "Gave jill 1 apple.").ask(model)
    assert command(second) == ("givePlayer", ["jill", "gold_ingot", 5]) and "recipe" not in second


def test_mindcraft_hells_kitchen_each_agent_makes_only_its_own_dish():
    scene = Scene("andy", MINDCRAFT_HK, ["jill"], {}).self_prompt()
    assert command(scene.ask(OracleModel())) == ("collectBlocks", ["wheat", 3])  # bread, not the golden apple
    scene.items = {"bread": 1}
    done = scene.add("system", "Crafted 1 bread.").ask(OracleModel())
    assert command(done)[0] == "endGoal" and "bread" in done and "golden_apple" not in done


WOOL = "Collaborate with other agents to craft blue_wool"


def test_dyed_wool_is_crafted_from_wool_of_another_colour():
    scene = Scene("andy", WOOL, ["jill"], {"blue_dye": 1, "white_wool": 1}).self_prompt()
    assert command(scene.ask(OracleModel())) == ("craftRecipe", ["blue_wool", 1])


def test_dyed_wool_crafter_asks_for_wool_of_any_other_colour():
    model = OracleModel()
    scene = Scene("andy", WOOL, ["jill"], {"blue_dye": 1}).self_prompt()
    replies = [scene.ask(model) for _ in range(4)]
    name, args = command(replies[-1])
    assert name == "startConversation" and args[0] == "jill", replies
    assert "1 wool of any colour but blue" in args[1]
    assert "black_wool" not in args[1]  # not the stand-in minecraft-data lists


def test_dyed_wool_helper_hands_over_its_white_wool():
    scene = Scene("jill", WOOL, ["andy"], {"white_wool": 1}).self_prompt()
    assert command(scene.ask(OracleModel())) == ("givePlayer", ["andy", "white_wool", 1])


@pytest.mark.parametrize("target,inventory,step,lack", [
    ("lime_wool", {"green_dye": 1, "white_wool": 1, "bone_meal": 1}, ("white_dye", 1), {}),
    ("light_gray_wool", {"black_dye": 1, "white_wool": 1, "white_dye": 2}, ("light_gray_dye", 1), {}),
    ("pink_wool", {"pink_dye": 1, "black_wool": 1}, ("pink_wool", 1), {}),
    ("black_wool", {"black_dye": 1, "white_wool": 1}, ("black_wool", 1), {}),
    ("blue_carpet", {"blue_dye": 1, "white_carpet": 1}, ("blue_carpet", 1), {}),
    ("blue_wool", {"lapis_lazuli": 1, "white_wool": 1}, ("blue_dye", 1), {}),  # its dye first
    ("lime_wool", {"lime_dye": 1}, None, {"black_wool": 1}),
    ("wooden_pickaxe", {"birch_planks": 3, "stick": 2, "crafting_table": 1}, ("wooden_pickaxe", 1), {}),
])
def test_crafting_plans_with_what_is_held_never_with_the_target(target, inventory, step, lack):
    move, missing = crafter_step(target, 1, inventory, [])
    assert (move.command if move else None) == (f'!craftRecipe("{step[0]}", {step[1]})' if step else None)
    assert missing == lack
    assert target not in missing


def test_a_toss_nobody_caught_is_fetched_from_the_ground_and_given_again():
    """The receiver walked off while the helper tossed: the helper goes to where it fell, then gives it again
    (it said it had none to spare and the lead waited for ever)."""
    model = OracleModel()
    scene = Scene("jill", "Collaborate with agents around you to make 1 golden_apple.", ["andy"],
                  {"apple": 1, "gold_ingot": 5})
    scene.hear("andy", "Let's work together to make golden_apple.")
    assert command(scene.ask(model))[0] == "givePlayer"
    scene.items.pop("apple")
    scene.add("system", "Action output:\nTossed 1 apple to andy, but they did not pick them up; 1 are on the ground "
                        "near x: 207.5, y: -60, z: 206.3.")
    assert command(scene.ask(model)) == ("goToCoordinates", [208, -60, 206, 0])
    scene.items["apple"] = 1
    scene.add("system", "Action output:\nYou have reached x: 208, y: -60, z: 206.")
    assert command(scene.ask(model)) == ("givePlayer", ["andy", "apple", 1])


@pytest.mark.parametrize("action,decision", [("none", "respond"), ("action:collectBlocks", "ignore")])
def test_a_partner_s_message_is_taken_at_once_unless_it_would_break_off_an_action(action, decision):
    """Busy only with a turn (the joining message's), nothing is broken off: the partner's opening is heard now."""
    from mindpy.oracle.player import Player
    from mindpy.oracle.prompt import PromptView

    state = (f"Your current action: {action}\nRecent conversation:\nSystem: Start a conversation.\n"
             f"Let's work together to craft a wooden_sword.\nYour decision (respond or ignore):")
    assert Player().reply(PromptView(kind="bot_responder", name="jill", state=state)) == decision
