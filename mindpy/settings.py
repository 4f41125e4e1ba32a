"""Run settings: defaults, then a YAML settings file, then environment variables (MINDPY_<NAME>).

    settings = load_settings("settings.yaml")      # MINDPY_MAX_MESSAGES=20 overrides max_messages
Errors name the file (or the variable) and the field.
"""

from __future__ import annotations

import difflib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from . import DEFAULT_MINECRAFT_VERSION
from .errors import MindpyError, UserFileError
from .models.budget import BudgetLimits
from .userfiles import QUOTE_LIMIT, one_line, quote, read_user_file

ENV_PREFIX = "MINDPY_"
# Upper bounds that keep retries and timers finite (every number setting must also be a finite number).
MAX_MODEL_ATTEMPTS = 100
MAX_MODEL_TIMEOUT_S = 3600.0
MAX_CODE_TIMEOUT_MINS = 24 * 60
MAX_PROCESSES = 64
MAX_PLAYER_MESSAGES_PER_10S = 10_000


class SettingsError(MindpyError):
    """A settings file or variable holds something mindpy cannot use."""


PLAYER_COMMANDS = ("everyone", "trusted_players", "nobody")  # who may type !commands directly


@dataclass
class Settings:
    """What a run plays with: server, profiles, models and the agents' limits."""
    # where to play
    host: str = "localhost"
    port: int = 25565
    auth: str = "offline"                     # offline | microsoft
    minecraft_version: str = DEFAULT_MINECRAFT_VERSION
    # who plays
    base_profile: str = "survival"            # survival | creative | god_mode | task, or a path
    profiles: list[str] = field(default_factory=lambda: ["profiles/andy.yaml"])
    load_memory: bool = False                 # restore each bot's saved memory and turns on start
    init_message: str = ""                    # sent to every bot once it joins
    only_chat_with: list[str] = field(default_factory=list)  # empty: listen to everyone
    # what bots may do
    allow_insecure_coding: bool = False       # !newAction runs model-written code: off unless trusted
    trusted_players: list[str] = field(default_factory=list)  # who may have a bot write code (with the above)
    player_commands: str = "everyone"         # who may type !commands: one of PLAYER_COMMANDS
    # chat messages a player may send a bot's model in 10 s (a token bucket per player); the rest are not sent,
    # and the player is told once a burst. 0: no limit. Other bots of the run are not limited (mindpy.agent.rate_limit)
    player_messages_per_10s: int = 5
    blocked_actions: list[str] = field(default_factory=list)
    code_timeout_mins: float = -1.0           # -1: no limit of its own (the action's, 10 minutes)
    max_commands: int = -1                    # commands per loop, -1: no cap
    # prompts and memory
    relevant_docs_count: int = 5
    max_messages: int = 15
    num_examples: int = 2
    narrate_behavior: bool = True             # say mode actions ("Picking up item!") in chat
    chat_bot_messages: bool = True            # echo bot-to-bot messages to public chat
    log_all_prompts: bool = False
    # models
    model_attempts: int = 4                   # calls per prompt before giving up (429, 5xx, timeouts)
    model_timeout_s: float = 60.0
    # a folder of recorded model replies (mindpy.models.cache): a request answered before is answered from it, at
    # no cost; empty: off (`--cache` / `--cache-dir DIR` set it)
    response_cache: str = ""
    # run-wide limits on model calls, shared by every agent of a process (mindpy.models.budget.BudgetLimits):
    # max_requests_per_minute, max_tokens_per_minute, max_usd, usd_per_mtok; empty: no limits
    budget: dict = field(default_factory=dict)
    # processes: Python processes a `mindpy run` spreads its agents over, each with its own Node process for its
    # bots (mindpy.agent.processes); 1 keeps every agent in the run's own process
    processes: int = 1
    # files
    bots_dir: str = "bots"                    # per-bot state and archives
    # a skill library kept across runs and episodes: each agent's in DIR/<name>/ ("": bots_dir/<name>/skills/, which
    # in an episode lies in its run folder, so evaluations start empty); e.g. MINDPY_SKILLS_DIR=~/mindpy-skills
    skills_dir: str = ""
    cache_dir: str = ".cache"                 # embedding cache

    def to_dict(self) -> dict:
        return asdict(self)

    def model_options(self) -> dict:
        """What create_model takes from the settings: retries, time limit and the response cache."""
        return {"attempts": self.model_attempts, "timeout": self.model_timeout_s,
                "cache": self.response_cache or None}

    def budget_limits(self) -> BudgetLimits:
        """The `budget` mapping as BudgetLimits (checked when the settings were loaded)."""
        return BudgetLimits.from_mapping(self.budget)


_AUTH = ("offline", "microsoft")


def _field_types() -> dict[str, type]:
    out = {}
    for f in fields(Settings):
        if f.default is not MISSING:
            default = f.default
        elif callable(f.default_factory):
            default = f.default_factory()
        else:  # every Settings field has a default or a factory
            raise TypeError(f"Settings.{f.name} has no default")
        out[f.name] = type(default)
    return out


