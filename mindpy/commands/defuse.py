"""Commands of defuse tasks (mindpy.tasks.families.defuse): inspect a bomb, cut one of its phases, go to a room, tell
the team.

    registry = defuse_registry(table)        # the commands bound to one game (a DefuseTable: game + world)
    turn = read_turn('!applyTool("red", 2) !broadcast("Bomb 2: blue left")', registry)
    turn.command, turn.args, turn.message    # "applyTool", ["red", 2], "Bomb 2: blue left"
    registry.run(ctx, turn.command, turn.args)   # the game's feedback: "You applied Tool red to Bomb 2. ..."
    command_text(Action.move(3, "Going to 3"))   # '!goToRoom(3) !broadcast("Going to 3")'
    belief_request(belief, observation)          # asks for the belief state that replaces the history

A reply holds one action command. A `!broadcast("...")` next to it rides along, as the paper's 'Message to Team'
beside an action; a reply with only a broadcast spends the turn talking. The bomb number of !inspectBomb and
!applyTool may be left out when the agent's room holds one live bomb. `!wait` is round mode's
(mindpy.commands.rounds): it passes the turn with no action (the paper has none; it is no valid action). Answers are
the game's templated feedback texts.

The records answer NO_DEFUSE until `defuse_registry` binds them to a game; agents whose task is not a defuse task
do not see them (`blocked_outside_defuse`, applied where agents are built).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import DEFAULT_MINECRAFT_VERSION
from ..prompts.belief import BELIEF_REQUEST, belief_prompt
from ..prompts.belief import belief_request as team_belief_request
from ..tasks.families.defuse.game import Action
from ..tasks.families.defuse.layout import COLOURS
from ..tasks.family import command_sets_of
from . import rounds
from .common import CommandOutput, action
from .context import AgentContext
from .params import INT, STRING, Choice, Param, show_value
from .parser import parse_strict
from .registry import CommandRegistry

NO_DEFUSE = "There is no defuse game: this command only works while defusing bombs in a defuse task."
BROADCAST = "broadcast"
WAIT = "wait"
# The paper's words for each action, and the command that replaces them (for prompts that quote the paper's form).
PAPER_WORDS = (("Move to Room X", "!goToRoom(X)"), ("Inspect Bomb", "!inspectBomb"),
               ("Apply X Tool", '!applyTool("X")'), ('Message to Team: "..."', '!broadcast("...")'))


class DefuseTable(Protocol):
    """What the commands act on: one game and its world. `play` performs an agent's action and answers with the
    game's feedback (ok False when the game refused it)."""

    def play(self, agent: int, action: Action) -> CommandOutput: ...


def is_defuse(task: Any) -> bool:
    """Whether an agent with `task` (a Task, or anything with a `type`) plays with these commands: its family
    takes the "defuse" command set (mindpy.tasks.family)."""
    return COMMAND_SET in command_sets_of(task)


def _unbound(ctx: AgentContext, *args: Any) -> CommandOutput:
    return CommandOutput(NO_DEFUSE, False)


def _bomb(description: str) -> Param:
    return Param("bomb", INT, description + " May be left out when your room holds one live bomb.", example=1,
                 optional=True)


_COLOUR = Param("colour", Choice(COLOURS), "The cutter's colour: one you hold.", example="red")
COMMANDS = (
    action("inspectBomb", "Inspect a bomb in your room: learn its sequence of colours (you alone learn it).",
           _bomb("The bomb's number."), run=_unbound, interrupts=False),
    action("applyTool", "Apply a wire cutter to a bomb in your room: it must be the colour of the bomb's next "
                        "phase, which is then defused (10 points).",
           _COLOUR, _bomb("The bomb's number."), run=_unbound, interrupts=False),
    action("goToRoom", "Go to an adjacent room.", Param("room", INT, "The room's number.", example=1),
           run=_unbound, interrupts=False),
    action(BROADCAST, "Send a message to the whole team; they read it at the start of the next round. Next to an "
                      "action command it rides along; alone, it is your turn.",
           Param("message", STRING, "What to tell the team.", example="Bomb 2 is red, blue"),
           run=_unbound, interrupts=False),
)
NAMES = tuple(command.name for command in COMMANDS)
COMMAND_SET = "defuse"  # the name a family's `command_sets` gives these commands by


