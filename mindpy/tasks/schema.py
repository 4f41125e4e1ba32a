"""Typed MineCollab tasks, parsed and validated from MINDcraft's task-file dictionaries.

A task file maps task id -> task. This module checks each task on its own: a bad task never blocks the others.
Checking one task's dictionary gives a `Task` or the task's problems, and its warnings (what was read in a way
the file did not spell out: an old item name, a count that disagreed with the inventories, a missing type); every
message names the file, the task id and the field. A `Task` turns back into the same dictionary (MINDcraft's
field spellings and key order), so files round-trip unchanged.

    task = Task.from_dict("my_task", {...}, source="tasks/x.json")      # TaskFileError when the task is bad
    check = check_task("my_task", {...}); check.task, check.problems, check.warnings
    report = check_tasks(file_mapping, source="tasks/x.json"); report.tasks, report.problems, report.warnings
    task.goal_for(1), task.targets(), task.inventory_for(0), task.blocked_actions_for(1)
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Collection, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, MindpyError
from ..userfiles import one_line, shown_name
from ..userfiles import quote as _show
from .blueprint import MAX_ITEM_COUNT, Blueprint
from .family import UnknownFamily, family_named, file_types, inferred_families, is_family

DEFAULT_TIMEOUT = 300

# Ranges of the numbers in a task: what a run can play (the embedded server admits 50 players; an inventory holds
# 36 stacks of 64) and what keeps set-up and timers finite.
MAX_PLAYERS = 50
MAX_TIMEOUT_S = 24 * 60 * 60
MAX_RECIPE_DEPTH = 1000
WORLD_BORDER = 30_000_000         # |x| and |z| of any block
WORLD_HEIGHT = (-64, 319)         # the lowest and highest block y
MAX_PROBLEMS_SHOWN = 20           # problem lines printed for a file (the rest are counted); `.problems` keeps all

# Fields this module understands, in the order a new task is written. Anything else is kept as it is.
KNOWN_FIELDS = (
    "type", "goal", "conversation", "agent_count", "human_count", "usernames", "initial_inventory", "target",
    "number_of_target", "timeout", "blocked_actions", "missing_items", "requires_crafting_table",
    "requires_ctable", "max_depth", "depth", "recipes", "blocked_access_to_recipe", "difficulty_metrics",
    "blueprint",
)
# A family's own fields (coblock's private goals, orders' stream, defuse's map) are its family's to read and check
# (`Family.fields`, `Family.parse_fields`); in a task of another family they are kept as they are.
# Fields MINDcraft's task files carry that are kept without a warning ('task_type' tells a task's type when 'type'
# is missing; 'difficulty' is a label of its own; an episode reads 'restrict_to_inventory' from `Task.extra`).
MINDCRAFT_FIELDS = ("task_type", "difficulty", "restrict_to_inventory")
GoalBlock = tuple[int, int, int, str]  # a private goal's block: x, y, z (absolute) and block name

# Item and block names that are not names any more, and today's name for each. A task that uses one is read with
# today's name and a warning, as long as the Minecraft version has the new name and not the old one. Only names
# with one clear successor are listed (1.12's `grass`, `snow`, `melon` or `stone_slab` mean something else today).
LEGACY_ITEM_NAMES = {
    # 1.14: the dyes got colour names
    "rose_red": "red_dye",
    "dandelion_yellow": "yellow_dye",
    "cactus_green": "green_dye",
    # 1.13 (the flattening): one name per block and item instead of name + damage value (value 0 is kept)
    "wooden_slab": "oak_slab",
    "wooden_planks": "oak_planks",
    "planks": "oak_planks",
    "log": "oak_log",
    "log2": "acacia_log",
    "leaves": "oak_leaves",
    "leaves2": "acacia_leaves",
    "sapling": "oak_sapling",
    "wool": "white_wool",
    "carpet": "white_carpet",
    "stained_glass": "white_stained_glass",
    "stained_glass_pane": "white_stained_glass_pane",
    "stained_hardened_clay": "white_terracotta",
    "hardened_clay": "terracotta",
    "concrete": "white_concrete",
    "concrete_powder": "white_concrete_powder",
    "silver_shulker_box": "light_gray_shulker_box",
    "silver_glazed_terracotta": "light_gray_glazed_terracotta",
    "wooden_door": "oak_door",
    "wooden_pressure_plate": "oak_pressure_plate",
    "wooden_button": "oak_button",
    "fence": "oak_fence",
    "fence_gate": "oak_fence_gate",
    "trapdoor": "oak_trapdoor",
    "boat": "oak_boat",
    "sign": "oak_sign",
    "golden_rail": "powered_rail",
    "stonebrick": "stone_bricks",
    "brick_block": "bricks",
    "netherbrick": "nether_brick",
    "red_nether_brick": "red_nether_bricks",
    "red_flower": "poppy",
    "yellow_flower": "dandelion",
    "tallgrass": "short_grass",
    "deadbush": "dead_bush",
    "web": "cobweb",
    "noteblock": "note_block",
    "snow_layer": "snow",
    "reeds": "sugar_cane",
    "melon_block": "melon",
    "speckled_melon": "glistering_melon_slice",
    "lit_pumpkin": "jack_o_lantern",
    "waterlily": "lily_pad",
    "mob_spawner": "spawner",
    "quartz_ore": "nether_quartz_ore",
    "magma": "magma_block",
    "slime": "slime_block",
    "portal": "nether_portal",
    "fish": "cod",
    "cooked_fish": "cooked_cod",
    "firework_charge": "firework_star",
    "fireworks": "firework_rocket",
    "totem": "totem_of_undying",
    "chorus_fruit_popped": "popped_chorus_fruit",
    # later renames
    "grass_path": "dirt_path",  # 1.17
    "scute": "turtle_scute",    # 1.20.5
    # never item names, but written in task files: raw meat is named without "raw_"
    "raw_beef": "beef",
    "raw_chicken": "chicken",
    "raw_porkchop": "porkchop",
    "raw_mutton": "mutton",
    "raw_rabbit": "rabbit",
    "raw_cod": "cod",
    "raw_salmon": "salmon",
}


class TaskFileError(MindpyError):
    """A task file (or one task in it) is malformed. `.problems` lists every message."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(first_lines(self.problems)))


