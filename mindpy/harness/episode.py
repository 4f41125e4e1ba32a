"""Play one episode of any family: `run_episode` opens an EpisodeSession (mindpy.harness.session: the shared
steps) and hands it to the task's family's play; the families of MineCollab and CoBlock play toward their goals
here (`play_toward_goals`: agents, world set-up, goals, the checker), orders and defuse in their own folders.

    result = run_episode(task, "runs/x", model=None)      # None: the default model (the oracle without an API key)
    result["score"], result["end_reason"]                 # also in runs/x/result.json

The run directory holds: `result.json` (the episode's result, see mindpy.tasks.results), `profiles/` (the
profiles the agents ran with), `bots/<name>/` (each agent's saved history and memory, and `logs/prompts.jsonl`),
`calls/<name>.jsonl` (every model call with its reply; SFT export reads these), `console.log` and, with the
embedded server, `server/server.log`.

With `rounds` (RoundOptions) the agents play in lockstep (mindpy.harness.rounds): one turn each per round, up to
the round limit, which then ends the episode like its time limit (the score stands); the result adds `rounds`
and `round_tally` (per agent: turns used on an action, messages, turns passed).

`profile_options` are written into every agent's profile: the CoBlock method's `partner_modelling` and `reflection`
(mindpy.profiles). An agent with `reflection` on gets the review of the structure (mindpy.tasks.families.coblock.review)
after each round, or, playing without rounds, after each of its own !placeBlock and !breakBlock.

`budget` (BudgetLimits; default: the settings' `budget`) limits the model calls of all the agents together, of
every model they use (chat, a profile's code_model and vision_model; mindpy.models.budget): requests and tokens
per minute, and dollars. When the dollars are spent the episode ends with the reason "budget" (or success, if the
task is complete at that moment): cut off, not failed. The result's `budget` gives the spend (usd, requests,
tokens, seconds waited), and each agent's entry its own `tokens` and `usd` (all its models). A hosted model
without a known price is refused before anything starts when `max_usd` is set.

An episode whose infrastructure failed (a server that does not start or dies, a bot that cannot join or is kicked,
a world that does not set up, a model endpoint that cannot be used) raises `EpisodeInfraError`: it is not the
model's failure and is never scored. A model call that finds its endpoint unreachable after its retries
(mindpy.models.ModelUnreachable: refused or unknown host, 5xx or no answer through every retry, key refused, model
not found) ends the episode at once, with the URL called and the cause in the result's `error`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import BridgeTimeout, ConfigError, MindpyError, NodeStopped
from ..models.base import ModelUnreachable
from ..models.budget import Budget, BudgetLimits
from ..models.outage import OutageWatch
from ..tasks.checkers import SUCCESS, TaskMonitor, checker_for
from ..tasks.family import families, family_of, load_entry
from ..tasks.results import EpisodeRecorder
from ..tasks.schema import Task
from ..tasks.world import set_up_task
from ..userfiles import one_line
from .ablations import Ablations
from .calls import CallLog, model_price
from .humans import HumanSlots
from .rounds import RoundOptions, RoundScheduler
from .session import EpisodeInfraError, EpisodeSession

log = logging.getLogger(__name__)

TASK_ORIGIN = (200, -60, 200)  # where agent 0 stands in crafting and cooking tasks (construction: the blueprint)
STOP_WAIT_S = 15.0  # round mode: how long the last round's turns may take to end before the result is written
GRACE_S = 30.0                 # after the task's timeout, how long to wait for the checker before calling it an error


def task_goal_text(task: Task, index: int, names: list[str]) -> str:
    """Agent `index`'s goal, followed by the names of its teammates."""
    others = [n for i, n in enumerate(names) if i != index]
    goal = task.goal_for(index).strip()
    return goal + (f" The other agents are: {', '.join(others)}." if others else "")


def blocked_commands(task: Task, index: int) -> list[str]:
    """The commands agent `index` may not use during the task: the task's own `blocked_actions`, its family's
    (coblock: the blueprint commands, as the structure is in each agent's own goal), and, as in MINDcraft,
    !endGoal when it has a goal (it may not give up on it) and !endConversation when the task opens with a
    conversation (the team keeps talking)."""
    blocked = task.blocked_actions_for(index) + family_of(task).commands_blocked_for(task, index)
    if task.goal_for(index).strip():
        blocked.append("endGoal")
    if task.conversation:
        blocked.append("endConversation")
    return blocked


