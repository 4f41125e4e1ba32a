"""A person as the dispatcher: a player in the game gives the cooks their commands in chat.

    dispatcher = HumanDispatcher("steve", DispatcherOptions(), ["andy", "jill"], dishes=["golden_apple"])
    dispatcher.replies.tell = lambda line: issue(f"/tell steve {line}")     # how the player is told the state
    bot.on("chat", lambda sender, text, *rest: dispatcher.replies.hear(sender, text))
    decision = dispatcher.decide(state)      # waits for steve's lines, then reads them as a model's reply

Each step with a free cook, the player is told the state in a few short lines (the open orders and the step each
is due, every cook free or busy and what it holds, what failed last step) and answers in chat, one cook a line:
`andy: !craftRecipe("golden_apple", 1)`, `jill -> !putInChest("bread", 1)` (every wording the reply reader takes,
mindpy.dispatch.reply). The step starts once every free cook has a valid command, once the player has been quiet
for a few seconds after a line, or after `wait_s` seconds without a line (the cooks then wait a step). What was
wrong with a line (an unknown cook, a busy one, a malformed command) is told back at once.

Only the named player is heard: other players' lines change nothing. Lines typed while the cooks work count for
the next step. The prompt a model would have got is still built and logged with the player's lines as its reply,
so a human-dispatched episode is demonstration data for SFT export like any model's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from ..commands import CommandRegistry
from ..models.base import ChatModel, Usage
from ..models.tokens import count_messages, count_tokens
from .decision import Decision
from .dispatcher import Dispatcher
from .prompt import DISPATCH_COMMANDS, DispatcherOptions
from .reply import parse_dispatch_reply
from .state import DispatchState, OpenOrder

WAIT_S = 60.0  # how long a step waits for the player's first line
QUIET_S = 4.0  # after a line, this long without another ends the player's turn
POLL_S = 0.1
SPEC_PREFIX = "human:"  # `--model human:steve`: steve dispatches


def human_player(spec: object) -> str | None:
    """The player a `human:NAME` model spec names; None for any other spec. ValueError when the name is missing
    or is no Minecraft name."""
    if not isinstance(spec, str) or not (spec.strip() == "human" or spec.strip().startswith(SPEC_PREFIX)):
        return None
    name = spec.strip()[len(SPEC_PREFIX):].strip()
    if not name:
        raise ValueError("name the player who gives the orders: --model human:YOUR_NAME")
    if not (1 <= len(name) <= 16 and all(c.isalnum() or c == "_" for c in name)):
        raise ValueError(f"{name!r} is no Minecraft player name (1-16 letters, digits or _)")
    return name


def orders_line(step: int, orders: Sequence[OpenOrder]) -> str:
    """'Step 4. Orders: bread (due step 9), cookie (due step 12).': the open orders, earliest due first (also
    whispered each step to a person cooking beside the cooks)."""
    shown = [f"{o.dish} (due step {o.deadline})" for o in sorted(orders, key=lambda o: (o.deadline, o.id))]
    return f"Step {step}. Orders: {', '.join(shown) if shown else 'none'}."


def state_lines(state: DispatchState) -> list[str]:
    """The state as a few chat lines: orders, then a line per cook and per person cooking beside them, then last
    step's failures."""
    lines = [orders_line(state.step, state.orders)]
    lines += [a.text() for a in state.agents]
    lines += [p.text() for p in state.people]
    lines += [f"Failed: {line}" for line in state.feedback]
    return lines


class PlayerReplies(ChatModel):
    """A chat model whose replies are one player's chat lines: it tells the player the state it is asked about,
    then waits for their lines (see the module doc)."""

    api = "human"

    def __init__(self, player: str, agent_names: Sequence[str], registry: CommandRegistry | None = None,
                 wait_s: float = WAIT_S, quiet_s: float = QUIET_S):
        super().__init__(player)
        self.player = player
        self.agent_names = tuple(agent_names)
        self.registry = registry
        self.wait_s = wait_s
        self.quiet_s = quiet_s
        self.tell: Callable[[str], None] = lambda line: None  # set by the episode once the server is up
        self.state: DispatchState | None = None  # set before each call
        self._lines: list[str] = []
        self._last_heard = 0.0
        self._lock = threading.Lock()
        self._told_how = False

    def hear(self, sender: str, text: str) -> None:
        """A chat line or whisper from `sender`; kept when it comes from the player."""
        if sender.lower() != self.player.lower() or not text.strip():
            return
        with self._lock:
            self._lines.append(text.strip())
            self._last_heard = time.monotonic()

    def _complete(self, messages: list, system: str) -> tuple[str, Usage]:
        if self.state is None:
            raise ValueError("the player answers only for a state: call HumanDispatcher.decide")
        state = self.state
        free = set(state.free_agents())
        if free:
            self._tell_state(state)
            reply = self._wait_for_lines(state, free)
        else:
            reply = self._take_lines()  # nobody to command: lines typed now would be about busy cooks
        return reply, Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                            estimated=True)

    def _tell_state(self, state: DispatchState) -> None:
        if not self._told_how:
            self._told_how = True
            self.tell(f"You dispatch: one line per cook, as in andy: !craftRecipe(\"bread\", 1). "
                      f"Commands: {', '.join('!' + c for c in DISPATCH_COMMANDS)}.")
        for line in state_lines(state):
            self.tell(line)

    def _wait_for_lines(self, state: DispatchState, free: set[str]) -> str:
        start = time.monotonic()
        while True:
            time.sleep(POLL_S)
            with self._lock:
                text = "\n".join(self._lines)
                quiet_for = time.monotonic() - self._last_heard
            if text:
                if quiet_for >= self.quiet_s or self._commanded(text, state) >= free:
                    return self._take_lines()
            elif time.monotonic() - start >= self.wait_s:
                return ""

    def _commanded(self, text: str, state: DispatchState) -> set[str]:
        if self.registry is None:
            return set()
        parsed = parse_dispatch_reply(text, self.agent_names, self.registry, busy=state.busy_agents(),
                                      allowed=DISPATCH_COMMANDS)
        return set(parsed.commands)

    def _take_lines(self) -> str:
        with self._lock:
            text, self._lines = "\n".join(self._lines), []
        return text


class HumanDispatcher(Dispatcher):
    """A Dispatcher whose model is a player in the game (PlayerReplies)."""

    def __init__(self, player: str, options: DispatcherOptions, agent_names: Sequence[str], *,
                 dishes: Sequence[str], wait_s: float = WAIT_S, quiet_s: float = QUIET_S):
        self.replies = PlayerReplies(player, agent_names, wait_s=wait_s, quiet_s=quiet_s)
        super().__init__(self.replies, options, agent_names, dishes=dishes)
        self.replies.registry = self.registry

    def decide(self, state: DispatchState) -> Decision:
        self.replies.state = state
        decision = super().decide(state)
        if not decision.reply.strip():  # the player let the step pass: no mistake to report
            decision.problems = []
            self.pending_problems = []
            self.history[-1] = decision.history_entry()
        for problem in decision.problems:  # at once: the player can mend the line before the next step
            self.replies.tell(f"Not run: {problem}")
        return decision
