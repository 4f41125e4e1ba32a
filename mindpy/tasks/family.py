"""Task families: what one kind of task is, in one object, and the registry that finds it by name.

A family (crafting, cooking, construction, coblock, orders, defuse, or one a user adds) knows everything that
differs between kinds of task: its name and the other names files use for it, its own task fields, whether a task
of it can be played, its generator and split sizes, its solvability check, how its world is set up, its checker,
which commands its agents may not use, how an episode of it is played, how its results are summarized and what the
oracle needs to plan it. Code outside the families asks the task's family (`family_of(task)`) instead of testing
the task's type.

    from mindpy.tasks.family import family_named, family_of, register
    family_named("techtree").name      # "crafting": one family, two names
    family_of(task).checker(task)       # the checker that scores the task
    register("mycraft", "my_package.family:MyFamily")   # a family of one's own (or the entry point below)

Families are registered by name with an entry point, "module:attribute" (a Family subclass or instance), and
loaded when first asked for, as Gymnasium registers environments: nothing is imported before it is needed, and a
family may hold parts of several layers (its `play` module is a run, its `oracle` module a player) without the
lower layers importing them. mindpy's own families live in `mindpy/tasks/families/<name>/`; other packages add
theirs through the `mindpy.families` entry-point group:

    [project.entry-points."mindpy.families"]
    mycraft = "my_package.family:MyFamily"

docs/adding-a-family.md walks through writing one.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import ConfigError

if TYPE_CHECKING:  # names for types only: the schema imports this module
    from .checkers import Checker, HumanInventories
    from .schema import Task
    from .world import TaskSetup

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "mindpy.families"
FAMILIES_PACKAGE = "mindpy.tasks.families"
BUILTIN = ("crafting", "cooking", "construction", "coblock", "orders", "defuse")


class Family:
    """Everything one kind of task knows. A family subclasses this and overrides the hooks it needs (mindpy's
    families of things to make or build start from mindpy.tasks.families.common.ItemsFamily)."""

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()       # other names of the family in task files ("techtree")
    type_name: ClassVar[str] = ""                 # the `type` its task files carry ("" = the name)
    summary: ClassVar[str] = ""                   # one line for `mindpy tasks families`
    fields: ClassVar[tuple[str, ...]] = ()        # task fields only this family has
    required_fields: ClassVar[tuple[str, ...]] = ()  # common fields its tasks must have ("target", "blueprint")
    inferred: ClassVar[bool] = False              # a MineCollab file's task without a type may be this family
    inference_rank: ClassVar[int] = 0             # the order inferred families are asked in (lowest first)
    split_sizes: ClassVar[Mapping[str, int]] = {}  # split -> number of tasks the generator makes
    base_profile: ClassVar[str] = "task"          # the profile its agents build on (profiles/)
    blocked_commands: ClassVar[tuple[str, ...]] = ()  # commands no agent of the family may use
    # the sets of family commands its agents see (mindpy.commands: "coblock", "defuse"); the others' they do not
    command_sets: ClassVar[tuple[str, ...]] = ()
    builds: ClassVar[bool] = False                # its goal is a structure: set-up stands agents at the site
    # its score is a fraction (how much of a blueprint matches): summaries give its mean score and SFT export keeps
    # its best quarter of episodes (MINDcraft's rule for construction), not only those scoring 1
    partial_scores: ClassVar[bool] = False
    # "module:function" of how an episode is played (None: MineCollab's: agents prompting themselves toward their
    # goals, the checker on the update tick); a family of another shape plays its own (mindpy.harness.session)
    play_entry: ClassVar[str | None] = None
    # "module:Class" of the scripted player's plan for the family's goals (mindpy.oracle); None: it has none
    oracle_entry: ClassVar[str | None] = None
    # "module:function" turning another system's task file into this family's tasks (`mindpy tasks convert`): it
    # takes the file's path and returns an object with `tasks` (id -> task dict), `refused` (the refused tasks),
    # `problem_lines()` and `warning_lines()`, and raises TaskFileError for a file it cannot read at all; None: none
    convert_entry: ClassVar[str | None] = None
    convert_source: ClassVar[str] = ""  # what `convert_entry` reads, for the command's help
    # "module:Class" of the probe questions built from its played episodes (mindpy.probes.build); None: none
    probes_entry: ClassVar[str | None] = None
    # episodes per task `mindpy eval` plays when --trials is not given: its paper's count (orders: the mean of 3)
    paper_trials: ClassVar[int] = 1
    # how the embedded server rolls drops during its episodes (plugins/39_loot_rolls.js): "random" as vanilla, or
    # "expected" (every count and chance its expected value) where two plays of a task must hand out the same items
    loot_rolls: ClassVar[str] = "random"
    one_model: ClassVar[bool] = False          # one model plays for the whole team (no --team)
    human_dispatcher: ClassVar[bool] = False   # `--model human:NAME` makes a player give the team's orders
    episode_options: ClassVar[tuple[str, ...]] = ()  # episode switches only this family takes (defuse's probes)
    # the paper's ablations its play honours (mindpy.harness.ablations.ABLATION_NAMES); an episode asking for
    # another is refused, since its record would claim a setting the play never applied ("prompt": the compact
    # prompt replaces the task prompt, profiles/task.yaml's, so a family with a prompt of its own leaves it out)
    ablations: ClassVar[tuple[str, ...]] = ("communication", "tools", "init_message", "temperature", "prompt")
    summary_key: ClassVar[str | None] = None   # the key of summary.json holding `summarize`'s figures
    # what its paper's bots are told once the task's world is set up (the default of --init-message); "": nothing
    joining_message: ClassVar[str] = ""
    # its paper plays in rounds of one turn per agent: at most this many by default (None: in real time; either
    # way `--rounds N` and `--realtime` choose; mindpy.harness.rounds.RoundRequest)
    round_limit: ClassVar[int | None] = None
    sequential_turns: ClassVar[bool] = False   # its paper's agents take a round's turns one after another

    # ----- the task file -----
    def recognises(self, data: Mapping[str, Any]) -> str | None:
        """For an `inferred` family: why a MINDcraft task that names no type is of this family ("it has a
        blueprint"), or None. Families are asked in `inference_rank` order; the first that recognises wins."""
        return None

    def file_type(self) -> str:
        """The `type` a task file of this family carries."""
        return self.type_name or self.name

    def parse_fields(self, parser: Any) -> Any:
        """This family's fields of one task's dictionary (`fields`), typed; kept as `Task.fields` (None: the family
        has none). `parser` is the schema's parser of the task: `parser.data` the dictionary, `parser.notes` where
        problems go (`add(field, message)`, `whole(message)`, `warn(field, message)`), `parser.kw` the task's
        keywords read so far, `parser.agent_count` and `parser.human_count`."""
        return None

    def fields_to_dict(self, task: Task) -> dict[str, Any]:
        """The family's fields of `task` as the task file writes them."""
        fields = getattr(task.fields, "as_dict", None)
        return fields() if fields is not None else {}

    def unplayable_reason(self, task: Task) -> str | None:
        """None when episodes of `task` can be played; otherwise one line saying why not."""
        return None

    # ----- generating -----
    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        """The split's task dictionaries, by id (deterministic from the seed; `count` None: the split's size;
        `agents`: the team sizes to make, as `mindpy tasks generate --agents` gives them)."""
        raise ConfigError(f"the {self.name} family has no generator")

    def count(self, split: str, count: int | None) -> int:
        """`count`, or the split's size."""
        if count is not None:
            return count
        if split not in self.split_sizes:
            raise ConfigError(f"the {self.name} family has no {split!r} split (it has: "
                              f"{', '.join(self.split_sizes) or 'none'})")
        return self.split_sizes[split]

    def examples(self) -> dict[str, dict[str, Any]]:
        """A small task or two of the family for demos (tasks/example_tasks.json), by id; {} for none."""
        return {}

    # ----- solvability -----
    def unsolvable_reason(self, task: Task, version: str) -> str | None:
        """None when the task can be solved from what the team and the world hold; otherwise one line why not.
        The default: solvable (a family that can tell says so)."""
        return None

    # ----- the world -----
    def plan_world(self, setup: TaskSetup, origin: tuple[int, int, int] | None, seed: int) -> None:
        """Add the family's world (sites, stations, supplies) and stand the agents (`mindpy.tasks.world.plan_agent`
        gives each its items and its spot): every family that sets up a world says how."""
        raise NotImplementedError(f"the {self.name} family does not say how its world is set up")

    # ----- scoring -----
    def checker(self, task: Task, human_inventories: HumanInventories | None = None) -> Checker:
        """The checker that scores the task (its `check(bots)` gives a CheckResult)."""
        raise NotImplementedError(f"the {self.name} family has no checker")

    def result_fields(self, recorder: Any, agents: dict[str, dict]) -> dict[str, Any]:
        """What the family adds to an episode's result (mindpy.tasks.results), from the recorder's counts;
        `agents` are the result's per-agent entries (the family may add to them)."""
        return {}

    def breakdown(self, task: Task) -> dict[str, str]:
        """Values of the evaluation's breakdown keys (mindpy.harness.evaluate.BREAKDOWN_FIELDS) that only this
        family's tasks have (coblock: coblock_type)."""
        return {}

    def summarize(self, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The family's own figures over its played episodes' rows of results.csv (each with its `run_dir`, whose
        result.json it may read), kept in summary.json under `summary_key`; None: it has none."""
        return None

    def reviewer(self, task: Task, names: list[str], agents: Callable[[], dict]) -> Any:
        """What reviews the agents' work during play (CoBlock's reflection), or None; see Reviewer in
        mindpy.tasks.families.coblock.reflection for what it offers."""
        return None

    # ----- agents -----
    def commands_blocked_for(self, task: Task, index: int) -> list[str]:
        """Commands agent `index` may not use in this family's tasks (the task's own are added by the caller)."""
        return list(self.blocked_commands)

    def configure_agent(self, task: Task, agent: Any) -> None:
        """Switch on or off what an agent of this family needs before play (modes, protected blocks)."""

    def hells_kitchen(self, task: Task) -> bool:
        """Does each agent have a target of its own (MINDcraft's Hell's Kitchen)?"""
        return False

    # ----- text -----
    def kind_text(self, task: Task) -> str:
        """The task's kind, for `mindpy tasks show`."""
        return task.type

    def describe(self, task: Task) -> list[str]:
        """Lines of `mindpy tasks show` that only this family has (indented by two spaces)."""
        return []

    def describe_player(self, task: Task, index: int) -> list[str]:
        """Lines of `mindpy tasks show` on player `index` that only this family has (indented by four spaces)."""
        return []

    def what(self, task: Task) -> str:
        """A few words on what the task wants, for the file's list (`mindpy tasks show FILE`)."""
        return ""

    def __repr__(self) -> str:
        return f"<task family {self.name}>"


