"""Play one MineCollab episode: server, agents, world set-up, goals, the checker, and everything written to a run
directory.

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
(mindpy.profiles). An agent with `reflection` on gets the review of the structure (mindpy.tasks.coblock_review)
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

import contextlib
import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..errors import BridgeTimeout, ConfigError, MindpyError, NodeStopped
from ..models.base import ModelUnreachable
from ..models.budget import Budget, BudgetLimits, release_budget, shared_budget
from ..models.outage import OutageWatch
from ..tasks.checkers import SUCCESS, TaskMonitor, checker_for
from ..tasks.coblock_review import built_blocks, review, review_text
from ..tasks.coblock_site import structure_cells
from ..tasks.results import EpisodeRecorder
from ..tasks.schema import Task
from ..tasks.world import WorldSetupError, issue_via_bot, issue_via_server, set_up_task
from ..userfiles import one_line
from .calls import CallLog, model_price
from .humans import HumanSlots
from .rounds import RoundOptions, RoundScheduler
from .team import team_specs

log = logging.getLogger(__name__)

AGENT_NAMES = ("andy", "jill", "bob", "sally", "mike", "kate", "leo", "nina")
TASK_ORIGIN = (200, -60, 200)  # where agent 0 stands in crafting and cooking tasks (construction: the blueprint)
BLUEPRINT_COMMANDS = ("getBlueprint", "getBlueprintLevel", "checkBlueprint", "checkBlueprintLevel")
STOP_WAIT_S = 15.0  # round mode: how long the last round's turns may take to end before the result is written
GRACE_S = 30.0                 # after the task's timeout, how long to wait for the checker before calling it an error


class EpisodeInfraError(MindpyError):
    """The episode could not be played for reasons that are not the model's (server, network, set-up)."""


def agent_names(task: Task) -> list[str]:
    """The agents' names for a task: andy, jill, bob... A task's `usernames` are its human players' names (as in
    MINDcraft's files), never given to an agent; an agent name that one of them takes is skipped."""
    humans = {u.lower() for u in task.usernames}
    pool = [n for n in AGENT_NAMES if n.lower() not in humans]
    if task.agent_count > len(pool):
        return [f"agent{i}" for i in range(task.agent_count)]
    return pool[:task.agent_count]


def task_goal_text(task: Task, index: int, names: list[str]) -> str:
    """Agent `index`'s goal, followed by the names of its teammates."""
    others = [n for i, n in enumerate(names) if i != index]
    goal = task.goal_for(index).strip()
    return goal + (f" The other agents are: {', '.join(others)}." if others else "")


def blocked_commands(task: Task, index: int) -> list[str]:
    """The commands agent `index` may not use during the task: the task's own `blocked_actions`, and, as in
    MINDcraft, !endGoal when it has a goal (it may not give up on it) and !endConversation when the task opens
    with a conversation (the team keeps talking)."""
    blocked = task.blocked_actions_for(index)
    if task.type == "coblock":  # the structure is in each agent's own goal; there is no blueprint to read
        blocked += list(BLUEPRINT_COMMANDS)
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


def base_profile(task: Task) -> str:
    """The base profile of a task's agents: `coblock` for CoBlock tasks (their prompt follows the paper's),
    `task` for the others."""
    return "coblock" if task.type == "coblock" else "task"


def write_profiles(run_dir: Path, names: list[str], model: Any, base: str = "task",
                   options: dict[str, Any] | None = None, specs: dict[str, Any] | None = None) -> list[Path]:
    """The profile each agent plays with (the base profile, the model and `options`), kept for the record.
    `specs`: a model for each agent by name (a mixed team), over `model`."""
    folder = run_dir / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        data: dict[str, Any] = {"name": name, "base_profile": base, **(options or {})}
        spec = (specs or {}).get(name, model)
        if spec is not None:
            data["model"] = spec
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        paths.append(path)
    return paths


