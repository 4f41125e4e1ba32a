"""The oracle's play: from one prompt (read by prompt.py) to one reply holding one command or a message.

Protocol between oracle agents (nothing is agreed by talking; every agent works it out alike):
- The lead is the agent whose name sorts first. What each family's agents make, who makes it and what they say
  first is the family's plan (plan.py; each family's in mindpy/tasks/families/<name>/oracle.py). Crafting: the
  lead crafts; the others give it every item that can go into the target. Cooking: the lead makes every dish and
  ends up holding them; the others give it their items. Hell's Kitchen: each agent makes its own dish, sends the
  recipe it holds to the agent who needs it, and gives the others what their dishes take. Construction: each agent
  places the blocks it holds materials for, lowest level first; the lead also clears wrong blocks. CoBlock: each
  agent builds its own goal bottom up, asks its partner for the colours it lacks, places what the partner asks for
  with its spares, and whoever finishes last ends the task with `!endTask` (a protocol of its own).
- Whoever lacks something asks one partner at a time ("I need 1 bowl ... Can you give it to me?"); whoever is
  asked gives what it can spare or says it has none. A conversation is short: opening, answer, then
  "Thanks! !endConversation". Waiting is `!stay(5)`, which partners' messages may interrupt.
- Facts come from the prompt each time: inventory, command outputs, partners' messages; what the task asks for
  comes from its fields when the episode told them (`set_task`), else from the goal's words. The state kept
  between calls is only who was asked what, what is owed to whom, and what was already said.
- A goal of no family that names nothing to make: one line saying so, then quiet (requests are still answered).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import coblock, construction
from .cooking import Move
from .dialogue import item_list, quote, read_message
from .goals import TaskGoal, goal_from_fields, parse_goal
from .plan import OraclePlan, plan_for
from .prompt import TEAM_SENTENCE, PromptView

WAIT = '!stay(5)'
WAITS_BEFORE_ASKING = 3   # let partners hand things over before asking
WAITS_BEFORE_REASKING = 8
MAX_REPEATS = 3           # the same command with nothing changing: give up on it...
STUCK_CALLS = 8           # ...ask partners for its item instead, and try it again this many calls later


@dataclass
class Memory:
    """What the player remembers between calls: promises, requests, progress and repeats."""

    owed: list[tuple[str, str, int]] = field(default_factory=list)   # (player, item, count) promised
    sorry: list[tuple[str, list[str]]] = field(default_factory=list)  # (player, items) I must say I lack
    asked: dict[str, set[str]] = field(default_factory=dict)          # item -> partners asked for it
    introduced: set[str] = field(default_factory=set)
    processed: set[tuple[str, str]] = field(default_factory=set)
    team_done: bool = False
    announced: bool = False
    told_lead: bool = False
    recipe_sent: bool = False  # Hell's Kitchen: the recipe I hold went to the partner who needs it
    waits: int = 0
    last_inventory: dict[str, int] = field(default_factory=dict)
    last_command: str = ""
    repeats: int = 0
    fixes: list | None = None
    coding_fixes: list = field(default_factory=list)
    # calls that built, and that waited for a level below, since anyone's progress (the whole check changed) or a
    # new share of mine: each stops at MAX_REPEATS
    build_tries: int = 0
    build_waits: int = 0
    build_check: list = field(default_factory=list)
    build_share: list = field(default_factory=list)
    build_counted_at: int = -1  # the call last counted (a call may plan its build twice)
    stuck: dict[str, int] = field(default_factory=dict)  # failing command -> the call when it may be retried
    calls: int = 0
    site: coblock.Site | None = None  # CoBlock: what my commands' answers taught me about my goal's cells
    talked_last: bool = False         # CoBlock: my last turn was only talk
    asked_progress: bool = False      # CoBlock: I asked the partner whether its part is done
    stocked: bool = False             # CoBlock: the inventory the goal promises has reached the prompt
    to_say: list[tuple[str, str]] = field(default_factory=list)  # CoBlock: (partner, message) still to say
    offers: list[tuple[str, set[str], int]] = field(default_factory=list)  # CoBlock: (partner, colours, its blocks
    #                                                                           left) offering help
    idle: int = 0                     # CoBlock: waits in a row, with nothing I could place
    sent: tuple[str, Memory] | None = None  # CoBlock: my last reply, and my memory from before it
    offered_at: int | None = None     # CoBlock: the call when I last offered help while waiting (None: never)
    unread_said: bool = False         # a goal I could not read: I said so (once)


_NUDGE = re.compile(r"^(\w+) hasn't responded in \d+ seconds")
_RESPONDER_ACTION = re.compile(r"^Your current action: none$", re.M)  # the respond-or-ignore prompt, no action
# the giving skill's words when a toss was neither caught nor taken back (mindpy/skills/js/inventory.js)
_DROPPED = re.compile(r"Tossed \d+ (\w+) to \w+, but [^;]*; \d+ (?:is|are) on the ground near "
                      r"x: (-?\d+(?:\.\d+)?), y: (-?\d+(?:\.\d+)?), z: (-?\d+(?:\.\d+)?)")


def _responder_text(view: PromptView) -> str:
    """A respond-or-ignore prompt's question: the current action and the recent conversation."""
    return view.state or (str(view.turns[-1]["content"]) if view.turns else "")


