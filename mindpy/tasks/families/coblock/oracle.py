"""The scripted player's plan for CoBlock goals (mindpy.oracle.plan): each agent builds its own goal bottom up,
asks its partner to place the colours it lacks (or to give them, where giving is allowed), places what the
partner asks for with its spares, and whoever finishes last (its goal checked complete, the partner's announced)
ends the task with `!endTask`. Replies that act are bare commands (no news of every block). In round mode (a
"Round N of M" message opens each turn) waiting is `!wait`, and an agent never talks two turns in a row while it
has a block to place. mindpy.oracle.coblock reads the goal, the built blocks and the partners' messages."""

from __future__ import annotations

import copy
from dataclasses import replace

from ....oracle import coblock
from ....oracle.dialogue import item_list, quote, read_message
from ....oracle.goals import TaskGoal
from ....oracle.plan import OraclePlan
from ....oracle.player import WAITS_BEFORE_REASKING, command_of
from ....oracle.prompt import PromptView

COBLOCK_WAIT = '!stay(3)'   # outside round mode: short waits, since a partner's block may come any moment
ROUND_WAIT = '!wait'        # round mode: pass this turn
WAITS_BEFORE_READY = 3    # waits for the inventory the goal promises before asking for anything
DONE_PATIENCE = 10        # round mode: waits after my goal is done before asking how the partner is doing
IDLE_BEFORE_OFFER = 2     # waits in a row with nothing to place before I offer to place partner's blocks
OFFER_EVERY = 12          # calls between two such offers