@dataclass(frozen=True)
class _Entry:
    name: str
    target: str | Family | type[Family]   # "module:attribute", or the family itself
    source: str                          # "mindpy", "entry point", "register()"


class _Registry:
    """Families by name and alias, loaded when first asked for. Thread-safe: episodes look families up from several
    threads."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._loaded: dict[str, Family] = {}
        self._aliases: dict[str, str] = {}
        self._lock = threading.RLock()
        self._discovered = False
        self._reported: set[str] = set()
        for name in BUILTIN:
            self._entries[name] = _Entry(name, f"{FAMILIES_PACKAGE}.{name}:FAMILY", "mindpy")

    def register(self, name: str, target: str | Family | type[Family], *, replace: bool = False,
                 source: str = "register()") -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"a task family's name must be a word of letters, digits and _, got {name!r}")
        with self._lock:
            if name in self._entries and not replace and self._entries[name].target != target:
                raise ConfigError(f"task family {name!r} is already registered (from {self._entries[name].source});"
                                  f" pass replace=True to replace it")
            self._entries[name] = _Entry(name, target, source)
            self._loaded.pop(name, None)
            self._aliases = {a: n for a, n in self._aliases.items() if n != name}

    def _discover(self) -> None:
        """Families other packages add through the entry-point group (once)."""
        if self._discovered:
            return
        self._discovered = True
        for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
            if entry.name not in self._entries:
                self._entries[entry.name] = _Entry(entry.name, entry.value, "entry point")

    def names(self) -> list[str]:
        with self._lock:
            self._discover()
            return list(self._entries)

    def get(self, name: str) -> Family:
        with self._lock:
            self._discover()
            canonical = self._canonical(name)
            if canonical not in self._loaded:
                self._loaded[canonical] = self._load(self._entries[canonical])
            return self._loaded[canonical]

    def _canonical(self, name: str) -> str:
        if name in self._entries:
            return name
        if not self._aliases or name not in self._aliases:
            self._aliases = {alias: family.name for family in self.loadable()
                             for alias in (*family.aliases, family.file_type()) if alias != family.name}
        if name in self._aliases:
            return self._aliases[name]
        known = ", ".join(sorted(self._entries))
        raise UnknownFamily(f"unknown task family {name!r}: one of {known}")

    def loadable(self) -> list[Family]:
        """Every registered family that loads; one that does not is reported once and left out (a broken plugin
        must not stop the others)."""
        found = []
        for name, entry in list(self._entries.items()):
            if name not in self._loaded:
                try:
                    self._loaded[name] = self._load(entry)
                except ConfigError as exc:
                    if name not in self._reported:
                        self._reported.add(name)
                        log.warning("%s", exc)
                    continue
            found.append(self._loaded[name])
        return found

    def source(self, name: str) -> str:
        return self._entries[name].source

    @staticmethod
    def _load(entry: _Entry) -> Family:
        target: Any = entry.target
        if isinstance(target, str):
            module_name, _, attribute = target.partition(":")
            try:
                target = getattr(importlib.import_module(module_name), attribute or "FAMILY")
            except (ImportError, AttributeError) as exc:
                raise ConfigError(f"task family {entry.name!r} ({entry.source}): cannot load {entry.target!r}: "
                                  f"{exc}") from None
        family = target() if isinstance(target, type) else target
        if not isinstance(family, Family):
            raise ConfigError(f"task family {entry.name!r} ({entry.source}): {entry.target!r} is not a Family")
        if family.name != entry.name:
            raise ConfigError(f"task family {entry.name!r} ({entry.source}) calls itself {family.name!r}")
        return family


class UnknownFamily(ConfigError, KeyError):
    """A name no registered family has."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