def open_server(stack: contextlib.ExitStack, server: str, run_dir: Path, version: str) -> tuple[Any, str, int]:
    """The episode's server: ("embedded": one started in RUN_DIR/server and closed with `stack`; else HOST:PORT).
    Returns (the embedded server or None, host, port); EpisodeInfraError when the embedded server does not start."""
    from ..server.address import parse_server

    address = parse_server(server)
    if address is not None:
        return None, address.host, address.port
    from ..server import EmbeddedServer

    try:
        embedded = stack.enter_context(EmbeddedServer(run_dir=run_dir / "server", version=version))
    except MindpyError as exc:
        raise EpisodeInfraError(f"the embedded server did not start: {exc}") from exc
    return embedded, embedded.address.host, embedded.address.port


def refuse_unplayable(task, source: str | Path = "") -> None:
    """ConfigError (one line) when episodes of `task` cannot be played (schema.unplayable_reason)."""
    from ..tasks.schema import unplayable_reason

    reason = unplayable_reason(task)
    if reason:
        where = f"{source}: " if source else ""
        raise ConfigError(f"{where}task '{one_line(task.id, 80)}': {reason}")


def refuse_unpriced(model: Any, limits: BudgetLimits) -> None:
    """ConfigError (one line) when a dollar limit is set and the model `model` names has no known price, so that
    its spend could not be counted; checked before any server starts. None (the default model) is checked when its
    agents are made."""
    from ..models import parse_model_spec

    if model is None or limits.max_usd is None:
        return
    try:
        spec = parse_model_spec(model)
        Budget(limits).price(f"{spec.api}/{spec.model}")
    except ValueError as exc:
        raise ConfigError(f"--max-usd: {one_line(str(exc))}") from None


