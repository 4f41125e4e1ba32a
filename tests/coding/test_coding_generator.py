"""`!newAction`: the attempt loop with a scripted model, the trust policy, and generated code driving real bots.

The model is a list of replies (`Scripted`); the sandbox, the skills and the server are real.
"""

from __future__ import annotations

import threading
import time

from conftest import isolate, wait_until
from mindpy.coding import Coder, CodingPolicy, bind_api, extract_code, model_asker
from mindpy.coding.generator import DEFAULT_CODING_PROMPT, SELF_REQUESTER, fill_prompt
from mindpy.skills import Skills

TRUSTING = CodingPolicy(allow_insecure_coding=True, trusted_players=["alice"])


class Scripted:
    """`ask_model` that answers with the given replies in turn and records what it was asked."""

    def __init__(self, *replies: str):
        self.replies = list(replies)
        self.asked: list[list[dict]] = []

    def __call__(self, messages: list[dict]) -> str:
        self.asked.append(messages)
        if not self.replies:
            raise AssertionError("the model was asked more often than scripted")
        return self.replies.pop(0)


def block_name(bot, x, y, z):
    block = bot.js.blockAt(bot.js.entity.position.floored().set(x, y, z))
    return block.name if block is not None else None


# ---- the loop ---------------------------------------------------------------------------------------------
def test_extract_code_prefers_python_blocks():
    assert extract_code("Here:\n```python\nprint(1)\n```\nDone.") == "print(1)"
    assert extract_code("```json\n{}\n```\n```py\nx = 2\n```") == "x = 2"
    assert extract_code("```\nprint(3)\n```") == "print(3)"
    assert extract_code("<think>```python\nbad()\n```</think>ok\n```python\ngood()\n```") == "good()"
    assert extract_code("I will collect wood now. !collectBlocks('oak_log', 1)") is None


def test_retries_after_an_error_and_succeeds():
    model = Scripted("Let me try.\n```python\ncounts = {'oak_log': 2}\nprint(counts['birch_log'])\n```",
                     "Oops.\n```python\ncounts = {'oak_log': 2}\nprint('logs:', counts.get('oak_log'))\n```")
    outcome = Coder(None, model, TRUSTING, name="andy").new_action("count the logs", "alice")
    assert outcome.success and outcome.attempts == 2 and len(outcome.runs) == 2
    assert outcome.summary == "Code output:\nlogs: 2\nThe code finished."
    second_prompt = model.asked[1]
    assert second_prompt[0]["role"] == "system" and "andy" in second_prompt[0]["content"]
    assert second_prompt[1] == {"role": "user", "content": "count the logs"}
    feedback = second_prompt[-1]["content"]
    assert "KeyError: 'birch_log'" in feedback and "line 2: print(counts['birch_log'])" in feedback
    assert feedback.endswith("Fix the code and send it again.")


def test_checker_refusals_are_fed_back_and_count_as_attempts():
    model = Scripted("```python\nimport os\nprint(os.listdir('.'))\n```",
                     "```python\nskills.colect_blocks('oak_log', 1)\n```",
                     "```python\nprint('fine')\n```")
    outcome = Coder(None, model, TRUSTING).new_action("look around", "alice")
    assert outcome.success and outcome.attempts == 3
    assert outcome.runs[0].refused and outcome.runs[1].refused
    assert "importing os is not allowed" in model.asked[1][-1]["content"]
    assert "Did you mean skills.collect_blocks?" in model.asked[2][-1]["content"]


def test_gives_up_after_three_replies_without_code():
    model = Scripted("Sure, I'll do that!", "!collectBlocks('oak_log', 1)", "Working on it.", "never asked")
    outcome = Coder(None, model, TRUSTING).new_action("get wood", SELF_REQUESTER)
    assert not outcome.success and outcome.attempts == 3 and outcome.runs == []
    assert outcome.summary == "Gave up on the code: 3 replies in a row had no code block."
    assert "No code block found" in model.asked[1][-1]["content"]
    assert model.replies == ["never asked"]


