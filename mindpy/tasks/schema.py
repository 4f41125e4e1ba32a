"""Typed MineCollab tasks, parsed and validated from MINDcraft's task-file dictionaries.

A task file maps task id -> task. This module turns one task's dictionary into a `Task`, checking every field
and collecting every problem (file, task id and field named in each message), and turns a `Task` back into the
same dictionary (MINDcraft's field spellings and key order), so files round-trip unchanged.

    task = Task.from_dict("my_task", {...}, source="tasks/x.json")
    task.goal_for(1), task.targets(), task.inventory_for(0), task.blocked_actions_for(1)
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MindpyError
from ..userfiles import one_line
from ..userfiles import quote as _show
from .blueprint import Blueprint

TASK_TYPES = ("techtree", "cooking", "construction")
DEFAULT_TIMEOUT = 300

# Ranges of the numbers in a task: what a run can play (the embedded server admits 50 players; an inventory holds
# 36 stacks of 64) and what keeps set-up and timers finite.
MAX_PLAYERS = 50
MAX_ITEM_COUNT = 36 * 64
MAX_TIMEOUT_S = 24 * 60 * 60
MAX_RECIPE_DEPTH = 1000
WORLD_BORDER = 30_000_000         # |x| and |z| of any block
WORLD_HEIGHT = (-64, 319)         # the lowest and highest block y
MAX_PROBLEMS_SHOWN = 200          # lines of a TaskFileError's message; `.problems` keeps them all

# Fields this module understands, in the order a new task is written. Anything else is kept as it is.
KNOWN_FIELDS = (
    "type", "goal", "conversation", "agent_count", "human_count", "usernames", "initial_inventory", "target",
    "number_of_target", "timeout", "blocked_actions", "missing_items", "requires_crafting_table",
    "requires_ctable", "max_depth", "depth", "recipes", "blocked_access_to_recipe", "difficulty_metrics",
    "blueprint",
)

# Pre-1.13 / MINDcraft-era names that are not items any more: only used to suggest the modern name.
LEGACY_ITEM_NAMES = {
    "rose_red": "red_dye",
    "dandelion_yellow": "yellow_dye",
    "cactus_green": "green_dye",
    "wooden_slab": "oak_slab",
    "wooden_planks": "oak_planks",
    "planks": "oak_planks",
    "log": "oak_log",
    "wool": "white_wool",
    "raw_beef": "beef",
    "raw_chicken": "chicken",
    "raw_porkchop": "porkchop",
    "raw_mutton": "mutton",
    "raw_rabbit": "rabbit",
}


class TaskFileError(MindpyError):
    """A task file (or one task in it) is malformed. `.problems` lists every message."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        shown = self.problems[:MAX_PROBLEMS_SHOWN]
        hidden = len(self.problems) - len(shown)
        super().__init__("\n".join(shown + ([f"({hidden} more problems not shown)"] if hidden else [])))


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

    def item_problem(self, name: str) -> str | None:
        if name in self.items:
            return None
        return f"has unknown item '{name}'{self._suggest(name, self.items)}"

    def block_problem(self, name: str) -> str | None:
        base = name.split("[", 1)[0]  # a block-state suffix such as oak_stairs[facing=east] is allowed
        if base in self.blocks:
            return None
        return f"has unknown block '{name}'{self._suggest(base, self.blocks)}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int_in(value: Any, low: int, high: int) -> bool:
    return _is_int(value) and low <= value <= high


def _range_problem(value: Any, low: int, high: int) -> str:
    """What is wrong with a number outside low..high, and what it was."""
    if _is_int(value) and value > high:
        return f"must be an integer from {low} to {high}, got {_show(value)}"
    return f"must be an integer >= {low}, got {_show(value)}"


class _Problems:
    """Collects validation messages for one task."""

    def __init__(self, source: str, task_id: str):
        self.prefix = f"{source}: task '{one_line(str(task_id), 80)}'"
        self.items: list[str] = []

    def add(self, fld: str, message: str) -> None:
        self.items.append(f"{self.prefix}: field '{one_line(fld, 80)}' {one_line(message)}")

    def whole(self, message: str) -> None:
        self.items.append(f"{self.prefix}: {one_line(message)}")