_REGISTRY = _Registry()


def register(name: str, target: str | Family | type[Family], *, replace: bool = False) -> None:
    """Register a family by name: `target` is "module:attribute" (loaded when first asked for), a Family
    subclass or an instance."""
    _REGISTRY.register(name, target, replace=replace)


def family_named(name: str) -> Family:
    """The family a name (or alias, or a file's type) stands for; UnknownFamily (one line) otherwise."""
    return _REGISTRY.get(name)


def family_of(task: Task) -> Family:
    """The family of a task (by its type)."""
    return _REGISTRY.get(task.type)


def command_sets_of(task: Any) -> tuple[str, ...]:
    """The family command sets an agent with this task sees (none without a task, or for an unknown type)."""
    kind = getattr(task, "type", None)
    return family_named(kind).command_sets if isinstance(kind, str) and is_family(kind) else ()


def scores_partially(kind: str) -> bool:
    """Is a family (by name or type) judged by its mean score rather than by success? False for an unknown one."""
    return is_family(kind) and family_named(kind).partial_scores


def canonical_name(kind: str) -> str:
    """The family name a task type or alias stands for ("techtree" -> "crafting"); an unknown one as it is (an old
    result of a family no longer registered)."""
    return family_named(kind).name if is_family(kind) else kind


def family_names() -> list[str]:
    """Every registered family's name: mindpy's own first, then the others in the order they came."""
    return _REGISTRY.names()