def test_replies_without_code_in_between_do_not_count_as_in_a_row():
    model = Scripted("Thinking.", "Still thinking.", "```python\nprint(1/0)\n```", "Hmm.", "Right.",
                     "never asked")
    outcome = Coder(None, model, TRUSTING).new_action("divide", "alice")
    assert not outcome.success and outcome.attempts == 5  # the attempt limit, not the no-code limit
    assert outcome.summary.startswith("Gave up on the code after 5 attempts. Last problem:")
    assert "ZeroDivisionError" in outcome.summary


def test_gives_up_after_five_failed_attempts():
    model = Scripted(*["```python\nprint(undefined_thing)\n```"] * 6)
    outcome = Coder(None, model, TRUSTING).new_action("fail", "alice")
    assert not outcome.success and outcome.attempts == 5 and len(model.replies) == 1
    assert "the name undefined_thing is not defined" in outcome.summary


def test_stop_ends_the_loop_and_the_running_code():
    stop = threading.Event()
    threading.Timer(0.7, stop.set).start()
    model = Scripted("```python\nimport time\nwhile True:\n    time.sleep(0.1)\n```", "never asked")
    start = time.monotonic()
    outcome = Coder(None, model, TRUSTING, timeout=60).new_action("wait", "alice", cancel=stop)
    assert time.monotonic() - start < 4
    assert not outcome.success and outcome.runs[0].stopped
    assert model.replies == ["never asked"]


def test_model_errors_end_the_action_not_the_caller():
    def broken(messages):
        raise ConnectionError("no route to the model")
    outcome = Coder(None, broken, TRUSTING).new_action("anything", "alice")
    assert not outcome.success and "the model could not be reached (no route to the model)" in outcome.summary


def test_prompt_mentions_python_the_api_and_the_relevant_docs():
    prompt = Coder(None, Scripted(), TRUSTING, name="andy").system_prompt(
        "collect 3 oak logs", {"inventory": "INVENTORY\n- dirt: 1"})
    assert "You are andy" in prompt and "Your task: collect 3 oak logs" in prompt
    assert "```python" in prompt and "skills.*" in prompt and "world.*" in prompt
    assert "skills.collect_blocks(block: str, num: int = 1) -> bool" in prompt
    assert "INVENTORY\n- dirt: 1" in prompt and "$" not in prompt
    assert fill_prompt("a $NAME b $UNKNOWN c", {"name": "x"}) == "a x b  c"
    assert "$CODE_DOCS" in DEFAULT_CODING_PROMPT


def test_model_asker_adapts_the_agent_model_interface():
    class Reply:
        text = "```python\nprint(5)\n```"

    class Model:
        def send(self, messages, system):
            self.seen = (messages, system)
            return Reply()

    model = Model()
    ask = model_asker(model)
    assert ask([{"role": "system", "content": "S"}, {"role": "user", "content": "u"}]) == Reply.text
    assert model.seen == ([{"role": "user", "content": "u"}], "S")


# ---- the policy ---------------------------------------------------------------------------------------------
def test_policy_refuses_when_coding_is_off_or_the_player_is_not_trusted():
    off = CodingPolicy(allow_insecure_coding=False, trusted_players=["alice"])
    assert "switched off" in off.refusal("alice")
    assert "switched off" in off.refusal(SELF_REQUESTER)
    assert TRUSTING.refusal("alice") is None
    assert TRUSTING.refusal(SELF_REQUESTER) is None and TRUSTING.refusal("andy", bot_name="andy") is None
    assert "not one of them" in TRUSTING.refusal("mallory")
    assert "not one of them" in TRUSTING.refusal("Alice")  # names are matched exactly
    assert "not one of them" in TRUSTING.refusal(None)


def test_untrusted_player_gets_no_code_run(make_bot):
    bot = make_bot("coder")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 3} {y} {z + 1} oak_log")
    time.sleep(0.5)
    skills = Skills(bot)
    model = Scripted("```python\nskills.collect_blocks('oak_log', 1)\n```")
    for policy, requester in ((TRUSTING, "mallory"), (CodingPolicy(False, ["alice"]), "alice")):
        outcome = Coder(bind_api(skills), model, policy, name=bot.name).new_action("get a log", requester)
        assert outcome.refused and not outcome.success and outcome.runs == []
        assert model.asked == []  # not even the model was asked
    time.sleep(1.0)
    assert bot.inventory().get("oak_log", 0) == 0
    assert block_name(bot, x + 3, y, z + 1) == "oak_log"