def _agent_key(key: Any) -> str | None:
    """'0', 0 (YAML) -> '0'; anything else -> None."""
    if _is_int(key) and key >= 0:
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
    extra: dict[str, Any] = field(default_factory=dict)
    # How the source spelled things, so `to_dict` writes the file back as it was.
    key_order: tuple[str, ...] = ()
    ctable_key: str = "requires_ctable"
    flat_inventory: bool = False

    # ----- accessors -----
    @property
    def is_hells_kitchen(self) -> bool:
        """MINDcraft marks Hell's Kitchen tasks by their id; the target list is then ordered by agent."""
        return self.type == "cooking" and "hells_kitchen" in self.id and isinstance(self.target, list)

    def goal_for(self, agent_index: int) -> str:
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
        """Validate and type one task. Raises TaskFileError listing every problem found."""
        problems = _Problems(source, task_id)
        task = _parse(task_id, data, problems, names)
        if problems.items:
            raise TaskFileError(problems.items)
        assert task is not None
        return task

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
        values.update(copy.deepcopy(self.extra))

        order = list(self.key_order) if self.key_order else _default_order(values)
        out: dict[str, Any] = {}
        for key in order:
            if key in values:
                out[key] = values[key]
        for key in _default_order(values):  # fields set in code that the source did not have
            if key in out or (key == "timeout" and self.timeout == DEFAULT_TIMEOUT):
                continue
            if key == "agent_count" and self.key_order:  # old files leave it out; parsing infers it
                continue
            out[key] = values[key]
        return out


def _default_order(values: Mapping[str, Any]) -> list[str]:
    """Order for tasks made in code: known fields first; empty optional fields left out."""
    optional_empty = {
        "human_count": 0, "usernames": [], "missing_items": [], "recipes": {}, "blocked_access_to_recipe": [],
        "difficulty_metrics": {}, "blocked_actions": {}, "initial_inventory": {},
    }
    keys = []
    for key in KNOWN_FIELDS:
        if key in values and not (key in optional_empty and values[key] == optional_empty[key]):
            keys.append(key)
    keys.extend(k for k in values if k not in KNOWN_FIELDS)
    return keys


# ----- parsing -----
def _check_items(problems: _Problems, names: NameChecker | None, fld: str, items: Iterable[str]) -> None:
    if names is None:
        return
    for item in items:
        message = names.item_problem(item)
        if message:
            problems.add(fld, message)


def _parse_inventory(raw: Any, fld: str, problems: _Problems, names: NameChecker | None) -> dict[str, int] | None:
    if not isinstance(raw, Mapping):
        problems.add(fld, f"must be a mapping of item name -> count, got {_show(raw)}")
        return None
    inventory: dict[str, int] = {}
    for item, count in raw.items():
        if not isinstance(item, str) or not item:
            problems.add(fld, f"has an item name that is not a string: {_show(item)}")
            continue
        if not _int_in(count, 0, MAX_ITEM_COUNT):
            problems.add(f"{fld}.{item}", _range_problem(count, 0, MAX_ITEM_COUNT))
            continue
        inventory[item] = count
    _check_items(problems, names, fld, inventory)
    return inventory