def families() -> list[Family]:
    """Every registered family that loads (one that does not is reported once in the log and left out)."""
    with _REGISTRY._lock:
        _REGISTRY._discover()
        return _REGISTRY.loadable()


def family_source(name: str) -> str:
    """Where a family was registered from: "mindpy", "entry point" or "register()"."""
    return _REGISTRY.source(family_named(name).name)


def is_family(name: str) -> bool:
    """Does a registered family have this name (or alias, or file type)?"""
    try:
        family_named(name)
    except UnknownFamily:
        return False
    return True


def file_types() -> list[str]:
    """The `type` each family's task files carry (crafting's "techtree"); a family's name and aliases are read too."""
    return [family.file_type() for family in families()]


def inferred_families() -> list[Family]:
    """The families a MINDcraft task without a type may be read as."""
    return [family for family in families() if family.inferred]


def load_entry(target: str) -> Callable[..., Any]:
    """The function or class a "module:attribute" string names (a family's `play_entry`, `oracle_entry`);
    ConfigError (one line) when it cannot be loaded."""
    module_name, _, attribute = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"cannot load {target!r}: {exc}") from None


def unregister(name: str) -> None:
    """Forget a family registered with `register` (tests)."""
    with _REGISTRY._lock:
        _REGISTRY._entries.pop(name, None)
        _REGISTRY._loaded.pop(name, None)
        _REGISTRY._aliases = {}


__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "Family", "UnknownFamily", "canonical_name", "command_sets_of", "families",
           "family_named", "family_names", "family_of", "family_source", "file_types", "inferred_families", "is_family",
           "load_entry", "register", "scores_partially", "unregister"]
