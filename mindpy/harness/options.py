"""The options of the commands that play tasks (`mindpy run --task`, `mindpy eval`): their flags, what they turn
into (budget limits, round rules, profile options), the arguments that give a child episode process the same
options, and the checks made before anything starts. The evaluation and the CLI both use them; this module uses
neither, so the two do not import each other."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..errors import ConfigError
from ..models.budget import BudgetLimits
from ..userfiles import one_line
from .ablations import Ablations, ablations_from_args
from .rounds import RoundOptions, RoundRequest


def add_budget_options(parser, usd_per_mtok: bool = True) -> None:
    """--max-usd, --max-rpm, --max-tpm (and --usd-per-mtok): the run-wide budget of model calls, over the
    settings' `budget`."""
    parser.add_argument("--max-usd", type=_positive_number, default=None, metavar="USD",
                        help="stop once the models have spent this many dollars (cut-off episodes end as 'budget')")
    parser.add_argument("--max-rpm", type=_positive_number, default=None, metavar="N",
                        help="model requests per minute, shared by all agents (calls wait for their turn)")
    parser.add_argument("--max-tpm", type=_positive_number, default=None, metavar="N",
                        help="model tokens per minute, shared by all agents")
    if usd_per_mtok:
        parser.add_argument("--usd-per-mtok", type=_price, default=None, metavar="USD",
                            help="dollars per million tokens for every model, instead of the price table")


def add_cache_options(parser) -> None:
    """--cache and --cache-dir DIR: answer a request made before from the response cache (mindpy.models.cache)."""
    parser.add_argument("--cache", action="store_true",
                        help="keep every model reply and answer a request made before from the cache, at no cost "
                             "(the same model, parameters, prompt: a rerun with the same seed replays for free)")
    parser.add_argument("--cache-dir", default=None, metavar="DIR",
                        help="the response cache's folder (implies --cache; default: MINDPY_CACHE or ~/.cache/mindpy, "
                             "then responses/)")


def cache_folder(args) -> str | None:
    """The response cache's folder the flags ask for, absolute (child processes may start elsewhere); None: off."""
    from pathlib import Path

    from ..models.cache import default_cache_dir

    folder = getattr(args, "cache_dir", None)
    if folder:
        return str(Path(folder).expanduser().resolve())
    return str(default_cache_dir().resolve()) if getattr(args, "cache", False) else None


def budget_limits(args, settings_budget: dict | None = None):
    """The BudgetLimits of a command: the settings' `budget` (the --settings file and MINDPY_BUDGET, or
    `settings_budget`), each given flag overriding its key. ConfigError (one line) for a bad settings file."""
    from ..models.budget import BudgetLimits
    from ..settings import SettingsError, load_settings

    if settings_budget is None:
        try:
            settings_budget = load_settings(getattr(args, "settings", None)).budget
        except SettingsError as exc:
            raise ConfigError(one_line(str(exc))) from None
    values = dict(settings_budget)
    for flag, key in (("max_usd", "max_usd"), ("max_rpm", "max_requests_per_minute"),
                      ("max_tpm", "max_tokens_per_minute"), ("usd_per_mtok", "usd_per_mtok")):
        if getattr(args, flag, None) is not None:
            values[key] = getattr(args, flag)
    try:
        return BudgetLimits.from_mapping(values)
    except ValueError as exc:
        raise ConfigError(f"budget: {one_line(str(exc))}") from None


def add_round_options(parser) -> None:
    """--rounds N, --realtime, --free-messages and --simultaneous-turns, for the commands that play tasks."""
    parser.add_argument("--rounds", type=_positive_int, default=None, metavar="N",
                        help="play in lockstep rounds, one turn per agent per round, at most N rounds (default: "
                             "coblock tasks play their paper's rounds, at most 60; other families in real time)")
    parser.add_argument("--realtime", action="store_true",
                        help="no rounds: agents act when they like, even in coblock tasks (ours; recorded)")
    parser.add_argument("--free-messages", action="store_true",
                        help="in rounds: a message does not use up the turn (by default it is the turn's action)")
    parser.add_argument("--simultaneous-turns", action="store_true",
                        help="in rounds: all agents take a round's turns at once, reading each other's messages "
                             "the next round (coblock's paper: one after another; ours, recorded)")


