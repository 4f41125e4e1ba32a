"""Reading the agent's prompt: who am I, what is my task, what do I hold, what just happened.

Everything the oracle decides on comes from here, so that its facts are the ones the prompt shows (inventory,
command outputs, partners' messages), never assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..agent.conversation import BOT_TAG

SELF_PROMPT_START = "You are self-prompting with the goal:"

_NAME = re.compile(r"^You are ([A-Za-z0-9_]+), a Minecraft (?:bot|player)")
# CoBlock's prompt names the partner ("Your partner is jill.") where other prompts append TEAM_SENTENCE to the goal
_PARTNER_SENTENCE = re.compile(r"\bYour partners? (?:is|are):? ([A-Za-z0-9_]+(?:,\s*[A-Za-z0-9_]+)*)\.?")
_TASK_START = "Your task: "
# The sentence mindpy.harness.episode appends to the goal, naming the other agents in agent order.
TEAM_SENTENCE = re.compile(r"The other agents are: ([A-Za-z0-9_]+(?:,\s*[A-Za-z0-9_]+)*)\.?")
# Where the goal ends: after the sentence naming the teammates or at the next part of the task prompt, whichever
# comes first (the goal itself may hold blank lines, as MINDcraft's do); else at a blank line.
_PROMPT_GOES_ON = re.compile(r"\n(?:At the start of the task you|You act in the world)")
_BLANK_LINE = re.compile(r"\n\s*\n")
_ITEM_LINE = re.compile(r"^- ([a-z0-9_]+): (\d+)$", re.M)
_NEARBY = re.compile(r"Other players nearby: (.*)")
_SENDER = re.compile(r"^([A-Za-z0-9_]+): (.*)$", re.S)
_CONVO_ENDED = re.compile(r'^Conversation with ([A-Za-z0-9_]+) ended with message: "(.*)"$', re.S)
_STARTED = re.compile(r"^Started a conversation with ([A-Za-z0-9_]+)\.")
_ENDED = re.compile(r"^Ended the conversation with ([A-Za-z0-9_]+)\.")
_LEFT = re.compile(r"^([A-Za-z0-9_]+) left the game; the conversation has ended\.")
# Round mode (mindpy.agent.turns): each turn opens with "Round 3 of 40. Your turn. ..." ("Round 3. ..." unbounded).
_ROUND = re.compile(r"^Round (\d+)(?: of (\d+))?\b")


@dataclass
class Incoming:
    """A message from another bot."""

    sender: str
    text: str            # without the "(FROM OTHER BOT)" tag
    ended: bool = False  # it came with the end of the conversation


@dataclass
class PromptView:
    """What the oracle reads from a prompt: who it is, the goal, inventory, partners and messages."""

    kind: str                      # conversing, coding, saving_memory, bot_responder
    name: str = ""
    goal: str = ""                 # the task goal, with the "other agents" sentence
    others: list[str] = field(default_factory=list)
    inventory: dict[str, int] = field(default_factory=dict)
    inventory_known: bool = False
    current_action: str = "none"
    trigger: dict | None = None    # the turn the model is answering (before the state message)
    new_messages: list[Incoming] = field(default_factory=list)  # partners' messages since my last reply
    partner: str | None = None     # who I am in a conversation with, as far as the turns show
    my_last: str = ""              # my last reply
    last_output: str = ""          # the last system turn that followed my last reply (a command's output)
    outputs: list[str] = field(default_factory=list)  # every system turn since my last reply (outputs, notes)
    round: tuple[int, int | None] | None = None  # round mode: (round, last round) of the turn being played
    turns: list[dict] = field(default_factory=list)
    state: str = ""                # the last message: memory, stats, inventory...
    system: str = ""

    @property
    def everyone(self) -> list[str]:
        return sorted({self.name, *self.others} - {""})

    def has(self, item: str) -> int:
        return self.inventory.get(item, 0)

    def may(self, command: str) -> bool:
        """Whether I may use `command`: the prompt's command docs leave blocked commands out. Docs open with a
        "COMMANDS" line and (but where a profile blocks it, as CoBlock's) list `!stats`; a prompt with neither has
        no docs, and nothing is known to be blocked."""
        if not re.search(r"^!stats\b|^COMMANDS$", self.system, re.M):
            return True
        return re.search(rf"^!{re.escape(command)}\b", self.docs, re.M) is not None

    def offers(self, command: str) -> bool:
        """Whether the prompt's command docs list `command` (False without docs): for commands that exist only in
        some games, such as round mode's `!wait`."""
        return re.search(rf"^!{re.escape(command)}\b", self.docs, re.M) is not None

    @property
    def docs(self) -> str:
        """The command docs of the system prompt: from their "COMMANDS" line to the first blank line that does not
        go on with docs (examples further on may hold commands the docs do not offer); the whole system prompt
        when it has no such line."""
        start = re.search(r"^COMMANDS$", self.system, re.M)
        if start is None:
            return self.system
        rest = self.system[start.end():]
        end = re.search(r"\n\s*\n(?!\s*(?:!|Queries|Actions))", rest)
        return rest[:end.start()] if end else rest


def prompt_kind(system: str) -> str:
    """Which prompt the system message is: conversing, coding, saving_memory or bot_responder."""
    if "respond or ignore" in system:
        return "bot_responder"
    if "Your memory is a short note" in system:
        return "saving_memory"
    if "acts by writing Python code" in system or "can write Python to control itself" in system:
        return "coding"
    return "conversing"


def task_goal(system: str) -> str:
    """The task goal in a system prompt ("" when there is none)."""
    at = system.find(_TASK_START)
    if at < 0:
        return ""
    rest = system[at + len(_TASK_START):]
    ends = []
    team = TEAM_SENTENCE.search(rest)
    if team:
        ends.append(team.end())
    goes_on = _PROMPT_GOES_ON.search(rest)
    if goes_on:
        ends.append(goes_on.start())
    if not ends:
        blank = _BLANK_LINE.search(rest)
        ends.append(blank.start() if blank else len(rest))
    return rest[:min(ends)].strip()


def parse_inventory(text: str) -> dict[str, int] | None:
    """The items of the last INVENTORY block in `text`, or None when there is none."""
    at = text.rfind("INVENTORY")
    if at < 0:
        return None
    block = text[at:].split("\n\n")[0]
    block = re.split(r"\n(?=[A-Z_]{4,}\b)", block)[0]  # stop at the next section (STATS, WEARING...)
    return {name: int(n) for name, n in _ITEM_LINE.findall(block) if name != "free"}


def split_sender(content: str) -> tuple[str, str]:
    """(sender, text) of a chat message written as "name: text"; ("", content) otherwise."""
    m = _SENDER.match(content)
    return (m.group(1), m.group(2)) if m else ("", content)


def read_prompt(messages: list[dict], system: str) -> PromptView:
    """The PromptView of a chat request (its messages and system prompt)."""
    system = str(system)
    view = PromptView(kind=prompt_kind(system), system=system)
    m = _NAME.match(system.strip())
    view.name = m.group(1) if m else ""
    view.goal = task_goal(system)
    others = TEAM_SENTENCE.search(view.goal) or TEAM_SENTENCE.search(system) or _PARTNER_SENTENCE.search(system)
    if others:
        view.others = [n.strip() for n in others.group(1).split(",") if n.strip() and n.strip() != view.name]
    turns = [dict(m) for m in messages]
    if turns and turns[-1]["role"] in ("system", "user") and any(
            mark in turns[-1]["content"] for mark in ("INVENTORY", "Current action", "<Input>", "<World")):
        view.state = str(turns.pop()["content"])
    if not view.goal and view.state:  # CoBlock's XML state: the goal is its <Motives>
        from .coblock import motives_goal_text

        view.goal = motives_goal_text(view.state)
    view.turns = turns
    view.trigger = turns[-1] if turns else None
    inv = parse_inventory(view.state) if view.state else None
    if inv is None and view.state:
        from .coblock import read_xml_inventory

        inv = read_xml_inventory(view.state)  # CoBlock's XML state (never the system's format examples)
    if inv is None:
        inv = parse_inventory(system)
    if inv is not None:
        view.inventory, view.inventory_known = inv, True
    action = re.search(r"Current action: (.*)", view.state)
    view.current_action = action.group(1).strip() if action else "none"
    seen = set(view.others)
    for t in turns:
        content = str(t["content"])
        role = t["role"]
        if role == "assistant":
            view.my_last = content
            view.new_messages = []
            view.last_output = ""
            view.outputs = []
            continue
        if role == "user":
            sender, text = split_sender(content)
            if text.startswith(BOT_TAG):
                view.partner = sender
                view.new_messages.append(Incoming(sender, text[len(BOT_TAG):]))
                seen.add(sender)
            continue
        # system turns: conversation events and command outputs
        ended = _CONVO_ENDED.match(content)
        if ended:
            who, text = ended.group(1), ended.group(2)
            text = text[len(BOT_TAG):] if text.startswith(BOT_TAG) else text
            text = re.sub(r'!endConversation\([^)]*\)', "", text).strip()
            if text:
                view.new_messages.append(Incoming(who, text, ended=True))
            seen.add(who)
            if view.partner == who:
                view.partner = None
            continue
        for pattern in (_ENDED, _LEFT):
            hit = pattern.match(content)
            if hit and view.partner == hit.group(1):
                view.partner = None
        started = _STARTED.match(content)
        if started:
            view.partner = started.group(1)
        turn = _ROUND.match(content)
        if turn:  # the turn's opening, not an output
            view.round = (int(turn.group(1)), int(turn.group(2)) if turn.group(2) else None)
            continue
        if view.my_last and not content.startswith(SELF_PROMPT_START):
            view.last_output = content
            view.outputs.append(content)
    if not view.others:
        nearby = _NEARBY.search(view.state)
        names = [n.strip() for n in nearby.group(1).split(",")] if nearby else []
        view.others = sorted({n for n in names if n and n != "none"} | seen - {view.name})
    return view