def run_episode(task: Task, run_dir: str | Path, *, model: Any = None, server: str = "embedded",
                seed: int = 0, settings_overrides: dict | None = None,
                progress: Callable[[str], None] | None = None, models: dict[str, Any] | None = None,
                echo: bool = False, rounds: RoundOptions | None = None,
                profile_options: dict[str, Any] | None = None, budget: BudgetLimits | None = None,
                team: dict[str, str] | None = None) -> dict:
    """Play `task` once. `model`: a model spec for every agent (None: the default), or `models` by agent name
    (ready model objects, for tests). `echo` also prints the console log (who said and did what) to stdout.
    `rounds`: play in round mode with these rules (None: the agents act when they like); `profile_options`: fields
    added to every agent's profile (partner_modelling, reflection, belief_state...; in defuse episodes the round
    runner keeps the beliefs; tom_probes goes to the defuse round runner and is dropped for other families);
    `budget`: the run's limits on model calls (None: the settings' `budget`); `team`: a model for some agents, by
    name or index (mindpy.harness.team), over `model`. Returns the result (also written to RUN_DIR/result.json)."""
    from ..agent.runner import AgentRunner, ConsoleLog
    from ..profiles import load_profile
    from ..settings import load_settings
    profile_options = dict(profile_options or {})
    # the defuse round runner's options, not a profile's
    belief_state = bool(profile_options.get("belief_state", False))  # defuse: the round runner keeps the beliefs
    tom_probes = bool(profile_options.pop("tom_probes", False))  # the defuse round runner's, not a profile's
    if task.type == "defuse":  # a game of its own in rounds (mindpy.harness.defuse_episode)
        from .defuse_episode import run_defuse_episode

        return run_defuse_episode(task, run_dir, model=model, server=server, progress=progress, models=models,
                                  echo=echo, round_limit=rounds.limit if rounds else None, budget=budget,
                                  settings_overrides=settings_overrides, team=team, belief_state=belief_state,
                                  tom_probes=tom_probes)
    if task.type == "orders" and team:
        raise ConfigError("--team: an orders task has one model, the dispatcher's; give it with --model")
    if task.type == "orders":  # one dispatcher commanding every cook (mindpy.harness.orders_episode)
        from .orders_episode import run_orders_episode

        return run_orders_episode(task, run_dir, model=model, server=server, seed=seed, progress=progress,
                                  models=models, echo=echo, budget=budget)
    refuse_unplayable(task)  # before anything starts
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda text: None)
    names = agent_names(task)
    specs = team_specs(team, names, model)
    settings = load_settings(None, **{
        "bots_dir": str(run_dir / "bots"), "log_all_prompts": True, "allow_insecure_coding": True,
        "narrate_behavior": False, "chat_bot_messages": True, "load_memory": False,
        "profiles": [str(p) for p in write_profiles(run_dir, names, model, base_profile(task), profile_options,
                                                     specs)],
        **(settings_overrides or {})})
    profiles = [load_profile(p, settings=settings) for p in settings.profiles]
    limits = budget if budget is not None else settings.budget_limits()
    for spec in {str(s): s for s in specs.values()}.values():
        refuse_unpriced(spec, limits)  # before the server starts: an unpriced model cannot be budgeted
    console_file = (run_dir / "console.log").open("a", encoding="utf-8")
    console = ConsoleLog(_Tee(console_file, sys.stdout) if echo else console_file)
    with contextlib.ExitStack() as stack:
        stack.callback(console_file.close)
        stack.callback(console.close)  # runs first (last in, first out)
        embedded, host, port = open_server(stack, server, run_dir, settings.minecraft_version)
        say(f"{task.id}: {len(names)} agents ({', '.join(names)}) joining {host}:{port}")

        spend = shared_budget(str(run_dir), limits)  # one budget for all the agents of the episode
        stack.callback(release_budget, str(run_dir))
        hooks = _EpisodeHooks(run_dir, spend, OutageWatch())
        reviewer = _Reviewer(task, names, lambda: runner.agents)
        if rounds is None:
            hooks.after_build = reviewer.review_one  # reflection after each of an agent's own place and break
        stack.callback(hooks.close)
        runner = AgentRunner(settings, profiles, host, port, models=models, console=console, task=task,
                             blocked={n: blocked_commands(task, i) for i, n in enumerate(names)},
                             wrap_model=hooks.wrap_model, event_hooks=hooks.event_hooks, rounds=rounds is not None)
        stack.enter_context(runner)
        try:
            agents = runner.start()
        except MindpyError as exc:
            raise EpisodeInfraError(f"the agents could not join {host}:{port}: {exc}") from exc
        bots = [agents[n].bot for n in names]

        issue = issue_via_server(embedded) if embedded is not None else issue_via_bot(bots[0])
        try:
            setup = set_up_task(task, bots, issue, origin=TASK_ORIGIN, seed=seed, timeout=60)
        except WorldSetupError as exc:
            raise EpisodeInfraError(str(exc)) from exc
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
                              check=monitor.tick if i == 0 else None)
            if task.type == "construction":
                agent.modes.set_on("cheat", True)  # blocks are placed with commands: building is about the plan
            if task.extra.get("restrict_to_inventory"):
                agent.skills.runner.restrict_to_inventory(True)
            if task.type == "coblock":  # walking must not dig through the structure: its blocks are lost then
                agent.skills.runner.protect_blocks(sorted(set(structure_cells(task).values())))
        _open(task, names, agents)
        scheduler = None
        if rounds is not None:
            scheduler = _start_rounds(rounds, runner, names, monitor, finished, recorder, reviewer)

        _watch(monitor, finished, task, embedded, bots, humans, runner, spend)
        result = recorder.result or recorder.on_end(monitor.score, monitor.reason or "error", monitor.error)
        result = {**hooks.with_costs(result), "budget": spend.summary()}
        if scheduler is not None:
            scheduler.join(timeout=STOP_WAIT_S)  # the last round's turns end: their tally is complete
            result = {**result, "round_rules": {"limit": scheduler.options.limit,
                                                "message_is_action": scheduler.options.message_is_action},
                      "round_tally": scheduler.tally.as_dict()}
        (run_dir / "result.json").write_text(json.dumps({**result, "run_dir": str(run_dir),
                                                         "agent_names": names}, indent=2) + "\n")
        spent = "" if not (spend.spent_usd or limits.max_usd) else \
            f"; models spent ${spend.spent_usd:.4f}" + (f" of ${limits.max_usd:g}" if limits.max_usd else "")
        scored = "not scored" if result["end_reason"] == "error" else f"with score {result['score']}"
        say(f"{task.id}: {result['end_reason']} {scored} after {result['duration_s']:.0f} s" + spent)
        if result["end_reason"] == "error":
            raise EpisodeInfraError(result.get("error") or "the episode ended with an error")
        time.sleep(0.5)  # let the agents write the end-of-task line to their state files
        return result