TOM_PROBES = "tom_probes"  # defuse only: not a profile field, the round runner asks the questions
# defuse's departures from its paper (mindpy.tasks.families.defuse.settings), off by default
DEFUSE_OURS = ("defuse_long_history", "defuse_lenient_validity", "defuse_show_phases")
DEFUSE_OPTIONS = (TOM_PROBES, *DEFUSE_OURS)
# orders' departures from its paper (mindpy.tasks.families.orders.play.OrdersOptions), off by default
ORDERS_OURS = ("orders_wall_clock", "orders_max_open", "orders_two_cook_demo")
CHEAT = "cheat"  # building assistance: the agents' `cheat` mode on (blocks placed with /setblock); paper: off


def add_method_options(parser) -> None:
    """--partner-modelling and --reflection (the CoBlock agent method), --tom-step and --verification
    (LLM-Coordination's), --belief-state, and --tom-probes (defuse), for the commands that play tasks."""
    parser.add_argument("--partner-modelling", action="store_true",
                        help="agents write partner and self modelling sections before acting (profile option)")
    parser.add_argument("--reflection", action="store_true",
                        help="agents get a review of the structure after each round and reflect on it (coblock)")
    parser.add_argument("--summarize-history", action="store_true",
                        help="coblock, ours: old turns are folded into a memory note (the paper keeps the whole "
                             "dialogue and action history in its XML state; profile option)")
    parser.add_argument("--check-goal", action="store_true",
                        help="coblock, ours: agents may run !checkGoal, which lists their missing and wrong blocks "
                             "(not in the paper; profile option)")
    parser.add_argument("--retrieved-examples", action="store_true",
                        help="coblock, ours: the 2 most similar short chat examples instead of the paper's "
                             "three-round examples (profile option)")
    parser.add_argument("--review-detail", action="store_true",
                        help="coblock, ours: with --reflection, the review also names floating blocks, blocks "
                             "outside the structure, clashes in the partner's cells and placeable missing blocks "
                             "(the paper's: whether the built structure is a part of the goal; profile option)")
    parser.add_argument("--tom-step", action="store_true",
                        help="agents note what each partner is doing and needs before each choice (profile option)")
    parser.add_argument("--verification", action="store_true",
                        help="agents check each chosen command against the state and choose again when it is not "
                             "okay (profile option)")
    parser.add_argument("--belief-state", action="store_true",
                        help="each agent rewrites a written belief (defuse: after every observation; other families: "
                             "about partners and progress, after new messages) that stands for its history in the "
                             "next prompt (profile option)")
    parser.add_argument("--tom-probes", action="store_true",
                        help="defuse tasks: after each action, ask the agents introspection, first- and second-order "
                             "questions about what it concerned (balanced yes/no); accuracy per level in result.json")
    parser.add_argument("--defuse-long-history", action="store_true",
                        help="defuse tasks, ours: the previous 6 rounds in each prompt (the paper's: 2)")
    parser.add_argument("--defuse-lenient-validity", action="store_true",
                        help="defuse tasks, ours: waits and message-only replies count as valid actions (the "
                             "paper's rule counts only allowed moves, inspections and cuts)")
    parser.add_argument("--defuse-show-phases", action="store_true",
                        help="defuse tasks, ours: an uninspected bomb shows how many phases it has left (the "
                             "paper's: its sequence is unknown)")
    parser.add_argument("--orders-wall-clock", action="store_true",
                        help="orders tasks, ours: commands run at once up to a cap in seconds per step, a slow one "
                             "keeping its cook busy into later steps (the paper's: discrete steps, each command busy "
                             "for its workload's steps)")
    parser.add_argument("--orders-max-open", action="store_true",
                        help="orders tasks, ours: at most 6 orders open; an arrival finding 6 open is skipped and "
                             "counts as failed (the paper's: no cap)")
    parser.add_argument("--orders-two-cook-demo", action="store_true",
                        help="orders tasks: the one-shot demonstration shows 2 cooks whatever the team's size (the "
                             "paper's Table 8 ablation; its main runs: a demonstration for the team's size)")
    parser.add_argument("--cheat", action="store_true",
                        help="building assistance: every agent's cheat mode on, so blocks are placed with "
                             "/setblock (the paper builds without; recorded in result.json and summary.json)")