def first_lines(lines: list[str], limit: int = MAX_PROBLEMS_SHOWN, noun: str = "problems") -> list[str]:
    """The first `limit` lines, and one that counts the rest: a file with 50,000 bad tasks must not flood the
    terminal."""
    if len(lines) <= limit:
        return list(lines)
    return lines[:limit] + [f"... and {len(lines) - limit} more {noun}"]


class NameChecker:
    """Checks item and block names against minecraft-data and suggests close names."""

    def __init__(self, items: Iterable[str], blocks: Iterable[str]):
        self.items = frozenset(items)
        self.blocks = frozenset(blocks)

    @classmethod
    def for_version(cls, version: str | None = None) -> NameChecker:
        from .. import DEFAULT_MINECRAFT_VERSION
        from ..mcdata import minecraft_data

        data = minecraft_data(version or DEFAULT_MINECRAFT_VERSION)
        return cls(data.items_by_name, data.blocks_by_name)

    @staticmethod
    def _suggest(name: str, known: frozenset[str]) -> str:
        if name in LEGACY_ITEM_NAMES and LEGACY_ITEM_NAMES[name] in known:
            return f" (did you mean '{LEGACY_ITEM_NAMES[name]}'?)"
        lowered = name.strip().lower().replace(" ", "_")
        if lowered != name and lowered in known:
            return f" (did you mean '{lowered}'?)"
        for candidate in (lowered + "s", lowered.rstrip("s"), lowered + "es"):
            if candidate != name and candidate in known:
                return f" (did you mean '{candidate}'?)"
        close = difflib.get_close_matches(lowered, sorted(known), n=1, cutoff=0.75)
        return f" (did you mean '{close[0]}'?)" if close else ""

    @staticmethod
    def _modern(name: str, known: frozenset[str]) -> str | None:
        new = LEGACY_ITEM_NAMES.get(name)
        return new if new is not None and name not in known and new in known else None

    def modern_item(self, name: str) -> str | None:
        """Today's name for an old item name this version does not know (None when `name` is not one)."""
        return self._modern(name, self.items)

    def modern_block(self, name: str) -> str | None:
        """Today's name for an old block name, with any block-state suffix kept (None when it is not one)."""
        base, bracket, states = name.partition("[")
        new = self._modern(base, self.blocks)
        return new + bracket + states if new is not None else None

    def item_problem(self, name: str) -> str | None:
        if name in self.items:
            return None
        return f"has unknown item '{name}'{self._suggest(name, self.items)}"

    def block_problem(self, name: str) -> str | None:
        base = name.split("[", 1)[0]  # a block-state suffix such as oak_stairs[facing=east] is allowed
        if base in self.blocks:
            return None
        return f"has unknown block '{name}'{self._suggest(base, self.blocks)}"


def is_int(value: Any) -> bool:
    """A whole number (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """An int or a float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def int_in(value: Any, low: int, high: int) -> bool:
    """A whole number from `low` to `high`."""
    return is_int(value) and low <= value <= high


def range_problem(value: Any, low: int, high: int) -> str:
    """What is wrong with a number outside low..high, and what it was."""
    if is_int(value) and value > high:
        return f"must be an integer from {low} to {high}, got {_show(value)}"
    return f"must be an integer >= {low}, got {_show(value)}"


