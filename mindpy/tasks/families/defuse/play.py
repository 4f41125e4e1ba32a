"""Play one defuse episode in rounds: the pure game decides, the world mirrors it, each agent's model answers with
one command a turn.

    result = run_defuse_episode(task, "runs/x", model="oracle")   # also in runs/x/result.json
    result["points"], result["rounds"], result["valid_action_rate"]   # 90, 9, 1.0

Each round every agent, in agent order, gets its partial observation (DefuseGame.observation: its own room, the
round, the team score, its teammates' rooms, the messages sent to it last round, the result of its last action)
and the commands it can use now, after its interaction history of the previous two rounds (the paper's; six with
`defuse_long_history`); its model answers with one command (mindpy.commands.defuse: a broadcast may ride beside
it). A reply that is no valid command, or that the game refuses, is a lost turn: the refusal is the feedback of
the next observation and it counts against the valid-action rate (as do waits and message-only replies, which are
no action: game.py). The game ends when every bomb is resolved, after its round limit (the task's, 30;
`round_limit` overrides it, as `--rounds N` does) or on a deadlock, every agent repeating its replies
(deadlock.py; end reason "deadlock").

The run directory holds `result.json` (mindpy.tasks.results' fields: score is points / 90, end_reason success
when all 90 points are made, else deadlock or round_limit; plus points, max_points, rounds, round_limit,
valid_action_rate, per agent `replies`, `valid` and `no_action` (waits and messages alone), `players`: bot name
-> player name, `world_mirrors_game`: whether the bombs' blocks read at the end show the game's state, and
`defuse_settings`: settings.py's record of how it was played), `calls/<name>.jsonl` (every model call: system,
messages, reply, whether its command worked; SFT export reads these) and `console.log` (a line per turn).

With `belief_state` (a profile's `belief_state: true`) each agent starts from the paper's belief template
(belief.py: role, round, team score, observation, teammates' locations, room connectivity, bomb intel, tool
inventory, available actions) and is asked, after every observation, to rewrite it; the turn's prompt shows the
belief before the observation, after the same two rounds of history (which so keeps the beliefs of those rounds),
and the last one is saved as `bots/<name>/belief.txt`.

`TeamPlay` is the round loop alone, with or without bots, so that it can be played without a server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO, cast

from ....commands.common import CommandOutput
from ....commands.context import AgentContext
from ....commands.defuse import (
    BROADCAST,
    belief_prompt,
    belief_request,
    command_text,
    defuse_registry,
    read_turn,
    reply_rules,
)
from ....commands.registry import CommandRegistry
from ....errors import ConfigError, MindpyError
from ....harness.calls import CallLog
from ....harness.session import EpisodeInfraError
from ....models.budget import BUDGET_END_REASON
from ...checkers import ERROR, ROUND_LIMIT, SUCCESS
from ...results import EpisodeRecorder
from ...schema import Task
from ...world import apply_and_wait
from .belief import initial_belief
from .deadlock import DEADLOCK, DEADLOCK_ROUNDS, RepeatWatch
from .game import INVALID, PAPER_ACTIONS, Action, DefuseGame
from .settings import PAPER_HISTORY_ROUNDS, DefuseSettings
from .tom_probes import ProbeScore, probe_prompt, probes_after
from .world import DefuseWorld

log = logging.getLogger(__name__)

SETUP_TIMEOUT_S = 60.0
MIRROR_WAIT_S = 10.0   # how long the world may take to show the game's last changes
PROBES_FILE = "tom_probes.jsonl"
Issue = Callable[[str], None]


def defuse_game(task: Task, round_limit: int | None = None, settings: DefuseSettings | None = None) -> DefuseGame:
    """The game of a defuse task (its fields are typed in `task.fields`), played with `settings`' rules."""
    settings = settings or DefuseSettings()
    options: dict[str, Any] = {"show_phases": settings.defuse_show_phases,
                               "lenient_validity": settings.defuse_lenient_validity}
    if round_limit is not None:
        options["round_limit"] = round_limit
    return DefuseGame.from_task({"type": "defuse", **task.fields.as_dict()}, **options)