def _convert(name: str, value: Any, kind: type, where: str) -> Any:
    """Coerce `value` (from YAML or a variable's text) to the setting's type, or fail naming `where`."""
    def bad(expected: str):
        return SettingsError(f"{where}: setting '{name}' expects {expected}, got {_show(value)}")

    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise bad("true or false")
    if kind is int:
        if isinstance(value, bool):
            raise bad("an integer")
        try:
            return int(str(value).strip())
        except ValueError:
            raise bad("an integer") from None
    if kind is float:
        if isinstance(value, bool):
            raise bad("a number")
        try:
            number = float(str(value).strip()) if isinstance(value, str) else float(value)
        except (ValueError, TypeError, OverflowError):
            raise bad("a number") from None
        if not math.isfinite(number):
            raise bad("a finite number")
        return number
    if kind is dict:
        if isinstance(value, str):  # from a variable: JSON, e.g. MINDPY_BUDGET='{"max_usd": 5}'
            try:
                value = json.loads(value)
            except (ValueError, RecursionError):
                raise bad("a mapping (JSON in a variable)") from None
        if not isinstance(value, dict):
            raise bad("a mapping")
        return {str(k): v for k, v in value.items()}
    if kind is list:
        if isinstance(value, list):
            return [str(v) for v in value]
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):  # JSON list
                try:
                    return [str(v) for v in json.loads(text)]
                except (ValueError, TypeError, RecursionError):  # not JSON, not a list, or nested too deeply
                    raise bad("a list (JSON or comma-separated)") from None
            return [part.strip() for part in text.split(",") if part.strip()]
        raise bad("a list")
    if isinstance(value, (dict, list)):
        raise bad("a string")
    return str(value)


def _show(value: Any) -> str:
    """A value for a message: a short string as Python writes it, anything else quoted within bounds."""
    if isinstance(value, str) and len(value) <= QUOTE_LIMIT:
        return repr(value)
    return quote(value)


def _suggest(name: str) -> str:
    close = difflib.get_close_matches(name, [f.name for f in fields(Settings)], n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def load_settings(path: str | Path | None = None, env: Mapping[str, str] | None = None,
                  **overrides: Any) -> Settings:
    """Defaults <- settings file (YAML mapping) <- MINDPY_* variables <- keyword overrides."""
    env = os.environ if env is None else env
    types = _field_types()
    values: dict[str, Any] = {}
    if path is not None:
        values.update(_read_file(Path(path), types))
    for name, kind in types.items():
        var = ENV_PREFIX + name.upper()
        if var in env:
            values[name] = _convert(name, env[var], kind, f"environment variable {var}")
    for name, value in overrides.items():
        if name not in types:
            raise SettingsError(f"unknown setting '{name}'{_suggest(name)}")
        values[name] = _convert(name, value, types[name], "override")
    settings = Settings(**values)
    _check(settings, str(path) if path else "settings")
    return settings


def _read_file(path: Path, types: dict[str, type]) -> dict[str, Any]:
    try:
        data = read_user_file(path, "settings file")
    except UserFileError as exc:
        raise SettingsError(str(exc)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: a settings file must be a mapping of setting: value")
    out = {}
    for name, value in data.items():
        if name not in types:
            raise SettingsError(f"{path}: unknown setting {_show(str(name))}{_suggest(str(name)[:100])}")
        out[name] = _convert(name, value, types[name], str(path))
    return out


def _check(s: Settings, where: str) -> None:
    def fail(name: str, why: str):
        raise SettingsError(f"{where}: setting '{name}' {why}")

    if not 0 < s.port < 65536:
        fail("port", f"must be between 1 and 65535, got {s.port}")
    if s.player_commands not in PLAYER_COMMANDS:
        fail("player_commands", f"must be one of {', '.join(PLAYER_COMMANDS)}, got {_show(s.player_commands)}")
    if not 0 <= s.player_messages_per_10s <= MAX_PLAYER_MESSAGES_PER_10S:
        fail("player_messages_per_10s", f"must be from 0 (no limit) to {MAX_PLAYER_MESSAGES_PER_10S}, "
                                        f"got {_show(s.player_messages_per_10s)}")
    if s.auth not in _AUTH:
        fail("auth", f"must be one of {', '.join(_AUTH)}, got {_show(s.auth)}")
    if s.max_messages < 6:
        fail("max_messages", f"must be at least 6 (5 turns are summarized at a time), got {s.max_messages}")
    for name in ("num_examples", "relevant_docs_count"):
        if getattr(s, name) < 0:
            fail(name, "must not be negative")
    if not 1 <= s.processes <= MAX_PROCESSES:
        fail("processes", f"must be from 1 to {MAX_PROCESSES}, got {_show(s.processes)}")
    if not 1 <= s.model_attempts <= MAX_MODEL_ATTEMPTS:
        fail("model_attempts", f"must be from 1 to {MAX_MODEL_ATTEMPTS}, got {_show(s.model_attempts)}")
    if not 0 < s.model_timeout_s <= MAX_MODEL_TIMEOUT_S:
        fail("model_timeout_s", f"must be a number of seconds > 0 and at most {MAX_MODEL_TIMEOUT_S}, "
                                f"got {s.model_timeout_s}")
    try:
        BudgetLimits.from_mapping(s.budget)
    except ValueError as exc:
        fail("budget", one_line(str(exc)))
    if s.code_timeout_mins != -1 and not 0 < s.code_timeout_mins <= MAX_CODE_TIMEOUT_MINS:
        fail("code_timeout_mins", f"must be minutes > 0 and at most {MAX_CODE_TIMEOUT_MINS}, or -1 (no limit), "
                                  f"got {s.code_timeout_mins}")
