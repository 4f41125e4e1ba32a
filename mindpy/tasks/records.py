"""Typed records of an episode's result.json and an evaluation's summary.json.

    result = EpisodeResult.read(run_dir / "result.json")   # old files too: a missing key gets its default
    result.score, result.end_reason, result.family, result.succeeded, result.counted
    result.extra["gamma"]                                   # what the task's family added (coblock, orders...)
    result.write(path)                                      # the same bytes as the file that was read

A key the record does not know (a family's own fields, or one a newer mindpy wrote) is kept in `extra`, and the
keys are written back in the order they were read, so nothing is lost or moved. A malformed file raises one
ValueError line naming the file and the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..models.budget import BUDGET_END_REASON  # cut off by the model budget: neither success nor failure
from .checkers import ERROR as ERROR_END_REASON
from .family import canonical_name

_NUMBER = (int, float)
MIXED = "mixed"  # a summary.json setting its episodes differ in (`cheat`: some built by hand, some with assistance)
Kinds = dict[str, tuple[type, ...]]  # key -> the JSON types its value may have (or null)


def _load_object(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"{path}: cannot be read ({e.strerror or e})") from None
    except ValueError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must hold a JSON object, got {type(data).__name__}")
    return data


def _check(source: str, key: str, value: Any, kinds: tuple[type, ...]) -> None:
    """`value` is None or of `kinds` (a bool is no number)."""
    if value is None or (isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)):
        return
    names = " or ".join(k.__name__ for k in kinds)
    raise ValueError(f"{source}: key {key!r} must be {names}, got {value!r}")


class _Record:
    """Shared reading and writing: known keys become fields, the rest go to `extra`, the key order is kept."""
    KINDS: ClassVar[Kinds] = {}
    ALWAYS: ClassVar[tuple[str, ...]] = ()  # keys a new record writes even when they hold their default
    NAME: ClassVar[str] = "record"

    extra: dict[str, Any]
    key_order: tuple[str, ...]

    @classmethod
    def _fields_from(cls, data: dict[str, Any], source: str) -> tuple[dict[str, Any], dict[str, Any]]:
        known, extra = {}, {}
        for key, value in data.items():
            if key in cls.KINDS:
                _check(source, key, value, cls.KINDS[key])
                known[key] = value
            else:
                extra[key] = value
        return known, extra

    def _value(self, key: str) -> Any:
        return getattr(self, key) if key in self.KINDS else self.extra[key]

    def _has(self, key: str) -> bool:
        if key in self.extra or key in self.key_order:
            return True  # a read file's keys are all written back; a new record's usual ones and those set
        if key not in self.KINDS:
            return False
        if not self.key_order and key in self.ALWAYS:
            return True
        return getattr(self, key) != getattr(type(self)(), key)  # set since it was read, or unlike the default

    def _default_order(self) -> list[str]:
        return [*self.KINDS, *self.extra]

    def to_dict(self) -> dict[str, Any]:
        """The file's dict: the keys read, in their order, then any set since (a new record: the usual order)."""
        order = list(self.key_order) or self._default_order()
        order += [k for k in self._default_order() if k not in order]
        return {key: self._value(key) for key in order if self._has(key)}

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return path