def counted(n: int, noun: str) -> str:
    """'1 task', '2 tasks'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


class Notes:
    """Collects the problems (the task cannot be used) and warnings (it was read with a change) of one task."""

    def __init__(self, source: str, task_id: str):
        self.prefix = f"{source}: task '{shown_name(str(task_id))}'"
        self.problems: list[str] = []
        self.warnings: list[str] = []

    def add(self, fld: str, message: str) -> None:
        self.problems.append(f"{self.prefix}: field '{shown_name(fld)}' {one_line(message)}")

    def whole(self, message: str) -> None:
        self.problems.append(f"{self.prefix}: {one_line(message)}")

    def warn(self, fld: str, message: str) -> None:
        self.warnings.append(f"{self.prefix}: warning: field '{shown_name(fld)}' {one_line(message)}")


def unplayable_reason(task: Task) -> str | None:
    """None when episodes of the task can be played; otherwise one line saying why not (its family says)."""
    try:
        family = family_named(task.type)
    except UnknownFamily:
        return f"{task.type} tasks cannot be played: no task family of that name is registered"
    return family.unplayable_reason(task)


def agent_key(key: Any) -> str | None:
    """'0', 0 (YAML) -> '0'; anything else -> None."""
    if is_int(key) and key >= 0:
        return str(key)
    if isinstance(key, str) and key.isdigit() and len(key) <= 6:  # no agent index has more digits
        return str(int(key))
    return None


@dataclass(frozen=True)
class Task:
    """One MineCollab task. Field names follow MINDcraft's; shapes that vary (goal, target, inventory) are kept as
    given, and the accessor methods normalise them."""

    id: str
    type: str
    agent_count: int
    goal: str | dict[str, str]
    conversation: str | None = None
    initial_inventory: dict[str, dict[str, int]] = field(default_factory=dict)
    target: str | list[str] | dict[str, int] | None = None
    number_of_target: int | dict[str, int] | None = None
    timeout: float = DEFAULT_TIMEOUT
    blocked_actions: dict[str, list[str]] | list[str] = field(default_factory=dict)
    missing_items: list[str] = field(default_factory=list)
    requires_crafting_table: bool | None = None
    max_depth: int | None = None
    depth: int | None = None
    recipes: dict[str, list[str]] = field(default_factory=dict)
    blocked_access_to_recipe: list[str] = field(default_factory=list)
    difficulty_metrics: dict[str, Any] = field(default_factory=dict)
    blueprint: Blueprint | None = None
    human_count: int = 0
    usernames: list[str] = field(default_factory=list)
    fields: Any = None  # the family's own typed fields (orders' order stream, defuse's map), None when it has none
    extra: dict[str, Any] = field(default_factory=dict)
    # How the source spelled things, so `to_dict` writes the file back as it was.
    key_order: tuple[str, ...] = ()
    ctable_key: str = "requires_ctable"
    flat_inventory: bool = False

    # ----- accessors -----
    @property
    def is_hells_kitchen(self) -> bool:
        """Does each agent have a target of its own (MINDcraft's Hell's Kitchen; its family says)?"""
        return is_family(self.type) and family_named(self.type).hells_kitchen(self)

    def goal_for(self, agent_index: int) -> str:
        """The agent's goal; "" for an agent the goal mapping leaves out (MINDcraft gives it an empty goal)."""
        if isinstance(self.goal, str):
            return self.goal
        return self.goal.get(str(agent_index), "")

    def inventory_for(self, agent_index: int) -> dict[str, int]:
        if self.flat_inventory:
            return dict(self.initial_inventory.get("0", {})) if agent_index == 0 else {}
        return dict(self.initial_inventory.get(str(agent_index), {}))

    def blocked_actions_for(self, agent_index: int) -> list[str]:
        if isinstance(self.blocked_actions, list):
            return list(self.blocked_actions)
        return list(self.blocked_actions.get(str(agent_index), []))

    def has_recipe_access(self, agent_index: int) -> bool:
        return str(agent_index) not in self.blocked_access_to_recipe

    def targets(self) -> dict[str, int]:
        """Every target item -> the count required (MINDcraft's rules: a {item: count} target is used as is;
        otherwise number_of_target gives the count, one number for all or a dict per item; default 1)."""
        if self.target is None:
            return {}
        if isinstance(self.target, dict):
            return dict(self.target)
        names = [self.target] if isinstance(self.target, str) else list(self.target)
        result: dict[str, int] = {}
        for name in names:
            if isinstance(self.number_of_target, dict):
                count = self.number_of_target.get(name, 1)
            elif self.number_of_target is None:
                count = 1
            else:
                count = self.number_of_target
            result[name] = count
        return result

    def targets_for(self, agent_index: int) -> dict[str, int]:
        """What this agent must hold at the end: its own item in Hell's Kitchen, otherwise all targets."""
        if self.is_hells_kitchen:
            names = list(self.target)  # type: ignore[arg-type]
            if agent_index < len(names):
                name = names[agent_index]
                return {name: self.targets()[name]}
            return {}
        return self.targets()

    @property
    def requires_ctable(self) -> bool:
        return bool(self.requires_crafting_table)

    @property
    def agent_indices(self) -> range:
        return range(self.agent_count)

    # ----- conversion -----
    @classmethod
    def from_dict(cls, task_id: str, data: Any, *, source: str = "<memory>",
                  names: NameChecker | None = None) -> Task:
        """Validate and type one task. Raises TaskFileError listing every problem found (warnings are dropped:
        `check_task` returns them)."""
        check = check_task(task_id, data, source=source, names=names)
        if check.task is None:
            raise TaskFileError(check.problems)
        return check.task

    def to_dict(self) -> dict[str, Any]:
        """MINDcraft's dictionary for this task, keys in the source's order (new keys last)."""
        values: dict[str, Any] = {}
        values["type"] = self.type
        values["goal"] = copy.deepcopy(self.goal)
        if self.conversation is not None:
            values["conversation"] = self.conversation
        values["agent_count"] = self.agent_count
        values["human_count"] = self.human_count
        values["usernames"] = list(self.usernames)
        if self.flat_inventory:
            values["initial_inventory"] = dict(self.initial_inventory.get("0", {}))
        else:
            values["initial_inventory"] = copy.deepcopy(self.initial_inventory)
        if self.target is not None:
            values["target"] = copy.deepcopy(self.target)
        if self.number_of_target is not None:
            values["number_of_target"] = copy.deepcopy(self.number_of_target)
        values["timeout"] = self.timeout
        values["blocked_actions"] = copy.deepcopy(self.blocked_actions)
        values["missing_items"] = list(self.missing_items)
        if self.requires_crafting_table is not None:
            values[self.ctable_key] = self.requires_crafting_table
        if self.max_depth is not None:
            values["max_depth"] = self.max_depth
        if self.depth is not None:
            values["depth"] = self.depth
        values["recipes"] = copy.deepcopy(self.recipes)
        values["blocked_access_to_recipe"] = list(self.blocked_access_to_recipe)
        values["difficulty_metrics"] = copy.deepcopy(self.difficulty_metrics)
        if self.blueprint is not None:
            values["blueprint"] = self.blueprint.to_dict()
        own_fields: tuple[str, ...] = ()
        if is_family(self.type):
            family = family_named(self.type)
            values.update(family.fields_to_dict(self))
            own_fields = family.fields
        values.update(copy.deepcopy(self.extra))

        order = list(self.key_order) if self.key_order else _default_order(values, own_fields)
        out: dict[str, Any] = {}
        for key in order:
            if key in values:
                out[key] = values[key]
        for key in _default_order(values, own_fields):  # fields set in code that the source did not have
            if key in out or (key == "timeout" and self.timeout == DEFAULT_TIMEOUT):
                continue
            if key == "agent_count" and self.key_order:  # old files leave it out; parsing infers it
                continue
            out[key] = values[key]
        return out


