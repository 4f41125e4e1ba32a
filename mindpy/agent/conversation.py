"""Pairwise, asynchronous conversations between bots.

A bot talks with at most one other bot at a time. Messages from the partner are queued; when to hand them to
the agent depends on who is busy (a message holding a command means its sender is about to be busy):

- neither busy: after a short delay (messages arriving meanwhile are merged into one);
- only the partner busy: after a long delay, so its short actions can finish;
- only this bot busy: a small "respond or ignore" prompt decides (talking over `stay`, `followPlayer` and
  mode actions is always fine);
- both busy: when this bot's action ends (never dropped).

While waiting for the partner's reply the bot is nudged after 30 s (then 60, 120 ...); a partner that
leaves for 10 s ends the conversation. Self-prompting pauses during a conversation and resumes 5 s after.

Every message carries its origin: who started the chain of requests that led the sender to write it (see
`ConversationHost.request_origin`). The receiving bot answers on behalf of that origin, so passing a request on
to another bot does not make it the bots' own.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from .bus import MessageBus

log = logging.getLogger(__name__)

BOT_TAG = "(FROM OTHER BOT)"
TALK_OVER_ACTIONS = ("stay", "followPlayer", "mode:")


class ConversationHost(Protocol):
    """What the conversation manager needs from its agent."""

    name: str

    def is_idle(self) -> bool: ...
    def current_action_label(self) -> str | None: ...
    def handle_message(self, sender: str, message: str, origin: str | None = None) -> None: ...
    def request_origin(self) -> str: ...  # who started the chain of requests the host is serving now
    def should_respond_to_bot(self, message: str) -> bool: ...
    def record_message(self, sender: str, message: str) -> None: ...
    def chat(self, text: str) -> None: ...
    def pause_self_prompt(self) -> None: ...
    def resume_self_prompt_if_paused(self) -> None: ...


@dataclass
class Timing:
    """The delays (seconds) of conversations: delivery, nudges, partner gone, lapse, self-prompt resume."""
    fast_delay: float = 0.2
    long_delay: float = 5.0
    first_nudge: float = 30.0
    gone_after: float = 10.0
    lapse_after: float = 20.0  # a conversation quiet this long both ways no longer shuts out another bot
    resume_self_prompt_after: float = 5.0
    monitor_interval: float = 1.0


@dataclass
class Conversation:
    """The state of one bot's conversation with one partner: activity, queued messages, timer."""
    partner: str
    active: bool = False
    ignore_until_start: bool = False
    queue: list[dict] = field(default_factory=list)
    timer: threading.Timer | None = None
    waiting_for_idle: bool = False
    origin: str | None = None  # the origin of the latest message, either way (for the nudges)

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def take_merged(self) -> dict:
        """All queued messages as one (the flags of the last one, texts joined)."""
        merged = {"message": "", "start": False, "end": False}
        for packet in self.queue:
            merged["message"] += (" " if merged["message"] else "") + packet["message"]
            merged["start"] = merged["start"] or packet.get("start", False)
            merged["end"] = packet.get("end", False)
        origins = {packet.get("origin") for packet in self.queue}
        # messages of different origins speak for none of them alone: the origin is unknown (see _deliver)
        merged["origin"] = origins.pop() if len(origins) == 1 else None
        self.queue.clear()
        return merged


def contains_command(text: str) -> bool:
    """Whether the text holds a `!command` (its sender is about to be busy)."""
    import re

    return re.search(r"![a-zA-Z]+", text) is not None