@dataclass
class TeamTable:
    """The game and its world as the defuse commands act on them (a DefuseTable): a legal action is played in the
    game, then mirrored in the world (a move teleports the bot, a cut changes the bomb's blocks)."""

    game: DefuseGame
    world: DefuseWorld | None = None
    issue: Issue = lambda line: None
    riders: dict[int, str] = field(default_factory=dict)   # agent -> broadcast riding with its next action

    def play(self, agent: int, action: Action) -> CommandOutput:
        rider = self.riders.pop(agent, None)
        if action.message is None and rider:
            action = replace(action, message=rider)
        before = {b: self.game.remaining(b) for b in self.game.bombs_in(self.game.rooms[agent])}
        legal = self.game.problem(agent, action) is None
        text = self.game.act(agent, action)
        if legal and self.world is not None:
            lines = self.world.move_lines(agent, action.room) if action.kind == "move" and action.room is not None \
                else [line for b, left in before.items() if self.game.remaining(b) != left
                      for line in self.world.bomb_lines(b, self.game.remaining(b))]
            for line in lines:
                self.issue(line)
        return CommandOutput(text, legal)

    def refuse(self, agent: int, problem: str) -> None:
        """A reply that is no command: a lost turn, with the problem as its feedback."""
        self.riders.pop(agent, None)
        self.game.act(agent, Action("invalid"))
        self.game.feedback[agent] = f"{INVALID} {' '.join(problem.split())}"


@dataclass
class TurnLog:
    """One agent's turn: what it answered and what came of it."""

    round_no: int
    agent: int
    reply: str
    command: str | None
    feedback: str
    ok: bool
    message: str | None = None   # a broadcast, alone or beside the action