def _default_order(values: Mapping[str, Any], own_fields: tuple[str, ...] = ()) -> list[str]:
    """Order for tasks made in code: known fields first, then the family's own; empty optional fields left out."""
    optional_empty = {
        "human_count": 0, "usernames": [], "missing_items": [], "recipes": {}, "blocked_access_to_recipe": [],
        "difficulty_metrics": {}, "blocked_actions": {}, "initial_inventory": {},
    }
    keys = []
    known = (*KNOWN_FIELDS, *own_fields)
    for key in known:
        if key in values and not (key in optional_empty and values[key] == optional_empty[key]):
            keys.append(key)
    keys.extend(k for k in values if k not in known)
    return keys


# ----- checking tasks and files -----
@dataclass(frozen=True)
class TaskCheck:
    """What checking one task found: the task (None when it has problems), its problems and its warnings."""

    task_id: str
    task: Task | None
    problems: list[str]
    warnings: list[str]


@dataclass
class TaskFileReport:
    """What reading one task file found, task by task. `tasks` holds the valid tasks; `problems` maps each invalid
    task id to its problems; `warnings` maps task ids to their warnings; `file_problems` says why the file could
    not be read at all (then there are no tasks). `task_ids` lists every id of the file, checked or not."""

    source: str
    task_ids: list[str] = field(default_factory=list)
    tasks: dict[str, Task] = field(default_factory=dict)
    problems: dict[str, list[str]] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    file_problems: list[str] = field(default_factory=list)
    file_warnings: list[str] = field(default_factory=list)  # about many tasks at once (a field nobody reads)

    @property
    def ok(self) -> bool:
        """The file was read and every task checked is valid."""
        return not self.file_problems and not self.problems

    @property
    def warning_count(self) -> int:
        return len(self.file_warnings) + sum(len(w) for w in self.warnings.values())

    def messages(self) -> list[str]:
        """Every problem and warning, the file's first, then task by task in the file's order."""
        lines = self.file_problems + self.file_warnings
        for task_id in self.task_ids:
            lines += self.problems.get(task_id, []) + self.warnings.get(task_id, [])
        return lines

    def all_problems(self) -> list[str]:
        return self.file_problems + [p for task_id in self.task_ids for p in self.problems.get(task_id, [])]

    def summary(self) -> str:
        """One line: tasks, valid, invalid, warnings."""
        line = (f"{self.source}: {counted(len(self.task_ids), 'task')}, {len(self.tasks)} valid, "
                f"{len(self.problems)} invalid, {counted(self.warning_count, 'warning')}")
        return line + (" (the file could not be read)" if self.file_problems else "")

    def raise_for_problems(self) -> None:
        """TaskFileError listing every problem, if the file or any task has one."""
        problems = self.all_problems()
        if problems:
            raise TaskFileError(problems)

    def task(self, task_id: str) -> Task:
        """The valid task `task_id`; TaskFileError with its problems, or with a close id when it is not there."""
        if self.file_problems:
            raise TaskFileError(self.file_problems)
        if task_id in self.tasks:
            return self.tasks[task_id]
        if task_id in self.problems:
            raise TaskFileError(self.problems[task_id])
        close = difflib.get_close_matches(task_id, self.task_ids, n=1)
        hint = f" (did you mean '{shown_name(close[0])}'?)" if close else ""
        raise TaskFileError([f"{self.source}: no task '{shown_name(task_id)}'{hint}; the file has "
                             f"{counted(len(self.task_ids), 'task')}"])


def check_task(task_id: str, data: Any, *, source: str = "<memory>", names: NameChecker | None = None) -> TaskCheck:
    """Check and type one task, never raising: its problems and warnings name the file, task and field."""
    notes = Notes(source, task_id)
    try:
        task = _TaskParser(task_id, data, notes, names).parse()
    except Exception as exc:  # a shape no check foresaw: a problem of this task, never a crash of the file
        notes.whole(f"could not be read ({type(exc).__name__}: {one_line(str(exc), 120)})")
        task = None
    return TaskCheck(str(task_id), None if notes.problems else task, notes.problems, notes.warnings)


def check_tasks(mapping: Any, *, source: str = "<memory>", names: NameChecker | None = None,
                only: Collection[str] | None = None, consume: bool = False) -> TaskFileReport:
    """Check every task of a file's top-level mapping (or only the ids in `only`), each on its own. With
    `consume`, each task's entry leaves the mapping once checked, so the file's raw data and the typed tasks are
    not held in full at once (a caller that parsed the file itself; 110,000 tasks take about 250 MB each way)."""
    report = TaskFileReport(source)
    if not isinstance(mapping, Mapping):
        report.file_problems.append(f"{source}: a task file must map task ids to tasks, got {_show(mapping)}")
        return report
    report.task_ids = list(dict.fromkeys(str(task_id) for task_id in mapping))
    spellings: dict[str, list[Any]] = {}
    for task_id in mapping:
        spellings.setdefault(str(task_id), []).append(task_id)
    unknown: dict[str, list[str]] = {}  # field -> the ids of the tasks that have it
    for task_id in list(mapping):
        if only is not None and str(task_id) not in only:
            continue
        data = mapping.pop(task_id) if consume and isinstance(mapping, MutableMapping) else mapping[task_id]
        if len(spellings[str(task_id)]) > 1:  # YAML keys 1 and "1": one id, neither may silently replace the other
            report.problems[str(task_id)] = [
                f"task '{shown_name(str(task_id))}': the id is given {len(spellings[str(task_id)])} times "
                f"({' and '.join(repr(k) for k in spellings[str(task_id)])}); give each task its own id"]
            continue
        check = check_task(str(task_id), data, source=source, names=names)
        for key in _unknown_fields(data):
            unknown.setdefault(key, []).append(check.task_id)
        if check.task is not None:
            report.tasks[check.task_id] = check.task
        else:
            report.problems[check.task_id] = check.problems
        if check.warnings:
            report.warnings[check.task_id] = check.warnings
    report.file_warnings = [f"{source}: warning: unknown field '{shown_name(key)}' in {counted(len(ids), 'task')} "
                            f"(the first: '{shown_name(ids[0])}'); it is kept but not used"
                            for key, ids in unknown.items()]
    return report