def _parse(task_id: str, data: Any, problems: _Problems, names: NameChecker | None) -> Task | None:
    if not isinstance(task_id, str) or not task_id:
        problems.whole(f"task ids must be non-empty strings, got {_show(task_id)}")
    if not isinstance(data, Mapping):
        problems.whole(f"must be a mapping of field -> value, got {_show(data)}")
        return None
    kw: dict[str, Any] = {"id": task_id, "key_order": tuple(str(k) for k in data.keys())}

    # type
    task_type = data.get("type")
    if task_type is None:
        problems.add("type", f"is required (one of {', '.join(TASK_TYPES)})")
    elif task_type not in TASK_TYPES:
        problems.add("type", f"must be one of {', '.join(TASK_TYPES)}, got {_show(task_type)}")
    kw["type"] = task_type

    # counts
    human_count = data.get("human_count", 0)
    if not _int_in(human_count, 0, MAX_PLAYERS - 1):
        problems.add("human_count", _range_problem(human_count, 0, MAX_PLAYERS - 1))
        human_count = 0
    kw["human_count"] = human_count

    if "agent_count" in data:
        agent_count = data["agent_count"]
        if not _int_in(agent_count, 1, MAX_PLAYERS):
            problems.add("agent_count", _range_problem(agent_count, 1, MAX_PLAYERS))
            agent_count = 0  # unknown: agent indices below are not range-checked
        elif agent_count + human_count > MAX_PLAYERS:
            problems.add("agent_count", f"and human_count add up to {agent_count + human_count} players; a run "
                                        f"admits at most {MAX_PLAYERS}")
    else:  # old single-agent files leave it out
        inv = data.get("initial_inventory")
        agent_keys = [k for k in inv if _agent_key(k) is not None] if isinstance(inv, Mapping) else []
        agent_count = max(1, len(agent_keys) - human_count)
        if agent_count + human_count > MAX_PLAYERS:
            problems.add("initial_inventory", f"has inventories for {agent_count + human_count} players; a run "
                                              f"admits at most {MAX_PLAYERS}")
            agent_count = 0
    kw["agent_count"] = agent_count
    players = agent_count + human_count if agent_count else 1_000_000

    usernames = data.get("usernames", [])
    if not isinstance(usernames, list) or not all(isinstance(u, str) and u for u in usernames):
        problems.add("usernames", f"must be a list of player names, got {_show(usernames)}")
        usernames = []
    kw["usernames"] = list(usernames)

    # goal and conversation
    goal = data.get("goal")
    if goal is None:
        problems.add("goal", "is required (a string, or a mapping agent index -> string)")
        goal = ""
    elif isinstance(goal, str):
        pass
    elif isinstance(goal, Mapping):
        parsed_goal: dict[str, str] = {}
        bad: set[str] = set()
        for key, text in goal.items():
            index = _agent_key(key)
            if index is None or int(index) >= players:
                problems.add("goal", f"has key {_show(key)}: keys must be agent indices 0..{players - 1}")
            elif not isinstance(text, str):
                problems.add(f"goal.{index}", f"must be a string, got {_show(text)}")
                bad.add(index)
            else:
                parsed_goal[index] = text
        for index in map(str, range(agent_count)):
            if index not in parsed_goal and index not in bad:
                problems.add("goal", f"has no goal for agent {index}")
        goal = parsed_goal
    else:
        problems.add("goal", f"must be a string or a mapping agent index -> string, got {_show(goal)}")
        goal = ""
    kw["goal"] = goal

    conversation = data.get("conversation")
    if conversation is not None and not isinstance(conversation, str):
        problems.add("conversation", f"must be a string, got {_show(conversation)}")
        conversation = None
    kw["conversation"] = conversation

    # inventories
    raw_inv = data.get("initial_inventory", {})
    inventories: dict[str, dict[str, int]] = {}
    flat = False
    if not isinstance(raw_inv, Mapping):
        problems.add("initial_inventory", f"must be a mapping agent index -> {{item: count}}, got {_show(raw_inv)}")
    elif raw_inv and all(_agent_key(k) is None for k in raw_inv) and players == 1:
        flat = True  # a single agent's inventory written without the "0" level
        inv = _parse_inventory(raw_inv, "initial_inventory", problems, names)
        inventories["0"] = inv or {}
    else:
        for key, raw in raw_inv.items():
            index = _agent_key(key)
            if index is None or int(index) >= players:
                problems.add("initial_inventory",
                             f"has key {_show(key)}: keys must be agent indices 0..{players - 1}")
                continue
            inv = _parse_inventory(raw, f"initial_inventory.{index}", problems, names)
            if inv is not None:
                inventories[index] = inv
    kw["initial_inventory"] = inventories
    kw["flat_inventory"] = flat

    # targets
    target = data.get("target")
    if target is None:
        if task_type in ("techtree", "cooking"):
            problems.add("target", f"is required for {task_type} tasks")
    elif isinstance(target, str):
        _check_items(problems, names, "target", [target])
    elif isinstance(target, list):
        if not target or not all(isinstance(t, str) and t for t in target):
            problems.add("target", f"must be a non-empty list of item names, got {_show(target)}")
            target = None
        else:
            _check_items(problems, names, "target", target)
    elif isinstance(target, Mapping):
        parsed_target: dict[str, int] = {}
        for item, count in target.items():
            if not _int_in(count, 1, MAX_ITEM_COUNT):
                problems.add(f"target.{item}", _range_problem(count, 1, MAX_ITEM_COUNT))
            else:
                parsed_target[str(item)] = count
        if not target:
            problems.add("target", "must not be empty")
        _check_items(problems, names, "target", parsed_target)
        target = parsed_target
    else:
        problems.add("target", f"must be an item name, a list of item names or {{item: count}}, got {_show(target)}")
        target = None
    kw["target"] = target

    number = data.get("number_of_target")
    if number is None:
        pass
    elif _is_int(number):
        if not _int_in(number, 1, MAX_ITEM_COUNT):
            problems.add("number_of_target", _range_problem(number, 1, MAX_ITEM_COUNT))
    elif isinstance(number, Mapping):
        for item, count in number.items():
            if not _int_in(count, 1, MAX_ITEM_COUNT):
                problems.add(f"number_of_target.{item}", _range_problem(count, 1, MAX_ITEM_COUNT))
        number = {str(k): v for k, v in number.items()}
    else:
        problems.add("number_of_target", f"must be an integer from 1 to {MAX_ITEM_COUNT} or {{item: count}}, "
                                         f"got {_show(number)}")
        number = None
    kw["number_of_target"] = number

    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    if not _is_number(timeout) or not 0 < timeout <= MAX_TIMEOUT_S:  # also refuses NaN, which compares false
        limit = f" and at most {MAX_TIMEOUT_S}" if _is_number(timeout) and timeout > MAX_TIMEOUT_S else ""
        problems.add("timeout", f"must be a number of seconds > 0{limit}, got {_show(timeout)}")
        timeout = DEFAULT_TIMEOUT
    kw["timeout"] = timeout

    # blocked actions
    blocked = data.get("blocked_actions", {})

    def _actions(value: Any, fld: str) -> list[str] | None:
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            problems.add(fld, f"must be a list of command names such as \"!getCraftingPlan\", got {_show(value)}")
            return None
        for action in value:
            if not action.startswith("!") or len(action) < 2:
                problems.add(fld, f"has {_show(action)}: command names start with '!'")
        return list(value)

    if isinstance(blocked, list):
        blocked = _actions(blocked, "blocked_actions") or []
    elif isinstance(blocked, Mapping):
        parsed_blocked: dict[str, list[str]] = {}
        for key, value in blocked.items():
            index = _agent_key(key)
            if index is None or int(index) >= players:
                problems.add("blocked_actions", f"has key {_show(key)}: keys must be agent indices 0..{players - 1}")
                continue
            actions = _actions(value, f"blocked_actions.{index}")
            if actions is not None:
                parsed_blocked[index] = actions
        blocked = parsed_blocked
    else:
        problems.add("blocked_actions", f"must be a mapping agent index -> list of commands, got {_show(blocked)}")
        blocked = {}
    kw["blocked_actions"] = blocked

    missing = data.get("missing_items", [])
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        problems.add("missing_items", f"must be a list of item names, got {_show(missing)}")
        missing = []
    else:
        _check_items(problems, names, "missing_items", missing)
    kw["missing_items"] = list(missing)

    # crafting table: MINDcraft files use either spelling
    ctable_key = "requires_ctable"
    ctable = None
    for key in ("requires_crafting_table", "requires_ctable"):
        if key in data:
            value = data[key]
            if not isinstance(value, bool):
                problems.add(key, f"must be true or false, got {_show(value)}")
            else:
                if ctable is not None and ctable != value:
                    problems.add(key, "disagrees with the other crafting-table field")
                ctable, ctable_key = value, key
    kw["requires_crafting_table"] = ctable
    kw["ctable_key"] = ctable_key

    for key in ("max_depth", "depth"):
        value = data.get(key)
        if value is not None and not _int_in(value, 0, MAX_RECIPE_DEPTH):
            problems.add(key, _range_problem(value, 0, MAX_RECIPE_DEPTH))
            value = None
        kw[key] = value

    recipes = data.get("recipes", {})
    if not isinstance(recipes, Mapping):
        problems.add("recipes", f"must be a mapping item -> list of step strings, got {_show(recipes)}")
        recipes = {}
    else:
        parsed_recipes: dict[str, list[str]] = {}
        for item, steps in recipes.items():
            if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
                problems.add(f"recipes.{item}", f"must be a list of step strings, got {_show(steps)}")
            else:
                parsed_recipes[str(item)] = list(steps)
        _check_items(problems, names, "recipes", parsed_recipes)
        recipes = parsed_recipes
    kw["recipes"] = recipes

    access = data.get("blocked_access_to_recipe", [])
    parsed_access: list[str] = []
    if not isinstance(access, list):
        problems.add("blocked_access_to_recipe", f"must be a list of agent indices, got {_show(access)}")
    else:
        for value in access:
            index = _agent_key(value)
            if index is None or int(index) >= players:
                problems.add("blocked_access_to_recipe",
                             f"has {_show(value)}: entries must be agent indices 0..{players - 1}")
            else:
                parsed_access.append(index if isinstance(value, str) else value)
    kw["blocked_access_to_recipe"] = [str(v) for v in parsed_access]
    if any(not isinstance(v, str) for v in parsed_access):  # keep YAML/JSON ints as the file had them
        kw.setdefault("extra", {})
        kw["extra"]["blocked_access_to_recipe"] = list(parsed_access)

    metrics = data.get("difficulty_metrics", {})
    if not isinstance(metrics, Mapping):
        problems.add("difficulty_metrics", f"must be a mapping, got {_show(metrics)}")
        metrics = {}
    kw["difficulty_metrics"] = dict(metrics)

    raw_blueprint = data.get("blueprint")
    if raw_blueprint is None:
        if task_type == "construction":
            problems.add("blueprint", "is required for construction tasks")
        kw["blueprint"] = None
    else:
        blueprint_problems: list[tuple[str, str]] = []
        blueprint = Blueprint.parse(raw_blueprint, blueprint_problems,
                                    block_check=names.block_problem if names else None,
                                    item_check=names.item_problem if names else None)
        for fld, message in blueprint_problems:
            problems.add(fld, message)
        if blueprint is not None:
            _check_blueprint_in_world(blueprint, problems)
        kw["blueprint"] = blueprint

    extra = kw.pop("extra", {})
    for key, value in data.items():
        if key not in KNOWN_FIELDS:
            extra[str(key)] = copy.deepcopy(value)
    kw["extra"] = extra
    return Task(**kw)


