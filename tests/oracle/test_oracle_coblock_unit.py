"""The oracle in CoBlock tasks, on prompts built by the real Prompter from the real profiles and command docs:
reading private goals, building bottom up, asking the partner to place the colours it lacks (or, where giving is
allowed, to give them) and doing what the partner asks, waiting for the partner's support, fixing a wrong block,
ending only when both goals are done, and the round mode's `!wait`.

Two prompts: CoBlock episodes' own (profiles/coblock.yaml: the paper's XML state with the structure built so far in
every prompt, !givePlayer blocked, as in the paper; most tests with the `check_goal` option of ours on, those of
"the paper's setting" without it) and the MineCollab task profile's (profiles/task.yaml: no structure list, giving allowed),
where the oracle learns the site from its commands' answers alone. The command answers are written as the coblock
commands write them (mindpy.commands.coblock and the place skill): a small stand-in for the world answers each
command by the commands' rules (held, taken, floating), so the tests see every choice along a whole build."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import REPO_ROOT
from mindpy.commands import command_docs, default_registry
from mindpy.commands.parser import parse_reply
from mindpy.oracle import OracleModel
from mindpy.oracle.coblock import (
    Site,
    blocks_left,
    offered_colours,
    parse_goal_check,
    placement_request,
    read_goal_blocks,
    read_held,
    read_structure,
    says_done,
)
from mindpy.oracle.goals import parse_goal
from mindpy.prompts.coblock import state_xml, structure_lines
from mindpy.prompts.prompter import Prompter

TASKS = json.loads((REPO_ROOT / "tasks" / "coblock_test.json").read_text())
PROFILES = {name: yaml.safe_load((REPO_ROOT / "profiles" / f"{name}.yaml").read_text()) for name in ("coblock", "task")}
REGISTRY = default_registry("1.21.1")
BLUEPRINT_COMMANDS = ["getBlueprint", "getBlueprintLevel", "checkBlueprint", "checkBlueprintLevel"]
GROUND = -60
FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
ROUND_RULE = ("Do one thing now: run one command that acts, or send one message, or !wait. Commands that only look, "
              "if you have any, are free.")


def docs(profile: str, rounds: bool = False, check_goal: bool = True) -> str:
    """The command docs of a coblock agent as an episode blocks them: the profile's blocked actions, the blueprint
    commands, !endGoal (it has a goal), !wait outside round mode, and in the coblock profile !checkGoal unless
    `check_goal` (the option of ours; the tests of the paper's setting turn it off) and, in round mode, !stay."""
    blocked = PROFILES[profile].get("blocked_actions", []) + BLUEPRINT_COMMANDS + ["endGoal"]
    if profile == "coblock":
        blocked += ([] if check_goal else ["checkGoal"]) + (["stay"] if rounds else [])
    return command_docs(REGISTRY, blocked=blocked + ([] if rounds else ["wait"]))


def command(reply: str) -> tuple[str | None, list]:
    parsed = parse_reply(reply, REGISTRY)
    assert not parsed.error, (reply, parsed.error)
    return parsed.command, list(parsed.args)


class World:
    """The structure's cells, answering the coblock commands of one agent as they answer."""

    def __init__(self, blocks: dict | None = None, unreachable: tuple = ()):
        self.blocks: dict[tuple[int, int, int], str] = dict(blocks or {})
        self.refusals: list[str] = []
        self.unreachable = set(unreachable)  # cells the bot cannot walk near: the skill fails on the way

    def answer(self, scene: Scene, reply: str) -> str | None:
        name, args = command(reply)
        if name == "checkGoal":
            return self.check(scene.goal_blocks)
        if name == "placeBlock":
            return "Action output:\n" + self.place(scene, args[0], *args[1:])
        if name == "breakBlock":
            cell = tuple(args)
            gone = self.blocks.pop(cell)
            return f"Action output:\nBroke the {gone} at ({cell[0]}, {cell[1]}, {cell[2]}). The block is lost: " \
                   f"nobody gets it back."
        if name == "stay":
            return f"Action output:\nStayed for {args[0]} seconds."
        if name == "wait":
            return "You wait this round."
        if name == "startConversation":
            return f"Started a conversation with {args[0]}."
        if name == "givePlayer":
            scene.items[args[1]] -= args[2]
            return f"Action output:\nGave {args[0]} {args[2]} {args[1]}."
        return None

    def place(self, scene: Scene, block: str, x: int, y: int, z: int) -> str:
        where = f"({x}, {y}, {z})"
        if (x, y, z) in self.unreachable:
            return "Could not find a path there: the path search took too long"
        if scene.items.get(block, 0) < 1:
            return self.refuse(f"You do not hold any {block}: ...")
        if (x, y, z) in self.blocks:
            return self.refuse(f"The cell {where} is taken by {self.blocks[(x, y, z)]}: choose an empty cell, or "
                               f"break that block first with !breakBlock({x}, {y}, {z}).")
        if y > GROUND and not any((x + dx, y + dy, z + dz) in self.blocks for dx, dy, dz in FACES):
            return self.refuse(f"A block at {where} would float: it needs the ground (the lowest layer is y = "
                               f"{GROUND}) or a block next to one of its faces. Place the blocks under or beside it "
                               f"first.")
        self.blocks[(x, y, z)] = block
        scene.items[block] -= 1
        return f"Placed {block} at x: {x}, y: {y}, z: {z}."

    def refuse(self, text: str) -> str:
        self.refusals.append(text)
        return text

    def check(self, goal: list) -> str:
        missing = [f"- {b} at ({x}, {y}, {z})" for x, y, z, b in goal if (x, y, z) not in self.blocks]
        wrong = [f"- ({x}, {y}, {z}) has {self.blocks[(x, y, z)]} instead of {b}" for x, y, z, b in goal
                 if self.blocks.get((x, y, z), b) != b]
        if not missing and not wrong:
            return f"Your goal is complete: all {len(goal)} of your blocks are in place."
        lines = [f"Your goal is not complete: {len(goal) - len(missing) - len(wrong)} of {len(goal)} blocks are in "
                 f"place."]
        if missing:
            lines += ["Missing (place these):", *missing]
        if wrong:
            lines += ["Wrong (break these, then place the right block):", *wrong]
        return "\n".join(lines)


class Scene:
    """One agent of a coblock task as its prompter shows it: the task's goal text, its inventory and its turns."""

    def __init__(self, task_id: str, index: int, name: str = "andy", partner: str = "jill", rounds: bool = False,
                 items: dict | None = None, profile: str = "coblock", world: World | None = None,
                 check_goal: bool = True):
        task = TASKS[task_id]
        self.name, self.partner, self.rounds = name, partner, rounds
        self.goal = f"{task['goal'][str(index)]} The other agents are: {partner}."
        self.goal_blocks = [tuple(b) for b in task["private_goals"][str(index)]]
        self.items = dict(task["initial_inventory"][str(index)] if items is None else items)
        self.turns: list[dict] = []
        self.round = 0
        self.turn_over = True  # the next call opens a turn (a self-prompt, or the next round)
        self.model = OracleModel()
        self.world = world or World()
        self.prompter = Prompter(name=name, prompts={"conversing": PROFILES[profile]["conversing"]}, providers={
            "STATS": f"STATS\n- Position: x: 100, y: -60, z: -101\n- Other players nearby: {partner}",
            "INVENTORY": lambda: "\n".join(["INVENTORY"] + [f"- {k}: {v}" for k, v in sorted(self.items.items())
                                                            if v > 0]),
            "COMMAND_DOCS": docs(profile, rounds, check_goal),
            "STRUCTURE": lambda: structure_lines(self.world.blocks),
            "TASK_GOAL": self.goal,
            "TASK_INVENTORY": "",
            "MEMORY": "",
            "ACTION": "none",
            "SELF_PROMPT": "" if rounds else f'Your current goal, which you set yourself: "{self.goal}"',
            # the coblock profile's XML state (the paper's) and its partner line
            "COBLOCK_STATE": lambda: state_xml(self.goal_blocks, self.world.blocks, self.items, self.dialogue, []),
            "PARTNERS": f"Your partner is {partner}.",
            "COBLOCK_MEMORY": "",
        })
        self.dialogue: list[tuple[str, str]] = []

    def add(self, role: str, content: str) -> Scene:
        self.turns.append({"role": role, "content": content})
        return self

    def hear(self, text: str) -> Scene:
        """A partner's message: outside round mode it prompts the agent by itself."""
        self.turn_over = self.rounds
        self.dialogue.append((self.partner, text))
        return self.add("user", f"{self.partner}: (FROM OTHER BOT){text}")

    def turn(self) -> Scene:
        """What starts a call: a self-prompt, or in round mode the round's opening."""
        if self.rounds:
            self.round += 1
            return self.add("system", f"Round {self.round} of 60. Your turn. {ROUND_RULE}")
        return self.add("system", f"You are self-prompting with the goal: '{self.goal}'. Your next response MUST "
                                  f"contain a command with this syntax: !commandName. Respond:")

    def ask(self) -> str:
        prompt = self.prompter.build("conversing", turns=self.turns)
        reply = self.model.send(prompt.messages, prompt.system).text
        if reply:
            self.add("assistant", reply)
            name, args = command(reply)
            if name == "startConversation" or name is None:
                self.dialogue.append((self.name, args[1] if name else reply))
        return reply

    def play(self, calls: int, stop=lambda reply: False) -> list[str]:
        """Up to `calls` replies, each answered by the world; stops after the reply `stop` accepts."""
        replies = []
        for _ in range(calls):
            if self.turn_over:
                self.turn()
            reply = self.ask()
            replies.append(reply)
            name = command(reply)[0] if reply else None
            # a turn goes on after a query in round mode, and after any command outside it
            self.turn_over = name != "checkGoal" if self.rounds else name is None
            if stop(reply):
                break
            output = self.world.answer(self, reply) if reply else None
            if output:
                self.add("system", output)
        return replies


def placed(replies: list[str]) -> list[tuple]:
    return [tuple(command(r)[1]) for r in replies if command(r)[0] == "placeBlock"]


def without_offers(replies: list[str]) -> list[str]:
    """The replies but the offers of help an agent makes while it waits (tested on their own below)."""
    return [r for r in replies if offered_colours(command(r)[1][1] if command(r)[0] == "startConversation" else r)
            is None]


def names(replies: list[str]) -> list[str | None]:
    return [command(r)[0] for r in replies]


# ---- reading ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_every_test_split_goal_is_read_as_its_private_goal_and_inventory(task_id):
    task = TASKS[task_id]
    for index in "01":
        goal = parse_goal(task["goal"][index] + " The other agents are: jill.")
        assert goal.kind == "coblock"
        assert [list(b) for b in goal.blocks] == task["private_goals"][index]
        assert goal.held == task["initial_inventory"][index]


@pytest.mark.parametrize("text,blocks", [
    ("Blocks: (1, -60, 2): red wool; (1,-59,2) -> a Blue Wool.", [(1, -60, 2, "red_wool"), (1, -59, 2, "blue_wool")]),
    ("Put red wool blocks at (1,-60,2) and yellow concrete @ [2,-60,2].",
     [(1, -60, 2, "red_wool"), (2, -60, 2, "yellow_concrete")]),
    ("Your blocks: lime_concrete at x: 3, y: -60, z: 4, then the Orange Wool at x=3 y=-59 z=4.",
     [(3, -60, 4, "lime_concrete"), (3, -59, 4, "orange_wool")]),
])
def test_other_wordings_of_a_private_goal(text, blocks):
    assert read_goal_blocks(text) == blocks
    assert parse_goal(text).kind == "coblock"


def test_held_blocks_in_other_wordings():
    assert read_held("You have 2 red wool and 3 blue wools.") == {"red_wool": 2, "blue_wool": 3}
    assert read_held("Build it.") == {}


def test_other_families_goals_are_not_read_as_coblock():
    for name in ("crafting_test.json", "cooking_test.json", "construction_test.json"):
        for task in json.loads((REPO_ROOT / "tasks" / name).read_text()).values():
            goals = task["goal"].values() if isinstance(task["goal"], dict) else [task["goal"]]
            assert all(parse_goal(g).kind != "coblock" for g in goals), task["goal"]


def test_check_goal_answers_are_read():
    check = parse_goal_check("Your goal is not complete: 1 of 4 blocks are in place.\nMissing (place these):\n"
                             "- red_wool at (1, -60, 2)\nWrong (break these, then place the right block):\n"
                             "- (2, -60, 2) has blue_wool instead of red_wool\nNot checked:\n"
                             "- red_wool at (9, -60, 9): too far away to see\n... and 3 more.")
    assert check is not None and not check.complete and check.in_place == 1
    assert check.missing == [(1, -60, 2, "red_wool")] and check.wrong == [((2, -60, 2), "blue_wool", "red_wool")]
    assert check.unseen == [(9, -60, 9, "red_wool")] and check.hidden == 3
    assert parse_goal_check("Your goal is complete: all 4 of your blocks are in place.").complete
    assert parse_goal_check("Placed red_wool at x: 1, y: -60, z: 2.") is None


@pytest.mark.parametrize("text,done", [
    ("My goal is done: all 9 of my blocks are in place.", True),
    ("I finished my part!", True),
    ("I have built my part of the structure.", True),
    ("Is your part done?", False),
    ("My part is not done yet.", False),
    ("I need 1 yellow_wool for my part of the structure. Can you give it to me?", False),
    ("Here you go, andy: 1 yellow_wool.", False),
])
def test_a_partner_saying_its_part_is_built(text, done):
    assert says_done(text) is done


def test_the_structure_list_of_the_prompt_is_read():
    state = "Structure built so far:\nred_wool at (1, -60, 2)\nblue_wool at (1, -59, 2)\nINVENTORY\n- red_wool: 1"
    assert read_structure(state) == ({(1, -60, 2): "red_wool", (1, -59, 2): "blue_wool"}, True)
    assert read_structure("Structure built so far:\nnothing built yet\nINVENTORY") == ({}, True)
    assert read_structure("Structure built so far:\nred_wool at (1, -60, 2)\n...and 3 more\nINVENTORY") == (
        {(1, -60, 2): "red_wool"}, False)
    assert read_structure("Structure built so far:\n\nINVENTORY") is None  # the world could not be read
    assert read_structure("INVENTORY\n- red_wool: 1") is None


def test_only_a_partners_request_or_news_breaks_off_an_action():
    def decide(message: str) -> str:
        system = ("You are andy, a Minecraft bot talking with another bot. ... Reply with exactly one word: respond "
                  "or ignore.")
        state = f"Your current action: action:placeBlock\nRecent conversation:\n{message}\nYour decision (respond " \
                f"or ignore):"
        return OracleModel().send([{"role": "user", "content": state}], system).text
    assert decide("jill: (FROM OTHER BOT)I hold no red_wool: please place these for me: red_wool at (1, -60, 2).") \
        == "respond"
    assert decide("jill: (FROM OTHER BOT)My goal is done: all 9 of my blocks are in place.") == "respond"
    assert decide("jill: (FROM OTHER BOT)Thanks, andy!") == "ignore"
    assert decide("jill: (FROM OTHER BOT)Here you go, andy: 1 stick.") == "ignore"


# ---- building ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile", ["coblock", "task"])
def test_independent_goal_is_checked_then_built_bottom_up_without_a_refusal(profile):
    scene = Scene("coblock_independent_0", 0, profile=profile)
    replies = scene.play(30, stop=lambda r: "!startConversation" in r)
    assert names(replies)[0] == "checkGoal"
    cells = placed(replies)
    assert sorted(c[1:] + (c[0],) for c in cells) == sorted(scene.goal_blocks)  # all of it, each once
    assert [c[2] for c in cells] == sorted(c[2] for c in cells)  # lowest layer first
    assert scene.world.refusals == []  # never a block that would float
    assert cells[:3] == [("yellow_wool", 100, -60, -98), ("orange_wool", 101, -60, -98),
                         ("blue_wool", 101, -59, -98)]  # (101, -59, -99) rests on (101, -59, -98): after it
    # checked again at the end, then tells the partner, and does not end the task alone
    assert "checkGoal" in names(replies[-3:])
    name, args = command(replies[-1])
    assert name == "startConversation" and args[0] == "jill" and "My goal is done" in args[1]
    assert "endTask" not in names(replies)


@pytest.mark.parametrize("profile", ["coblock", "task"])
def test_the_goal_is_built_on_blocks_already_there(profile):
    world = World({(100, -60, -98): "yellow_wool", (101, -60, -98): "orange_wool"})
    replies = Scene("coblock_independent_0", 0, profile=profile, world=world).play(3)
    assert names(replies)[0] == "checkGoal"
    assert placed(replies)[0] == ("blue_wool", 101, -59, -98)


@pytest.mark.parametrize("profile", ["coblock", "task"])
def test_a_wrong_block_in_my_goal_is_broken_then_replaced(profile):
    world = World({(100, -60, -98): "red_wool"})
    replies = Scene("coblock_independent_0", 0, profile=profile, world=world).play(3)
    assert names(replies)[:3] == ["checkGoal", "breakBlock", "placeBlock"]
    assert command(replies[1])[1] == [100, -60, -98]
    assert placed(replies) == [("yellow_wool", 100, -60, -98)]


def test_a_block_that_went_missing_is_placed_again():
    scene = Scene("coblock_independent_0", 0)
    scene.play(3)
    assert (100, -60, -98) in scene.world.blocks
    del scene.world.blocks[(100, -60, -98)]  # as when a passing bot's pathfinder digs through the structure
    scene.items["yellow_wool"] = 1
    replies = scene.play(3)
    assert ("yellow_wool", 100, -60, -98) in placed(replies)


def test_a_cell_that_keeps_failing_is_left_for_a_while():
    top = (101, -55, -98)  # the top green_wool: nothing rests on it
    scene = Scene("coblock_independent_0", 0, world=World(unreachable=[top]))
    replies = without_offers(scene.play(20))
    tries = [i for i, r in enumerate(replies) if command(r) == ("placeBlock", ["green_wool", *top])]
    assert tries[:3] == list(range(tries[0], tries[0] + 3))                 # three tries in a row...
    assert names(replies)[tries[2] + 1:tries[2] + 4] == ["stay"] * 3          # ...then waits...
    assert all(names(replies)[i + 1] == "stay" for i in tries[3:-1])          # ...and from then on one try a while
    assert len(tries) <= 5 and len(placed(replies)) - len(tries) == 8  # every other block is placed


# ---- colours: asking the partner to place them (CoBlock's rule) -------------------------------------------------
def test_a_missing_colour_is_asked_for_with_its_cells():
    # skill_dependent_0, agent 1: its goal takes 1 yellow_wool at (100, -60, -98) and it holds none
    scene = Scene("coblock_skill_dependent_0", 1, name="jill", partner="andy")
    replies = scene.play(3)
    name, args = command(replies[1])
    assert (name, args[0]) == ("startConversation", "andy")
    assert args[1] == "I hold no yellow_wool: please place these for me: yellow_wool at (100, -60, -98)."
    assert command(replies[2])[0] == "placeBlock"  # builds the rest meanwhile
    replies = scene.play(20, stop=lambda r: "!stay" in r)
    assert ("yellow_wool", 100, -60, -98) not in placed(replies)
    # the partner places it: the goal is then complete
    scene.world.blocks[(100, -60, -98)] = "yellow_wool"
    replies = scene.play(5, stop=lambda r: "My goal is done" in r)
    assert "My goal is done" in replies[-1] and scene.world.refusals == []


def test_only_the_cells_beyond_what_i_hold_are_asked_for():
    scene = Scene("coblock_independent_0", 1, name="jill", partner="andy", items={"orange_wool": 6, "yellow_wool": 1})
    replies = scene.play(2)
    assert command(replies[1])[1][1] == ("I hold too few orange_wool: please place these for me: orange_wool at "
                                         "(102, -58, -97), orange_wool at (102, -58, -96).")  # the last two of 8


def test_the_partner_places_what_it_asks_for_with_my_spares_and_says_what_i_cannot():
    # skill_dependent_0, agent 0 with exact counts (other people's tasks may have them): 2 yellow_wool, its goal
    # takes 1; 8 orange_wool, its goal takes all 8
    scene = Scene("coblock_skill_dependent_0", 0, items={"orange_wool": 8, "yellow_wool": 2})
    scene.play(1)
    scene.hear("I hold no yellow_wool and no orange_wool: please place these for me: yellow_wool at (100, -60, -98), "
               "orange_wool at (101, -60, -98).")
    sorry = scene.ask()
    assert sorry == "Sorry jill, I don't have any orange_wool to spare."
    replies = scene.play(25, stop=lambda r: "My goal is done" in r)
    assert ("yellow_wool", 100, -60, -98) in placed(replies) and ("orange_wool", 101, -60, -98) not in placed(replies)
    assert [c[2] for c in placed(replies)][:2] == [-60, -60]  # its cell is on the ground: among the first
    assert scene.items["yellow_wool"] == 0 and scene.world.refusals == []


def test_a_promise_my_blocks_no_longer_cover_is_taken_back():
    scene = Scene("coblock_skill_dependent_0", 0)
    scene.play(1)
    scene.hear("Can you place yellow_wool at (100, -60, -98) for me?")
    assert placed(scene.play(1)) == [("yellow_wool", 102, -60, -98)]  # my own first, then the promised one...
    scene.items["yellow_wool"] = 0  # ...but the other yellow_wool is lost
    assert scene.ask() == "Sorry, I can't place yellow_wool at (100, -60, -98) for you after all: I don't have " \
                          "enough yellow_wool."


# ---- colours: giving them, where the profile allows it -----------------------------------------------------------
def test_where_giving_is_allowed_a_missing_colour_is_asked_for_with_the_exact_count():
    scene = Scene("coblock_skill_dependent_0", 1, name="jill", partner="andy", profile="task")
    replies = scene.play(3)
    name, args = command(replies[1])
    assert name == "startConversation" and args[0] == "andy"
    assert args[1].startswith("I need 1 yellow_wool")
    scene.items["yellow_wool"] = 1
    scene.hear("Here you go, jill: 1 yellow_wool.")
    replies = scene.play(25, stop=lambda r: "My goal is done" in r)
    assert ("yellow_wool", 100, -60, -98) in placed(replies)


def test_where_giving_is_allowed_the_partner_gets_my_spares_and_only_them():
    scene = Scene("coblock_skill_dependent_0", 0, items={"orange_wool": 8, "yellow_wool": 2}, profile="task")
    scene.play(1)
    scene.hear("I need 1 yellow_wool for my part of the structure. Can you give it to me?")
    give = scene.ask()
    assert command(give) == ("givePlayer", ["jill", "yellow_wool", 1])
    scene.add("system", scene.world.answer(scene, give))
    scene.hear("I need 2 orange wool. Can you give them to me?")
    sorry = scene.ask()
    assert "don't have any orange_wool to spare" in sorry and command(sorry)[0] is None


def test_where_giving_is_allowed_a_partner_asking_for_more_than_my_spares_gets_the_spares():
    scene = Scene("coblock_skill_dependent_0", 0, items={"orange_wool": 8, "yellow_wool": 4}, profile="task")
    scene.play(1)
    scene.hear("Can you give me 5 yellow_wool?")
    assert command(scene.ask()) == ("givePlayer", ["jill", "yellow_wool", 3])  # it keeps 1 for its own cell


def test_where_giving_is_blocked_a_request_for_items_gets_an_offer_to_place_them():
    scene = Scene("coblock_skill_dependent_0", 0, items={"orange_wool": 8, "yellow_wool": 2})
    scene.play(1)
    scene.hear("Can you give me 1 yellow_wool?")
    assert scene.ask() == "I can't hand blocks over, jill, but I have 1 yellow_wool to spare: tell me where to " \
                          "place them."


# ---- goal-dependent: waiting for support ------------------------------------------------------------------------
def test_blocks_that_rest_on_the_partners_wait_for_them_in_the_structure_list():
    # goal_dependent_0, agent 0: the upper goal, which rests on its partner's blocks; the prompt shows them
    scene = Scene("coblock_goal_dependent_0", 0)
    assert names(without_offers(scene.play(5))) == ["checkGoal", "stay", "stay", "stay"]  # nothing to rest on
    partner = TASKS["coblock_goal_dependent_0"]["private_goals"]["1"]
    scene.world.blocks.update({(x, y, z): b for x, y, z, b in partner[:3]})  # the partner's first blocks
    replies = scene.play(3)
    assert names(replies)[0] == "placeBlock" and scene.world.refusals == []  # builds on them at once


def test_without_the_structure_list_blocks_that_would_float_are_probed_a_few_at_a_time():
    scene = Scene("coblock_goal_dependent_0", 0, profile="task")
    replies = without_offers(scene.play(10))
    assert names(replies)[:7] == ["checkGoal"] + ["placeBlock"] * 3 + ["stay"] * 3  # a few probes, then waits
    assert names(replies)[7] == "placeBlock"  # probes again once the waits are over
    assert len(scene.world.refusals) == names(replies).count("placeBlock")
    assert all("would float" in r for r in scene.world.refusals)
    # the partner builds its part and says so: the oracle tries again at once and builds on it
    partner = TASKS["coblock_goal_dependent_0"]["private_goals"]["1"]
    scene.world.blocks.update({(x, y, z): b for x, y, z, b in partner})
    refused = len(scene.world.refusals)
    scene.hear("My goal is done: all 10 of my blocks are in place.")
    replies = scene.play(30, stop=lambda r: "!endTask" in r)
    assert command(replies[0])[0] == "placeBlock" and len(scene.world.refusals) <= refused + 3
    assert sorted(c[1:] + (c[0],) for c in placed(replies)) == sorted(scene.goal_blocks)
    assert command(replies[-1])[0] == "endTask"  # the partner said its part is done: I finish last and end


# ---- ending -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile", ["coblock", "task"])
def test_the_task_is_ended_only_once_the_partner_is_done_too(profile):
    scene = Scene("coblock_independent_0", 0, profile=profile)
    scene.play(30, stop=lambda r: "My goal is done" in r)
    scene.add("system", "Started a conversation with jill.")
    quiet = scene.play(3)
    assert all("endTask" not in r for r in quiet)  # the partner's part may not be built yet
    scene.hear("My goal is done: all 9 of my blocks are in place.")
    assert command(scene.ask())[0] == "endTask"


def test_the_one_who_finishes_last_ends_the_task():
    scene = Scene("coblock_independent_0", 0)
    scene.play(2)
    scene.hear("My goal is done: all 9 of my blocks are in place.")
    replies = scene.play(30, stop=lambda r: "!endTask" in r)
    assert command(replies[-1])[0] == "endTask" and "checkGoal" in names(replies[-3:])
    assert not any("My goal is done" in r for r in replies)  # no announcement: the partner is done already


# ---- round mode -------------------------------------------------------------------------------------------------
def test_round_mode_waits_with_wait_and_never_talks_two_turns_in_a_row_while_a_block_can_be_placed():
    # skill_dependent_4, agent 0: 6 green_wool to place, holds only 1 orange_wool (its partner's colour)
    scene = Scene("coblock_skill_dependent_4", 0, rounds=True, items={"orange_wool": 1})
    scene.hear("I hold no orange_wool and no blue_wool: please place these for me: orange_wool at (105, -60, -97), "
               "blue_wool at (105, -59, -97).")
    replies = scene.play(4)
    assert replies[0] == "!checkGoal"  # bare commands: words beside them would not be sent
    assert replies[1] == "Sorry jill, I don't have any blue_wool to spare."  # talk, in the open conversation
    assert replies[2] == '!placeBlock("orange_wool", 105, -60, -97)'  # not a second talk: a block can be placed
    assert replies[3].startswith("I hold no green_wool: please place these for me: green_wool at")
    assert names(scene.play(2)) == ["wait", "wait"]  # nothing to do but wait: !wait, as round mode offers it
    scene.items["green_wool"] = 6  # (a partner breaking the rules: handing over its blocks)
    scene.hear("I won't place them, but here are 6 green_wool for you. Can you place orange_wool at (106, -60, "
               "-97) for me too? And I need 1 blue_wool.")
    replies = scene.play(12, stop=lambda r: "My goal is done" in r)
    talk = [command(r)[0] in (None, "startConversation") for r in replies]
    assert talk[:3] == [True, False, False]  # "no orange_wool to spare", then blocks...
    assert not any(a and b for a, b in zip(talk, talk[1:], strict=False))  # ...and never two talks in a row


def test_round_mode_places_a_block_between_two_messages():
    # skill_dependent_0, agent 1: lacks 1 yellow_wool; its partner asks it for green_wool it needs all of
    scene = Scene("coblock_skill_dependent_0", 1, name="jill", partner="andy", rounds=True,
                  items={"blue_wool": 4, "green_wool": 3, "orange_wool": 1})  # exact counts
    scene.hear("Can you place green_wool at (103, -60, -98) for me?")
    replies = scene.play(4)
    assert replies[0] == "!checkGoal"
    assert replies[1] == "Sorry andy, I don't have any green_wool to spare."
    assert command(replies[2])[0] == "placeBlock"  # not a second message in a row: a block can be placed
    assert replies[3].startswith("I hold no yellow_wool: please place these for me:")


# ---- wordings of answers and partners the oracle did not write itself ----
@pytest.mark.parametrize("answer", [
    "Placed blue_wool at x: 1, y: -53, z: 2.",                                          # the place skill
    "Placed blue_wool at (1, -53, 2) (from where you stand: there is no way up to it).",  # the command, from afar
])
def test_both_wordings_of_a_placement_are_read(answer):
    site = Site(goal=[(1, -53, 2, "blue_wool")])
    site.observe(answer)
    assert site.blocks == {(1, -53, 2): "blue_wool"}


@pytest.mark.parametrize("message, done", [
    ("All my blocks are placed.", True), ("I'm done", True), ("Done!", True), ("My goal is done.", True),
    ("I'm not done yet.", False), ("Are you done?", False), ("Is your part done?", False),
])
def test_a_partner_saying_it_is_done_in_other_words(message, done):
    assert says_done(message) is done


@pytest.mark.parametrize("message, blocks", [
    ("Place yellow_wool at (100, -60, -98), thanks.", [(100, -60, -98, "yellow_wool")]),
    ("I need yellow_wool at (100, -60, -98).", [(100, -60, -98, "yellow_wool")]),
    ("I placed yellow_wool at (100, -60, -98).", []),   # a report, not a request
    ("I'll place red_wool at (1, -60, 2).", []),
])
def test_placement_requests_in_other_words(message, blocks):
    assert placement_request(message) == blocks


def test_a_block_named_in_another_familys_goal_is_not_a_coblock_goal():
    assert parse_goal("Collect 3 oak_log near the oak_log at (10, 64, 3).").kind != "coblock"


# ---- workload: handing over part of a bigger goal to a partner who is done ---------------------------------------
OFFER = "My part is built! I hold blue_wool and yellow_wool: tell me which of your blocks to place."


def busy_scene(**kwargs) -> tuple[Scene, list[tuple]]:
    """skill_dependent_3, agent 1 (jill, 15 blocks) after a few placements, told by andy (10 blocks, done) that he
    can place blue and yellow; returns the scene and the cells jill handed over."""
    scene = Scene("coblock_skill_dependent_3", 1, name="jill", partner="andy", **kwargs)
    own = placed(scene.play(4))
    scene.hear(OFFER)
    handover = scene.ask()
    cells = placement_request(handover)
    assert handover.startswith("Thanks! Please place these for me:") and cells
    left = len(scene.goal_blocks) - len(own)
    assert len(cells) == left // 2  # half of what is left, so both finish about together
    assert {b for *_, b in cells} <= {"blue_wool", "yellow_wool"}  # only colours andy holds
    order = [tuple(b) for b in scene.goal_blocks]
    assert [order.index(tuple(c)) for c in cells] == sorted(order.index(tuple(c)) for c in cells)
    return scene, cells


def test_a_partner_who_is_done_gets_half_of_what_is_left_in_its_colours_and_i_leave_those_cells_to_it():
    scene, cells = busy_scene()
    replies = scene.play(40, stop=lambda r: "!stay" in r)
    mine = placed(replies)
    assert not {(b, x, y, z) for x, y, z, b in cells} & set(mine)  # handed over: not placed by me
    scene.world.blocks.update({(x, y, z): b for x, y, z, b in cells})  # andy places them
    replies = scene.play(6, stop=lambda r: "!endTask" in r)
    assert command(replies[-1])[0] == "endTask" and scene.world.refusals == []


def test_handed_over_cells_the_partner_cannot_place_come_back_to_me():
    scene, cells = busy_scene()
    scene.hear("Sorry jill, I don't have any yellow_wool to spare.")
    replies = scene.play(40, stop=lambda r: "!endTask" in r)
    yellow = {(b, x, y, z) for x, y, z, b in cells if b == "yellow_wool"}
    assert yellow and yellow <= set(placed(replies))


def test_handed_over_cells_nobody_places_come_back_to_me_after_a_while():
    scene, cells = busy_scene()
    replies = scene.play(60, stop=lambda r: "!endTask" in r)
    assert {(b, x, y, z) for x, y, z, b in cells} <= set(placed(replies))
    assert 3 <= names(replies).count("stay") <= 3 + 6  # waited for andy (HANDED_PATIENCE), not forever


def test_without_the_structure_list_handed_over_cells_are_seen_with_check_goal():
    scene, cells = busy_scene(profile="task")
    scene.world.blocks.update({(x, y, z): b for x, y, z, b in cells})  # andy places them at once
    replies = scene.play(40, stop=lambda r: "!endTask" in r)
    assert not {(b, x, y, z) for x, y, z, b in cells} & set(placed(replies))
    assert names(replies)[-2:] == ["checkGoal", "endTask"]  # the check showed andy's blocks: the goal is done


def test_when_my_part_is_done_i_offer_my_colours_and_place_what_i_am_handed():
    task = TASKS["coblock_skill_dependent_3"]
    green = {(x, y, z): b for x, y, z, b in task["private_goals"]["0"] if b == "green_wool"}  # jill places these
    scene = Scene("coblock_skill_dependent_3", 0, world=World(green))
    replies = scene.play(30, stop=lambda r: "My goal is done" in r)
    offer = command(replies[-1])[1][1] if command(replies[-1])[0] else replies[-1]
    assert offered_colours(offer) == {"blue_wool", "red_wool", "yellow_wool"} and says_done(offer)
    partner = [tuple(b) for b in task["private_goals"]["1"]]
    scene.world.blocks.update({c[:3]: c[3] for c in partner[:9]})  # jill built her lower part
    scene.hear("Thanks! Please place these for me: " + ", ".join(f"{b} at ({x}, {y}, {z})" for x, y, z, b in
                                                                 partner[9:]) + ".")
    replies = scene.play(20, stop=lambda r: r == "")
    assert sorted(placed(replies)) == sorted((b, x, y, z) for x, y, z, b in partner[9:])


@pytest.mark.parametrize("message, colours", [
    (OFFER, {"blue_wool", "yellow_wool"}),
    ("I have finished my sub-structure. What should we do next?", set()),
    ("Need a hand? I can place some red wool and blue wool for you.", {"red_wool", "blue_wool"}),
    ("Can I help? I have Blue Wool and RED_WOOL.", {"red_wool", "blue_wool"}),
    ("Do you need me to place any of yours? I still have green_wool.", {"green_wool"}),
    ("I'm building my part now.", None),
    ("Please place these for me: red_wool at (1, -60, 2).", None),
])
def test_offers_of_help_in_other_words(message, colours):
    assert offered_colours(message) == colours


def test_waiting_with_nothing_to_place_i_offer_help_now_and_then_and_a_busy_partner_hands_over_blocks():
    # goal_dependent_0, agent 0 (andy): the upper goal, nothing to rest on yet
    scene = Scene("coblock_goal_dependent_0", 0)
    replies = scene.play(30)
    offers = [i for i, r in enumerate(replies) if not without_offers([r])]  # opening a conversation, or in it
    assert offers and names(replies)[offers[0] - 2:offers[0]] == ["stay", "stay"]  # after two waits in a row
    text = command(replies[offers[0]])[1][1]  # the first offer opens the conversation
    assert offered_colours(text) == set(scene.items) and not says_done(text)
    assert blocks_left(text) == len(scene.goal_blocks)  # none placed yet: all of andy's own work is still to do
    assert len(offers) >= 2 and all(b - a >= 12 for a, b in zip(offers, offers[1:], strict=False))  # now and then
    # jill, busy with her base, hands over what evens out the work left in andy's colours (here andy says he has
    # 1 block left); while she waits herself, she hands over nothing (a block nobody can place yet helps nobody)
    text = text.replace(f"with {len(scene.goal_blocks)} of my blocks", "with 1 of my blocks")
    jill = Scene("coblock_goal_dependent_0", 1, name="jill", partner="andy")
    jill.play(3)
    jill.hear(text)
    handover = jill.ask()
    cells = placement_request(handover)
    assert cells and {b for *_, b in cells} <= set(scene.items)
    waiting = Scene("coblock_goal_dependent_0", 1, name="jill", partner="andy", items={})
    waiting.play(2)
    waiting.hear(text)
    assert not placement_request(waiting.ask())


def test_a_handover_the_agent_dropped_is_made_again():
    # a newer message made the reply stale: the agent never said it, so the cells are jill's again until she does
    scene = Scene("coblock_skill_dependent_3", 1, name="jill", partner="andy")
    scene.play(4)
    scene.hear(OFFER)
    first = scene.ask()
    assert placement_request(first)
    scene.turns.pop()  # dropped: not in the history
    scene.add("system", "Action output:\nStayed for 3 seconds.")
    again = scene.ask()
    assert placement_request(again) == placement_request(first)


def test_a_partner_with_blocks_of_its_own_left_gets_only_what_evens_us_out():
    scene = Scene("coblock_skill_dependent_3", 1, name="jill", partner="andy")
    own = placed(scene.play(4))
    left = len(scene.goal_blocks) - len(own)
    scene.hear(f"I have nothing to place right now, with {left - 4} of my blocks still to place. I hold "
               f"blue_wool and yellow_wool: tell me which of your blocks to place.")
    assert len(placement_request(scene.ask())) == 2  # (left - (left - 4)) // 2
    busy = Scene("coblock_skill_dependent_3", 1, name="jill", partner="andy")
    busy.play(4)
    busy.hear(f"I have nothing to place right now, with {left} of my blocks still to place. I hold blue_wool.")
    assert not placement_request(busy.ask())  # as much work left as I have: nothing to hand over


# ---- the paper's setting: no !checkGoal, the XML state is the check ----------------------------------------------
def test_paper_setting_builds_the_goal_read_from_motives_bottom_up_without_check_goal():
    scene = Scene("coblock_independent_0", 0, check_goal=False)
    scene.goal = ""  # nothing but the XML state says what the goal is
    scene.prompter.providers["TASK_GOAL"] = ""
    replies = scene.play(30, stop=lambda r: "!startConversation" in r)
    assert "checkGoal" not in names(replies)
    cells = placed(replies)
    assert sorted(c[1:] + (c[0],) for c in cells) == sorted(scene.goal_blocks)
    assert [c[2] for c in cells] == sorted(c[2] for c in cells) and scene.world.refusals == []
    name, args = command(replies[-1])
    assert name == "startConversation" and "My goal is done" in args[1]


def test_paper_setting_breaks_a_wrong_block_it_sees_in_the_world():
    world = World({(100, -60, -98): "red_wool"})
    replies = Scene("coblock_independent_0", 0, world=world, check_goal=False).play(2)
    assert names(replies) == ["breakBlock", "placeBlock"]
    assert placed(replies) == [("yellow_wool", 100, -60, -98)]


def test_paper_setting_in_rounds_asks_for_a_missing_colour_then_waits_for_it():
    scene = Scene("coblock_skill_dependent_0", 1, name="jill", partner="andy", rounds=True, check_goal=False)
    replies = scene.play(30)
    assert "checkGoal" not in names(replies)
    asks = [r for r in replies if "please place these for me: yellow_wool at (100, -60, -98)" in r]
    assert asks and ("yellow_wool", 100, -60, -98) not in placed(replies) and "wait" in names(replies)


@pytest.mark.parametrize("state", [
    '<Input><Motives><VisualMotive><block block_type="red_wool" pos="(1, -60, 2)"/>'
    '<block pos="(1, -59, 2)" block_type="blue_wool"/></VisualMotive></Motives>'
    '<World><block block_type="red_wool" pos="(1, -60, 2)"/></World>'
    '<Inventory><block block_type="blue_wool" count="3"/></Inventory></Input>',
    "<motives>\n<block type=red_wool, pos=(1, -60, 2)>\n<block type=blue_wool, pos=[1, -59, 2]>\n</motives>\n"
    "<WORLD>\n<block type=red_wool x=1 y=-60 z=2/>\n</WORLD>\n<inventory><block block_type='blue_wool' count=3/>"
    "</inventory>",
])
def test_the_xml_state_is_read_in_other_wordings(state):
    from mindpy.oracle.coblock import read_motives, read_xml_inventory

    assert read_motives(state) == [(1, -60, 2, "red_wool"), (1, -59, 2, "blue_wool")]
    assert read_structure(state) == ({(1, -60, 2): "red_wool"}, True)
    assert read_xml_inventory(state) == {"blue_wool": 3}
