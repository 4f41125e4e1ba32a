"""One episode's shared steps, whatever its family: an `EpisodeSession` refuses a task that cannot be played, makes
the run directory, names the agents, loads the settings and writes the agents' profiles, opens the console log,
starts (or reaches) the server, keeps the run's model budget and the outage watch, joins the agents, turns
infrastructure failures into `EpisodeInfraError` and writes `result.json`. A family's `play(session)` does only
its own part (mindpy.tasks.family; the goal-directed MineCollab play is mindpy.harness.episode's).

    with EpisodeSession(task, "runs/x", model="oracle", progress=print) as session:
        settings = session.load_settings()              # profiles written to RUN_DIR/profiles
        host, port = session.open_server()
        agents = session.start_runner(AgentRunner(settings, session.profiles, host, port, ...))
        with session.setting_up("the world"):
            set_up_task(...)
        session.write_result(result)

What an episode's run directory holds is said in mindpy.harness.episode.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import yaml

from .. import DEFAULT_MINECRAFT_VERSION
from ..errors import ConfigError, MindpyError, ServerError
from ..models.budget import Budget, BudgetLimits, release_budget, shared_budget
from ..models.outage import OutageWatch
from ..tasks.family import Family, family_of
from ..tasks.records import EpisodeResult
from ..tasks.schema import Task, unplayable_reason
from ..tasks.world import Issue, issue_via_bot, issue_via_server
from ..userfiles import one_line
from .ablations import Ablations
from .rounds import resolve_rounds
from .team import team_specs

AGENT_NAMES = ("andy", "jill", "bob", "sally", "mike", "kate", "leo", "nina")


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


def refuse_unplayable(task: Task, source: str | Path = "") -> None:
    """ConfigError (one line) when episodes of `task` cannot be played (its family says why)."""
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


def write_profiles(run_dir: Path, names: list[str], model: Any, base: str = "task",
                   options: dict[str, Any] | None = None, specs: dict[str, Any] | None = None,
                   fields: dict[str, Any] | None = None) -> list[Path]:
    """The profile each agent plays with (the base profile, the model, `options` and profile `fields`, such as
    the compact prompt's template), kept for the record. `specs`: a model for each agent by name (a mixed team),
    over `model`."""
    folder = run_dir / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        data: dict[str, Any] = {"name": name, "base_profile": base, **(fields or {}), **(options or {})}
        if data.pop("cheat", False):  # --cheat: the profile's own cheat mode on
            data["modes"] = {"cheat": True}
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


class Tee:
    """Writes to several streams (the console log file and the terminal)."""

    def __init__(self, *streams: IO[str]):
        self.streams = streams

    def write(self, text: str) -> None:
        for stream in self.streams:
            stream.write(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


class EpisodeSession:
    """The shared steps and resources of one episode (see the module doc). Options every family reads are
    attributes (`model`, `models`, `specs`, `server`, `seed`, `echo`, `rounds`, `profile_options`); those of one
    family are in `family_options` (orders' OrdersOptions, defuse's round limit and probes)."""

    def __init__(self, task: Task, run_dir: str | Path, *, model: Any = None, models: dict[str, Any] | None = None,
                 team: dict[str, str] | None = None, server: str = "embedded", seed: int = 0, echo: bool = False,
                 budget: BudgetLimits | None = None, settings_overrides: dict | None = None,
                 progress: Callable[[str], None] | None = None, rounds: Any = None,
                 profile_options: dict[str, Any] | None = None, family_options: dict[str, Any] | None = None,
                 names: list[str] | None = None, ablations: Ablations | None = None):
        refuse_unplayable(task)  # before anything starts
        self.task = task
        self.family: Family = family_of(task)
        if team and self.family.one_model:
            raise ConfigError(f"--team: an {self.family.name} task has one model for the whole team; give it "
                              f"with --model")
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.say: Callable[[str], None] = progress or (lambda text: None)
        self.names = list(names) if names is not None else agent_names(task)
        self.model = model
        self.models = models
        asked = ablations or Ablations()
        unhonoured = asked.unhonoured(self.family)
        if unhonoured:
            raise ConfigError(unhonoured)
        self.ablations = asked.for_family(self.family)  # as its play applies them
        specs = team_specs(team, self.names, model)
        if self.ablations.temperature is not None and models is None and None in specs.values():
            raise ConfigError("--temperature sets the temperature of a model you name: give --model (or --team for "
                              "every agent); the default model is each profile's own")
        self.specs = {name: self.ablations.with_temperature(spec) for name, spec in specs.items()}
        self.server = server
        self.seed = seed
        self.echo = echo
        self.budget = budget
        self.settings_overrides = dict(settings_overrides or {})
        self.rounds = resolve_rounds(rounds, self.family)  # RoundOptions, or None: real time
        self.profile_options = dict(profile_options or {})
        self.family_options = dict(family_options or {})
        self.settings: Any = None
        self.profiles: list[Any] = []
        self.limits: BudgetLimits | None = None
        self.embedded: Any = None
        self.host, self.port = "", 0
        self.spend: Budget | None = None
        self.outage = OutageWatch()  # hears of the first model call that found its endpoint down
        self.console: Any = None
        self._stack = contextlib.ExitStack()

    # ----- before the server -----
    def load_settings(self, *, base_profile: str | None = None, profile_model: bool = True,
                      **overrides: Any) -> Any:
        """The run's settings (bots' folders in the run directory, no memory loaded, `overrides`, then the run's
        own settings_overrides), with each agent's profile written to RUN_DIR/profiles (the family's base profile,
        the profile options and, with `profile_model`, the agent's model) and loaded into `profiles`. Sets
        `limits` (the run's budget, or the settings') and refuses an unpriced model before any server starts."""
        from ..profiles import load_profile
        from ..settings import load_settings

        base = base_profile or self.family.base_profile
        paths = write_profiles(self.run_dir, self.names, self.model if profile_model else None, base,
                               self.profile_options, self.specs if profile_model else None,
                               self.ablations.profile_fields())
        self.settings = load_settings(None, **{
            "bots_dir": str(self.run_dir / "bots"), "narrate_behavior": False, "load_memory": False,
            "profiles": [str(p) for p in paths], **overrides, **self.settings_overrides})
        # the ablations' blocked commands join the settings' own, in every family's play (the joining message is
        # the play's to send once the world is set up: sent at spawn, an agent would act on a world being set up)
        self.settings.blocked_actions = [*self.settings.blocked_actions, *self.ablations.blocked_actions()]
        self.settings.minecraft_version = self._resolved_version(self.settings.minecraft_version)
        self.profiles = [load_profile(p, settings=self.settings) for p in self.settings.profiles]
        self.limits = self.budget if self.budget is not None else self.settings.budget_limits()
        return self.settings

    def _resolved_version(self, requested: str) -> str:
        """The Minecraft version to play (`auto`: the server's own); UnsupportedVersion before anything starts."""
        from ..server.address import parse_server
        from ..server.versions import resolve_version

        address = parse_server(self.server)
        try:
            return resolve_version(requested, address)
        except ServerError as exc:  # `auto` found no server to ask: the infrastructure's failure
            raise EpisodeInfraError(f"minecraft_version auto: {exc}") from exc

    def refuse_unpriced(self, specs: Any = None) -> None:
        """ConfigError when a dollar limit is set and a model to be used has no known price."""
        assert self.limits is not None, "load_settings first"
        chosen = self.specs.values() if specs is None else specs
        for spec in {str(s): s for s in chosen}.values():
            refuse_unpriced(spec, self.limits)

    # ----- the episode's resources -----
    def __enter__(self) -> EpisodeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def on_close(self, callback: Callable[..., Any], *args: Any) -> None:
        """Call `callback(*args)` when the session closes (last registered, first called)."""
        self._stack.callback(callback, *args)

    def enter(self, context: Any) -> Any:
        """Enter a context manager that the session closes."""
        return self._stack.enter_context(context)

    def open_console(self) -> Any:
        """The console log (RUN_DIR/console.log; also the terminal with `echo`): who said and did what."""
        from ..agent.runner import ConsoleLog

        console_file = (self.run_dir / "console.log").open("a", encoding="utf-8")
        self.on_close(console_file.close)
        self.console = ConsoleLog(Tee(console_file, sys.stdout) if self.echo else console_file)
        self.on_close(self.console.close)  # runs first (last in, first out)
        return self.console

    def open_server(self) -> tuple[str, int]:
        """Start the embedded server (closed with the session) or reach the one given; (host, port)."""
        version = self.settings.minecraft_version if self.settings is not None else None
        self.embedded, self.host, self.port = open_server(self._stack, self.server, self.run_dir,
                                                          version or DEFAULT_MINECRAFT_VERSION)
        return self.host, self.port

    def open_budget(self) -> Budget:
        """The one budget of every model call of the episode (mindpy.models.budget)."""
        assert self.limits is not None, "load_settings first"
        self.spend = shared_budget(str(self.run_dir), self.limits)
        self.on_close(release_budget, str(self.run_dir))
        return self.spend

    def start_runner(self, runner: Any, who: str = "agents") -> dict[str, Any]:
        """Enter the agent runner and start its agents; EpisodeInfraError when they cannot join."""
        self.enter(runner)
        try:
            return runner.start()
        except MindpyError as exc:
            raise EpisodeInfraError(f"the {who} could not join {self.host}:{self.port}: {exc}") from exc

    def join_bots(self) -> list[Any]:
        """Bare bots of the agents' names (no agent loop), closed with the session."""
        from ..bridge import create_bots

        try:
            bots = create_bots(self.names, self.host, self.port, version=self.settings.minecraft_version)
        except MindpyError as exc:
            raise EpisodeInfraError(f"the agents could not join {self.host}:{self.port}: {exc}") from exc
        for bot in bots:
            self.on_close(bot.close)
        return bots

    def issue_for(self, bots: list[Any]) -> Issue:
        """How set-up commands are sent: the embedded server's console, or the first bot (an operator)."""
        return issue_via_server(self.embedded) if self.embedded is not None else issue_via_bot(bots[0])

    @contextlib.contextmanager
    def setting_up(self, what: str = "") -> Iterator[None]:
        """A world set-up that fails is the infrastructure's failure: EpisodeInfraError."""
        try:
            yield
        except EpisodeInfraError:
            raise
        except MindpyError as exc:  # WorldSetupError, or a bot or the server that failed during the set-up
            raise EpisodeInfraError(f"{what} was not set up: {exc}" if what else str(exc)) from exc

    def server_stopped(self) -> bool:
        """Has the embedded server stopped during the episode?"""
        return self.embedded is not None and not self.embedded.is_running()

    # ----- the end -----
    def write_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """Write RUN_DIR/result.json (the result with the run directory, the agents' names and the response cache
        the models answered from, None when off); returns what was written."""
        cache = getattr(self.settings, "response_cache", "") or None
        record = EpisodeResult.from_dict({**result, "run_dir": str(self.run_dir), "agent_names": self.names,
                                          "response_cache": cache})
        record.write(self.run_dir / "result.json")
        return record.to_dict()