class ConversationManager:
    """One bot's conversations with other bots: sending, queueing, delivery timing and ending."""
    def __init__(self, host: ConversationHost, bus: MessageBus, timing: Timing | None = None,
                 echo_to_chat: bool = False):
        self.host = host
        self.bus = bus
        self.timing = timing or Timing()
        self.echo_to_chat = echo_to_chat
        self._convos: dict[str, Conversation] = {}
        self._active: Conversation | None = None
        self._lock = threading.RLock()
        self._awaiting_reply = False
        self._waited = 0.0
        self._nudge_after = self.timing.first_nudge
        self._gone_since: float | None = None
        self._last_traffic = time.monotonic()  # the last message either way in the conversation under way
        self._monitor: threading.Thread | None = None
        self._closed = threading.Event()
        self._at_once = False  # round mode: no delivery delays and no nudges (see deliver_at_once)
        bus.register(host.name, self.receive)

    def deliver_at_once(self) -> None:
        """Round mode: hand every message to the host as soon as it arrives (the host holds it for its next turn),
        and never nudge: a partner who has not answered yet simply has not had its turn."""
        self._at_once = True

    # ---- queries ---------------------------------------------------------------------------------
    def _convo(self, name: str) -> Conversation:
        if name not in self._convos:
            self._convos[name] = Conversation(name)
        return self._convos[name]

    def is_other_bot(self, name: str) -> bool:
        return name != self.host.name and self.bus.is_present(name)

    def in_conversation(self, name: str | None = None) -> bool:
        with self._lock:
            if name is not None:
                return name in self._convos and self._convos[name].active
            return any(c.active for c in self._convos.values())

    @property
    def partner(self) -> str | None:
        convo = self._active
        return convo.partner if convo is not None and convo.active else None

    # ---- sending -----------------------------------------------------------------------------------
    def start_conversation(self, partner: str, message: str) -> str:
        """!startConversation: open a conversation and send the first message. Returns a note for the model."""
        if partner == self.host.name:
            return "You cannot start a conversation with yourself."
        if not self.is_other_bot(partner):
            others = [n for n in self.bus.names() if n != self.host.name]
            return (f"{partner} is not a bot in this game; talk to players in chat instead. "
                    f"Bots here: {', '.join(others) or 'none'}.")
        with self._lock:
            current = self.partner
            if current and current != partner:
                self.end_conversation(current, notify=True)
            convo = self._convo(partner)
            # Messages the partner sent that wait for their delivery stay queued: when both bots open a
            # conversation with each other at the same moment, each must still hear the other's opening.
            convo.ignore_until_start = False
            convo.active = True
            self._active = convo
        self.host.pause_self_prompt()
        self._start_monitor()
        self.send(partner, message, start=True)
        return f"Started a conversation with {partner}."

    def send(self, partner: str, message: str, start: bool = False, echo: bool = True) -> bool:
        """Send a message to a bot partner (the agent's reply inside a conversation), with the origin of the
        request the host is serving."""
        origin = self.host.request_origin()
        with self._lock:
            convo = self._convo(partner)
            if convo.ignore_until_start and not start:
                return False
            convo.active = True
            convo.origin = origin
            self._awaiting_reply = True
            self._last_traffic = time.monotonic()
        if self.echo_to_chat and echo:
            self.host.chat(f"(To {partner}) {message}")
        payload = {"message": message, "start": start, "end": "!endConversation" in message, "origin": origin}
        sent = self.bus.send(self.host.name, partner, payload)
        record = getattr(self.host, "public_record", None)  # a CoBlock team's public record of what was said
        if sent and record is not None:
            record.said(self.host.name, message)
        return sent

    def end_conversation(self, partner: str, notify: bool = False) -> str:
        """!endConversation: stop talking to `partner` (queued messages go to history unanswered)."""
        with self._lock:
            convo = self._convos.get(partner)
            if convo is None or not convo.active:
                return f"You are not in a conversation with {partner}."
            convo.active = False
            convo.ignore_until_start = True
            convo.cancel_timer()
            leftover = convo.take_merged()
            if leftover["message"].strip():
                self.host.record_message(partner, BOT_TAG + leftover["message"])
            if self._active is convo:
                self._active = None
                self._awaiting_reply = False
        if notify:
            self.bus.send(self.host.name, partner, {"message": f'!endConversation("{self.host.name}")',
                                                    "start": False, "end": True,
                                                    "origin": self.host.request_origin()})
        if not self.in_conversation():
            self._resume_self_prompt_later()
        return f"Ended the conversation with {partner}."

    def end_all(self) -> None:
        for name in list(self._convos):
            if self._convos[name].active:
                self.end_conversation(name)

    # ---- receiving ---------------------------------------------------------------------------------
    def receive(self, sender: str, packet: dict) -> None:
        """Bus handler: a message from another bot arrived. While this bot talks with someone else it answers
        "I'm talking to someone else", unless that partner has left a nudge unanswered: then that conversation is
        over in all but name (a partner that stopped answering would otherwise shut everyone else out, for good
        when the task blocks !endConversation), so it ends and the new one is taken. So does a conversation in
        which nobody said anything for `lapse_after` seconds: two bots that stopped talking without ending it
        would shut out a third for good."""
        stale = self._silent_partner_besides(sender) or self._lapsed_partner_besides(sender)
        if stale is not None:
            self.end_conversation(stale)
        with self._lock:
            convo = self._convo(sender)
            if convo.ignore_until_start and not packet.get("start"):
                return
            if self.in_conversation() and not self.in_conversation(sender):
                busy_reply = True
            else:
                busy_reply = False
                if packet.get("start"):
                    convo.queue.clear()
                    convo.cancel_timer()
                    convo.ignore_until_start = False
                    convo.active = True
                    self._active = convo
                self._awaiting_reply = False
                self._gone_since = None
                self._last_traffic = time.monotonic()
                convo.queue.append(packet)
                convo.origin = packet.get("origin")
        if busy_reply:  # answered by the code, for whoever the message came from
            self.bus.send(self.host.name, sender, {
                "message": f"I'm talking to someone else, try again later. !endConversation(\"{sender}\")",
                "start": False, "end": True, "origin": packet.get("origin")})
            return
        self.host.pause_self_prompt()
        self._start_monitor()
        self._schedule(sender, packet)

    def _silent_partner_besides(self, sender: str) -> str | None:
        """The partner of the conversation under way when it is not `sender` and has not answered since a nudge."""
        with self._lock:
            current = self.partner
            nudged = self._awaiting_reply and self._nudge_after > self.timing.first_nudge
            return current if current not in (None, sender) and nudged else None

    def lapsed(self) -> bool:
        """Whether a conversation is under way in which nobody said anything for `timing.lapse_after` seconds."""
        with self._lock:
            return self.partner is not None and time.monotonic() - self._last_traffic >= self.timing.lapse_after

    def _lapsed_partner_besides(self, sender: str) -> str | None:
        """The partner of a lapsed conversation under way when it is not `sender`."""
        with self._lock:
            current = self.partner
            return current if current not in (None, sender) and self.lapsed() else None

    def _schedule(self, sender: str, packet: dict) -> None:
        convo = self._convo(sender)
        convo.cancel_timer()
        if self._at_once:
            self._deliver(sender)
            return
        partner_busy = contains_command(packet.get("message", ""))
        me_idle = self.host.is_idle()
        label = self.host.current_action_label() or ""
        can_talk_over = any(word in label for word in TALK_OVER_ACTIONS)
        if me_idle and not partner_busy:
            self._deliver_after(convo, self.timing.fast_delay)
        elif me_idle and partner_busy:
            self._deliver_after(convo, self.timing.long_delay)
        elif can_talk_over:
            self._deliver_after(convo, self.timing.fast_delay)
        elif not partner_busy and self.host.should_respond_to_bot(packet.get("message", "")):
            self._deliver_after(convo, self.timing.fast_delay)
        else:
            convo.waiting_for_idle = True  # delivered by on_idle() when the action ends

    def _deliver_after(self, convo: Conversation, delay: float) -> None:
        convo.waiting_for_idle = False
        convo.timer = threading.Timer(delay, self._deliver, args=(convo.partner,))
        convo.timer.daemon = True
        convo.timer.start()

    def on_idle(self) -> None:
        """Called by the agent's update tick when it has nothing running: hand over waiting messages."""
        with self._lock:
            waiting = [c for c in self._convos.values() if c.waiting_for_idle and c.queue]
        for convo in waiting:
            self._deliver_after(convo, self.timing.fast_delay)

    def _deliver(self, partner: str) -> None:
        with self._lock:
            convo = self._convo(partner)
            convo.timer = None
            if not convo.queue:
                return
            packet = convo.take_merged()
        text = BOT_TAG + packet["message"]
        origin = packet["origin"] or partner  # unknown or mixed: the partner bot's, which no one trusts by name
        if packet["end"]:
            self.end_conversation(partner)
            self.host.handle_message("system", f'Conversation with {partner} ended with message: "{text}"',
                                     origin=origin)
        else:
            self.host.handle_message(partner, text, origin=origin)

    def _conversation_origin(self, partner: str) -> str:
        """The origin of the latest message with `partner`, for what the conversation itself prompts."""
        with self._lock:
            return self._convo(partner).origin or partner

    # ---- monitoring --------------------------------------------------------------------------------
    def _start_monitor(self) -> None:
        with self._lock:
            if self._monitor is not None and self._monitor.is_alive():
                return
            self._waited = 0.0
            self._nudge_after = self.timing.first_nudge
            self._monitor = threading.Thread(target=self._watch, name=f"convo-{self.host.name}", daemon=True)
            self._monitor.start()

    def _watch(self) -> None:
        last = time.monotonic()
        while not self._closed.wait(self.timing.monitor_interval):
            partner = self.partner
            if partner is None:
                return
            now = time.monotonic()
            delta, last = now - last, now
            if self._awaiting_reply and self.host.is_idle() and not self._at_once:
                self._waited += delta
                if self._waited > self._nudge_after:
                    waited = self._nudge_after
                    self._waited = 0.0
                    self._nudge_after *= 2
                    self.host.handle_message(
                        "system", f"{partner} hasn't responded in {waited:.0f} seconds, respond with a message "
                                  f"to them or your own action.", origin=self._conversation_origin(partner))
            elif not self._awaiting_reply:
                self._waited = 0.0
                self._nudge_after = self.timing.first_nudge
            if not self.bus.is_present(partner):
                self._gone_since = self._gone_since or now
                if now - self._gone_since >= self.timing.gone_after:
                    self._gone_since = None
                    self.end_conversation(partner)
                    self.host.handle_message("system", f"{partner} left the game; the conversation has ended.",
                                             origin=self._conversation_origin(partner))
            else:
                self._gone_since = None

    def _resume_self_prompt_later(self) -> None:
        def resume():
            if not self.in_conversation():
                self.host.resume_self_prompt_if_paused()

        timer = threading.Timer(self.timing.resume_self_prompt_after, resume)
        timer.daemon = True
        timer.start()

    def close(self) -> None:
        self._closed.set()
        self.bus.unregister(self.host.name)
        for convo in self._convos.values():
            convo.cancel_timer()