def _incoming(view: PromptView) -> str:
    """The message a respond-or-ignore prompt asks about: the last line of its conversation."""
    text = _responder_text(view)
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("Your decision")]
    return lines[-1] if lines else ""


def command_of(text: str) -> str:
    """The first command a reply holds ("" when none)."""
    m = re.search(r"![A-Za-z]+(?:\([^)]*\))?", text or "")
    return m.group(0) if m else ""


class Player:
    """One agent's oracle: keeps a little memory between calls (see Memory)."""

    def __init__(self, version: str | None = None):
        self.version = version
        self.mem = Memory()
        self._goal_text: str | None = None
        self._goal: TaskGoal | None = None
        self._plans: dict[str, OraclePlan] = {}  # by goal kind: a plan may keep state of its own
        self.fields: dict | None = None          # the task's fields, when the episode told them (set_task)
        self.agent_index: int | None = None

    def set_task(self, fields: dict | None, agent_index: int | None = None) -> None:
        """Plan from the task's fields (mindpy.oracle.goals.goal_from_fields) rather than its goal's words."""
        self.fields, self.agent_index = (dict(fields) if fields else None), agent_index
        self._goal_text = self._goal = None

    # ---- entry -------------------------------------------------------------------------------------------
    def reply(self, view: PromptView) -> str:
        if view.kind == "bot_responder":
            # never break off an action for a message (it is delivered as soon as the action is over), except a
            # CoBlock partner's request or news: an oracle goes from one action to the next without a pause. With
            # no action running (a turn on another message: the joining message) there is nothing to break off.
            idle = _RESPONDER_ACTION.search(_responder_text(view))
            return "respond" if coblock.wants_answer(_incoming(view)) or idle else "ignore"
        if view.kind == "saving_memory":
            return self._memory_note(view)
        if view.kind == "coding":
            return self._coding(view)
        reply = self._converse(view)
        if reply:
            # the agent records a reply as my turn, and the prompt's new messages start after it: the ones read
            # so far will not come again, so a partner repeating the same request later is a new request
            self.mem.processed.clear()
        return reply

    def goal(self, view: PromptView) -> TaskGoal:
        if self._goal is None or view.goal != self._goal_text:
            read = goal_from_fields(self.fields, self.agent_index, view.goal)
            self._goal_text, self._goal = view.goal, read if read is not None else parse_goal(view.goal)
        return self._goal

    def plan(self, goal: TaskGoal) -> OraclePlan:
        """The plan of the goal's family (mindpy.oracle.plan)."""
        kind = goal.kind
        if kind not in self._plans:
            self._plans[kind] = plan_for(kind)(self)
        return self._plans[kind]

    # ---- roles -------------------------------------------------------------------------------------------
    def lead(self, view: PromptView) -> str:
        return view.everyone[0] if view.everyone else view.name

    # ---- the conversing prompt ---------------------------------------------------------------------------
    def _converse(self, view: PromptView) -> str:
        goal = self.goal(view)
        plan = self.plan(goal)
        self.mem.calls += 1
        own = plan.own_turn(view, goal)
        if own is not None:
            return own
        inv = view.inventory
        self.mem.stuck = {c: until for c, until in self.mem.stuck.items() if until > self.mem.calls}
        if inv != self.mem.last_inventory:
            self.mem.waits = 0
            self.mem.repeats = 0
            self.mem.last_inventory = dict(inv)
        self._absorb(view, goal)
        plan.observe(view)

        # 0. what I tossed and nobody caught lies on the ground: fetch it, or the team has lost it
        fetch = self._fetch_dropped(view)
        if fetch:
            return fetch

        # 1. what I owe partners
        paid = self.pay_debt(view, goal)
        if paid:
            return paid
        if self.mem.sorry:
            player, items = self.mem.sorry.pop(0)
            self.mem.introduced.add(player)
            return f"Sorry {player}, I don't have any {' or '.join(items)} to spare."

        if type(plan) is OraclePlan:  # a goal of no family I could read: say so once, then only answer requests
            return self._unread(view)

        # 2. my own state: done, things to hand over, work
        done = plan.done(view, goal)
        if done and not self.mem.announced:
            self.mem.announced = True
            return self._finish(view, goal)
        gift = plan.gift(view, goal)
        if gift:
            return gift

        # 3. a partner's new message in an open conversation: answer it
        fresh = [m for m in view.new_messages if not m.ended]
        if fresh and view.partner == fresh[-1].sender:
            answer = self._answer(view, goal, view.partner, done)
            if answer:
                return answer
        # a partner who does not answer keeps the conversation open, and every other agent gets "I'm talking to
        # someone else": end it (the partner is named in the nudge when the turns no longer show who it is)
        nudge = next((_NUDGE.match(str(t["content"])) for t in view.turns[-1:]), None)
        silent = view.partner or (nudge.group(1) if nudge else None)
        if nudge and silent and view.may("endConversation"):  # else: carry on in the conversation
            return f"No answer from {silent}, I'll carry on. !endConversation({quote(silent)})"

        if done:
            return self._idle(view, goal)
        move, lack = plan.work(view, goal)
        if move is not None and self._stuck(view, move):
            if not move.item:
                return f"I'm stuck: {move.command.lstrip('!')} keeps failing ({self._last_said(view)})."
            self.mem.stuck[move.command] = self.mem.calls + STUCK_CALLS
            move, lack = plan.work(view, goal)
        if move is not None:
            self.mem.last_command = move.command
            return move.text()
        if lack:
            return self._ask(view, goal, lack)
        if plan.idles_when_stalled(view, goal):
            return self._idle(view, goal)
        self.mem.waits += 1
        return f"Waiting for the others. {WAIT}"

    @staticmethod
    def _fetch_dropped(view: PromptView) -> str:
        """Walk to where a toss of mine fell, since my last reply ("" when none did): walking over the items picks
        them up (the item-collecting mode takes any that rolled further), and then they can be given again."""
        for output in reversed(view.outputs):
            hit = _DROPPED.search(output)
            if hit:
                item, x, y, z = hit.group(1), *(round(float(v)) for v in hit.groups()[1:])
                return f"The {item} fell on the ground; I'll pick it up. !goToCoordinates({x}, {y}, {z}, 0)"
        return ""

    def pay_debt(self, view: PromptView, goal: TaskGoal) -> str:
        """Give the first thing I promised and can still spare ("" when nothing)."""
        while self.mem.owed:
            player, item, n = self.mem.owed.pop(0)
            spare = view.has(item) - self.plan(goal).keep(view, goal, item)
            if spare > 0:
                self.mem.introduced.add(player)
                k = min(n, spare)
                return f"Here you go, {player}: {k} {item}. !givePlayer({quote(player)}, {quote(item)}, {k})"
        return ""

    def _absorb(self, view: PromptView, goal: TaskGoal) -> None:
        """Take in partners' new messages: requests become debts, refusals and news are noted."""
        for msg in view.new_messages:
            key = (msg.sender, msg.text)
            if key in self.mem.processed:
                continue
            self.mem.processed.add(key)
            reading = read_message(msg.text)  # (a plan with a protocol of its own takes its turns itself)
            if reading.done:
                self.mem.team_done = True
            for item in reading.refused:
                self.mem.asked.setdefault(item, set()).add(msg.sender)
            wants = dict(reading.wants)
            if reading.wants_everything:
                for item in sorted(self.plan(goal).relevant(goal)):
                    if view.has(item) and item not in wants:
                        wants[item] = view.has(item)
            lacking = []
            for item, n in wants.items():
                if view.has(item) - self.plan(goal).keep(view, goal, item) > 0:
                    self.mem.owed.append((msg.sender, item, n))
                elif not reading.wants_everything:
                    lacking.append(item)
            if lacking and not msg.ended:
                self.mem.sorry.append((msg.sender, lacking))

    def _unread(self, view: PromptView) -> str:
        """A goal that names nothing I can make: one line saying what I could not read (nothing for no goal at
        all), then quiet, with no waiting loop; partners' requests are still answered (above)."""
        self.mem.told_lead = True  # nothing was handed to a lead: no "that's everything I had"
        if view.goal.strip() and not self.mem.unread_said:
            self.mem.unread_said = True
            words = " ".join(TEAM_SENTENCE.sub(" ", view.goal).split())
            shown = words if len(words) <= 120 else words[:117].rstrip() + "..."
            return (f'I couldn\'t work out what our goal asks us to make ("{shown}"). '
                    f"If you need something I hold, just ask.")
        if view.new_messages and view.partner and view.partner == view.new_messages[-1].sender \
                and view.may("endConversation"):
            return f"Thanks, {view.partner}! !endConversation({quote(view.partner)})"
        return ""

    def _finish(self, view: PromptView, goal: TaskGoal) -> str:
        end = " !endGoal" if view.may("endGoal") else ""  # tasks block it, as MINDcraft's do
        return self.plan(goal).finish_text(view, goal) + end

    def _idle(self, view: PromptView, goal: TaskGoal) -> str:
        """Nothing left for me to do: tell the lead once, stop self-prompting, then stay quiet. Where !endGoal
        and !endConversation are blocked, quiet replies do it: three without a command stop self-prompting."""
        lead = self.lead(view)
        if not self.mem.told_lead and not self.plan(goal).leads(view, goal) and lead != view.name:
            self.mem.told_lead = True
            what = goal.target_text or "the task"
            if view.partner == lead:
                return f"That's everything I had for the {what}, {lead}. Over to you!"
            if view.partner is None:
                return f"!startConversation({quote(lead)}, {quote(f'I gave you everything I had for the {what}.')})"
        if "Your current goal" in view.state and view.may("endGoal"):
            return "My part is done; I'll answer if anyone needs something. !endGoal"
        if view.new_messages and view.partner and view.partner == view.new_messages[-1].sender \
                and view.may("endConversation"):
            return f"Thanks, {view.partner}! !endConversation({quote(view.partner)})"
        return ""

    def _answer(self, view: PromptView, goal: TaskGoal, partner: str, done: bool) -> str:
        """A reply to a partner's message: my opening, a request, or thanks and goodbye."""
        if partner not in self.mem.introduced:
            self.mem.introduced.add(partner)
            return self.plan(goal).opening(view, goal, partner)
        _, lack = (None, {}) if done else self.plan(goal).work(view, goal)
        if view.new_messages and read_message(view.new_messages[-1].text).giving:
            lack = {}  # it is handing things over: no need to ask now
        unasked = {i: n for i, n in lack.items() if partner not in self.mem.asked.get(i, set())}
        if unasked:
            for item in unasked:
                self.mem.asked.setdefault(item, set()).add(partner)
            return self.plan(goal).request_text(view, goal, unasked)
        if not view.may("endConversation"):
            return ""  # nothing to say: thanks would be answered with thanks, again and again
        return f"Thanks, {partner}! !endConversation({quote(partner)})"

    def _ask(self, view: PromptView, goal: TaskGoal, lack: dict[str, int]) -> str:
        """Ask one partner not asked yet for what I lack; wait when everyone was asked."""
        self.mem.waits += 1
        if self.mem.waits <= WAITS_BEFORE_ASKING and not goal.hells_kitchen:
            return f"Waiting for the others' items. {WAIT}"
        if self.mem.waits > WAITS_BEFORE_REASKING:
            self.mem.asked.clear()
            self.mem.waits = WAITS_BEFORE_ASKING
        candidates = [p for p in view.others if any(p not in self.mem.asked.get(i, set()) for i in lack)]
        if not candidates:
            return f"Waiting for {item_list(lack)}. {WAIT}"
        partner = view.partner if view.partner in candidates else candidates[0]
        if view.partner and view.partner != partner and view.may("endConversation"):
            return f"!endConversation({quote(view.partner)})"  # else starting the next one ends this one
        for item in lack:
            self.mem.asked.setdefault(item, set()).add(partner)
        text = self.plan(goal).request_text(view, goal, lack)
        if view.partner == partner:
            return text
        return f"!startConversation({quote(partner)}, {quote(text)})"

    def _stuck(self, view: PromptView, move: Move) -> bool:
        """Has the same command run MAX_REPEATS times in a row with nothing changing?"""
        if move.command == self.mem.last_command and command_of(view.my_last) == move.command:
            self.mem.repeats += 1
        else:
            self.mem.repeats = 0
        return self.mem.repeats >= MAX_REPEATS

    @staticmethod
    def _last_said(view: PromptView) -> str:
        said = (view.last_output or "").strip().splitlines()
        return said[0][:120] if said else "no result"

    # ---- other prompts -----------------------------------------------------------------------------------
    def _coding(self, view: PromptView) -> str:
        feedback = [t for t in view.turns if t["role"] == "user"][1:]
        if feedback or not self.mem.coding_fixes:
            if feedback and "Error" in str(feedback[-1]["content"]):
                return "The code did not work; I'll check the blueprint again instead."
            return "Done: the blocks are placed."
        return construction.build_code(self.mem.coding_fixes)

    def _memory_note(self, view: PromptView) -> str:
        goal = self.goal(view)
        note = f"Task: {goal.kind}, {goal.target_text or 'see goal'}. Lead: {self.lead(view)}."
        if self.mem.team_done or self.mem.announced:
            note += " The task is done."
        return note[:500]