def inventory_text(items: dict[str, int]) -> str:
    """What an agent held at the start of the task, as a sentence for its prompt."""
    if not items:
        return "At the start of the task you had nothing in your inventory."
    listed = ", ".join(f"{n} {name}" for name, n in sorted(items.items()))
    return f"At the start of the task you had: {listed}."


def run_episode(task: Task, run_dir: str | Path, *, model: Any = None, server: str = "embedded",
                seed: int = 0, settings_overrides: dict | None = None,
                progress: Callable[[str], None] | None = None, models: dict[str, Any] | None = None,
                echo: bool = False, rounds: RoundOptions | None = None,
                profile_options: dict[str, Any] | None = None, budget: BudgetLimits | None = None,
                team: dict[str, str] | None = None, family_options: dict[str, Any] | None = None,
                ablations: Ablations | None = None) -> dict:
    """Play `task` once, as its family plays (mindpy.tasks.family: `play_entry`, or the goal-directed play below).
    `model`: a model spec for every agent (None: the default), or `models` by agent name (ready model objects,
    for tests). `echo` also prints the console log (who said and did what) to stdout. `rounds`: play in round mode
    with these rules (None: the agents act when they like); `profile_options`: fields added to every agent's
    profile (partner_modelling, reflection, belief_state...); `family_options`: switches of the task's family
    (defuse's tom_probes; a family's `episode_options` name them); `budget`: the run's limits on model calls
    (None: the settings' `budget`); `team`: a model for some agents, by name or index (mindpy.harness.team), over
    `model`; `ablations`: the paper's ablations and named settings (mindpy.harness.ablations; None: none). Returns
    the result (also written to RUN_DIR/result.json)."""
    from ..profiles import METHOD_OPTIONS

    family = family_of(task)
    options = dict(family_options or {})
    profile_options = dict(profile_options or {})
    for name in family.episode_options:  # a family's own switch, given with the profile options (the CLI's)
        if name in profile_options and name not in options:
            options[name] = profile_options[name]
    # a switch only a family's play takes (defuse's tom_probes), no profile field, never goes into the profiles
    play_only = {name for other in families() for name in other.episode_options} - set(METHOD_OPTIONS)
    profile_options = {name: value for name, value in profile_options.items() if name not in play_only}
    with EpisodeSession(task, run_dir, model=model, models=models, team=team, server=server, seed=seed, echo=echo,
                        budget=budget, settings_overrides=settings_overrides, progress=progress, rounds=rounds,
                        profile_options=profile_options, family_options=options,
                        ablations=ablations) as session:
        play = load_entry(family.play_entry) if family.play_entry else play_toward_goals
        return play(session)