# ---- real bots -----------------------------------------------------------------------------------------------
def test_generated_code_collects_and_places_with_a_real_bot(make_bot):
    bot = make_bot("coder")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 3} {y} {z + 1} oak_log")
    bot.command(f"/give {bot.name} cobblestone 2")
    wait_until(lambda: bot.inventory().get("cobblestone", 0) == 2, timeout=5, message="the cobblestone")
    time.sleep(0.3)
    skills = Skills(bot)
    first = "```python\nok = skills.collect_blocks('oak_log')\nprint('collected:', ok, world.inventory()['items'])\n" \
            "skills.place_block('cobblestone', x, y, z)\n```"  # x, y, z undefined: refused, then fixed
    second = ("```python\n"
              "ok = skills.collect_blocks('oak_log', 1)\n"
              "items = world.inventory()['items']\n"
              "print('collected:', ok, 'logs:', items.get('oak_log', 0))\n"
              "p = world.stats()['position']\n"
              f"target = ({x - 2}, {y}, {z})\n"
              "placed = skills.place_block('cobblestone', *target)\n"
              "print('placed:', placed, world.block_at(*target)['name'])\n"
              "```")
    model = Scripted(first, second)
    coder = Coder(bind_api(skills), model, TRUSTING, name=bot.name, timeout=90)
    outcome = coder.new_action("collect the oak log and put a cobblestone 2 blocks west of where you started",
                               "alice")
    assert outcome.runs[0].refused and "the name x is not defined" in outcome.runs[0].error
    assert outcome.success, outcome.summary
    assert "collected: True logs: 1" in outcome.summary
    assert "placed: True cobblestone" in outcome.summary
    assert bot.inventory().get("oak_log", 0) == 1
    assert block_name(bot, x + 3, y, z + 1) == "air"
    assert wait_until(lambda: block_name(bot, x - 2, y, z) == "cobblestone", timeout=5, message="the cobblestone")
    assert bot.inventory().get("cobblestone", 0) == 1


def test_timeout_in_a_real_skill_interrupts_it_and_the_bot_goes_on(make_bot):
    bot = make_bot("coder")
    isolate(bot)
    skills = Skills(bot)
    model = Scripted("```python\nprint('staying')\nskills.stay(120)\nprint('never')\n```")
    start = time.monotonic()
    outcome = Coder(bind_api(skills), model, TRUSTING, name=bot.name, timeout=2, max_attempts=1) \
        .new_action("stand still", "alice")
    assert time.monotonic() - start < 15
    assert not outcome.success and outcome.runs[0].timed_out
    assert "staying" in outcome.runs[0].output and "never" not in outcome.runs[0].output
    assert skills.last_result is not None and skills.last_result.interrupted
    # the bot and the parent go on: a new generated-code run works right away
    again = Coder(bind_api(skills), Scripted("```python\nprint(world.stats()['health'] > 0)\n```"), TRUSTING,
                  name=bot.name).new_action("check health", "alice")
    assert again.success and "True" in again.summary


def test_generated_code_collects_and_crafts_with_a_real_bot(make_bot):
    bot = make_bot("crafter")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 3} {y} {z + 1} oak_log")
    time.sleep(0.5)
    skills = Skills(bot)
    code = ("```python\n"
            "if not skills.collect_blocks('oak_log', 1):\n"
            "    print('no log')\n"
            "print('crafted:', skills.craft_recipe('oak_planks', 1))\n"
            "print('planks:', world.inventory()['items'].get('oak_planks', 0))\n"
            "```")
    outcome = Coder(bind_api(skills), Scripted(code), TRUSTING, name=bot.name, timeout=90, max_attempts=1) \
        .new_action("make oak planks from a log", "alice")
    assert outcome.success, outcome.summary
    assert "crafted: True" in outcome.summary and "planks: 4" in outcome.summary
    assert wait_until(lambda: bot.inventory().get("oak_planks", 0) == 4, timeout=5, message="4 oak planks")
    assert bot.inventory().get("oak_log", 0) == 0