def _unknown_fields(data: Any) -> list[str]:
    """The fields of a task's mapping that no part of mindpy reads for the task's type (a typo such as 'timout')."""
    if not isinstance(data, Mapping):
        return []
    kind = data.get("type")
    own = family_named(kind).fields if isinstance(kind, str) and is_family(kind) else ()
    return [str(key) for key in data if key not in KNOWN_FIELDS and key not in own and key not in MINDCRAFT_FIELDS]


def parse_tasks(mapping: Any, *, source: str = "<memory>", names: NameChecker | None = None) -> dict[str, Task]:
    """Every task of a file's top-level mapping; raises TaskFileError with all problems of all tasks."""
    report = check_tasks(mapping, source=source, names=names)
    report.raise_for_problems()
    return report.tasks


# ----- parsing -----
def _highest_agent_index(data: Mapping[str, Any]) -> tuple[int, str]:
    """The highest player index the inventories and the goal mapping have an entry for (-1: none), and which of
    the two fields has it."""
    highest, where = -1, ""
    for fld in ("initial_inventory", "goal"):
        value = data.get(fld)
        if not isinstance(value, Mapping):
            continue
        for key in value:
            index = agent_key(key)
            if index is not None and int(index) > highest:
                highest, where = int(index), fld
    return highest, where


def _inferred_type(data: Mapping[str, Any]) -> tuple[str, str]:
    """The type of a task that names none, and why: its 'task_type' field (MINDcraft's label), else the first
    family that recognises what the task holds (`Family.recognises`; MINDcraft's files: construction tasks hold a
    blueprint, cooking tasks recipes or several targets, crafting tasks one target item)."""
    candidates = sorted(inferred_families(), key=lambda family: family.inference_rank)
    label = data.get("task_type")
    for family in candidates:
        if isinstance(label, str) and label in (family.file_type(), family.name):
            return family.file_type(), "its 'task_type' field"
    for family in candidates:
        why = family.recognises(data)
        if why:
            return family.file_type(), why
    raise ConfigError("no task family reads a task without a type")  # the crafting family reads any


def _people(agents: int, humans: int) -> str:
    return counted(agents, "agent") + (f" and {counted(humans, 'human')}" if humans else "")


