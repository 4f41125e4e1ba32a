"""A defuse task played a round at a time with the team's replies given from outside: what mindpy/defuse-v0 runs
on. It is the family's own round loop without a world (TeamPlay, as benchmarks/bench_defuse_baselines.py plays
it): each agent's text is read as the episodes read a model's reply (mindpy.commands.defuse's commands, a
broadcast beside one), refused replies are lost turns with the game's feedback, and the deadlock end applies.

    rounds = DefuseRounds(task)
    prompts, infos = rounds.reset()                  # each agent's round prompt; infos[name]["system"]: its goal
    turns = rounds.step({"andy": "!goToRoom(2)", "jill": '!inspectBomb !broadcast("on it")'})
    rounds.game.score, rounds.game.done

The Minecraft world only mirrors the game in an episode (the bombs' blocks, the bots' rooms), so the environment
leaves it out: no server, a round in well under a millisecond.
"""

from __future__ import annotations

from typing import Any

from ..models.base import ChatModel, Usage
from ..tasks.families.defuse.deadlock import DEADLOCK
from ..tasks.families.defuse.play import TeamPlay, TurnLog, defuse_game
from ..tasks.families.defuse.settings import DefuseSettings
from ..tasks.schema import Task
from .tasks import refuse_humans


class HeldReply(ChatModel):
    """The model an agent of the round loop asks: it answers with the text the learner gave for this turn."""

    api = "env"

    def __init__(self) -> None:
        super().__init__("learner")
        self.reply = ""

    def _complete(self, messages: list, system: str) -> tuple[str, Usage]:
        return self.reply, Usage()


class DefuseRounds:
    """A defuse task's game and round loop, stepped a round at a time (see the module's docstring). `round_limit`
    overrides the task's; `settings` are the family's DefuseSettings (the paper's by default; belief states and
    ToM probes ask the model more than its turn, so they are refused)."""

    def __init__(self, task: Task, *, round_limit: int | None = None, settings: DefuseSettings | None = None,
                 names: list[str] | None = None):
        from ..harness.session import agent_names

        refuse_humans(task)
        self.settings = settings or DefuseSettings()
        if self.settings.belief_state or self.settings.tom_probes:
            raise ValueError("mindpy/defuse-v0 plays one reply per agent a round: belief states and ToM probes ask "
                             "more of the model, so they are not served")
        self.task = task
        self.round_limit = round_limit
        self.names = list(names) if names is not None else agent_names(task)
        if len(self.names) != task.agent_count:
            raise ValueError(f"names: the task has {task.agent_count} agents, got {len(self.names)} names")
        self.models = [HeldReply() for _ in self.names]
        self.play = self._new_play()

    def _new_play(self) -> TeamPlay:
        game = defuse_game(self.task, self.round_limit, self.settings)
        return TeamPlay(game, self.models, [self.task.goal_for(i) for i in range(len(self.names))],
                        names=self.names, history_rounds=self.settings.history_rounds)

    @property
    def game(self) -> Any:
        return self.play.game

    def reset(self) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
        """A new game of the task: each agent's prompt for round 1, and its info (its system prompt: the goal, how
        to answer and the commands)."""
        self.play = self._new_play()
        prompts = {name: self.play.prompt(i) for i, name in enumerate(self.names)}
        return prompts, {name: {"system": self.play.systems[i]} for i, name in enumerate(self.names)}

    def step(self, replies: dict[str, str]) -> dict[str, TurnLog]:
        """One round: each agent's reply (one left out: an empty reply, a lost turn) played in agent order, until
        the game ends; then the deadlock check. The turns played, by agent."""
        game = self.game
        if game.done:
            raise RuntimeError("the game is over: reset the environment")
        unknown = set(replies) - set(self.names)
        if unknown:
            raise KeyError(f"no agent named {', '.join(sorted(map(str, unknown)))} (the agents: "
                           f"{', '.join(self.names)})")
        turns = {}
        for i, name in enumerate(self.names):
            if game.done:
                break
            self.models[i].reply = str(replies.get(name, ""))
            turns[name] = self.play.play_turn(i)
        if not game.done and self.play.deadlock.end_round():
            game.stop(DEADLOCK)
        return turns

    def prompts(self) -> dict[str, str]:
        """Each agent's prompt for the round now beginning."""
        return {name: self.play.prompt(i) for i, name in enumerate(self.names)}

    def out_of_rounds(self) -> bool:
        """The game ended at its round limit (not by success or deadlock)."""
        game = self.game
        return game.finished_round is None and game.stopped is None and game.round_no > game.round_limit