@dataclass(frozen=True)
class EpisodeResult(_Record):
    """One episode's result.json (mindpy.tasks.results.EpisodeRecorder, then the episode and its session)."""
    task_id: str = ""
    type: str = ""
    score: float = 0.0
    end_reason: str | None = None
    error: str | None = None
    started_at: str | None = None
    duration_s: float | None = None
    timeout_s: float | None = None
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)  # commands, commands_used, messages_sent...
    rounds: int | None = None  # round mode: the last round played
    budget: dict[str, Any] | None = None  # the models' spend (usd, max_usd, requests...)
    round_rules: dict[str, Any] | None = None
    round_tally: dict[str, Any] | None = None
    run_dir: str | None = None
    agent_names: list[str] = field(default_factory=list)
    cheat: bool | None = None  # the agents built with the cheat mode (/setblock); None: not recorded (older runs)
    extra: dict[str, Any] = field(default_factory=dict)  # the family's own fields (coblock: timesteps, gamma...)
    key_order: tuple[str, ...] = field(default=(), compare=False, repr=False)

    KINDS: ClassVar[Kinds] = {
        "task_id": (str,), "type": (str,), "score": _NUMBER, "end_reason": (str,), "error": (str,),
        "started_at": (str,), "duration_s": _NUMBER, "timeout_s": _NUMBER, "agents": (dict,), "rounds": (int,),
        "budget": (dict,), "round_rules": (dict,), "round_tally": (dict,), "run_dir": (str,),
        "agent_names": (list,), "cheat": (bool,)}
    ALWAYS: ClassVar[tuple[str, ...]] = ("task_id", "type", "score", "end_reason", "error", "started_at",
                                         "duration_s", "timeout_s", "agents")
    _BEFORE_FAMILY: ClassVar[tuple[str, ...]] = ALWAYS + ("rounds",)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "result") -> EpisodeResult:
        known, extra = cls._fields_from(data, source)
        for key in ("score", "agents", "agent_names", "task_id", "type"):  # null stands for the default
            if known.get(key, 0) is None:
                del known[key]
        return cls(**known, extra=extra, key_order=tuple(data))

    @classmethod
    def read(cls, path: str | Path) -> EpisodeResult:
        return cls.from_dict(_load_object(path), str(path))

    def _default_order(self) -> list[str]:  # as an episode writes it: the family's fields come after rounds
        return [*self._BEFORE_FAMILY, *self.extra, *(k for k in self.KINDS if k not in self._BEFORE_FAMILY)]

    @property
    def family(self) -> str:
        """The canonical family name of the task's type ("techtree" -> "crafting")."""
        return canonical_name(self.type)

    @property
    def cut_off(self) -> bool:
        return self.end_reason == BUDGET_END_REASON

    @property
    def succeeded(self) -> bool:
        """The task was done (score 1) and the episode not cut off by the budget."""
        return not self.cut_off and float(self.score) >= 1.0

    @property
    def counted(self) -> bool:
        """Counted in success rates: not an infrastructure error, not cut off by the budget."""
        return self.end_reason not in (ERROR_END_REASON, BUDGET_END_REASON)

    def value(self, key: str) -> Any:
        """A field, or a field the family added, by its key (None when the result has none)."""
        return getattr(self, key) if key in self.KINDS else self.extra.get(key)

    def total(self, key: str) -> int:
        """The agents' sum of a count (commands_used, messages_sent, tokens)."""
        return sum(int(entry.get(key) or 0) for entry in self.agents.values() if isinstance(entry, dict))


@dataclass(frozen=True)
class Summary(_Record):
    """An evaluation's summary.json (mindpy.harness.evaluate.summarize); each family's section (its `summary_key`:
    coblock, orders_cos, tom_probes) is in `families`, written at the top level."""
    model: str | None = None
    episodes: int = 0
    played: int = 0
    errors: int = 0
    success_rate: float = 0.0
    by_family: dict[str, Any] = field(default_factory=dict)
    by_family_and_agents: dict[str, Any] = field(default_factory=dict)
    tokens: int = 0
    cost_usd: float = 0.0
    budget: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    skipped_tasks: list[dict[str, Any]] = field(default_factory=list)
    by_breakdown: dict[str, Any] = field(default_factory=dict)
    trials: dict[str, Any] | None = None
    families: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    # building assistance as the episodes recorded it (their result.json's `cheat`), the run's --cheat when none
    # did; MIXED: its episodes differ; None: not recorded (older runs)
    cheat: bool | str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # construction_mean_score, errors_by_episode, team...
    key_order: tuple[str, ...] = field(default=(), compare=False, repr=False)

    KINDS: ClassVar[Kinds] = {
        "model": (str,), "episodes": (int,), "played": (int,), "errors": (int,), "success_rate": _NUMBER,
        "by_family": (dict,), "by_family_and_agents": (dict,), "tokens": (int,), "cost_usd": _NUMBER,
        "budget": (dict,), "skipped": (dict,), "skipped_tasks": (list,), "by_breakdown": (dict,),
        "trials": (dict,), "cheat": (bool, str)}
    ALWAYS: ClassVar[tuple[str, ...]] = tuple(k for k in KINDS if k != "cheat")

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "summary") -> Summary:
        from .family import families

        sections = {f.summary_key for f in families() if f.summary_key}
        known, extra = cls._fields_from({k: v for k, v in data.items() if k not in sections}, source)
        for key, value in data.items():
            if key in sections:
                _check(source, key, value, (dict,))
        if isinstance(known.get("cheat"), str) and known["cheat"] != MIXED:
            raise ValueError(f"{source}: key 'cheat' must be true, false or {MIXED!r}, got {known['cheat']!r}")
        return cls(**known, families={k: v for k, v in data.items() if k in sections}, extra=extra,
                   key_order=tuple(data))

    @classmethod
    def read(cls, path: str | Path) -> Summary:
        return cls.from_dict(_load_object(path), str(path))

    def _value(self, key: str) -> Any:
        return self.families[key] if key in self.families else super()._value(key)

    def _has(self, key: str) -> bool:
        return key in self.families or super()._has(key)

    def _default_order(self) -> list[str]:
        return [*self.KINDS, *self.families, *self.extra]