def play_toward_goals(session: EpisodeSession) -> dict:
    """MineCollab's play: each agent prompts itself toward its goal (agent 0 may open a conversation) while the
    family's checker runs on agent 0's update tick; the episode ends at success, its time limit, the round limit,
    an agent's end of the task, a spent budget or an infrastructure failure."""
    from ..agent.runner import AgentRunner

    task, names, rounds, say = session.task, session.names, session.rounds, session.say
    settings = session.load_settings(log_all_prompts=True, allow_insecure_coding=True, chat_bot_messages=True)
    session.refuse_unpriced()  # before the server starts: an unpriced model cannot be budgeted
    console = session.open_console()
    host, port = session.open_server()
    say(f"{task.id}: {len(names)} agents ({', '.join(names)}) joining {host}:{port}")
    spend = session.open_budget()  # one budget for all the agents of the episode
    hooks = _EpisodeHooks(session.run_dir, spend, session.outage)
    session.on_close(hooks.close)
    reviewer = session.family.reviewer(task, names, lambda: runner.agents)
    if rounds is None and reviewer is not None:
        hooks.after_build = reviewer.review_one  # reflection after each of an agent's own place and break
    runner = AgentRunner(settings, session.profiles, host, port, models=session.models, console=console, task=task,
                         blocked={n: blocked_commands(task, i) for i, n in enumerate(names)},
                         wrap_model=hooks.wrap_model, event_hooks=hooks.event_hooks, rounds=rounds is not None)
    agents = session.start_runner(runner)
    bots = [agents[n].bot for n in names]

    issue = session.issue_for(bots)
    with session.setting_up():
        setup = set_up_task(task, bots, issue, origin=TASK_ORIGIN, seed=session.seed, timeout=60)
    say(f"{task.id}: world set up; playing (time limit {task.timeout:.0f} s"
        + (f", {rounds.limit} rounds)" if rounds else ")"))

    recorder = EpisodeRecorder(task, names)
    recorder.on_history(lambda name, line: runner.agents[name].history.add("system", line))
    hooks.recorder = recorder  # counting starts with the play
    finished = threading.Event()
    humans = HumanSlots(task, setup, issue, bots[0], say)
    monitor = TaskMonitor(task, bots, checker=checker_for(task, humans.inventories), on_end=[
        lambda score, reason: hooks.count_tokens(),
        lambda score, reason: recorder.on_end(score, reason, monitor.error),  # the cause of an error too
        lambda score, reason: finished.set()])
    spend.on_exceeded.append(lambda exc: _end_by_budget(monitor))  # the watch retries if this check fails
    hooks.outage.listen(lambda exc: _end_by_outage(monitor, exc))  # at once if a model was down already

    for i, name in enumerate(names):
        agent = agents[name]
        agent.assign_task(task_goal_text(task, i, names), inventory_text(setup.inventories.get(name, {})),
                          check=monitor.tick if i == 0 else None, score=lambda: monitor.score)
        session.family.configure_agent(task, agent)
        if task.extra.get("restrict_to_inventory"):
            agent.skills.runner.restrict_to_inventory(True)
    cheat = any(agents[name].modes.get("cheat").on for name in names)  # --cheat or a profile's own cheat mode
    _open(task, names, agents, converse=session.ablations.communication,
          init_message=session.ablations.init_message or "")
    scheduler = None
    if rounds is not None:
        scheduler = _start_rounds(rounds, runner, names, monitor, finished, recorder, reviewer)

    _watch(monitor, finished, task, session, bots, humans, runner, spend)
    result = recorder.result or recorder.on_end(monitor.score, monitor.reason or "error", monitor.error)
    result = {**hooks.with_costs(result), "budget": spend.summary(), "ablations": session.ablations.record(),
              "cheat": cheat}
    if scheduler is not None:
        scheduler.join(timeout=STOP_WAIT_S)  # the last round's turns end: their tally is complete
        result = {**result, "round_rules": scheduler.options.record(), "round_tally": scheduler.tally.as_dict()}
    session.write_result(result)
    limits = session.limits
    spent = "" if not (spend.spent_usd or (limits and limits.max_usd)) else \
        f"; models spent ${spend.spent_usd:.4f}" + (f" of ${limits.max_usd:g}" if limits and limits.max_usd else "")
    scored = "not scored" if result["end_reason"] == "error" else f"with score {result['score']}"
    say(f"{task.id}: {result['end_reason']} {scored} after {result['duration_s']:.0f} s" + spent)
    if result["end_reason"] == "error":
        raise EpisodeInfraError(result.get("error") or "the episode ended with an error")
    time.sleep(0.5)  # let the agents write the end-of-task line to their state files
    return result


