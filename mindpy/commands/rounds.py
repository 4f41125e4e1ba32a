"""Commands of round mode (lockstep play, see mindpy.harness.rounds): `!wait`, an agent's way to pass its turn.

In round mode each agent takes one action per round; waiting for a partner is then a choice of its own, not a
pause of some seconds. Outside round mode `!wait` is blocked (the agents are built so, mindpy.agent.factory): it
would only lengthen every other prompt, and `!stay` waits there.
"""

from __future__ import annotations

from .common import CommandOutput, action
from .context import AgentContext


def wait_turn(ctx: AgentContext) -> CommandOutput:
    """Do nothing: the turn ends (a CoBlock team's public record keeps the wait: it is one of the paper's actions)."""
    record = getattr(ctx.controls, "public_record", None)
    if record is not None:
        record.acted(ctx.name, "wait")
    return CommandOutput("You wait this round.")


COMMANDS = (
    action("wait", "Do nothing this round: your turn ends (round mode only).", run=wait_turn, interrupts=False),
)
NAMES = tuple(command.name for command in COMMANDS)


def blocked_outside_rounds(rounds: bool) -> list[str]:
    """The commands to block for an agent that does not play in rounds: none when it does."""
    return [] if rounds else list(NAMES)


__all__ = ["COMMANDS", "NAMES", "blocked_outside_rounds", "wait_turn"]