def add_team_option(parser) -> None:
    """--team AGENT=MODEL (repeatable): a mixed team, for the commands that play tasks."""
    parser.add_argument("--team", action="append", default=[], metavar="AGENT=MODEL",
                        help="a model for one agent, by name or index (andy=gpt-4o-mini, 1=oracle); repeat for more; "
                             "the others play --model")


def method_options(args) -> dict:
    """The profile options the arguments turn on ({} for none)."""
    from ..profiles import METHOD_OPTIONS

    return {name: True for name in (*METHOD_OPTIONS, *DEFUSE_OPTIONS, *ORDERS_OURS, CHEAT)
            if getattr(args, name, False)}


def round_options(args):
    """The RoundRequest the arguments make (each family's play resolves it: mindpy.harness.rounds)."""
    from .rounds import RoundRequest

    return RoundRequest(limit=getattr(args, "rounds", None), realtime=bool(getattr(args, "realtime", False)),
                        free_messages=bool(getattr(args, "free_messages", False)),
                        simultaneous=bool(getattr(args, "simultaneous_turns", False)))


def _rounds_from(data: Any) -> RoundRequest | RoundOptions:
    """EpisodeOptions' `rounds` as `to_json` wrote it (RoundOptions have `most_calls`; None: the default)."""
    if data is None:
        return RoundRequest()
    return RoundOptions(**data) if "most_calls" in data else RoundRequest(**data)


def is_dispatching_player(model: str | None, task) -> bool:
    """Whether `--model human:NAME` names the player who gives an orders task's orders in chat; ConfigError for a
    bad name or another family (there a person joins in one of the task's human slots)."""
    from ..dispatch.human import human_player
    from ..tasks.family import family_of

    try:
        player = human_player(model)
    except ValueError as exc:
        raise ConfigError(f"--model {one_line(str(model), 80)}: {exc}") from None
    family = family_of(task)
    if player is not None and not family.human_dispatcher:
        raise ConfigError(f"--model human:NAME gives the orders of an orders task; {task.id} is a {family.name} task "
                          f"(a person joins one as a player named in its usernames)")
    return player is not None


def check_model_option(model: str | None) -> None:
    """ConfigError unless `--model` names a model that can be created (None: the default); checked before any
    server or episode starts, so that a typo costs nothing."""
    from ..models import missing_key
    from ..profiles import check_model_spec

    if model is None:
        return
    try:
        check_model_spec(model)
    except ValueError as exc:
        raise ConfigError(f"--model {one_line(model, 80)}: {one_line(str(exc))}") from None
    problem = missing_key(model)  # here, not in profiles: a profile may name a model the run never calls
    if problem:
        raise ConfigError(f"--model {one_line(model, 80)}: {problem}")


def _positive_int(text: str) -> int:
    """A whole number >= 1 from an argument; else argparse's one-line error."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {one_line(text, 40)!r}")
    return value


def _whole_number(text: str) -> int:
    """A whole number >= 0 from an argument; else argparse's one-line error."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {one_line(text, 40)!r}")
    return value