class _Tee:
    """Writes to several streams (the console log file and the terminal)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text: str) -> None:
        for stream in self.streams:
            stream.write(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


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


def _open(task: Task, names: list[str], agents: dict) -> None:
    """Agent 0 opens the conversation; every agent then works on its goal by prompting itself."""
    if task.conversation and len(names) > 1:
        message = task.conversation.replace('"', "'")
        agents[names[0]].run_command(f'!startConversation("{names[1]}", "{message}")')
    for i, name in enumerate(names):
        agents[name].self_prompter.start(task_goal_text(task, i, names))


class _Reviewer:
    """The reflection program's review of the structure, for the agents whose profile has `reflection` on (CoBlock
    tasks only): added to the agent's history, so its next prompt has it."""

    def __init__(self, task: Task, names: list[str], agents: Callable[[], dict]):
        self.task = task
        self.names = names
        self.agents = agents  # the runner's agents now (a restarted agent is a new object)

    def _reflecting(self) -> dict:
        """The agents that get a review: those whose profile has `reflection` on, in a CoBlock task."""
        if self.task.type != "coblock":
            return {}
        return {name: agent for name, agent in self.agents().items()
                if name in self.names and getattr(agent.prompter, "reflection", False)}

    def review_one(self, name: str) -> None:
        """Review the structure for agent `name` (after its own place or break), if it reflects."""
        reflecting = self._reflecting()
        if name in reflecting:
            self._review({name: reflecting[name]})

    def review_all(self) -> None:
        """Review the structure for every agent that reflects (after a round), reading the site once."""
        self._review(self._reflecting())

    def _review(self, agents: dict) -> None:
        if not agents:
            return
        try:
            blocks = built_blocks(next(iter(agents.values())).bot, self.task)
        except MindpyError as exc:  # the world could not be read: no review this time
            log.warning("reading the structure for the review: %s", exc)
            return
        for name, agent in agents.items():
            try:
                lines = review(self.task, self.names.index(name), blocks)
            except MindpyError as exc:  # no goal to review against (a task built in code)
                log.warning("reviewing the structure for %s: %s", name, exc)
                continue
            agent.history.add("system", review_text(lines))


def _start_rounds(rounds: RoundOptions, runner, names: list[str], monitor: TaskMonitor,
                  finished: threading.Event, recorder: EpisodeRecorder, reviewer: _Reviewer) -> RoundScheduler:
    """Play the rounds on a thread of their own; after each round the task is checked (and an agent's end of the
    task honoured) and the agents that reflect get their review; at the round limit the episode ends as at its
    time limit."""
    def after_round(number: int, reports: dict) -> None:
        _honour_end_task(monitor, runner)
        _check(monitor, now=True)
        if not monitor.ended:
            reviewer.review_all()

    scheduler = RoundScheduler([runner.agents[n] for n in names], rounds, bus=runner.bus,
                               should_stop=lambda: finished.is_set() or monitor.ended, after_round=[after_round],
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


def _watch(monitor: TaskMonitor, finished: threading.Event, task: Task, embedded, bots, humans: HumanSlots,
           runner, spend: Budget | None = None) -> None:
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
        if embedded is not None and not embedded.is_running():
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