class CoblockPlan(OraclePlan):
    """CoBlock: two partners, one structure, private goals; a protocol of its own (see the module doc)."""

    def site(self, goal: TaskGoal) -> coblock.Site:
        mem = self.mem
        if mem.site is None or mem.site.goal != goal.blocks:
            mem.site = coblock.Site(list(goal.blocks))
        return mem.site

    def keep(self, view: PromptView, goal: TaskGoal, item: str) -> int:
        return self.site(goal).need().get(item, 0)

    def own_turn(self, view: PromptView, goal: TaskGoal) -> str | None:
        """My turn (see _turn), kept only if the agent keeps my reply: an agent drops a reply that a newer message
        made stale, and then what I decided in it (a promise, a handover, an offer, a request) never reached
        anyone, so my memory goes back to what it was before it. What that call read comes again in this prompt,
        which still holds everything after my last kept reply."""
        player = self.player
        if player.mem.sent is not None:
            reply, before = player.mem.sent
            if not any(reply.strip() in str(t["content"]) for t in view.turns[-8:] if t["role"] == "assistant"):
                before.calls = player.mem.calls
                player.mem = before
        before = copy.deepcopy(replace(player.mem, sent=None))
        reply = self._turn(view, goal)
        player.mem.sent = (reply, before) if reply else None
        return reply

    def _turn(self, view: PromptView, goal: TaskGoal) -> str:
        """My turn: give (or place) what a partner asked of me, fix and build my goal bottom up, ask for the
        colours I lack, announce my part done, and end the task once both parts are done."""
        mem, site = self.mem, self.site(goal)
        built = coblock.read_structure(view.state)
        if built is not None:
            site.see_structure(*built)
        if not view.may("checkGoal"):
            site.trust_view()  # the paper's setting has no !checkGoal: the whole list of built blocks checks
        for output in view.outputs:
            site.observe(output)
        site.attempted(command_of(view.my_last), view.outputs)
        if any(view.has(item) > n for item, n in mem.last_inventory.items()) or \
                any(item not in mem.last_inventory for item in view.inventory):
            site.news()  # items came in: a partner may be building too
            mem.waits = 0
        mem.last_inventory = dict(view.inventory)
        self._absorb(view, goal, site)
        for x, y, z, block in site.unkept_promises(view.inventory):
            partner = view.others[0] if view.others else ""
            mem.to_say.append((partner, f"Sorry, I can't place {block} at ({x}, {y}, {z}) for you after all: I "
                                        f"don't have enough {block}."))
        rounds = view.round is not None
        # the inventory the goal promises may reach the prompt a moment after the first one
        # (a goal read from <Motives> says nothing of what I hold: then anything in my inventory will do)
        mem.stocked = mem.stocked or (any(view.has(b) for b in goal.held) if goal.held else bool(view.inventory))
        ready = mem.stocked or mem.waits >= WAITS_BEFORE_READY

        paid = self.player.pay_debt(view, goal)
        if paid:
            return self._act(paid)
        if not site.checked and view.may("checkGoal"):
            return "!checkGoal"  # a query: free in round mode, neither acting nor talking
        move = site.next_move(view.inventory) if ready else None
        building = move is not None and move.command.startswith(("!placeBlock", "!breakBlock"))
        talk = None if rounds and mem.talked_last and building else self._talk(view, site, ready, building)
        if talk:
            return self._say(view, talk)
        if move is not None:
            mem.idle = 0
            return self._act(move.text())
        if site.believed_complete() and not site.confirmed and view.may("checkGoal"):
            return "!checkGoal"  # all my blocks should be in place: check
        if site.mine_done() and (mem.team_done or not view.others):
            return self._act("Both our parts are built: the structure is done. !endTask")
        fresh = [m for m in view.new_messages if not m.ended]
        if not rounds and fresh and view.partner == fresh[-1].sender and view.may("endConversation"):
            # nothing to do now: close the conversation, so that self-prompting goes on
            return self._say(view, (view.partner, f"Thanks, {view.partner}! !endConversation({quote(view.partner)})"))
        if site.mine_done() and not rounds and mem.announced:
            return ""  # nothing to do until a partner speaks: quiet replies stop self-prompting
        if site.handed_pending() and not site.full_view and command_of(view.my_last) != "!checkGoal" and \
                view.may("checkGoal"):
            return "!checkGoal"  # only !checkGoal shows me the blocks I handed over, without the structure list
        site.waited()  # for blocks I lack, or for my partner's blocks to build on
        mem.waits += 1
        mem.idle += 1
        return self._act(ROUND_WAIT if rounds or view.offers("wait") else COBLOCK_WAIT)

    def _absorb(self, view: PromptView, goal: TaskGoal, site: coblock.Site) -> None:
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
                self._promise(view, site, msg.sender, cells)
                continue
            for item, n in reading.wants.items():
                spare = view.has(item) - self.keep(view, goal, item)
                if spare > 0 and view.may("givePlayer"):
                    mem.owed.append((msg.sender, item, n))
                elif spare > 0:
                    mem.to_say.append((msg.sender, f"I can't hand blocks over, {msg.sender}, but I have {spare} "
                                                   f"{item} to spare: tell me where to place them."))
                elif not msg.ended:
                    mem.to_say.append((msg.sender, f"Sorry {msg.sender}, I don't have any {item} to spare."))

    def _promise(self, view: PromptView, site: coblock.Site, partner: str, cells: list) -> None:
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

    def _talk(self, view: PromptView, site: coblock.Site, ready: bool, building: bool) -> tuple[str, str] | None:
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
        offer_due = mem.offered_at is None or mem.calls - mem.offered_at >= OFFER_EVERY
        if not site.mine_done() and mem.idle >= IDLE_BEFORE_OFFER and offer_due and not mem.team_done and partner \
                and held:
            mem.offered_at = mem.calls
            return partner, coblock.waiting_offer_text(held, site.work_left(view.inventory))
        rounds = view.round is not None
        if site.mine_done() and rounds and mem.waits >= DONE_PATIENCE and not mem.team_done and \
                not mem.asked_progress and partner:
            mem.asked_progress = True
            question = "Have you placed all your blocks yet?"
            return partner, f"{question} {coblock.offer_sentence(held)}" if held else question
        return None

    def _say(self, view: PromptView, talk: tuple[str, str]) -> str:
        """A message to a partner: in our conversation as it is, else opening one."""
        partner, text = talk
        self.mem.talked_last = True
        if view.partner == partner or "!endConversation" in text:
            return text
        return f"!startConversation({quote(partner)}, {quote(text)})"

    def _act(self, text: str) -> str:
        """A reply that acts: its command alone. Words beside it are not sent in round mode, and elsewhere they go
        to the partner whose message started the turn (which the prompt may no longer show, once the history is
        summarized): news of every block would be noise."""
        self.mem.talked_last = False
        return command_of(text)