def _finite_number(text: str, above_zero: bool, wanted: str) -> float:
    """A finite number from an argument: above 0, or at least 0; else argparse's one-line error saying `wanted`."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and (value > 0 if above_zero else value >= 0)):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {one_line(text, 40)!r}")
    return value


def _positive_number(text: str) -> float:
    """A finite number above 0 from an argument."""
    return _finite_number(text, True, "a number above 0")


def _price(text: str) -> float:
    """Dollars per million tokens (>= 0) from an argument."""
    return _finite_number(text, False, "dollars per million tokens (a number >= 0)")


# ----- one episode's options, as an object that crosses to child processes and Ray workers -----
@dataclass(frozen=True)
class EpisodeOptions:
    """How one episode is played, besides its task and run directory: what `mindpy run --task` and each episode
    of `mindpy eval` take. It crosses to an episode's child process (or Ray worker) as JSON (`to_json`, read back
    by `from_json`), so a new option is one field here, not a flag, a parser and an argument builder."""

    model: str | None = None
    server: str = "embedded"
    seed: int = 0
    # a RoundRequest each family's play resolves, or RoundOptions every episode plays as they are
    rounds: RoundRequest | RoundOptions = field(default_factory=RoundRequest)
    profile_options: dict[str, bool] = field(default_factory=dict)  # the method switches (and defuse's probes)
    budget: BudgetLimits | None = None
    team: dict[str, str] = field(default_factory=dict)
    ablations: Ablations = field(default_factory=Ablations)  # the paper's ablations and named settings
    cache: str | None = None  # the response cache's folder (mindpy.models.cache); None: every call asks the model
    mc_version: str | None = None  # the Minecraft version (or "auto"); None: the minecraft_version setting

    @classmethod
    def from_args(cls, args: Any, budget: BudgetLimits | None = None) -> EpisodeOptions:
        """The options a command's arguments give (`budget`: limits already worked out; else from the flags)."""
        from .team import parse_team

        return cls(model=getattr(args, "model", None), server=getattr(args, "server", "embedded"),
                   seed=getattr(args, "seed", 0) or 0, rounds=round_options(args),
                   profile_options=method_options(args),
                   budget=budget if budget is not None else budget_limits(args),
                   team=parse_team(getattr(args, "team", [])), ablations=ablations_from_args(args),
                   cache=cache_folder(args), mc_version=getattr(args, "mc_version", None))

    def episode_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of mindpy.harness.episode.run_episode."""
        return {"model": self.model, "server": self.server, "seed": self.seed, "rounds": self.rounds,
                "profile_options": dict(self.profile_options), "budget": self.budget, "team": dict(self.team),
                "ablations": self.ablations,
                "settings_overrides": self.settings_overrides() or None}

    def settings_overrides(self) -> dict[str, Any]:
        """The settings these options set: the response cache and the Minecraft version, where given."""
        return {**({"response_cache": self.cache} if self.cache else {}),
                **({"minecraft_version": self.mc_version} if self.mc_version else {})}

    def to_json(self) -> str:
        """One line of JSON: what `from_json` reads back."""
        data = asdict(self)
        if self.budget is not None and self.budget.usd_per_mtok is not None:
            data["budget"]["usd_per_mtok"] = {k: v for k, v in asdict(self.budget.usd_per_mtok).items()
                                              if v is not None}
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EpisodeOptions:
        """The options `to_json` wrote; ConfigError (one line) for anything else."""
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            unknown = set(data) - {f.name for f in fields(cls)}
            if unknown:
                raise ValueError(f"unknown option(s) {sorted(unknown)}")
            rounds = data.get("rounds")
            budget = data.get("budget")
            return cls(model=data.get("model"), server=str(data.get("server", "embedded")),
                       seed=int(data.get("seed", 0)),
                       rounds=_rounds_from(rounds),
                       profile_options={str(k): bool(v) for k, v in dict(data.get("profile_options", {})).items()},
                       budget=None if budget is None else BudgetLimits.from_mapping(
                           {k: v for k, v in budget.items() if v is not None}),
                       team={str(k): str(v) for k, v in dict(data.get("team", {})).items()},
                       ablations=Ablations.from_dict(dict(data.get("ablations", {}))),
                       cache=None if data.get("cache") is None else str(data["cache"]),
                       mc_version=None if data.get("mc_version") is None else str(data["mc_version"]))
        except (ValueError, TypeError, AttributeError, ConfigError, argparse.ArgumentTypeError) as exc:
            raise ConfigError(f"episode options: {one_line(str(exc))}") from None


def resolved_mc_version(requested: str | None, server: str) -> str:
    """The Minecraft version a command plays on `server` ('embedded' or HOST:PORT): `requested` (--mc-version),
    else the minecraft_version setting (MINDPY_MINECRAFT_VERSION); `auto` asks a real server for its own. Found
    before anything starts: UnsupportedVersion (one line, listing the versions) or ServerError (no server answers)."""
    from ..server.address import parse_server
    from ..server.versions import resolve_version
    from ..settings import load_settings

    return resolve_version(requested or load_settings().minecraft_version, parse_server(server))