class _EpisodeHooks:
    """The middleware an episode gives its agents: a call log per agent (calls/<agent>.jsonl) around each of its
    models (chat, code, vision) with the run's budget inside it, and the counters of the result (commands,
    messages, tokens), which count once the play has begun."""

    def __init__(self, run_dir: Path, budget: Budget | None = None, outage: OutageWatch | None = None):
        self.run_dir = run_dir
        self.budget = budget  # every agent's model goes through it (inside the call log: refused calls are not logged)
        self.outage = outage or OutageWatch()  # hears of the first call that found its model's endpoint down
        self.logs: dict[str, CallLog] = {}  # one per agent for the whole episode, a restarted agent's too
        self.models: dict[str, dict[int, Any]] = {}  # every model each agent used (budgeted where there is one)
        self.recorder: EpisodeRecorder | None = None
        self.after_build: Callable[[str], None] | None = None  # (agent) after its !placeBlock or !breakBlock ran
        self._last_command: dict[str, str] = {}

    def wrap_model(self, name: str, model: Any, role: str = "chat") -> Any:
        """`model`, which agent `name` uses as `role` ("chat", "code" or "vision"), with the budget, the
        agent's call log and the episode's outage watch around it. An agent built again (restarted) keeps its log:
        its old model's last line is written first, and both write through the one log."""
        logged = self.logs.get(name)
        if logged is not None and role == "chat":  # a restarted agent: finish the old model's last line first
            logged.close()
        if self.budget is not None:
            try:
                model = self.budget.wrap(model)
            except ValueError as exc:  # a profile's own model without a price, with a dollar limit
                raise ConfigError(f"{name}: {one_line(str(exc))}") from None
        self.models.setdefault(name, {})[id(getattr(model, "inner", model))] = model
        if logged is None:
            logged = self.logs[name] = CallLog(None, self.run_dir / "calls" / f"{name}.jsonl", name)
        return self.outage.wrap(logged.wrap(model, role))

    def event_hooks(self, name: str) -> list[Callable[[str, str], None]]:
        return [lambda kind, text: self._on_event(name, kind, text)]

    def _on_event(self, name: str, kind: str, text: str) -> None:
        if name in self.logs:
            self.logs[name].on_agent_event(kind, text)
        command = text.split("(", 1)[0]  # for "command" and "command failed": "!placeBlock(...)" -> "!placeBlock"
        if kind == "command":
            self._last_command[name] = command
        elif kind == "output" and self.after_build is not None and \
                self._last_command.get(name) in ("!placeBlock", "!breakBlock"):
            self.after_build(name)
        recorder = self.recorder
        if recorder is None:
            return
        if kind == "command":
            recorder.record_command(name, command)
            if command == "!startConversation":  # its message goes out with the command (only echoed as said)
                recorder.record_message(name)
        elif kind == "command failed":
            recorder.record_failed_command(name, command)
        elif kind == "to bot" or (kind == "said" and not text.startswith("(To ")):  # not the echo
            recorder.record_message(name)

    def count_tokens(self) -> None:
        if self.recorder is None:
            return
        for name in self.models:  # every model of the agent: chat, code and vision
            self.recorder.record_tokens(name, self.spent(name)[0])

    def spent(self, name: str) -> tuple[int, float | None]:
        """Tokens and dollars of every model agent `name` used (None dollars: a model without a known price). Read
        from the models' own usage: it holds a call as soon as its reply arrives, before a budget that the call used
        up ends the episode (the call log writes it only after)."""
        tokens = 0
        usd: float | None = 0.0
        for model in list(self.models.get(name, {}).values()):
            usage = list(getattr(model, "usage_log", []))
            tokens += sum(u.prompt_tokens + u.completion_tokens for u in usage)
            price = model_price(model)
            usd = None if price is None or usd is None else usd + sum(price.cost(u) for u in usage)
        return tokens, None if usd is None else round(usd, 6)

    def with_costs(self, result: dict) -> dict:
        """`result` with each agent's dollars (`usd`: every model of the agent; None when a price is unknown)."""
        agents = {name: dict(entry) for name, entry in result.get("agents", {}).items()}
        for name in self.models:
            agents.setdefault(name, {})["usd"] = self.spent(name)[1]
        return {**result, "agents": agents}

    def close(self) -> None:
        for logged in self.logs.values():
            logged.close()


def _open(task: Task, names: list[str], agents: dict, converse: bool = True, init_message: str = "") -> None:
    """Each agent gets the joining message (--init-message) once the world is set up, agent 0 opens the
    conversation (unless communication is off), and every agent then works on its goal by prompting itself. The
    goals are set (paused) before anything is said: the first prompts state them whichever thread builds them first,
    so an episode played again asks its model the same things (a response cache or a replay answers them)."""
    for i, name in enumerate(names):
        agents[name].self_prompter.start(task_goal_text(task, i, names), paused=True)
    if init_message:
        for name in names:
            agents[name].handle_message("system", init_message)
    if task.conversation and len(names) > 1 and converse:
        message = task.conversation.replace('"', "'")
        agents[names[0]].run_command(f'!startConversation("{names[1]}", "{message}")')
    for name in names:
        agents[name].self_prompter.resume_if_paused()


