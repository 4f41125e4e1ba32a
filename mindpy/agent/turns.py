"""One agent's turn in round mode: the rules of a turn and what the agent did with it.

In round mode (mindpy.harness.rounds) an agent does not act on its own: it waits, holding what it hears, until the
scheduler gives it a turn (`Agent.take_turn`). In a turn the agent may look as much as it likes within a few model
calls (queries are free), and do one thing: run one command that acts (an action: `!placeBlock`, `!givePlayer`,
`!wait`...) or send a message. Whether a message uses up the turn is a rule of the game (`message_is_action`):
- True (the CoBlock paper's rule): speaking is the turn's action. A reply holding both words and an action runs the
  action; its words are not sent (the agent is told so), since sending them would be a second action.
- False: a message is free. Words beside an action are sent with it; after a message alone the agent is asked once
  more for its action.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Commands whose work is to send a message: in round mode they count as messages, not as actions.
MESSAGE_COMMANDS = frozenset({"startConversation", "endConversation"})


@dataclass(frozen=True)
class TurnRules:
    """How much an agent may do in one turn."""

    message_is_action: bool = True  # a message uses up the turn (else it is free)
    most_calls: int = 4             # model calls per turn at most (queries, refusals and free messages count)


DEFAULT_RULES = TurnRules()


@dataclass
class TurnReport:
    """What an agent did with its turn."""

    action: str | None = None  # the action command that took the turn, if any
    messages: int = 0          # messages sent (plain replies and message commands)
    calls: int = 0             # model calls made
    refused: int = 0           # replies whose command was refused (malformed, blocked, bad arguments)
    outputs: list[str] = field(default_factory=list)  # what the agent was told back: notes, refusals, outputs

    @property
    def passed(self) -> bool:
        """Nothing was done: no action and no message."""
        return self.action is None and self.messages == 0


def turn_prompt(round_no: int, limit: int | None, rules: TurnRules) -> str:
    """The system message that opens an agent's turn."""
    of = f" of {limit}" if limit else ""
    if rules.message_is_action:
        rule = ("Do one thing now: run one command that acts, or send one message, or !wait. Commands that only "
                "look, if you have any, are free.")
    else:
        rule = ("Run one command that acts now (or !wait); you may also send a message, which is free, and so are "
                "commands that only look, if you have any.")
    return f"Round {round_no}{of}. Your turn. {rule}"


WORDS_NOT_SENT = ("(Your words beside the command were not sent: a message is an action of its own this game, so "
                  "send it as a reply without a command, on another turn.)")
ACT_NOW = "(Your message was sent. You may still run one command that acts this round, or !wait.)"