class TeamPlay:
    """The round loop: observation and commands to each model, one command back, played on the table."""

    def __init__(self, game: DefuseGame, models: Sequence[Any], goals: Sequence[str], *, names: Sequence[str],
                 table: TeamTable | None = None, contexts: Sequence[AgentContext] | None = None,
                 version: str | None = None, on_turn: Callable[[TurnLog], None] | None = None,
                 belief_state: bool = False, tom_probes: bool = False, probe_models: Sequence[Any] | None = None,
                 probe_seed: int = 0, history_rounds: int = PAPER_HISTORY_ROUNDS,
                 deadlock_rounds: int = DEADLOCK_ROUNDS):
        if not len(models) == len(goals) == len(names) == game.agent_count:
            raise ValueError(f"the game has {game.agent_count} agents: give as many models, goals and names "
                             f"(got {len(models)}, {len(goals)}, {len(names)})")
        self.game = game
        self.models = list(models)
        self.names = list(names)
        self.table = table or TeamTable(game)
        self.registry: CommandRegistry = defuse_registry(self.table, *([version] if version else []))
        self.systems = [self._system(goal) for goal in goals]
        self.contexts = list(contexts) if contexts is not None else [
            AgentContext(name=n, bot=cast(Any, None), skills=cast(Any, None), agent_index=i)  # no bot: pure play
            for i, n in enumerate(self.names)]
        self.histories: list[list[dict]] = [[] for _ in self.names]
        self.history_rounds = history_rounds
        self.belief_state = belief_state
        # with belief_state: each agent's written belief, from the paper's template
        self.beliefs: list[str] = [initial_belief(game, a) if belief_state else "" for a in range(game.agent_count)]
        self.deadlock = RepeatWatch(game.agent_count, deadlock_rounds)
        self.on_turn = on_turn or (lambda turn: None)
        self.turns: list[TurnLog] = []
        # theory-of-mind probes: side questions after each action, asked of `probe_models` (the same models, but
        # outside the call logs: they are no turns to learn from)
        self.tom_probes = tom_probes
        self.probe_models = list(probe_models) if probe_models is not None else self.models
        self.probe_rng = random.Random(probe_seed)
        self.probe_score = ProbeScore()
        self.probe_records: list[dict] = []
        self.asking: Any = None  # the probe being asked (a Probe), for answerers that know the truth (tests)

    def _system(self, goal: str) -> str:
        docs = "\n".join(f"{c.signature()}: {c.description}" for c in self.registry)
        return f"{goal.strip()}\n\n{reply_rules()}\n\nCommands:\n{docs}"

    def prompt(self, agent: int) -> str:
        """What the agent is told at its turn: its observation, then the actions it can take now (a wait or a
        message alone passes the turn with no action, unless the game counts them: lenient_validity)."""
        allowed = [a for a in self.game.valid_actions(agent)
                   if a.kind in PAPER_ACTIONS or self.game.lenient_validity]
        actions = ", ".join(command_text(a) for a in allowed) or "none"
        return (f"{self.game.observation(agent).text()}\nCommands you can use now: {actions}; "
                f'!broadcast("...") beside one of them.')

    def history(self, agent: int) -> list[dict]:
        """The agent's interaction history of the previous `history_rounds` rounds (its prompts and replies)."""
        return self.histories[agent][-2 * self.history_rounds:] if self.history_rounds > 0 else []

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> None:
        """Rounds until the game is over, a deadlock ends it (deadlock.py), or `should_stop()`, checked before
        each turn."""
        while not self.game.done and not should_stop():
            for agent in range(self.game.agent_count):
                if self.game.done or should_stop():
                    return
                self.play_turn(agent)
            if not self.game.done and self.deadlock.end_round():
                self.game.stop(DEADLOCK)

    def _ask(self, agent: int, messages: list[dict]) -> str:
        """The model's answer; "" when the call failed (a lost turn; a spent budget stops the play: should_stop)."""
        try:
            return str(self.models[agent].send(messages, self.systems[agent]).text)
        except MindpyError as exc:
            log.warning("round %d, %s: the model did not answer: %s", self.game.round_no, self.names[agent], exc)
            return ""

    def play_turn(self, agent: int) -> TurnLog:
        round_no = self.game.round_no
        user = self.prompt(agent)
        history = self.history(agent)
        if self.belief_state:  # the belief, rewritten after this observation, goes beside the history
            self.beliefs[agent] = self._ask(agent, [{"role": "user", "content": belief_request(
                self.beliefs[agent], self.game.observation(agent).text())}]) or self.beliefs[agent]
            user = belief_prompt(self.beliefs[agent], user)
        model = self.models[agent]
        reply = self._ask(agent, [*history, {"role": "user", "content": user}])
        self.deadlock.see(agent, reply)
        turn = read_turn(reply, self.registry)
        if turn.ok:
            assert turn.command is not None
            if turn.message:
                self.table.riders[agent] = turn.message
            output = self.registry.run(self.contexts[agent], turn.command, turn.args)
            ok, feedback = bool(getattr(output, "ok", True)), str(output)
        else:
            self.table.refuse(agent, turn.error or "")
            ok, feedback = False, self.game.feedback[agent]
        if not ok and hasattr(model, "on_agent_event"):
            model.on_agent_event("command failed", turn.command or "")   # marked in the call log
        self.histories[agent] += [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
        said = turn.args[0] if turn.command == BROADCAST else turn.message
        logged = TurnLog(round_no, agent, reply, turn.command if turn.ok else None, feedback, ok, said)
        self.turns.append(logged)
        if self.tom_probes and ok:
            self._ask_probes(agent, round_no)
        self.on_turn(logged)
        return logged

    def _ask_probes(self, agent: int, round_no: int) -> None:
        """The balanced ToM questions about the fact the action concerned (tom_probes.py), each put to its agent in
        a single call (with that agent's observation and history) kept out of its history, scored against the
        knowledge tracker."""
        for probe in probes_after(self.game, agent, self.probe_rng):
            asked = probe.agent
            context = self.game.observation(asked).text()
            if self.belief_state:
                context = belief_prompt(self.beliefs[asked], context)
            question = probe_prompt(context, probe)
            self.asking = probe
            try:
                reply = str(self.probe_models[asked].send([*self.history(asked), {"role": "user", "content": question}],
                                                          self.systems[asked]).text)
            except MindpyError as exc:
                log.warning("round %d, %s: a probe got no answer: %s", round_no, self.names[asked], exc)
                reply = ""
            said = self.probe_score.add(probe, reply)
            self.probe_records.append({
                "round": round_no, "agent": self.names[asked], "actor": self.names[agent], "level": probe.level,
                "target": None if probe.target is None else self.names[probe.target], "fact": list(probe.fact),
                "question": probe.question, "answer": probe.answer, "reply": reply, "said": said,
                "correct": said is probe.answer})


def run_defuse_episode(task: Task, run_dir: str | Path, *, round_limit: int | None = None,
                       belief_state: bool = False, tom_probes: bool = False, options: dict[str, bool] | None = None,
                       **session_options: Any) -> dict:
    """Play the defuse `task` once (see the module doc): `round_limit` overrides the task's; `belief_state`: each
    agent keeps a written belief beside its history (TeamPlay); `tom_probes`: ToM questions after each action
    (result's `tom_probes`, RUN_DIR/tom_probes.jsonl); `options`: settings.py's options of ours by name.
    `session_options` are an EpisodeSession's (model, team, models by bot name, server, progress, echo, budget,
    settings_overrides, names). Returns the result, also written to RUN_DIR/result.json."""
    from ....harness.session import EpisodeSession

    family_options = {**(options or {}), "round_limit": round_limit, "belief_state": belief_state,
                      "tom_probes": tom_probes}
    with EpisodeSession(task, run_dir, family_options=family_options, **session_options) as session:
        return play(session)


def play(session: Any) -> dict:
    """Play a defuse episode in `session` (mindpy.harness.session): the round limit is the family option
    `round_limit`, else the session's rounds, else the task's; the settings (settings.py) are the family options,
    or the profile options of the same names. A model endpoint that cannot be used ends the play before the next
    turn: the result ends as "error" (the URL and the cause) and EpisodeInfraError is raised."""
    task, names, say = session.task, session.names, session.say
    options = session.family_options
    rounds = session.rounds
    round_limit = options.get("round_limit") or (rounds.limit if rounds is not None else None)
    try:
        chosen = DefuseSettings.from_options({k: v for k, v in options.items() if k != "round_limit"},
                                             session.profile_options)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    belief_state, tom_probes = chosen.belief_state, chosen.tom_probes
    settings = session.load_settings()
    game = defuse_game(task, round_limit, chosen)
    console = session.enter((session.run_dir / "console.log").open("a", encoding="utf-8"))
    host, port = session.open_server()
    say(f"{task.id}: {len(names)} agents ({', '.join(names)}) joining {host}:{port}")
    bots = session.join_bots()  # they join at once
    say(f"{task.id}: joined; building the rooms")
    issue = session.issue_for(bots)
    world = DefuseWorld(game.layout, names, task)
    setup = world.plan()
    with session.setting_up("the defuse rooms"):
        apply_and_wait(setup, bots, issue, SETUP_TIMEOUT_S)
    say(f"{task.id}: rooms built; playing (at most {game.round_limit} rounds)")

    spend = session.open_budget()
    outage = session.outage  # a call that finds its model's endpoint down ends the play
    models = [_model_for(name, session.specs[name], session.models, settings) for name in names]
    tell_models(models, task, names, session.seed)
    budgeted = [outage.wrap(spend.wrap(model)) for model in models]
    logs = [CallLog(model, session.run_dir / "calls" / f"{name}.jsonl", name)
            for name, model in zip(names, budgeted, strict=True)]
    for logged in logs:
        session.on_close(logged.close)
    recorder = EpisodeRecorder(task, names)
    contexts = [AgentContext.for_bot(bot, settings.minecraft_version, task, agent_index=i)
                for i, bot in enumerate(bots)]
    play = TeamPlay(game, logs, [task.goal_for(i) for i in range(len(names))], names=names,
                    table=TeamTable(game, world, issue), contexts=contexts, version=settings.minecraft_version,
                    on_turn=_TurnRecord(recorder, names, game, _echo(console, session.echo)),
                    belief_state=belief_state, tom_probes=tom_probes, probe_models=budgeted,
                    probe_seed=_seed_of(task.id), history_rounds=chosen.history_rounds)

    def should_stop() -> bool:
        if session.server_stopped():
            raise EpisodeInfraError("the embedded server stopped during the episode")
        return spend.exceeded is not None or outage.down is not None

    play.run(should_stop)
    error = str(outage.down) if outage.down is not None else None
    mirrored = _world_mirrors(world, game, bots[0])  # read while the bots keep the rooms' chunks loaded
    if belief_state:
        for name, belief in zip(names, play.beliefs, strict=True):
            (session.run_dir / "bots" / name).mkdir(parents=True, exist_ok=True)
            (session.run_dir / "bots" / name / "belief.txt").write_text(belief + "\n")
    for name, logged in zip(names, logs, strict=True):
        recorder.record_tokens(name, sum(u.prompt_tokens + u.completion_tokens
                                         for u in getattr(logged.model, "usage_log", [])))
    recorder.record_round(game.rounds_used)
    result = _result(recorder, game, names, spend.exceeded is not None, error)
    result = {**result, "world_mirrors_game": mirrored, "budget": spend.summary(),
              "defuse_settings": chosen.record()}
    if tom_probes:
        result["tom_probes"] = play.probe_score.summary()
        with (session.run_dir / PROBES_FILE).open("w", encoding="utf-8") as f:
            f.writelines(json.dumps(record) + "\n" for record in play.probe_records)
    result = session.write_result(result)
    if error is not None:
        raise EpisodeInfraError(error)
    say(f"{task.id}: {result['end_reason']} with {result['points']}/{result['max_points']} points in "
        f"{result['rounds']} rounds, valid actions {result['valid_action_rate']:.0%}, "
        f"{result['duration_s']:.0f} s")
    if tom_probes:
        say(f"{task.id}: ToM probes answered right: " + ", ".join(
            f"{level} {s['correct']}/{s['asked']}" for level, s in result["tom_probes"].items()))
    return result


def tell_models(models: Sequence[Any], task: Task, names: Sequence[str], trial_seed: int) -> None:
    """Tell each model its task, its player and the trial's seed (ChatModel.set_task_context), before any call: a
    seeded scripted model (the `random` team) then plays each trial differently and each rerun the same."""
    for i, (name, model) in enumerate(zip(names, models, strict=True)):
        if hasattr(model, "set_task_context"):
            model.set_task_context({"task_id": task.id, "trial_seed": trial_seed, **task.to_dict()}, name, i)


def _seed_of(text: str) -> int:
    """A seed that is the same for a task id in every run (str hashes change between processes)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def _world_mirrors(world: DefuseWorld, game: DefuseGame, bot: Any, wait_s: float = MIRROR_WAIT_S) -> bool:
    """Whether every bomb's blocks show its state in the game (the last changes may take a moment to arrive)."""
    from ....world.bulk import block_map

    wanted = {cell: block for b in game.layout.bombs
              for cell, block in world.bomb_blocks(b.id, game.remaining(b.id)).items()}
    deadline = time.monotonic() + wait_s
    while True:
        try:
            seen = block_map(bot, wanted)
        except MindpyError as exc:
            log.warning("reading the bombs' blocks: %s", exc)
            seen = {}
        if all(seen.get(cell) == block for cell, block in wanted.items()):
            return True
        if time.monotonic() > deadline:
            wrong = {cell: (block, seen.get(cell)) for cell, block in wanted.items() if seen.get(cell) != block}
            log.warning("the world does not show the game's bombs (cell: wanted, seen): %s", wrong)
            return False
        time.sleep(0.2)


def _model_for(name: str, spec: Any, models: dict[str, Any] | None, settings: Any) -> Any:
    """The agent's ready model, else one made from `spec` (None: the default model, the oracle without a key)."""
    if models and name in models:
        return models[name]
    from ....agent.factory import default_model_spec
    from ....models import create_model

    return create_model(spec if spec is not None else default_model_spec(), **settings.model_options())


def _echo(console: TextIO, echo: bool) -> Callable[[str], None]:
    from ....agent.runner import console_text

    def write(line: str) -> None:
        line = console_text(line)  # a reply or its feedback may hold escape sequences: shown, never acted on
        console.write(line + "\n")
        console.flush()
        if echo:
            print(line, file=sys.stdout, flush=True)
    return write


@dataclass
class _TurnRecord:
    """After each turn: the recorder's counts and a console line."""

    recorder: EpisodeRecorder
    names: list[str]
    game: DefuseGame
    write: Callable[[str], None]

    def __call__(self, turn: TurnLog) -> None:
        name = self.names[turn.agent]
        self.recorder.record_round(turn.round_no)
        if turn.command is not None:
            self.recorder.record_command(name, f"!{turn.command}")
            if turn.message:
                self.recorder.record_message(name)
        if not turn.ok:
            self.recorder.record_failed_command(name, f"!{turn.command or 'reply'}")
        reply = " ".join(turn.reply.split())[:200]
        self.write(f"round {turn.round_no} [{name} / {self.game.name(turn.agent)}] {reply!r} -> {turn.feedback}")


def _result(recorder: EpisodeRecorder, game: DefuseGame, names: Sequence[str], budget_spent: bool,
            error: str | None = None) -> dict:
    most = game.layout.max_score()
    reason = ERROR if error is not None else SUCCESS if game.score == most else \
        BUDGET_END_REASON if budget_spent else game.stopped or ROUND_LIMIT
    result = recorder.on_end(game.score / most, reason, error)
    agents = {name: {**result["agents"].get(name, {}), "replies": v.replies, "valid": v.valid, "no_action": v.idle}
              for name, v in zip(names, game.validity, strict=True)}
    return {**result, "agents": agents, "points": game.score, "max_points": most, "rounds": game.rounds_used,
            "round_limit": game.round_limit, "valid_action_rate": round(game.valid_rate(), 4),
            "players": {name: game.name(i) for i, name in enumerate(names)}}


__all__ = ["TeamPlay", "TeamTable", "TurnLog", "defuse_game", "run_defuse_episode", "tell_models"]
