"""The defuse commands as text: reading a reply (one action, a broadcast beside it, the bomb number left out),
writing an action back as a reply, and the records bound to a game or answering that there is none."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from mindpy.commands.catalog import default_registry
from mindpy.commands.common import CommandOutput
from mindpy.commands.context import AgentContext
from mindpy.commands.defuse import (
    NAMES,
    NO_DEFUSE,
    blocked_outside_defuse,
    command_text,
    defuse_registry,
    read_turn,
)
from mindpy.tasks.families.defuse import Action, DefuseGame, generate
from mindpy.tasks.schema import Task


@dataclass
class Recorder:
    """A table that keeps what it was asked to play."""

    played: list[tuple[int, Action]] = field(default_factory=list)

    def play(self, agent: int, action: Action) -> CommandOutput:
        self.played.append((agent, action))
        return CommandOutput(f"played {action.kind}")


def seat(index: int | None) -> AgentContext:
    return AgentContext(name=f"p{index}", bot=cast(Any, None), skills=cast(Any, None), agent_index=index)


@pytest.fixture
def table():
    return Recorder()


@pytest.mark.parametrize("reply, command, args, message", [
    ('!applyTool("red", 2) !broadcast("Bomb 2: blue left")', "applyTool", ["red", 2], "Bomb 2: blue left"),
    ('Telling first. !broadcast("going to 3") then !goToRoom(3)', "goToRoom", [3], "going to 3"),
    ("!inspectBomb", "inspectBomb", [None], None),           # the bomb number left out
    ("!applyTool(Blue)", "applyTool", ["blue", None], None),
    ("I will look. !inspectBomb(4)", "inspectBomb", [4], None),
    ('!broadcast("Room 2: no bombs.")', "broadcast", ["Room 2: no bombs."], None),   # talking is the turn
    ("!wait", "wait", [], None),
    ("!goToRoom(1) !goToRoom(2)", "goToRoom", [1], None),    # one action: the first
])
def test_a_reply_is_read_as_one_command_and_a_broadcast_beside_it(table, reply, command, args, message):
    turn = read_turn(reply, defuse_registry(table))
    assert turn.ok and (turn.command, turn.args, turn.message) == (command, args, message)


@pytest.mark.parametrize("reply, says", [
    ("I apply the red tool to bomb 2.", "has no command"),
    ('!applyTool("yellow", 2)', 'colour must be one of "red", "green", "blue"'),
    ("!goToRoom", "takes 1 argument"),
    ("!inspectBomb(1, 2)", "takes 1 argument"),
    ("!inspectBom(1)", "Did you mean !inspectBomb?"),
])
def test_a_reply_without_a_valid_command_is_refused_saying_why(table, reply, says):
    turn = read_turn(reply, defuse_registry(table))
    assert not turn.ok and says in (turn.error or "")


def test_every_legal_action_written_as_a_reply_plays_that_action_again(table):
    task = generate("test", count=3)["defuse_2"]
    game = DefuseGame.from_task(task)
    registry = defuse_registry(table)
    expected = []
    for agent in range(game.agent_count):
        for act in [*game.valid_actions(agent), Action.apply("red", message='Bomb 1 is "red"'), Action.inspect()]:
            turn = read_turn(command_text(act), registry)
            assert turn.ok, (act, turn.error)
            registry.run(seat(agent), turn.command, turn.args)
            expected.append((agent, act if act.message is None else Action.apply("red")))
            if act.message:
                assert turn.message == act.message
    assert table.played == expected


def test_the_records_answer_that_there_is_no_game_until_bound_and_need_a_player(table):
    assert default_registry().run(seat(0), "inspectBomb", [1]) == NO_DEFUSE
    with pytest.raises(ValueError, match="agent_index"):
        defuse_registry(table).run(seat(None), "goToRoom", [1])


def test_only_defuse_tasks_see_the_commands():
    assert blocked_outside_defuse(Task(id="d", type="defuse", goal="", agent_count=3)) == []
    assert blocked_outside_defuse(None) == list(NAMES) == ["inspectBomb", "applyTool", "goToRoom", "broadcast"]