class _TaskParser:
    """Reads one task's dictionary field by field into `Task`'s keywords, noting problems and warnings."""

    def __init__(self, task_id: str, data: Any, notes: Notes, names: NameChecker | None):
        self.task_id = task_id
        self.data = data
        self.notes = notes
        self.names = names
        self.kw: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}
        self.agent_count = 0
        self.human_count = 0
        self.players = 1_000_000  # unknown until the counts are read (or when they are bad): no range checks
        self._renamed: set[tuple[str, str]] = set()
        self.own_fields: tuple[str, ...] = ()  # the family's fields: not kept in `extra`

    def parse(self) -> Task | None:
        if not isinstance(self.task_id, str) or not self.task_id:
            self.notes.whole(f"task ids must be non-empty strings, got {_show(self.task_id)}")
        if not isinstance(self.data, Mapping):
            self.notes.whole(f"must be a mapping of field -> value, got {_show(self.data)}")
            return None
        self.kw["id"] = self.task_id
        self.kw["key_order"] = tuple(str(k) for k in self.data.keys())
        steps = (self._type, self._counts, self._usernames, self._goal, self._conversation, self._inventories,
                 self._target, self._number_of_target, self._timeout, self._blocked_actions, self._missing_items,
                 self._crafting_table, self._depths, self._recipes, self._recipe_access, self._metrics,
                 self._blueprint, self._family_fields)
        for step in steps:
            step()
        known = KNOWN_FIELDS + self.own_fields
        for key, value in self.data.items():
            if key not in known:
                self.extra[str(key)] = copy.deepcopy(value)
        return Task(**self.kw, extra=self.extra)

    # ----- names -----
    def item_name(self, name: str, fld: str, kind: str = "item") -> str:
        """Today's name for an item (or block) name, with a warning (once per field) when it is an old one."""
        if self.names is None:
            return name
        new = self.names.modern_item(name) if kind == "item" else self.names.modern_block(name)
        if new is None:
            return name
        if (fld, name) not in self._renamed:
            self._renamed.add((fld, name))
            self.notes.warn(fld, f"has the old {kind} name '{name}': read as '{new}'")
        return new

    def _modern_keys(self, mapping: Mapping[str, Any], fld: str, high: int | None = None) -> dict[str, Any]:
        """The mapping with old item names replaced; counts of two spellings of one item add up (to at most
        `high`: each count was checked alone, their sum is checked here)."""
        out: dict[str, Any] = {}
        summed: set[str] = set()
        for name, value in mapping.items():
            name = self.item_name(name, fld)
            if name in out and is_int(out[name]) and is_int(value):
                out[name] += value
                summed.add(name)
            else:
                out.setdefault(name, value)
        for name in out:
            if name in summed and high is not None and out[name] > high:
                self.notes.add(f"{fld}.{name}", f"adds up to {out[name]} under its old and new names; at most {high}")
        return out

    def _check_items(self, fld: str, items: Iterable[str]) -> None:
        if self.names is None:
            return
        for item in items:
            message = self.names.item_problem(item)
            if message:
                self.notes.add(fld, message)

    # ----- type and counts -----
    def _type(self) -> None:
        task_type = self.data.get("type")
        if task_type is None:
            task_type, why = _inferred_type(self.data)
            self.notes.warn("type", f"is missing: read as {task_type} ({why})")
        elif not isinstance(task_type, str) or not is_family(task_type):
            self.notes.add("type", f"must be one of {', '.join(file_types())}, got {_show(task_type)}")
        self.kw["type"] = task_type

    def _counts(self) -> None:
        """agent_count and human_count. Inventories or goals for more agents than agent_count says raise it (the
        larger count wins, with a warning); files that leave agent_count out get it from them."""
        humans = self.data.get("human_count", 0)
        if not int_in(humans, 0, MAX_PLAYERS - 1):
            self.notes.add("human_count", range_problem(humans, 0, MAX_PLAYERS - 1))
            humans = 0
        highest, where = _highest_agent_index(self.data)
        implied = highest + 1 - humans
        declared = self.data.get("agent_count")
        if "agent_count" not in self.data:  # old single-agent files leave it out
            agents = max(1, implied)
        elif not int_in(declared, 1, MAX_PLAYERS):
            self.notes.add("agent_count", range_problem(declared, 1, MAX_PLAYERS))
            agents = 0  # unknown: agent indices below are not range-checked
        elif implied > declared:
            self.notes.warn("agent_count", f"is {declared} but '{where}' has an entry for index {highest}: read as "
                                           f"{_people(implied, humans)}")
            agents = implied
        else:
            agents = declared
        if agents and agents + humans > MAX_PLAYERS:
            if agents == declared:
                self.notes.add("agent_count", f"and human_count add up to {agents + humans} players; a run admits "
                                              f"at most {MAX_PLAYERS}")
            else:
                self.notes.add(where, f"has entries for {agents + humans} players; a run admits at most "
                                      f"{MAX_PLAYERS}")
                agents = 0
        self.agent_count, self.human_count = agents, humans
        self.kw["agent_count"], self.kw["human_count"] = agents, humans
        if agents:
            self.players = agents + humans

    def _usernames(self) -> None:
        usernames = self.data.get("usernames", [])
        if not isinstance(usernames, list) or not all(isinstance(u, str) and u for u in usernames):
            self.notes.add("usernames", f"must be a list of player names, got {_show(usernames)}")
            usernames = []
        self.kw["usernames"] = list(usernames)

    def _indices(self) -> str:
        """The agent indices the task has, for messages (any while the counts are unknown or bad)."""
        return f"0..{self.players - 1}" if self.agent_count else "(0, 1, ...)"

    def index_problem(self, fld: str, key: Any) -> None:
        self.notes.add(fld, f"has key {_show(key)}: keys must be agent indices {self._indices()}")

    # ----- goal and conversation -----
    def _goal(self) -> None:
        goal = self.data.get("goal")
        if goal is None:
            self.notes.add("goal", "is required (a string, or a mapping agent index -> string)")
            goal = ""
        elif isinstance(goal, Mapping):
            goal = self._goal_mapping(goal)
        elif not isinstance(goal, str):
            self.notes.add("goal", f"must be a string or a mapping agent index -> string, got {_show(goal)}")
            goal = ""
        self.kw["goal"] = goal

    def _goal_mapping(self, goal: Mapping[Any, Any]) -> dict[str, str]:
        parsed: dict[str, str] = {}
        bad: set[str] = set()
        for key, text in goal.items():
            index = agent_key(key)
            if index is None or int(index) >= self.players:
                self.index_problem("goal", key)
            elif not isinstance(text, str):
                self.notes.add(f"goal.{index}", f"must be a string, got {_show(text)}")
                bad.add(index)
            else:
                parsed[index] = text
        missing = [str(i) for i in range(self.agent_count) if str(i) not in parsed and str(i) not in bad]
        if len(missing) == 1:
            self.notes.warn("goal", f"has no goal for agent {missing[0]}: it gets an empty goal, as in MINDcraft")
        elif missing:
            self.notes.warn("goal", f"has no goal for agents {', '.join(missing)}: each gets an empty goal, as in "
                                    f"MINDcraft")
        return parsed

    def _conversation(self) -> None:
        conversation = self.data.get("conversation")
        if conversation is not None and not isinstance(conversation, str):
            self.notes.add("conversation", f"must be a string, got {_show(conversation)}")
            conversation = None
        self.kw["conversation"] = conversation

    # ----- inventories and items -----
    def _inventories(self) -> None:
        raw = self.data.get("initial_inventory", {})
        inventories: dict[str, dict[str, int]] = {}
        flat = False
        if not isinstance(raw, Mapping):
            self.notes.add("initial_inventory", f"must be a mapping agent index -> {{item: count}}, got {_show(raw)}")
        elif raw and all(agent_key(k) is None for k in raw) and self.players == 1:
            flat = True  # a single agent's inventory written without the "0" level
            inventories["0"] = self._inventory(raw, "initial_inventory") or {}
        else:
            for key, value in raw.items():
                index = agent_key(key)
                if index is None or int(index) >= self.players:
                    self.index_problem("initial_inventory", key)
                    continue
                inventory = self._inventory(value, f"initial_inventory.{index}")
                if inventory is not None:
                    inventories[index] = inventory
        self.kw["initial_inventory"] = inventories
        self.kw["flat_inventory"] = flat

    def _inventory(self, raw: Any, fld: str) -> dict[str, int] | None:
        if not isinstance(raw, Mapping):
            self.notes.add(fld, f"must be a mapping of item name -> count, got {_show(raw)}")
            return None
        inventory: dict[str, int] = {}
        for item, count in raw.items():
            if not isinstance(item, str) or not item:
                self.notes.add(fld, f"has an item name that is not a string: {_show(item)}")
                continue
            if not int_in(count, 0, MAX_ITEM_COUNT):
                self.notes.add(f"{fld}.{item}", range_problem(count, 0, MAX_ITEM_COUNT))
                continue
            inventory[item] = count
        inventory = self._modern_keys(inventory, fld, MAX_ITEM_COUNT)
        self._check_items(fld, inventory)
        return inventory

    def _target(self) -> None:
        target = self.data.get("target")
        task_type = self.kw["type"]
        if target is None:
            if "target" in self.required_fields():
                self.notes.add("target", f"is required for {task_type} tasks")
        elif isinstance(target, str):
            target = self.item_name(target, "target")
            self._check_items("target", [target])
        elif isinstance(target, list):
            if not target or not all(isinstance(t, str) and t for t in target):
                self.notes.add("target", f"must be a non-empty list of item names, got {_show(target)}")
                target = None
            else:
                target = [self.item_name(t, "target") for t in target]
                self._check_items("target", target)
        elif isinstance(target, Mapping):
            target = self._target_counts(target)
        else:
            self.notes.add("target", f"must be an item name, a list of item names or {{item: count}}, got "
                                     f"{_show(target)}")
            target = None
        self.kw["target"] = target

    def _target_counts(self, target: Mapping[Any, Any]) -> dict[str, int]:
        parsed = self._item_counts(target, "target")
        if not target:
            self.notes.add("target", "must not be empty")
        self._check_items("target", parsed)
        return parsed

    def _item_counts(self, raw: Mapping[Any, Any], fld: str) -> dict[str, int]:
        """{item: count} with every count from 1 to MAX_ITEM_COUNT (the others are problems), in today's names."""
        parsed: dict[str, int] = {}
        for item, count in raw.items():
            if not int_in(count, 1, MAX_ITEM_COUNT):
                self.notes.add(f"{fld}.{item}", range_problem(count, 1, MAX_ITEM_COUNT))
            else:
                parsed[str(item)] = count
        return self._modern_keys(parsed, fld, MAX_ITEM_COUNT)

    def _number_of_target(self) -> None:
        number = self.data.get("number_of_target")
        if number is None:
            pass
        elif is_int(number):
            if not int_in(number, 1, MAX_ITEM_COUNT):
                self.notes.add("number_of_target", range_problem(number, 1, MAX_ITEM_COUNT))
        elif isinstance(number, Mapping):
            number = self._item_counts(number, "number_of_target")
        else:
            self.notes.add("number_of_target", f"must be an integer from 1 to {MAX_ITEM_COUNT} or {{item: count}}, "
                                               f"got {_show(number)}")
            number = None
        self.kw["number_of_target"] = number

    def _missing_items(self) -> None:
        missing = self.data.get("missing_items", [])
        if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
            self.notes.add("missing_items", f"must be a list of item names, got {_show(missing)}")
            missing = []
        else:
            missing = [self.item_name(m, "missing_items") for m in missing]
            self._check_items("missing_items", missing)
        self.kw["missing_items"] = list(missing)

    # ----- time and actions -----
    def _timeout(self) -> None:
        timeout = self.data.get("timeout", DEFAULT_TIMEOUT)
        if not is_number(timeout) or not 0 < timeout <= MAX_TIMEOUT_S:  # also refuses NaN, which compares false
            limit = f" and at most {MAX_TIMEOUT_S}" if is_number(timeout) and timeout > MAX_TIMEOUT_S else ""
            self.notes.add("timeout", f"must be a number of seconds > 0{limit}, got {_show(timeout)}")
            timeout = DEFAULT_TIMEOUT
        self.kw["timeout"] = timeout

    def _blocked_actions(self) -> None:
        blocked = self.data.get("blocked_actions", {})
        if isinstance(blocked, list):
            blocked = self._actions(blocked, "blocked_actions") or []
        elif isinstance(blocked, Mapping):
            blocked = self._blocked_by_agent(blocked)
        else:
            self.notes.add("blocked_actions", f"must be a mapping agent index -> list of commands, got "
                                              f"{_show(blocked)}")
            blocked = {}
        self.kw["blocked_actions"] = blocked

    def _blocked_by_agent(self, blocked: Mapping[Any, Any]) -> dict[str, list[str]]:
        parsed: dict[str, list[str]] = {}
        for key, value in blocked.items():
            index = agent_key(key)
            if index is None:
                self.index_problem("blocked_actions", key)
            elif int(index) >= self.players:  # MINDcraft's files block actions of agents a task does not have
                self.notes.warn("blocked_actions", f"has key {_show(key)} but the task has "
                                                   f"{_people(self.agent_count, self.human_count)}: ignored")
            else:
                actions = self._actions(value, f"blocked_actions.{index}")
                if actions is not None:
                    parsed[index] = actions
        return parsed

    def _actions(self, value: Any, fld: str) -> list[str] | None:
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            self.notes.add(fld, f"must be a list of command names such as \"!getCraftingPlan\", got {_show(value)}")
            return None
        for action in value:
            if not action.startswith("!") or len(action) < 2:
                self.notes.add(fld, f"has {_show(action)}: command names start with '!'")
        return list(value)

    # ----- crafting and cooking details -----
    def _crafting_table(self) -> None:
        """MINDcraft files use either spelling."""
        ctable_key = "requires_ctable"
        ctable = None
        for key in ("requires_crafting_table", "requires_ctable"):
            if key not in self.data:
                continue
            value = self.data[key]
            if not isinstance(value, bool):
                self.notes.add(key, f"must be true or false, got {_show(value)}")
                continue
            if ctable is not None and ctable != value:
                self.notes.add(key, "disagrees with the other crafting-table field")
            ctable, ctable_key = value, key
        self.kw["requires_crafting_table"] = ctable
        self.kw["ctable_key"] = ctable_key

    def _depths(self) -> None:
        for key in ("max_depth", "depth"):
            value = self.data.get(key)
            if value is not None and not int_in(value, 0, MAX_RECIPE_DEPTH):
                self.notes.add(key, range_problem(value, 0, MAX_RECIPE_DEPTH))
                value = None
            self.kw[key] = value

    def _recipes(self) -> None:
        recipes = self.data.get("recipes", {})
        parsed: dict[str, list[str]] = {}
        if not isinstance(recipes, Mapping):
            self.notes.add("recipes", f"must be a mapping item -> list of step strings, got {_show(recipes)}")
        else:
            for item, steps in recipes.items():
                if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
                    self.notes.add(f"recipes.{item}", f"must be a list of step strings, got {_show(steps)}")
                else:
                    parsed[str(item)] = list(steps)
            parsed = self._modern_keys(parsed, "recipes")
            self._check_items("recipes", parsed)
        self.kw["recipes"] = parsed

    def _recipe_access(self) -> None:
        access = self.data.get("blocked_access_to_recipe", [])
        parsed: list[Any] = []
        if not isinstance(access, list):
            self.notes.add("blocked_access_to_recipe", f"must be a list of agent indices, got {_show(access)}")
        else:
            for value in access:
                index = agent_key(value)
                if index is None or int(index) >= self.players:
                    self.notes.add("blocked_access_to_recipe",
                                   f"has {_show(value)}: entries must be agent indices {self._indices()}")
                else:
                    parsed.append(index if isinstance(value, str) else value)
        self.kw["blocked_access_to_recipe"] = [str(v) for v in parsed]
        if any(not isinstance(v, str) for v in parsed):  # keep YAML/JSON ints as the file had them
            self.extra["blocked_access_to_recipe"] = list(parsed)

    def _metrics(self) -> None:
        metrics = self.data.get("difficulty_metrics", {})
        if not isinstance(metrics, Mapping):
            self.notes.add("difficulty_metrics", f"must be a mapping, got {_show(metrics)}")
            metrics = {}
        self.kw["difficulty_metrics"] = dict(metrics)

    # ----- blueprint -----
    def _blueprint(self) -> None:
        raw = self.data.get("blueprint")
        if raw is None:
            if "blueprint" in self.required_fields():
                self.notes.add("blueprint", f"is required for {self.kw['type']} tasks")
            self.kw["blueprint"] = None
            return
        problems: list[tuple[str, str]] = []
        names = self.names
        blueprint = Blueprint.parse(self._modern_blueprint(raw), problems,
                                    block_check=names.block_problem if names else None,
                                    item_check=names.item_problem if names else None)
        for fld, message in problems:
            self.notes.add(fld, message)
        if blueprint is not None:
            _check_blueprint_in_world(blueprint, self.notes)
        self.kw["blueprint"] = blueprint

    def _modern_blueprint(self, raw: Any) -> Any:
        """The blueprint with old block and item names replaced, where it has the shape of one (Blueprint.parse
        reports the rest)."""
        if self.names is None or not isinstance(raw, Mapping):
            return raw
        out = dict(raw)
        if isinstance(raw.get("materials"), Mapping):
            out["materials"] = self._modern_keys(raw["materials"], "blueprint.materials")
        if isinstance(raw.get("levels"), list):
            out["levels"] = [self._modern_level(level) for level in raw["levels"]]
        return out

    def _modern_level(self, level: Any) -> Any:
        if not isinstance(level, Mapping) or not isinstance(level.get("placement"), list):
            return level
        rows = [[self.item_name(b, "blueprint.levels", "block") if isinstance(b, str) else b for b in row]
                if isinstance(row, list) else row for row in level["placement"]]
        return {**level, "placement": rows}

    def required_fields(self) -> tuple[str, ...]:
        """The common fields the task's family requires (Family.required_fields); none for an unknown type."""
        kind = self.kw["type"]
        return family_named(kind).required_fields if isinstance(kind, str) and is_family(kind) else ()

    # ----- the family's own fields -----
    def _family_fields(self) -> None:
        """The fields only the task's family has, read and checked by the family (mindpy.tasks.family): typed
        into `Task.fields`, or into the task's own keywords (coblock's private goals)."""
        task_type = self.kw["type"]
        if not isinstance(task_type, str) or not is_family(task_type):
            return
        family = family_named(task_type)
        self.own_fields = family.fields
        self.kw["fields"] = family.parse_fields(self)


def _check_blueprint_in_world(blueprint: Blueprint, notes: Notes) -> None:
    """Every level's blocks must lie where the world has blocks, or setting up the task cannot place them."""
    low_y, high_y = WORLD_HEIGHT
    for i, level in enumerate(blueprint.levels):
        x, y, z = level.coordinates
        far_x, far_z = x + level.width, z + level.depth
        if not (low_y <= y <= high_y and all(-WORLD_BORDER <= v <= WORLD_BORDER for v in (x, z, far_x, far_z))):
            notes.add(f"blueprint.levels[{i}].coordinates",
                      f"must lie inside the world (x and z within ±{WORLD_BORDER}, y from {low_y} to "
                      f"{high_y}), got {_show(list(level.coordinates))}")
