"""The agent: a bot, a model, and the loop that connects them.

Messages (from players, other bots, or the system) trigger the loop: prompt the model with the history; a
reply holding a command is recorded, the command runs, its output is recorded as a system turn, and the model
is prompted again; a reply without a command is said (in chat, or to the conversation partner) and ends the
loop. Every 300 ms the update tick runs the modes, the self-prompter and the task check.

The parts that differ between uses are given to the constructor, complete: the model (`send(messages, system)
-> reply with .text`), the command layer, the prompter, the history, the skills, the task, the code writer and the
event hooks (see mindpy.agent.factory, which builds all of them from a profile). Commands receive the agent's
`context` (a mindpy.commands.AgentContext), never the agent itself.

Trust follows the message, not the turn. Every turn and every command runs on behalf of an origin: who started
the chain of requests that led to it, a player's name or SELF_REQUESTER (the agent itself: its settings, the
code that runs it, a task). A goal keeps the origin of whoever set it, so do the turns the agent then takes on
its own, and so do messages passed on to other bots; code is written only for a trusted origin (see
mindpy.coding.CodingPolicy). Who may type !commands directly is the `player_commands` setting. What the agent
says goes out as chat only, never as a server command (see `chat_pieces`).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import DEFAULT_MINECRAFT_VERSION
from ..bridge import Bot
from ..bridge.plain_chat import CHAT_LIMIT, plain_chat_pieces, sayable
from ..coding.generator import SELF_REQUESTER
from ..coding.library import SkillLibrary, SkillRecorder
from ..commands.context import AgentContext
from ..errors import BridgeTimeout, NodeStopped
from ..models.base import ModelUnreachable, strip_thinking
from ..settings import PLAYER_COMMANDS, SettingsError
from ..skills import Skills
from . import deliberation
from .actions import ActionManager, cut_output
from .belief import Belief
from .bus import MessageBus
from .conversation import BOT_TAG, ConversationManager
from .modelling import ModellingNotes
from .modes import ModeController
from .rate_limit import FIRST_DROPPED, PASS, MessageRateLimit
from .self_prompt import SelfPrompter
from .turns import ACT_NOW, DEFAULT_RULES, MESSAGE_COMMANDS, WORDS_NOT_SENT, TurnReport, TurnRules

log = logging.getLogger(__name__)

TICK_SECONDS = 0.3
MAX_TRIES = 3
# Servers kick a player who chats too fast (vanilla and Paper after about 10 quick messages): a long reply is
# said in at most this many pieces, the rest cut with a note. The model's history keeps the whole reply.
MOST_CHAT_PIECES = 4

# The origin of the request the current thread serves (see the module's docstring). Every message sets it;
# outside any message (code calling the agent: a harness, a task, a test) it is the agent itself.
_origin: ContextVar[str] = ContextVar("origin", default=SELF_REQUESTER)


@contextmanager
def _serving(origin: str) -> Iterator[None]:
    """Run the block on behalf of `origin`."""
    token = _origin.set(origin)
    try:
        yield
    finally:
        _origin.reset(token)


def _carrying_origin(fn: Callable[[], Any]) -> Callable[[], Any]:
    """`fn`, run on behalf of the current origin on whatever thread runs it (actions have threads of their own,
    and a mode may resume one later)."""
    origin = _origin.get()

    def run() -> Any:
        with _serving(origin):
            return fn()
    return run


def _origin_of(sender: str) -> str:
    """The origin of a message that names none: its sender, or the agent itself for "system" messages (its own
    prompts and its settings' init message; a player called "system" is relabelled, see _player_label)."""
    return SELF_REQUESTER if sender == "system" else sender


CUT_NOTE = " [{} more characters not said]"


def chat_pieces(text: str, length: int = CHAT_LIMIT, most: int = MOST_CHAT_PIECES) -> list[str]:
    """`text` as at most `most` plain chat messages of `length` UTF-16 code units each, none of which runs as a
    server command (see mindpy.bridge.plain_chat); a longer text ends with a note of how many characters (code
    points) were not said."""
    text = sayable(text)
    if len(text) <= length * most:
        pieces = plain_chat_pieces(text, length)
        if len(pieces) <= most:
            return pieces
    kept = _longest_start_said(text, length, most)
    return plain_chat_pieces(_cut_with_note(text, kept), length)[:most]


def _cut_with_note(text: str, kept: int) -> str:
    return text[:kept] + CUT_NOTE.format(len(text) - kept)


def _longest_start_said(text: str, length: int, most: int) -> int:
    """How many characters of `text` fit in `most` pieces with the cut note after them (a binary search: an
    emoji takes two units, an escape one more)."""
    def fits(kept: int) -> bool:
        return len(plain_chat_pieces(_cut_with_note(text, kept), length)) <= most

    low, high = 0, min(len(text), length * most)
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


class CommandLayer(Protocol):
    """What the agent needs from the command layer (mindpy.commands adapts its registry to this)."""

    def parse(self, text: str) -> Any: ...  # -> .command (name or None), .args, .error (refusal text or None)
    def parse_command(self, text: str) -> Any: ...  # the same for a player's `!...`: no command is an error too
    def is_action(self, name: str) -> bool: ...
    def acts(self, name: str) -> bool: ...  # an action (takes the turn in round mode), not a query
    def run(self, context: AgentContext, name: str, args: list) -> str | None: ...
    def docs(self, context: AgentContext | None = None) -> str: ...


EventHook = Callable[[str, str], None]  # (kind, text): consoles, run logs, call logs


@dataclass
class AgentSettings:
    """The settings the loop itself reads (the rest configure the parts the factory builds)."""

    max_commands: int = -1
    cooldown: float = 3.0
    only_chat_with: list[str] = field(default_factory=list)
    narrate_behavior: bool = True
    chat_bot_messages: bool = False
    init_message: str = ""
    player_commands: str = "everyone"  # who may type !commands directly: one of PLAYER_COMMANDS
    trusted_players: list[str] = field(default_factory=list)
    tom_step: bool = False       # write notes on the partners before each choice (mindpy.agent.deliberation)
    verification: bool = False   # check each chosen command against the state, choose again when not okay
    hears_players: bool = True   # False: players' chat and whispers are ignored (an orders cook obeys its dispatcher)
    belief_state: bool = False   # a written belief stands for the raw history in each prompt (mindpy.agent.belief)
    player_messages_per_10s: int = 5  # a player's chat messages that reach the model in 10 s; 0: no limit

    def __post_init__(self) -> None:
        if self.player_commands not in PLAYER_COMMANDS:
            raise SettingsError(f"setting 'player_commands' must be one of {', '.join(PLAYER_COMMANDS)}, "
                                f"got {self.player_commands[:40]!r}")
        if self.player_messages_per_10s < 0:
            raise SettingsError(f"setting 'player_messages_per_10s' must be 0 (no limit) or more, "
                                f"got {self.player_messages_per_10s}")


def _player_label(username: str) -> str:
    """A player may be called "system": keep them apart from the agent's own system messages."""
    return f"{username}_player" if username.lower() == "system" else username


class Agent:
    """One bot driven by one model: messages in, commands and chat out (see the module's docstring)."""

    def __init__(self, name: str, bot: Bot, model, commands: CommandLayer, prompter, history, *,
                 settings: AgentSettings | None = None, bus: MessageBus | None = None,
                 skills: Skills | None = None, task: Any = None, version: str = DEFAULT_MINECRAFT_VERSION,
                 coder: Any = None, on_event: Sequence[EventHook] = (),
                 on_restart: Callable[[Agent], None] | None = None,
                 is_other_bot: Callable[[str], bool] | None = None, agent_index: int | None = None,
                 library: SkillLibrary | None = None):
        """`task`: the MineCollab task being played, if any, and `agent_index` which of its players this agent is;
        `coder`: a mindpy.coding.Coder when !newAction is allowed; `library`: where its code that worked is saved
        (mindpy.coding.library); `on_event` hooks receive every traced event; `on_restart` rebuilds the agent
        (the runner)."""
        self.name = name
        self.bot = bot
        self.model = model
        self.commands = commands
        self.prompter = prompter
        self.history = history
        self.settings = settings or AgentSettings()
        self.task = task
        self.version = version
        self.coder = coder
        self.skills = skills or Skills(bot)
        self.actions = ActionManager(self.skills.interrupt, self.skills.take_log, name)
        self.modes = ModeController(bot, self.skills, self.actions, narrate=self._narrate)
        self.self_prompter = SelfPrompter(self._self_prompt_turn, self.actions.stop)
        self.conversations = (ConversationManager(self, bus, echo_to_chat=self.settings.chat_bot_messages)
                              if bus else None)
        self.modes.set_agent_busy(lambda: self._turns_running > 0)
        self._is_other_bot = is_other_bot or (
            lambda name: bool(self.conversations and self.conversations.is_other_bot(name)))
        self.context = AgentContext(name=name, bot=bot, skills=self.skills, version=version, task=task,
                                    actions=self.actions, modes=self.modes, self_prompter=self.self_prompter,
                                    conversations=self.conversations, history=history, controls=self,
                                    agent_index=agent_index, library=library)
        self.skill_recorder = (SkillRecorder(library, score=self._task_score, on_saved=self._skill_saved)
                               if library is not None else None)
        self.task_score: Callable[[], float | None] | None = None  # the task's score now (given by assign_task)
        history.extra_state = self.saved_state  # the state file keeps the goal and last sender too
        self._event_hooks: tuple[EventHook, ...] = tuple(on_event)
        self._on_restart = on_restart
        self.task_check: Callable[[], Any] | None = None  # the task's checker, run on the update tick
        self.task_goal = ""                # this agent's goal in the task ($TASK_GOAL in the prompt)
        self.task_inventory = ""           # what the task gave it at the start ($TASK_INVENTORY)
        self.task_start: float | None = None  # when the task began (time.time()), kept in the state file
        self.restart_requested = threading.Event()
        self.command_counts: dict[str, int] = {}
        self.messages_sent = 0
        self.shut_up = False
        self.last_sender: str | None = None
        self._serial = 0
        self._serial_lock = threading.Lock()
        self._prompt_lock = threading.Lock()
        self._last_call = 0.0
        self._turns_running = 0
        self._stopped = threading.Event()
        self._tick_thread: threading.Thread | None = None
        self._self_prompt_thread: threading.Thread | None = None
        self.events: list[tuple[float, str, str]] = []  # (time, kind, text): a readable trace of the run
        self.modelling = ModellingNotes()  # partner_modelling: the latest sections, shown in the next prompt
        # a CoBlock team's public record of messages and actions (mindpy.tasks.families.coblock.record), given by
        # the family's configure_agent; the conversation manager and the coblock commands write to it
        self.public_record: Any = None
        self.belief = Belief(name) if self.settings.belief_state else None  # belief_state: stands for the history
        self.turn_driven = False  # round mode: the agent acts only in the turns it is given (take_turn)
        self._held: list[tuple[str, str]] = []  # round mode: (sender, message) heard since the last turn
        self._held_lock = threading.Lock()
        self._outage_told = False  # a player was told that the model's endpoint is down (once per outage)
        # players' chat reaching the model, per player (the clock is an attribute: tests move it themselves)
        self.message_limit = MessageRateLimit(self.settings.player_messages_per_10s)

    # ---- life cycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        self.bot.on("chat", self._on_chat)
        self.bot.on("whisper", self._on_whisper)
        self._tick_thread = threading.Thread(target=self._tick_loop, name=f"tick-{self.name}", daemon=True)
        self._tick_thread.start()
        if self.settings.init_message:
            self.handle_message("system", self.settings.init_message)

    def assign_task(self, goal: str, inventory: str, check: Callable[[], Any] | None = None,
                    score: Callable[[], float | None] | None = None) -> None:
        """Give the agent its part of a task once the world is set up: its goal and starting inventory for the
        prompt, (for one agent of the team) the checker to run on the update tick, and how to read the task's
        score (its code that raises the score is kept as a skill)."""
        self.task_goal = goal
        self.task_inventory = inventory
        self.task_start = time.time()
        if check is not None:
            self.task_check = check
        if score is not None:
            self.task_score = score

    def close(self) -> None:
        self._stopped.set()
        self.actions.stop(wait=3.0)
        if self.conversations:
            self.conversations.close()
        if self.skill_recorder is not None:
            self.skill_recorder.close()

    # ---- incoming ------------------------------------------------------------------------------------
    def _on_chat(self, username: str, message: str, *rest) -> None:
        if username == self.name or username is None or not self.settings.hears_players:
            return
        username = _player_label(username)
        if self._is_other_bot(username):
            return  # bots talk through conversations, not public chat
        if self.settings.only_chat_with and username not in self.settings.only_chat_with:
            return
        if self._several_bots():
            # with several bots in the game, public chat is for the bot it names ("andy, come here")
            addressed = self._addressed_part(message)
            if addressed is None:
                return
            if addressed.startswith("!"):
                message = addressed  # "andy !stop" -> "!stop", run directly
        if not self._within_message_rate(username, message):
            return
        self._trace("heard", f"<{username}> {message}")
        self.handle_message(username, message)

    def _several_bots(self) -> bool:
        return self.conversations is not None and len(self.conversations.bus.names()) > 1

    def _addressed_part(self, message: str) -> str | None:
        """The message without the leading mention of this bot, or None when it does not mention the bot."""
        match = re.search(rf"(?<![A-Za-z0-9_])@?{re.escape(self.name)}(?![A-Za-z0-9_])", message, re.IGNORECASE)
        if match is None:
            return None
        if match.start() == 0:
            return message[match.end():].lstrip(" ,:;").strip()
        return message

    def _on_whisper(self, username: str, message: str, *rest) -> None:
        if username == self.name or self._is_other_bot(username) or not self.settings.hears_players:
            return
        username = _player_label(username)
        if self.settings.only_chat_with and username not in self.settings.only_chat_with:
            return
        if not self._within_message_rate(username, message):
            return
        self._trace("heard", f"(whisper) <{username}> {message}")
        self.handle_message(username, message)

    def _within_message_rate(self, sender: str, message: str) -> bool:
        """Whether a player's chat message may reach the model (see mindpy.agent.rate_limit). One over the limit is
        dropped, and the first of a burst tells the player in one line. Typed !commands never reach the model and
        are not counted; other bots of the run talk through conversations and never come here."""
        if message.strip().startswith("!"):
            return True
        verdict = self.message_limit.check(sender)
        if verdict == PASS:
            return True
        self._trace("skipped", f"<{sender}> {message}")
        if verdict == FIRST_DROPPED:
            most = self.message_limit.per_window
            self._trace("too fast", f"{sender} sent more than {most} messages in 10 s; the rest are skipped")
            self.chat(f"{sender}, you are sending messages too fast: I skip them until you slow down "
                      f"(at most {most} in 10 s).")
        return False

    def hear(self, sender: str, message: str, via: str) -> None:
        """A player's message that reached the agent another way than the game's chat (`via`: a dashboard):
        shown as heard, then handled as a whisper from `sender` would be (a !command runs at once if the
        player_commands setting lets `sender` give them)."""
        sender = _player_label(sender)
        self._trace("heard", f"({via}) <{sender}> {message}")
        self.handle_message(sender, message)

    def handle_message(self, sender: str, message: str, origin: str | None = None) -> None:
        """Queue a message for the loop (returns at once; the loop runs on a thread of its own). `origin`: who
        started the chain of requests behind it (by default its sender; the agent itself for "system")."""
        origin = origin if origin is not None else _origin_of(sender)
        from_bot = message.startswith(BOT_TAG)
        if sender not in ("system",) and not from_bot and message.strip().startswith("!"):
            # a player typed a command: run it directly, no model involved
            threading.Thread(target=self._run_player_command, args=(sender, message, origin), daemon=True).start()
            return
        if sender != "system":
            self.last_sender = sender
            if not from_bot:
                self.shut_up = False  # a person talking to the bot lifts !stfu
        if self.turn_driven:  # round mode: heard now, read at the start of the next turn
            with self._held_lock:
                self._held.append((sender, message))
            return
        with self._serial_lock:
            self._serial += 1
            serial = self._serial
        self.history.add(sender, message)
        threading.Thread(target=self._turns, args=(serial, sender, origin), name=f"turn-{self.name}",
                         daemon=True).start()

    def _run_player_command(self, sender: str, message: str, origin: str) -> None:
        """A player's `!command`, run on a thread of its own: whatever the message, the player gets an answer and
        the agent goes on."""
        try:
            self._answer_player_command(sender, message, origin)
        except BridgeTimeout as exc:  # Node stalled: this command is lost, the agent is not
            log.warning("%s: a command from %s ended early: %s", self.name, sender, exc)
            self.chat(f"Sorry {sender}, that command did not finish (the game did not answer in time).")
        except Exception as exc:
            log.exception("%s: a command from %s failed", self.name, sender)
            self.chat(f"Sorry {sender}, that command failed ({type(exc).__name__}). Try another, or ask me in words.")

    def _answer_player_command(self, sender: str, message: str, origin: str) -> None:
        refusal = self._player_command_refusal(sender)
        if refusal is not None:  # one line back, and the agent goes on with whatever it was doing
            self._trace("refused", f"a !command from {sender} ({self.settings.player_commands} may use them)")
            self.chat(refusal)
            return
        parsed = self.commands.parse_command(message)  # no command in it is a refusal too, never a run
        if parsed.error or parsed.command is None:
            refusal = parsed.error or "Write a command as !name or !name(arg, ...); !help lists them."
            self._trace("refused", refusal)
            self.chat(refusal)
            return
        with _serving(origin):
            output = self.execute(parsed, tell=self.chat)
        if output:
            self.chat(cut_output(output))

    def _player_command_refusal(self, sender: str) -> str | None:
        """Why `sender` may not type !commands here (the player_commands setting), or None when they may."""
        allowed = self.settings.player_commands
        if allowed == "everyone" or (allowed == "trusted_players" and sender in self.settings.trusted_players):
            return None
        if allowed == "trusted_players":
            return f"Sorry {sender}, only trusted players may give me !commands; ask me in words instead."
        return f"Sorry {sender}, I take no !commands from players here; ask me in words instead."

    # ---- the loop ------------------------------------------------------------------------------------
    def _turns(self, serial: int, sender: str, origin: str) -> bool:
        """Answer the newest message on behalf of `origin`; returns whether any command was used."""
        with _serving(origin):
            try:
                return self._take_turns(serial, sender)
            except BridgeTimeout as exc:  # Node stalled mid-turn: the turn is lost, the agent is not
                log.warning("%s: a turn ended early: %s", self.name, exc)
            except Exception:
                log.exception("%s: a turn failed", self.name)
            self._trace("turn failed", "the turn ended early; the next message starts a new one")
            return False

    def _take_turns(self, serial: int, sender: str) -> bool:
        """Prompt, run commands, prompt again... Returns whether any command was used."""
        self._turns_running += 1
        used_command = False
        try:
            limit = self.settings.max_commands
            count = 0
            while not self._stopped.is_set() and (limit < 0 or count <= limit):
                self._note_behaviors()
                reply = self._generate(serial)
                if reply is None:
                    return used_command  # stale, or the model failed
                parsed = self.commands.parse(reply)
                if parsed.command is None and not parsed.error:
                    self.history.add(self.name, reply)
                    self._route(sender, reply)
                    self._replied_without_command()
                    return used_command
                self.history.add(self.name, reply)
                said = (getattr(parsed, "message", "") or "").strip()
                if said and sender != "system":
                    self._route(sender, said)
                if parsed.error:
                    self._refused(parsed.error)
                    self._trace("command failed", parsed.command or "?")
                    count += 1
                    continue
                used_command = True
                count += 1
                output = self.execute(parsed, tell=lambda notes: self.history.add("system", notes))
                if output is None:
                    return used_command
                self.history.add("system", output)
            return used_command
        finally:
            self._turns_running -= 1

    def _note_behaviors(self) -> None:
        """What the modes did since the last model call goes into the history, so the model knows."""
        behaviors = self.modes.take_behavior_log().strip()
        if behaviors:
            self.history.add("system", f"Recent behaviors log: \n{behaviors}")

    def _refused(self, error: str) -> None:
        """A reply whose command was refused: the reason goes to the model."""
        self.history.add("system", error)
        self._trace("refused", error)

    def _generate(self, serial: int) -> str | None:
        """One model reply for the newest message, or None if a newer message made it stale."""
        with self._prompt_lock:
            for _ in range(MAX_TRIES):
                if serial != self._serial:
                    return None
                self._cool_down()
                if self.belief is None:
                    system, messages = self.prompter.conversing(self)
                else:  # the belief and the newest turns stand for the history
                    system, messages = self.prompter.conversing(
                        self, turns=self.belief.stand_in(self.model, self._belief_system(), self.history))
                if self.settings.tom_step:
                    notes = deliberation.partner_notes(self.model, system, messages, self._partners())
                    if notes:
                        self._trace("partner notes", notes)
                    messages = deliberation.with_notes(messages, notes)
                try:
                    reply = self.model.send(messages, system)
                except Exception as exc:  # the model being down must not kill the agent
                    log.warning("%s: model call failed: %s", self.name, exc)
                    self._tell_outage(exc)
                    self._trace("model error", str(exc))
                    self.history.add("system", f"(The model could not be reached: {exc})")
                    return None
                self._outage_told = False  # the endpoint answers: a later outage is told again
                text = strip_thinking(getattr(reply, "text", reply) or "")
                if getattr(self.prompter, "partner_modelling", False) or \
                        getattr(self.prompter, "thinks_in_comments", False):
                    # "#" lines (modelling sections, CoBlock's reasoning steps) are kept, never said nor parsed
                    text = self.modelling.observe(text)
                if self.settings.verification and deliberation.has_command(text):
                    text = self._verified(system, messages, text)
                if serial != self._serial:
                    self._trace("stale", "dropped a reply: a newer message arrived while generating")
                    return None
                if BOT_TAG in text:
                    self._trace("dropped", "the model wrote as if it were another bot; trying again")
                    continue
                if text:
                    return text
            return None

    def _tell_outage(self, exc: Exception) -> None:
        """The model's endpoint cannot be used: the player whose message this turn answers hears it in one line
        (which URL, why), once per outage rather than once per message. Turns of the agent's own or of other bots
        say nothing (a harness ends an episode on it)."""
        if not isinstance(exc, ModelUnreachable) or self._outage_told:
            return
        player = _origin.get()
        if player == SELF_REQUESTER or self._is_other_bot(player):
            return
        self._outage_told = True
        self.chat(f"Sorry {player}, my model at {exc.url} is unreachable ({exc.cause[:100]}); I will answer again "
                  f"once it is back.")

    def _belief_system(self) -> Any:
        """The system prompt the belief is rewritten with: the last conversing prompt's (its stable part changes
        rarely), so that a turn builds its prompt once; the first turn builds one."""
        last = self.prompter.last.get("conversing") if isinstance(getattr(self.prompter, "last", None), dict) else None
        return last.system if last is not None else self.prompter.conversing(self)[0]

    def _partners(self) -> list[str]:
        """The other agents present (the teammates a theory-of-mind step thinks about)."""
        bus = getattr(self.conversations, "bus", None)
        return sorted(n for n in (bus.names() if bus is not None else []) if n != self.name)

    def _verified(self, system: str, messages: list[dict], text: str) -> str:
        """`text`, or the reply chosen again after the model's own check found its command not okay."""
        for _ in range(deliberation.MAX_VERIFY_RETRIES):
            okay, reason = deliberation.verify(self.model, system, messages, text)
            if okay:
                return text
            self._trace("verification", f"not okay: {reason}")
            messages = deliberation.retry_messages(messages, text, reason)
            try:
                again = self.model.send(messages, system)
            except Exception as exc:  # keep the first choice rather than lose the turn
                log.warning("%s: model call failed: %s", self.name, exc)
                return text
            text = strip_thinking(getattr(again, "text", again) or "") or text
        return text

    def _cool_down(self) -> None:
        wait = self._last_call + self.settings.cooldown - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_call = time.monotonic()

    def run_command(self, text: str) -> str | None:
        """Run the first command in `text` as if the agent had written it (on behalf of the request being served;
        outside any, of the agent itself); returns its output or the refusal."""
        parsed = self.commands.parse(text)
        if parsed.error:
            return parsed.error
        if parsed.command is None:
            return None
        notes: list[str] = []
        output = self.execute(parsed, tell=notes.append)
        return "\n".join([*notes, output]) if output is not None else None

    def execute(self, parsed, tell: Callable[[str], None]) -> str | None:
        """Run a parsed command: queries at once, actions through the action manager. The parser's notes (an
        argument capped or reread) go to `tell` as one line before the command runs: an action may run for long."""
        name = parsed.command
        output: str | None
        self.command_counts[name] = self.command_counts.get(name, 0) + 1
        self._trace("command", f"!{name}({', '.join(map(repr, parsed.args))})" if parsed.args else f"!{name}")
        if parsed.notes:
            tell(f"({'; '.join(parsed.notes)})")
        if self.commands.is_action(name):
            run = _carrying_origin(lambda: self.commands.run(self.context, name, parsed.args))
            result = self.actions.run(f"action:{name}", run, resume=name in ("followPlayer", "goal"))
            if result.interrupted and not result.timed_out and "was interrupted by" not in result.message:
                self._trace("output", f"(!{name} was stopped)")
                return None  # stopped on purpose (!stop, a new command): the loop ends here
            output = result.message
            failed = not result.success
        else:
            output = self.commands.run(self.context, name, parsed.args)
            failed = not getattr(output, "ok", True) or (output or "").startswith(f"Command !{name} failed")
        if failed:
            self._trace("command failed", name)
        if output:
            self._trace("output", output)
        if self.skill_recorder is not None:
            self.skill_recorder.command_ended(failed)
        return output

    def _route(self, sender: str, text: str) -> None:
        if self.conversations and (self._is_other_bot(sender) or sender == "system"):
            partner = sender if self._is_other_bot(sender) else self.conversations.partner
            if partner and self.conversations.in_conversation(partner):
                self._trace("to bot", f"(to {partner}) {text}")
                self.conversations.send(partner, text)
                return
        if not self.shut_up:
            self.chat(text)

    @property
    def modelling_notes(self) -> str:
        """The agent's latest partner and self modelling sections ($MODELLING in its prompt)."""
        return self.modelling.text

    # ---- round mode ----------------------------------------------------------------------------------
    def drive_by_turns(self) -> None:
        """Round mode: from now on the agent acts only in the turns `take_turn` gives it; what it hears is held
        until then (`deliver_held`), and messages from bots reach it at once, without the conversation delays."""
        self.turn_driven = True
        if self.conversations:
            self.conversations.deliver_at_once()

    def deliver_held(self) -> int:
        """Put what the agent heard since its last turn into its history; returns how many messages."""
        return len(self.take_held())

    def take_held(self) -> list[tuple[str, str]]:
        """Put what the agent heard since its last turn into its history and return it: (sender, message)."""
        with self._held_lock:
            held, self._held = self._held, []
        for sender, message in held:
            self.history.add(sender, message)
        return held

    def take_turn(self, prompt: str, rules: TurnRules = DEFAULT_RULES) -> TurnReport:
        """Play one turn (see mindpy.agent.turns): prompt the model with `prompt`, answer its queries, and stop at
        its action, or at its message when a message is an action, or after `rules.most_calls` model calls.
        Runs on the caller's thread, on behalf of whoever set the agent's goal."""
        with self._serial_lock:
            self._serial += 1
            serial = self._serial
        report = TurnReport()
        self._turns_running += 1
        try:
            self.history.add("system", prompt)
            with _serving(self.self_prompter.goal_origin if self.self_prompter.goal else SELF_REQUESTER):
                while report.calls < rules.most_calls and not self._stopped.is_set():
                    if self._turn_step(serial, rules, report):
                        break
        except BridgeTimeout as exc:  # Node stalled mid-turn: the turn is lost, the agent is not
            log.warning("%s: a turn ended early: %s", self.name, exc)
        finally:
            self._turns_running -= 1
        return report

    def _turn_step(self, serial: int, rules: TurnRules, report: TurnReport) -> bool:
        """One model call of a turn; returns whether the turn is over."""
        self._note_behaviors()
        reply = self._generate(serial)
        report.calls += 1
        if reply is None:
            return True  # the model failed (already noted in the history)
        messages = report.messages
        self.act_on_reply(reply, rules, report)
        if report.action is not None:
            return True
        spoke = report.messages > messages
        if spoke and (rules.message_is_action or report.messages > 1):
            return True  # the message was the turn (or a second free message: enough talk for one turn)
        if spoke:
            self.history.add("system", ACT_NOW)
        return False

    def act_on_reply(self, reply: str, rules: TurnRules = DEFAULT_RULES,
                     report: TurnReport | None = None) -> TurnReport:
        """Act on `reply` as on the model's reply in a turn: record it, refuse a malformed or blocked command (the
        refusal goes into the history), send its words (unless a message is an action and it holds a command
        too) and run its command, queries at once and actions through the action manager; the command's output
        goes into the history. Runs on the caller's thread until the command has ended. What the agent was told
        back (notes, refusal, output) is added to the report's `outputs`. Learning agents' environments
        (mindpy.env) give their actions this way."""
        report = report if report is not None else TurnReport()
        self.history.add(self.name, reply)
        parsed = self.commands.parse(reply)
        if parsed.error:
            report.refused += 1
            report.outputs.append(parsed.error)
            self._refused(parsed.error)
            return report
        name = parsed.command
        words = (reply if name is None else getattr(parsed, "message", "") or "").strip()
        message_command = name in MESSAGE_COMMANDS
        acting = name is not None and not message_command and self.commands.acts(name)
        if words and name is not None and not message_command and rules.message_is_action:
            self.history.add("system", WORDS_NOT_SENT)  # the reply is about its command
            report.outputs.append(WORDS_NOT_SENT)
            words = ""
        elif words:
            self._route("system", words)
            report.messages += 1
        if name is not None:
            def tell(notes: str) -> None:
                self.history.add("system", notes)
                report.outputs.append(notes)

            output = self.execute(parsed, tell=tell)
            if output:
                self.history.add("system", output)
                report.outputs.append(output)
            report.messages += message_command
        else:
            self._replied_without_command()
        if acting:
            report.action = name
        return report

    # ---- update tick ---------------------------------------------------------------------------------
    def _tick_loop(self) -> None:
        while not self._stopped.wait(TICK_SECONDS):
            try:
                self.update()
            except NodeStopped:  # the bot is gone for good: whoever runs the agent reports it, once
                log.debug("%s: update tick stopped: the bots' Node process stopped", self.name)
                return
            except BridgeTimeout as exc:  # Node busy for a while (a long scan): the next tick tries again
                log.warning("%s: update tick skipped: %s", self.name, exc)
            except Exception:
                log.exception("%s: update tick failed", self.name)

    def update(self) -> None:
        self.modes.update()
        idle = self.is_idle()
        if idle and self.conversations:
            self.conversations.on_idle()
        if idle and not self.turn_driven and not (self.conversations and self.conversations.in_conversation()):
            self._start_self_prompt_turn()
        if self.task_check:
            self.task_check()

    def _start_self_prompt_turn(self) -> None:
        """Self-prompting runs a whole loop of turns: on a thread of its own, so the tick (modes, task check)
        keeps its 300 ms rhythm meanwhile."""
        if not self.self_prompter.active:
            return
        running = self._self_prompt_thread
        if running is not None and running.is_alive():
            return
        self._self_prompt_thread = threading.Thread(target=self.self_prompter.update, args=(True,),
                                                    name=f"self-prompt-{self.name}", daemon=True)
        self._self_prompt_thread.start()

    def _self_prompt_turn(self, message: str, origin: str) -> bool:
        """One self-prompted turn, on behalf of whoever set the goal."""
        with self._serial_lock:
            self._serial += 1
            serial = self._serial
        self.history.add("system", message)
        return self._turns(serial, "system", origin)

    def models(self) -> list[Any]:
        """Every model this agent calls, each once: its own, its code model and its vision model (either may be
        its own)."""
        found: dict[int, Any] = {}
        for model in (self.model, getattr(self.coder, "model", None), getattr(self.context.vision, "model", None)):
            if model is not None:
                found.setdefault(id(model), model)
        return list(found.values())

    # ---- hooks for the conversation manager and commands ---------------------------------------------
    def is_idle(self) -> bool:
        return not self.actions.executing and self._turns_running == 0

    def current_action_label(self) -> str | None:
        return self.actions.current_label

    def should_respond_to_bot(self, message: str) -> bool:
        decide = getattr(self.prompter, "should_respond", None)
        if decide is None:
            return True
        try:
            return bool(decide(self, message))
        except Exception:
            return True

    def record_message(self, sender: str, message: str) -> None:
        self.history.add(sender, message)

    def pause_self_prompt(self) -> None:
        self.self_prompter.pause()

    def resume_self_prompt_if_paused(self) -> None:
        self.self_prompter.resume_if_paused()

    def request_origin(self) -> str:
        """Who started the chain of requests being served on this thread: a player's name, or SELF_REQUESTER."""
        return _origin.get()

    def chat(self, text: str) -> None:
        """Say `text` in public chat, on one line, in at most MOST_CHAT_PIECES messages, as chat only: model text
        and echoed outputs never run as server commands (see chat_pieces, and Bot.chat, which checks again; the
        bot's own commands go through Bot.command)."""
        text = re.sub(r"\s*[\n\r\u2028\u2029\x85]\s*", " ", text).strip()
        if not text:
            return
        self._trace("said", text)
        self.messages_sent += 1
        for piece in chat_pieces(text, self.bot.chat_limit):
            self.bot.chat(piece)

    # ---- commands about the agent itself ---------------------------------------------------------------
    def shut_up_now(self) -> None:
        """!stfu: stop chatting and self-prompting; the running action goes on."""
        self.shut_up = True
        if self.self_prompter.active:
            self.self_prompter.stop(stop_action=False)
        if self.conversations:
            self.conversations.end_all()

    def request_restart(self) -> None:
        """!restart: stop everything; whoever runs the agent (see mindpy.agent.runner) starts it again."""
        self.restart_requested.set()
        if self._on_restart is not None:
            threading.Thread(target=self._on_restart, args=(self,), name=f"restart-{self.name}", daemon=True).start()

    def set_goal(self, goal: str) -> str:
        """!goal: self-prompt towards `goal`, which keeps the origin of the request that set it."""
        return self.self_prompter.start(goal, origin=self.request_origin())

    def new_action(self, prompt: str) -> str:
        """!newAction: have the model write code for `prompt` and run it (when the settings allow it and the
        request started with a trusted player or with the agent itself)."""
        if self.coder is None:
            return ("Writing and running code is switched off (allow_insecure_coding is false in the settings); "
                    "use the other commands instead.")
        requester = self.request_origin()
        context = {"memory": self.history.memory, "stats": self.commands.run(self.context, "stats", []) or "",
                   "inventory": self.commands.run(self.context, "inventory", []) or ""}
        if self.self_prompter.goal and self.self_prompter.active:
            context["self_prompt"] = f"Your current goal: {self.self_prompter.goal}"
        before = self.skill_recorder.begin() if self.skill_recorder is not None else None
        outcome = self.coder.new_action(prompt, requester, context=context,
                                        cancel=lambda: self.actions.stop_requested)
        if self.skill_recorder is not None:
            self.skill_recorder.ran(prompt, outcome, before)
        return outcome.summary

    def _task_score(self) -> float | None:
        """The task's score now, or None without a task (how the skill recorder tells progress)."""
        return self.task_score() if self.task_score is not None else None

    def _replied_without_command(self) -> None:
        if self.skill_recorder is not None:
            self.skill_recorder.replied()

    def _skill_saved(self, skill: Any) -> None:
        self._trace("skill saved", f"{skill.signature}: {skill.description}")

    # ---- saved state -------------------------------------------------------------------------------------
    def saved_state(self) -> dict:
        """What the state file keeps besides memory and turns."""
        state = {"self_prompt": self.self_prompter.to_dict(), "last_sender": self.last_sender,
                 "task_start": self.task_start}
        if self.modelling.text:  # partner_modelling: the agent's model of its partner survives a restart
            state["modelling"] = self.modelling.text
        if self.belief is not None and self.belief.text:
            state["belief"] = self.belief.text
        return state

    def restore_state(self, saved: dict) -> None:
        if isinstance(saved.get("self_prompt"), dict):
            self.self_prompter.load(saved["self_prompt"])
        self.last_sender = saved.get("last_sender") or self.last_sender
        if isinstance(saved.get("modelling"), str):
            self.modelling.update(saved["modelling"])
        if self.belief is not None and isinstance(saved.get("belief"), str):
            self.belief.text = saved["belief"]

    def _narrate(self, message: str) -> None:
        if self.settings.narrate_behavior and not self.shut_up:
            self.chat(message)

    def _trace(self, kind: str, text: str) -> None:
        self.events.append((time.time(), kind, text))
        log.info("%s %s: %s", self.name, kind, text)
        for hook in self._event_hooks:
            try:
                hook(kind, text)
            except Exception:  # a broken console must not break the agent
                log.exception("event hook failed")