def _check_blueprint_in_world(blueprint: Blueprint, problems: _Problems) -> None:
    """Every level's blocks must lie where the world has blocks, or setting up the task cannot place them."""
    low_y, high_y = WORLD_HEIGHT
    for i, level in enumerate(blueprint.levels):
        x, y, z = level.coordinates
        far_x, far_z = x + level.width, z + level.depth
        if not (low_y <= y <= high_y and all(-WORLD_BORDER <= v <= WORLD_BORDER for v in (x, z, far_x, far_z))):
            problems.add(f"blueprint.levels[{i}].coordinates",
                         f"must lie inside the world (x and z within ±{WORLD_BORDER}, y from {low_y} to "
                         f"{high_y}), got {_show(list(level.coordinates))}")


def parse_tasks(mapping: Any, *, source: str = "<memory>", names: NameChecker | None = None,
                on_problem: Callable[[str], None] | None = None) -> dict[str, Task]:
    """Every task of a file's top-level mapping; raises TaskFileError with all problems of all tasks."""
    if not isinstance(mapping, Mapping):
        raise TaskFileError([f"{source}: a task file must map task ids to tasks, got {_show(mapping)}"])
    tasks: dict[str, Task] = {}
    problems: list[str] = []
    for task_id, data in mapping.items():
        try:
            tasks[str(task_id)] = Task.from_dict(str(task_id), data, source=source, names=names)
        except TaskFileError as exc:
            problems.extend(exc.problems)
    if problems:
        raise TaskFileError(problems)
    return tasks
