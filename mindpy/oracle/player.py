"""The oracle's play: from one prompt (read by prompt.py) to one reply holding one command or a message.

Protocol between oracle agents (nothing is agreed by talking; every agent works it out alike):
- The lead is the agent whose name sorts first. Crafting: the lead crafts; the others give it every item that can
  go into the target. Cooking: the lead makes every dish and ends up holding them; the others give it their
  items. Hell's Kitchen: each agent makes its own dish, sends the recipe it holds to the agent who needs it, and
  gives the others what their dishes take. Construction: each agent places the blocks it holds materials for,
  lowest level first; the lead also clears wrong blocks. CoBlock (coblock.py): each agent builds its own goal
  bottom up, asks its partner to place the colours it lacks (or to give them, where giving is allowed), places
  what the partner asks for with its spares, and whoever finishes last (its goal checked complete, the partner's
  announced) ends the task with `!endTask`.
- Whoever lacks something asks one partner at a time ("I need 1 bowl ... Can you give it to me?"); whoever is
  asked gives what it can spare or says it has none. A conversation is short: opening, answer, then
  "Thanks! !endConversation". Waiting is `!stay(5)`, which partners' messages may interrupt.
- CoBlock replies that act are bare commands (no news of every block). In round mode (a "Round N of M" message
  opens each turn) waiting is `!wait`, and a CoBlock agent never talks two turns in a row while it has a block to
  place.
- Facts come from the prompt each time: inventory, command outputs, partners' messages. The state kept between
  calls is only who was asked what, what is owed to whom, and what was already said.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace

from . import coblock, construction, cooking, crafting
from .cooking import Move
from .dialogue import item_list, quote, read_message
from .goals import TaskGoal, parse_goal
from .prompt import PromptView

WAIT = '!stay(5)'
COBLOCK_WAIT = '!stay(3)'   # CoBlock outside round mode: short waits, since a partner's block may come any moment
ROUND_WAIT = '!wait'        # round mode: pass this turn
WAITS_BEFORE_READY = 3    # CoBlock: waits for the inventory the goal promises before asking for anything
DONE_PATIENCE = 10        # CoBlock, round mode: waits after my goal is done before asking how the partner is doing
IDLE_BEFORE_OFFER = 2     # CoBlock: waits in a row with nothing to place before I offer to place partner's blocks
OFFER_EVERY = 12          # CoBlock: calls between two such offers
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
    build_tries: int = 0
    build_counted_at: int = -1  # the call whose build try was counted (a call may plan its build twice)
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
    offered_at: int = -OFFER_EVERY    # CoBlock: the call when I last offered help while waiting


_NUDGE = re.compile(r"^(\w+) hasn't responded in \d+ seconds")


def _incoming(view: PromptView) -> str:
    """The message a respond-or-ignore prompt asks about: the last line of its conversation."""
    text = view.state or (str(view.turns[-1]["content"]) if view.turns else "")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("Your decision")]
    return lines[-1] if lines else ""


def _command_of(text: str) -> str:
    m = re.search(r"![A-Za-z]+(?:\([^)]*\))?", text or "")
    return m.group(0) if m else ""


class Player:
    """One agent's oracle: keeps a little memory between calls (see Memory)."""

    def __init__(self, version: str | None = None):
        self.version = version
        self.mem = Memory()
        self._goal_text: str | None = None
        self._goal: TaskGoal | None = None

    # ---- entry -------------------------------------------------------------------------------------------
    def reply(self, view: PromptView) -> str:
        if view.kind == "bot_responder":
            # never break off an action for a message (it is delivered as soon as the action is over), except a
            # CoBlock partner's request or news: an oracle goes from one action to the next without a pause
            return "respond" if coblock.wants_answer(_incoming(view)) else "ignore"
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
            self._goal_text, self._goal = view.goal, parse_goal(view.goal)
        return self._goal

    # ---- roles -------------------------------------------------------------------------------------------
    def lead(self, view: PromptView) -> str:
        return view.everyone[0] if view.everyone else view.name

    def _hk_partner(self, view: PromptView, goal: TaskGoal) -> str | None:
        """Hell's Kitchen: who makes the dish whose recipe I hold. By its number when the goal gives one (the
        other agents are listed in agent order, and I make the dish before theirs unless the goal says my
        number); otherwise the only other agent, as in MINDcraft's two-agent goals."""
        n = len(view.others) + 1
        if goal.partner_index is None:
            return view.others[0] if n == 2 else None
        mine = goal.my_index if goal.my_index is not None else goal.partner_index - 1
        ordered = list(view.others)
        ordered.insert(mine % n, view.name)
        return ordered[goal.partner_index % n]

    def _relevant(self, goal: TaskGoal) -> set[str]:
        """Items that can go into the task's targets."""
        out: set[str] = set()
        for target in goal.targets:
            if goal.kind == "crafting":
                out |= crafting.relevant_items(target, self.version)
            else:
                out |= cooking.ingredients(target) | {target}
        if goal.partner_dish:
            out |= cooking.ingredients(goal.partner_dish)
        return out

    def _keep(self, view: PromptView, goal: TaskGoal, item: str) -> int:
        """How many of `item` I need myself."""
        if goal.kind == "coblock":
            return self._site(goal).need().get(item, 0)
        if goal.kind == "construction":
            return 0
        if goal.hells_kitchen:
            need = 0
            for dish, n in goal.targets.items():
                if view.has(dish) < n:
                    need += cooking.needed(dish, n, view.inventory).get(item, 0)
            return need
        if view.name == self.lead(view) and item in self._relevant(goal):
            return 10 ** 6
        return 0

    # ---- the conversing prompt ---------------------------------------------------------------------------
    def _converse(self, view: PromptView) -> str:
        goal = self.goal(view)
        self.mem.calls += 1
        if goal.kind == "coblock":
            return self._coblock(view, goal)
        inv = view.inventory
        self.mem.stuck = {c: until for c, until in self.mem.stuck.items() if until > self.mem.calls}
        if inv != self.mem.last_inventory:
            self.mem.waits = 0
            self.mem.repeats = 0
            self.mem.last_inventory = dict(inv)
        self._absorb(view, goal)
        if goal.kind == "construction":
            self._observe_blueprint(view)

        # 1. what I owe partners
        paid = self._pay_debt(view, goal)
        if paid:
            return paid
        if self.mem.sorry:
            player, items = self.mem.sorry.pop(0)
            self.mem.introduced.add(player)
            return f"Sorry {player}, I don't have any {' or '.join(items)} to spare."

        # 2. my own state: done, things to hand over, work
        done = self._done(view, goal)
        if done and not self.mem.announced:
            self.mem.announced = True
            return self._finish(view, goal)
        gift = self._gift(view, goal)
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
        move, lack = self._work(view, goal)
        if move is not None and self._stuck(view, move):
            if not move.item:
                return f"I'm stuck: {move.command.lstrip('!')} keeps failing ({self._last_said(view)})."
            self.mem.stuck[move.command] = self.mem.calls + STUCK_CALLS
            move, lack = self._work(view, goal)
        if move is not None:
            self.mem.last_command = move.command
            return move.text()
        if lack:
            return self._ask(view, goal, lack)
        if goal.kind == "construction" or not self._am_lead_like(view, goal):
            return self._idle(view, goal)
        self.mem.waits += 1
        return f"Waiting for the others. {WAIT}"

    def _pay_debt(self, view: PromptView, goal: TaskGoal) -> str:
        """Give the first thing I promised and can still spare ("" when nothing)."""
        while self.mem.owed:
            player, item, n = self.mem.owed.pop(0)
            spare = view.has(item) - self._keep(view, goal, item)
            if spare > 0:
                self.mem.introduced.add(player)
                k = min(n, spare)
                return f"Here you go, {player}: {k} {item}. !givePlayer({quote(player)}, {quote(item)}, {k})"
        return ""

    def _am_lead_like(self, view: PromptView, goal: TaskGoal) -> bool:
        return goal.hells_kitchen or goal.kind == "construction" or view.name == self.lead(view)

    def _absorb(self, view: PromptView, goal: TaskGoal) -> None:
        """Take in partners' new messages: requests become debts, refusals and news are noted."""
        for msg in view.new_messages:
            key = (msg.sender, msg.text)
            if key in self.mem.processed:
                continue
            self.mem.processed.add(key)
            reading = read_message(msg.text)  # (coblock goals never get here: _converse hands them to _coblock)
            if reading.done:
                self.mem.team_done = True
            for item in reading.refused:
                self.mem.asked.setdefault(item, set()).add(msg.sender)
            wants = dict(reading.wants)
            if reading.wants_everything:
                for item in sorted(self._relevant(goal)):
                    if view.has(item) and item not in wants:
                        wants[item] = view.has(item)
            lacking = []
            for item, n in wants.items():
                if view.has(item) - self._keep(view, goal, item) > 0:
                    self.mem.owed.append((msg.sender, item, n))
                elif not reading.wants_everything:
                    lacking.append(item)
            if lacking and not msg.ended:
                self.mem.sorry.append((msg.sender, lacking))

    def _done(self, view: PromptView, goal: TaskGoal) -> bool:
        if goal.kind == "construction":
            return self.mem.fixes == []
        if not goal.targets:
            return False
        mine = all(view.has(t) >= n for t, n in goal.targets.items())
        if goal.hells_kitchen or view.name == self.lead(view):
            return mine
        return self.mem.team_done

    def _finish(self, view: PromptView, goal: TaskGoal) -> str:
        end = " !endGoal" if view.may("endGoal") else ""  # tasks block it, as MINDcraft's do
        if goal.kind == "construction":
            return "The house matches the blueprint: the task is done!" + end
        if goal.hells_kitchen or view.name == self.lead(view):
            return f"I have the {goal.target_text} now: the task is done!" + end
        return "Great, the task is done!" + end

    def _idle(self, view: PromptView, goal: TaskGoal) -> str:
        """Nothing left for me to do: tell the lead once, stop self-prompting, then stay quiet. Where !endGoal
        and !endConversation are blocked, quiet replies do it: three without a command stop self-prompting."""
        lead = self.lead(view)
        if not self.mem.told_lead and not self._am_lead_like(view, goal) and lead != view.name:
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

    def _gift(self, view: PromptView, goal: TaskGoal) -> str:
        """Hand over, unasked, what a partner needs more than I do."""
        if goal.kind in ("construction", "unknown"):
            return ""
        if goal.hells_kitchen:
            receiver = self._hk_partner(view, goal)
            if not receiver or receiver == view.name or not goal.partner_dish:
                return ""
            wanted = cooking.lacking(goal.partner_dish, 1, {})
        else:
            receiver = self.lead(view)
            if receiver == view.name:
                return ""
            wanted = {item: view.has(item) for item in self._relevant(goal)}
        for item in sorted(wanted):
            spare = min(view.has(item) - self._keep(view, goal, item), wanted[item])
            if spare > 0:
                self.mem.introduced.add(receiver)
                what = goal.partner_dish if goal.hells_kitchen else (goal.target_text or "task")
                recipe = self._recipe_once(goal) if goal.hells_kitchen else ""
                return (f"{'Here are' if spare > 1 else 'Here is'} {spare} {item} for the {what}, {receiver}. "
                        f"{recipe + ' ' if recipe else ''}!givePlayer({quote(receiver)}, {quote(item)}, {spare})")
        return ""

    def _answer(self, view: PromptView, goal: TaskGoal, partner: str, done: bool) -> str:
        """A reply to a partner's message: my opening, a request, or thanks and goodbye."""
        if partner not in self.mem.introduced:
            self.mem.introduced.add(partner)
            return self._opening(view, goal, partner)
        _, lack = (None, {}) if done else self._work(view, goal)
        if view.new_messages and read_message(view.new_messages[-1].text).giving:
            lack = {}  # it is handing things over: no need to ask now
        unasked = {i: n for i, n in lack.items() if partner not in self.mem.asked.get(i, set())}
        if unasked:
            for item in unasked:
                self.mem.asked.setdefault(item, set()).add(partner)
            return self._request_text(view, goal, unasked)
        if not view.may("endConversation"):
            return ""  # nothing to say: thanks would be answered with thanks, again and again
        return f"Thanks, {partner}! !endConversation({quote(partner)})"

    def _opening(self, view: PromptView, goal: TaskGoal, partner: str) -> str:
        lead = self.lead(view)
        what = goal.target_text
        if goal.kind == "construction":
            kinds = sorted(i for i in view.inventory if not i.endswith("_pickaxe"))
            return (f"I'll place the blocks I have materials for ({', '.join(kinds) or 'none'}), lowest level "
                    f"first; you place yours.")
        if goal.hells_kitchen:
            text = ""
            if self._hk_partner(view, goal) in (partner, None):
                text = self._recipe_once(goal)
            lack = self._lack_now(view, goal)
            if lack:
                for item in lack:
                    self.mem.asked.setdefault(item, set()).add(partner)
                text += " " + self._request_text(view, goal, lack)
            return text.strip() or f"I'm making my {what}."
        if view.name == lead:
            verb = "craft the" if goal.kind == "crafting" else "make the"
            return f"I'll {verb} {what}, {partner}. Please give me everything you have for it."
        self.mem.told_lead = True
        return f"You make the {what}, {lead}; I have nothing more for it."

    def _recipe_once(self, goal: TaskGoal) -> str:
        """Hell's Kitchen: the recipe I hold for my partner's dish, the first time only."""
        if self.mem.recipe_sent or not goal.partner_dish or goal.partner_dish not in goal.recipes:
            return ""
        self.mem.recipe_sent = True
        steps = " ".join(f"{i}) {s}" for i, s in enumerate(goal.recipes[goal.partner_dish], 1))
        return f"Here is the recipe for {goal.partner_dish}: {steps}"

    def _request_text(self, view: PromptView, goal: TaskGoal, lack: dict[str, int]) -> str:
        what = goal.target_text or "task"
        if goal.kind == "crafting":
            target, count = next(iter(goal.targets.items()))
            needed = crafting.lack_text(target, count, view.inventory, lack, self.version)
            return (f"I still need {needed} (or what it makes) for the {what}. "
                    f"Please give me everything you have for it.")
        return f"I need {item_list(lack)} for the {what}. Can you give {'it' if len(lack) == 1 else 'them'} to me?"

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
        text = self._request_text(view, goal, lack)
        if view.partner == partner:
            return text
        return f"!startConversation({quote(partner)}, {quote(text)})"

    def _stuck(self, view: PromptView, move: Move) -> bool:
        """Has the same command run MAX_REPEATS times in a row with nothing changing?"""
        if move.command == self.mem.last_command and _command_of(view.my_last) == move.command:
            self.mem.repeats += 1
        else:
            self.mem.repeats = 0
        return self.mem.repeats >= MAX_REPEATS

    @staticmethod
    def _last_said(view: PromptView) -> str:
        said = (view.last_output or "").strip().splitlines()
        return said[0][:120] if said else "no result"

    # ---- task work ---------------------------------------------------------------------------------------
    def _lack_now(self, view: PromptView, goal: TaskGoal) -> dict[str, int]:
        if goal.kind == "cooking":
            out: dict[str, int] = {}
            for dish, n in self._my_dishes(view, goal).items():
                for item, k in cooking.lacking(dish, n, view.inventory).items():
                    out[item] = out.get(item, 0) + k
            return out
        return {}

    def _my_dishes(self, view: PromptView, goal: TaskGoal) -> dict[str, int]:
        if goal.hells_kitchen or view.name == self.lead(view):
            # dishes that go into other dishes last, so the bigger dish does not eat a finished one
            used = set().union(*(cooking.ingredients(d) for d in goal.targets)) if goal.targets else set()
            return dict(sorted(goal.targets.items(), key=lambda kv: kv[0] in used))
        return {}

    def _work(self, view: PromptView, goal: TaskGoal) -> tuple[Move | None, dict[str, int]]:
        """My next command, or what I lack from the others."""
        inv = view.inventory
        if goal.kind == "crafting":
            if view.name != self.lead(view):
                return None, {}
            move: Move | None = None
            lack: dict[str, int] = {}
            for target, n in goal.targets.items():
                move, lack = crafting.crafter_step(target, n, inv, goal.missing_items, self.version)
                if move is not None and move.command in self.mem.stuck:
                    lack = {move.item: move.count}
                    move = None
                if move or lack:
                    break
            return move, lack
        if goal.kind == "cooking":
            left = dict(inv)
            stuck: dict[str, int] = {}
            for dish, n in self._my_dishes(view, goal).items():
                if left.get(dish, 0) >= n:
                    left[dish] -= n
                    continue
                move = cooking.next_move(dish, n, left)
                if move is not None and move.command in self.mem.stuck:
                    stuck[move.item] = stuck.get(move.item, 0) + move.count
                elif move is not None:
                    return move, {}
            lack = self._lack_now(view, goal)
            for item, k in stuck.items():
                lack[item] = max(lack.get(item, 0), k)
            return None, lack
        if goal.kind == "construction":
            return self._build(view), {}
        return None, {}

    def _observe_blueprint(self, view: PromptView) -> list | None:
        """The fixes of the !checkBlueprint answer I just got, or None when the last output is something else."""
        checked = construction.parse_check(view.last_output) if view.last_output else None
        if checked is not None:
            self.mem.fixes = checked
        return checked

    def _build(self, view: PromptView) -> Move | None:
        checked = self._observe_blueprint(view)
        if checked is None:
            return Move("!checkBlueprint", "Checking the blueprint.")
        if not checked:
            return None
        mine = construction.my_fixes(checked, view.inventory, view.name == self.lead(view))
        if mine:
            if mine != self.mem.coding_fixes:
                self.mem.build_tries = 0
            elif self.mem.build_counted_at != self.mem.calls:  # one try per call, however often it is planned
                self.mem.build_tries += 1
            self.mem.build_counted_at = self.mem.calls
            if self.mem.build_tries < MAX_REPEATS:
                self.mem.coding_fixes = mine
                level = mine[0].level
                kinds = sorted({f.block for f in mine if f.kind != "remove"})
                task = (f"Place the {len(mine)} missing blocks of level {level} that I have materials for "
                        f"({', '.join(kinds) or 'clearing only'}) at their blueprint positions.")
                return Move(f"!newAction({quote(task)})", f"Building level {level}.")
        return Move(WAIT, "My blocks are placed; waiting for the rest.")

    # ---- CoBlock -----------------------------------------------------------------------------------------
    def _site(self, goal: TaskGoal) -> coblock.Site:
        if self.mem.site is None or self.mem.site.goal != goal.blocks:
            self.mem.site = coblock.Site(list(goal.blocks))
        return self.mem.site

    def _coblock(self, view: PromptView, goal: TaskGoal) -> str:
        """My turn in a CoBlock task (see _coblock_turn), kept only if the agent keeps my reply: an agent drops a
        reply that a newer message made stale, and then what I decided in it (a promise, a handover, an offer, a
        request) never reached anyone, so my memory goes back to what it was before it. What that call read comes
        again in this prompt, which still holds everything after my last kept reply."""
        if self.mem.sent is not None:
            reply, before = self.mem.sent
            if not any(reply.strip() in str(t["content"]) for t in view.turns[-8:] if t["role"] == "assistant"):
                before.calls = self.mem.calls
                self.mem = before
        before = copy.deepcopy(replace(self.mem, sent=None))
        reply = self._coblock_turn(view, goal)
        self.mem.sent = (reply, before) if reply else None
        return reply

    def _coblock_turn(self, view: PromptView, goal: TaskGoal) -> str:
        """My turn in a CoBlock task: give (or place) what a partner asked of me, fix and build my goal bottom up,
        ask for the colours I lack, announce my part done, and end the task once both parts are done."""
        mem, site = self.mem, self._site(goal)
        built = coblock.read_structure(view.state)
        if built is not None:
            site.see_structure(*built)
        for output in view.outputs:
            site.observe(output)
        site.attempted(_command_of(view.my_last), view.outputs)
        if any(view.has(item) > n for item, n in mem.last_inventory.items()) or \
                any(item not in mem.last_inventory for item in view.inventory):
            site.news()  # items came in: a partner may be building too
            mem.waits = 0
        mem.last_inventory = dict(view.inventory)
        self._cb_absorb(view, goal, site)
        for x, y, z, block in site.unkept_promises(view.inventory):
            partner = view.others[0] if view.others else ""
            mem.to_say.append((partner, f"Sorry, I can't place {block} at ({x}, {y}, {z}) for you after all: I "
                                        f"don't have enough {block}."))
        rounds = view.round is not None
        # the inventory the goal promises may reach the prompt a moment after the first one
        mem.stocked = mem.stocked or not goal.held or any(view.has(b) for b in goal.held)
        ready = mem.stocked or mem.waits >= WAITS_BEFORE_READY

        paid = self._pay_debt(view, goal)
        if paid:
            return self._cb_act(paid)
        if not site.checked:
            return "!checkGoal"  # a query: free in round mode, neither acting nor talking
        move = site.next_move(view.inventory) if ready else None
        building = move is not None and move.command.startswith(("!placeBlock", "!breakBlock"))
        talk = None if rounds and mem.talked_last and building else self._cb_talk(view, site, ready, building)
        if talk:
            return self._cb_say(view, talk)
        if move is not None:
            mem.idle = 0
            return self._cb_act(move.text())
        if site.believed_complete() and not site.confirmed:
            return "!checkGoal"  # all my blocks should be in place: check
        if site.mine_done() and (mem.team_done or not view.others):
            return self._cb_act("Both our parts are built: the structure is done. !endTask")
        fresh = [m for m in view.new_messages if not m.ended]
        if not rounds and fresh and view.partner == fresh[-1].sender and view.may("endConversation"):
            # nothing to do now: close the conversation, so that self-prompting goes on
            return self._cb_say(view, (view.partner, f"Thanks, {view.partner}! !endConversation("
                                                     f"{quote(view.partner)})"))
        if site.mine_done() and not rounds and mem.announced:
            return ""  # nothing to do until a partner speaks: quiet replies stop self-prompting
        if site.handed_pending() and not site.full_view and _command_of(view.my_last) != "!checkGoal":
            return "!checkGoal"  # only !checkGoal shows me the blocks I handed over, without the structure list
        site.waited()  # for blocks I lack, or for my partner's blocks to build on
        mem.waits += 1
        mem.idle += 1
        return self._cb_act(ROUND_WAIT if rounds or view.offers("wait") else COBLOCK_WAIT)

    def _cb_absorb(self, view: PromptView, goal: TaskGoal, site: coblock.Site) -> None:
        """Take in partners' new messages: news for parked cells, a partner's part done, blocks it asks me to
        place (promised when I hold spares), items it asks for (owed, where giving is allowed), refusals."""
        mem = self.mem
        for msg in view.new_messages:
            key = (msg.sender, msg.text)
            if key in mem.processed:
                continue
            mem.processed.add(key)
            site.news()
            reading = read_message(coblock.with_block_names(msg.text))
            if reading.done or coblock.says_done(msg.text):
                mem.team_done = True
            for item in reading.refused:
                mem.asked.setdefault(item, set()).add(msg.sender)
            site.reclaim(set(reading.refused) & set(site.handed.values()))  # it cannot place what I handed over
            offered = coblock.offered_colours(msg.text)
            if offered is not None:
                mem.offers.append((msg.sender, offered, coblock.blocks_left(msg.text)))
            cells = coblock.placement_request(msg.text)
            if cells:
                self._cb_promise(view, site, msg.sender, cells)
                continue
            for item, n in reading.wants.items():
                spare = view.has(item) - self._keep(view, goal, item)
                if spare > 0 and view.may("givePlayer"):
                    mem.owed.append((msg.sender, item, n))
                elif spare > 0:
                    mem.to_say.append((msg.sender, f"I can't hand blocks over, {msg.sender}, but I have {spare} "
                                                   f"{item} to spare: tell me where to place them."))
                elif not msg.ended:
                    mem.to_say.append((msg.sender, f"Sorry {msg.sender}, I don't have any {item} to spare."))

    def _cb_promise(self, view: PromptView, site: coblock.Site, partner: str, cells: list) -> None:
        """A partner asks me to place blocks for it: I promise those my spares cover, and say which I cannot."""
        wanted: dict[str, list] = {}
        for x, y, z, block in cells:
            if (x, y, z) not in site.want and (x, y, z) not in site.promised and not site.blocks.get((x, y, z)):
                wanted.setdefault(block, []).append((x, y, z))
        for block, spots in wanted.items():
            spare = max(0, view.has(block) - site.need().get(block, 0))
            for cell in spots[:spare]:
                site.promise(cell, block)
            if len(spots) > spare:
                short = "any" if spare == 0 else f"more than {spare}"
                self.mem.to_say.append((partner, f"Sorry {partner}, I don't have {short} {block} to spare."))

    def _cb_talk(self, view: PromptView, site: coblock.Site, ready: bool, building: bool
                 ) -> tuple[str, str] | None:
        """(partner, message) I should say now, or None: a refusal, a request for the colours I lack (the
        items, where giving is allowed, else that the partner place those blocks), blocks of mine handed over to a
        partner offering help (only while I have blocks to place: handing over what nobody can place yet helps
        nobody), my part being done with an offer of help, an offer while I wait with nothing to place, or (round
        mode) a question about the partner's progress."""
        mem = self.mem
        if mem.to_say:
            return mem.to_say.pop(0)
        lack = site.lacking(view.inventory) if ready else {}
        if lack and mem.waits > WAITS_BEFORE_REASKING:
            mem.asked.clear()  # nothing came: ask again
            mem.waits = 0
        for partner in view.others:
            unasked = {b: n for b, n in lack.items() if partner not in mem.asked.get(b, set())}
            if unasked:
                for block in unasked:
                    mem.asked.setdefault(block, set()).add(partner)
                if not view.may("givePlayer"):
                    return partner, coblock.asking_text(site.lacking_cells(view.inventory, set(unasked)),
                                                        view.inventory)
                it = "it" if sum(unasked.values()) == 1 else "them"
                return partner, (f"I need {item_list(unasked)} for my part of the structure. Can you give {it} to "
                                 f"me?")
        offers, mem.offers = mem.offers, []
        for offer in offers if ready and building else []:
            helper, colours, theirs = offer
            cells = site.hand_over(colours, view.inventory, theirs)  # a partner with time to spare: evens us out
            if cells:
                return helper, coblock.handover_text(cells)
        partner = view.partner or (view.others[0] if view.others else "")
        held = sorted(b for b, n in view.inventory.items() if n > 0 and coblock.block_name(b) == b)
        if site.mine_done() and not mem.announced and not mem.team_done and partner:
            mem.announced = True
            return partner, coblock.offering_text(len(site.goal), held)
        if not site.mine_done() and mem.idle >= IDLE_BEFORE_OFFER and mem.calls - mem.offered_at >= OFFER_EVERY \
                and not mem.team_done and partner and held:
            mem.offered_at = mem.calls
            return partner, coblock.waiting_offer_text(held, site.work_left(view.inventory))
        rounds = view.round is not None
        if site.mine_done() and rounds and mem.waits >= DONE_PATIENCE and not mem.team_done and \
                not mem.asked_progress and partner:
            mem.asked_progress = True
            question = "Have you placed all your blocks yet?"
            return partner, f"{question} {coblock.offer_sentence(held)}" if held else question
        return None

    def _cb_say(self, view: PromptView, talk: tuple[str, str]) -> str:
        """A message to a partner: in our conversation as it is, else opening one."""
        partner, text = talk
        self.mem.talked_last = True
        if view.partner == partner or "!endConversation" in text:
            return text
        return f"!startConversation({quote(partner)}, {quote(text)})"

    def _cb_act(self, text: str) -> str:
        """A reply that acts: its command alone. Words beside it are not sent in round mode, and elsewhere they go
        to the partner whose message started the turn (which the prompt may no longer show, once the history is
        summarized): news of every block would be noise."""
        self.mem.talked_last = False
        return _command_of(text)

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