def _start_rounds(rounds: RoundOptions, runner, names: list[str], monitor: TaskMonitor,
                  finished: threading.Event, recorder: EpisodeRecorder, reviewer: Any) -> RoundScheduler:
    """Play the rounds on a thread of their own; after each round the task is checked (and an agent's end of the
    task honoured) and the agents that reflect get their review; at the round limit the episode ends as at its
    time limit."""
    def between_turns() -> None:
        _honour_end_task(monitor, runner)
        _check(monitor, now=True)

    def after_round(number: int, reports: dict) -> None:
        _honour_end_task(monitor, runner)
        _check(monitor, now=True)
        if not monitor.ended and reviewer is not None:
            reviewer.review_all()

    scheduler = RoundScheduler([runner.agents[n] for n in names], rounds, bus=runner.bus,
                               should_stop=lambda: finished.is_set() or monitor.ended, after_round=[after_round],
                               # sequential turns: a structure completed (or the task ended) in a turn ends the
                               # round there, as the paper's game ends "when the target structure is completed"
                               between_turns=[between_turns],
                               before_round=[recorder.record_round])  # a round ended by success still counts

    def at_the_limit() -> None:
        if not monitor.ended:
            monitor.out_of_rounds()

    scheduler.start(then=at_the_limit)
    return scheduler


def _honour_end_task(monitor: TaskMonitor, runner) -> None:
    """An agent that ran !endTask ends the episode (CoBlock: the task ends when either agent ends it)."""
    for name, agent in list(runner.agents.items()):
        if agent.context.task_finished.is_set() and not monitor.ended:
            try:
                monitor.end_by_agent(name)
            except MindpyError as exc:  # the check could not read the world: try again on the next watch
                log.warning("ending the task for %s: %s", name, exc)


def _watch(monitor: TaskMonitor, finished: threading.Event, task: Task, session: EpisodeSession, bots,
           humans: HumanSlots, runner, spend: Budget | None = None) -> None:
    """Wait for the episode to end, serving the task's human players and honouring an agent's end of the task and
    a spent budget; a dead server or a lost bot ends it as an error."""
    deadline = time.monotonic() + task.timeout + GRACE_S
    while not finished.wait(1.0):
        try:
            humans.poll()
        except MindpyError as exc:  # a slow answer: the next poll tries again; the bots' state decides the rest
            log.warning("reading the human players: %s", exc)
        _honour_end_task(monitor, runner)
        if spend is not None and spend.exceeded is not None and not monitor.ended:
            _end_by_budget(monitor)
        _check(monitor)
        if session.server_stopped():
            monitor.fail("the embedded server stopped during the episode")
        elif lost := _lost_bots(bots):
            monitor.fail(f"lost the connection of {', '.join(lost)}")
        elif time.monotonic() > deadline and not monitor.ended:
            monitor.fail("the episode did not end at its time limit")
    if monitor.reason != SUCCESS:
        log.info("episode ended: %s", monitor.reason)


def _lost_bots(bots) -> list[str]:
    """The bots whose connection has ended. A bot whose Node side does not answer in time (busy with a long scan)
    is not counted lost: the time limit still ends an episode whose Node never answers again."""
    lost = []
    for bot in bots:
        try:
            if not bot.connected:
                lost.append(bot.name)
        except NodeStopped:  # the bots' Node process died while we asked
            lost.append(bot.name)
        except BridgeTimeout as exc:
            log.warning("could not read the connection of %s: %s", bot.name, exc)
    return lost


def _end_by_outage(monitor: TaskMonitor, exc: ModelUnreachable) -> None:
    """A model's endpoint cannot be used (after the call's retries): the episode ends as an infrastructure error
    naming the URL and the cause, on the thread of the call that found it."""
    monitor.fail(str(exc))


def _end_by_budget(monitor: TaskMonitor) -> None:
    """The budget is spent: end the episode by it. Called on the thread of the model call that spent the last of
    it, and again by the watch while the episode runs; a check that waits too long is retried there."""
    _guarded(monitor, monitor.end_by_budget)


def _check(monitor: TaskMonitor, now: bool = False) -> None:
    """Check the task (also checked on agent 0's update tick; this keeps checking if that tick is busy). A check
    that fails because the bots or the server went away ends the episode with that cause."""
    _guarded(monitor, monitor.check_now if now else monitor.tick)


def _guarded(monitor: TaskMonitor, check: Callable[[], Any]) -> None:
    """Run one of the monitor's checks: one that waits too long (Node busy) is tried again later, one that fails
    because the bots or the server went away ends the episode with that cause."""
    try:
        check()
    except BridgeTimeout as exc:
        log.warning("the task check waited too long: %s", exc)
    except MindpyError as exc:
        monitor.fail(f"checking the task failed: {exc}")