def blocked_outside_defuse(task: Any) -> list[str]:
    """The commands to block for an agent whose task is not a defuse task (or that has no task): none in one."""
    return [] if is_defuse(task) else list(NAMES)


def defuse_registry(table: DefuseTable, version: str = DEFAULT_MINECRAFT_VERSION) -> CommandRegistry:
    """The defuse commands and `!wait`, bound to `table`; the acting agent is `ctx.agent_index`."""
    wait = next(command for command in rounds.COMMANDS if command.name == WAIT)
    registry = CommandRegistry([copy.copy(command) for command in (*COMMANDS, wait)], version=version)

    def on(make: Callable[..., Action]) -> Callable[..., CommandOutput]:
        return lambda ctx, *args: table.play(_agent(ctx), make(*args))

    registry.bind_all({
        "inspectBomb": on(lambda bomb: Action.inspect(bomb)),
        "applyTool": on(lambda colour, bomb: Action.apply(colour, bomb)),
        "goToRoom": on(lambda room: Action.move(room)),
        BROADCAST: on(lambda message: Action("message", message=message)),
        WAIT: on(lambda: Action.wait()),
    })
    return registry


def _agent(ctx: AgentContext) -> int:
    if ctx.agent_index is None:
        raise ValueError(f"{ctx.name} plays no player of the defuse game: build its AgentContext with agent_index")
    return ctx.agent_index


@dataclass
class Turn:
    """An agent's reply read as one command (with its arguments) and a message riding along, or the refusal."""

    command: str | None = None
    args: list[Any] = field(default_factory=list)
    message: str | None = None     # a broadcast beside the action
    error: str | None = None       # why the reply is no valid command, written for the model

    @property
    def ok(self) -> bool:
        return self.command is not None and self.error is None


def read_turn(text: str, registry: CommandRegistry) -> Turn:
    """The command of a reply and the broadcast beside it (either may come first); see the module doc."""
    first = parse_strict(text, registry)
    if not first.ok:
        error = first.error or ("Your reply has no command: answer with one of the commands, e.g. !goToRoom(1) "
                                "or !inspectBomb.")
        return Turn(error=error)
    second = parse_strict(first.rest, registry)
    if second.ok and BROADCAST in (first.command, second.command) and first.command != second.command:
        act, said = (second, first) if first.command == BROADCAST else (first, second)
        return Turn(act.command, act.args, said.args[0])
    return Turn(first.command, first.args)


def command_text(act: Action) -> str:
    """The reply that performs `act` (its message as a broadcast beside it)."""
    bomb = [] if act.bomb is None else [act.bomb]
    words = {"move": _call("goToRoom", [act.room]), "inspect": _call("inspectBomb", bomb),
             "apply": _call("applyTool", [act.colour, *bomb]), "wait": "!wait", "message": ""}[act.kind]
    said = _call(BROADCAST, [act.message]) if act.message else ""
    return " ".join(part for part in (words, said) if part)


def _call(name: str, args: list[Any]) -> str:
    return f"!{name}(" + ", ".join(show_value(a) for a in args) + ")" if args else f"!{name}"


BELIEF_HEADINGS = ("Role", "Round", "Team score", "Observation", "Teammates' locations", "Room connectivity",
                   "Bomb intel", "Tool inventory", "Available actions")


def belief_request(previous: str, observation: str) -> str:
    """The question that asks a defuse agent to rewrite its written belief after an observation (the belief then
    replaces its raw history in the next prompt), under the paper's headings."""
    return team_belief_request(previous, observation, BELIEF_HEADINGS)


def reply_rules() -> str:
    """How a defuse agent answers: one action command, a broadcast beside it if it has news, in place of the
    paper's words that the task's goal quotes."""
    mapping = "; ".join(f"{words} -> {command}" for words, command in PAPER_WORDS)
    return ("Answer with exactly one action command, and add !broadcast(\"...\") beside it to tell the team "
            f"what you learned (it reaches them next round). Write commands instead of the words above: {mapping}.")


__all__ = ["BELIEF_REQUEST", "BROADCAST", "COMMANDS", "DefuseTable", "NAMES", "NO_DEFUSE", "Turn", "belief_prompt",
           "belief_request", "blocked_outside_defuse", "command_text", "defuse_registry", "is_defuse", "read_turn",
           "reply_rules"]
