"""The CoBlock paper's own tasks (the task instances of its web portal, github jnzs1836/coblock) as coblock tasks.

    result = convert_file("paper_tasks.json")   # Conversion: .tasks {id: task dict}, .refused, .warnings
    result = convert_data(json_value, "<name>")

What is read (the portal's TypeScript types; the backend stores a task in a session's `task_config`):
- a task instance: {id, spec: {motiveType, ...}, agents: [{name, inventory: [{blockType, count}],
  blueprint, motives: [{config: {blockIndices}, description: {descriptionType: "VISUAL", blocks} or
  {descriptionType: "TEXTUAL", text}}]}], baseBlueprint, blueprints}; a blueprint is {id, name, spec: {blocks}}
  and a block {uid, blockType, pos: {x, y, z}};
- a collaboration session: {id, blueprint, task_config} as the backend's API gives it (`config` as the portal
  names it once loaded), or an experiment {name, session};
- one of these, a list of them, or a list inside {"tasks": [...]} or {"results": [...]} (a paged API answer).
A `spec` or `task_config` given as a JSON string is read too (form posts store them so).

How it maps:
- An agent's private goal is the blocks of its motives: a VISUAL motive's `blocks`, else its `blockIndices` into
  the agent's blueprint (the base blueprint when the agent has none). TEXTUAL texts are not carried over: a
  mindpy goal lists its blocks.
- Colours: blockType `red` is red_wool, and so on for Minecraft's sixteen dye colours (the portal offers red,
  blue, yellow, green, black and purple); a name already ending in _wool is kept. Anything else is refused.
- Coordinates: the portal's y is up, with the ground at y = 0. The structure is moved whole so that its lowest
  layer is y = -60 (on the superflat ground) and its smallest x and z are the site's corner (100, -100); it must
  fit the site, SITE_SIZE x SITE_SIZE blocks and SITE_HEIGHT layers.
- Type: read from the data (generator.task_type_of): goal_dependent when a goal rests on the partner's blocks,
  else skill_dependent when an agent lacks blocks its own goal takes, else independent. The portal's motiveType
  is only a label chosen in its form ("parallel" by default) and read nowhere else; where its usual reading
  (MOTIVE_TYPES) disagrees with the data, a warning says so.
- Inventories are the agents' own counts; the timeout is the test split's (generator.TIMEOUT); the id is
  `coblock_paper_` and the instance's id (else the experiment's name, the session's id or the blueprint's name),
  in lower-case letters, digits and underscores, made unique with _2, _3, ...

Refused, one line per problem naming the task: no agents, one agent or more than two; a block without a colour
or an integer position; an unknown colour; a blockIndex outside the blueprint; a position two motives give
(overlapping goals) or one motive gives two colours; a motive block the blueprint lacks or has in another
colour; an agent with no goal blocks; a structure larger than the site, or one with a block that neither rests
on the ground nor joins, face to face, a block that does; a team that holds fewer blocks of a colour than the
structure takes. Blueprint blocks in no agent's motive are left out of the task, with a warning (the goals
together are the task's structure).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....errors import UserFileError
from ....userfiles import quote, read_user_file, shown_name
from ...schema import TaskFileError
from .generator import (
    ORIGIN,
    SITE_HEIGHT,
    SITE_SIZE,
    Coord,
    Structure,
    colour_needs,
    is_buildable,
    task_dict,
    task_type_of,
)

SOURCE_MAX_BYTES = 64 * 1024 * 1024
ID_PREFIX = "coblock_paper_"
DYE_COLOURS = ("white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
               "purple", "blue", "brown", "green", "red", "black")
# The portal's motiveType -> the types it usually stands for (a cross-check only: the data decides the type).
# parallel: the agents work side by side (independent); weakly / strongly dependent: on the partner's colours
# (skill-dependent) / on the partner's blocks too (goal-dependent); dependent: either; cognitive: no paper type.
MOTIVE_TYPES: dict[str, tuple[str, ...]] = {
    "parallel": ("independent",),
    "weakly": ("skill_dependent",),
    "strongly": ("goal_dependent",),
    "dependent": ("skill_dependent", "goal_dependent"),
    "cognitive": (),
}


class PaperTaskError(TaskFileError):
    """The file as a whole cannot be read as the paper's tasks; `problems` holds one line each."""


class TaskRefused(Exception):
    """One task cannot be converted; `problems` holds one line each (without the task's name)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Conversion:
    """What converting one file gave: the converted tasks (id -> task dict, in the file's order), and for each
    task by its label (`task 'ID' (entry N)`), its problems (refused) or warnings."""

    source: str
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)

    def problem_lines(self) -> list[str]:
        """Every refused task's problems, one a line, each naming the file and the task."""
        return [line for lines in self.refused.values() for line in lines]

    def warning_lines(self) -> list[str]:
        """Every converted task's warnings, one a line."""
        return [line for lines in self.warnings.values() for line in lines]


# ----- reading the file's shape -----
def _json_value(value: Any) -> Any:
    """A value the portal may have stored as JSON text: parsed when it is a string that holds an object."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _entries(data: Any) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        for key in ("tasks", "results"):
            if isinstance(data.get(key), list) and not _is_instance(data) and not _is_session(data):
                return data[key]
        return [data]
    raise PaperTaskError([f"expected a task instance, a collaboration session or a list of them, got "
                          f"{quote(data)}"])


def _is_instance(entry: Mapping) -> bool:
    return "agents" in entry


def _is_session(entry: Mapping) -> bool:
    return "task_config" in entry or "config" in entry


@dataclass
class _Entry:
    """One task found in the file: the instance, the session's blueprint (if any) and the id to name it by."""

    number: int
    instance: Any
    blueprint: Any
    name: str


def _unwrap(number: int, entry: Any) -> _Entry:
    """The task instance an entry holds (itself, a session's config or an experiment's session's config)."""
    entry = _json_value(entry)
    experiment = None
    if isinstance(entry, Mapping) and isinstance(entry.get("session"), Mapping) and not _is_instance(entry):
        experiment, entry = entry.get("name"), entry["session"]
    if not isinstance(entry, Mapping):
        return _Entry(number, entry, None, "")
    if _is_instance(entry):
        return _Entry(number, entry, None, _first_name(entry.get("id"), _name_of(entry.get("baseBlueprint"))))
    if _is_session(entry):
        config = _json_value(entry.get("task_config", entry.get("config")))
        blueprint = entry.get("blueprint") if isinstance(entry.get("blueprint"), Mapping) else None
        own_id = config.get("id") if isinstance(config, Mapping) else None
        session_id = entry.get("id")
        name = _first_name(own_id, experiment, f"session_{session_id}" if _named(session_id) else None,
                           _name_of(blueprint))
        return _Entry(number, config, blueprint, name)
    return _Entry(number, entry, None, "")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _named(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip() != ""


def _name_of(blueprint: Any) -> str | None:
    return blueprint.get("name") if isinstance(blueprint, Mapping) and _named(blueprint.get("name")) else None


def _first_name(*names: Any) -> str:
    return next((str(n) for n in names if _named(n)), "")


def _sanitised(name: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]", "_", name.lower())).strip("_")[:60].strip("_")


def _task_ids(entries: list[_Entry]) -> list[str]:
    """One id per entry: ID_PREFIX + its sanitised name (else `task_N`), unique in the file."""
    ids: list[str] = []
    taken: set[str] = set()
    for entry in entries:
        base = ID_PREFIX + (_sanitised(entry.name) or f"task_{entry.number}")
        task_id, n = base, 1
        while task_id in taken:
            n += 1
            task_id = f"{base}_{n}"
        taken.add(task_id)
        ids.append(task_id)
    return ids


# ----- blocks -----
def wool_of(block_type: Any) -> str | None:
    """The wool block for one of the portal's colour names ('red' -> 'red_wool'); None for anything else."""
    if not isinstance(block_type, str):
        return None
    name = block_type.strip().lower().replace(" ", "_").replace("-", "_")
    name = {"grey": "gray", "light_grey": "light_gray"}.get(name, name)
    if name.endswith("_wool"):
        name = name[: -len("_wool")]
    return f"{name}_wool" if name in DYE_COLOURS else None


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e9:
        return int(value)
    return None


def _block(raw: Any, where: str, problems: list[str]) -> tuple[Coord, str] | None:
    """((x, y, z), wool) of one portal block; None when it is wrong (noted)."""
    if not isinstance(raw, Mapping):
        problems.append(f"{where} must be a block {{uid, blockType, pos: {{x, y, z}}}}, got {quote(raw)}")
        return None
    if isinstance(raw.get("uid"), str) and raw["uid"]:
        where += f" (uid {shown_name(raw['uid'], 40)})"
    pos = raw.get("pos")
    coords = [_integer(pos.get(axis)) for axis in "xyz"] if isinstance(pos, Mapping) else None
    if coords is None or any(c is None for c in coords):
        problems.append(f"{where} needs a position pos {{x, y, z}} of whole numbers, got {quote(pos)}")
        return None
    wool = wool_of(raw.get("blockType"))
    if wool is None:
        problems.append(f"{where} has blockType {quote(raw.get('blockType'))}, not a colour (expected one of "
                        f"{', '.join(DYE_COLOURS)})")
        return None
    x, y, z = coords
    assert x is not None and y is not None and z is not None
    return (x, y, z), wool


def _blueprint_blocks(blueprint: Any, where: str, problems: list[str]) -> list[tuple[Coord, str] | None] | None:
    """The blocks of a portal blueprint ({spec: {blocks}}, or the spec itself), in order (None for a bad one);
    None when there is no blueprint."""
    blueprint = _json_value(blueprint)
    if not isinstance(blueprint, Mapping):
        return None
    spec = _json_value(blueprint.get("spec", blueprint))
    blocks = spec.get("blocks") if isinstance(spec, Mapping) else None
    if not isinstance(blocks, list):
        problems.append(f"{where} has no list of blocks (spec.blocks), got {quote(spec)}")
        return []
    return [_block(b, f"{where} block {i}", problems) for i, b in enumerate(blocks)]


def _add(cells: dict[Coord, str], cell: Coord, wool: str, where: str, problems: list[str]) -> None:
    if cells.get(cell, wool) != wool:
        problems.append(f"{where} puts {wool} at {list(cell)}, where the same goal already has {cells[cell]}")
    cells[cell] = wool


def _motive_blocks(agent: Mapping, index: int, fallback: Any, problems: list[str]) -> dict[Coord, str]:
    """An agent's goal: the blocks of all its motives, by position."""
    where_agent = f"agent {index}"
    motives = agent.get("motives")
    if not isinstance(motives, list):
        problems.append(f"{where_agent} has no list of motives (its goal), got {quote(motives)}")
        return {}
    own_blueprint = agent.get("blueprint") if agent.get("blueprint") is not None else fallback
    indexed: list[tuple[Coord, str] | None] | None = None
    cells: dict[Coord, str] = {}
    for m, motive in enumerate(motives):
        where = f"{where_agent} motive {m}"
        if not isinstance(motive, Mapping):
            problems.append(f"{where} must be an object {{config, description}}, got {quote(motive)}")
            continue
        description: Mapping[str, Any] = _mapping(motive.get("description"))
        config: Mapping[str, Any] = _mapping(motive.get("config"))
        if description.get("descriptionType") == "VISUAL" and isinstance(description.get("blocks"), list):
            for b, raw in enumerate(description["blocks"]):
                found = _block(raw, f"{where} block {b}", problems)
                if found:
                    _add(cells, *found, where, problems)
            continue
        indices = config.get("blockIndices")
        if not isinstance(indices, list):
            problems.append(f"{where} has neither VISUAL blocks nor config.blockIndices")
            continue
        if indexed is None:
            indexed = _blueprint_blocks(own_blueprint, f"{where_agent}'s blueprint", problems)
        if indexed is None:
            problems.append(f"{where} gives blockIndices but there is no blueprint to index")
            continue
        for i in indices:
            n = _integer(i)
            if n is None or not 0 <= n < len(indexed):
                problems.append(f"{where} has blockIndex {quote(i)}, outside the blueprint's {len(indexed)} blocks")
            elif indexed[n] is not None:
                cell, wool = indexed[n]  # type: ignore[misc]
                _add(cells, cell, wool, where, problems)
    return cells


def _inventory(agent: Mapping, index: int, problems: list[str]) -> dict[str, int]:
    raw = agent.get("inventory", [])
    if not isinstance(raw, list):
        problems.append(f"agent {index} inventory must be a list of {{blockType, count}}, got {quote(raw)}")
        return {}
    held: Counter[str] = Counter()
    for n, item in enumerate(raw):
        where = f"agent {index} inventory item {n}"
        count = _integer(item.get("count")) if isinstance(item, Mapping) else None
        wool = wool_of(item.get("blockType")) if isinstance(item, Mapping) else None
        if not isinstance(item, Mapping) or count is None or count < 0:
            problems.append(f"{where} must be {{blockType, count}} with a whole count >= 0, got {quote(item)}")
        elif wool is None:
            problems.append(f"{where} has blockType {quote(item.get('blockType'))}, not a colour (expected one "
                            f"of {', '.join(DYE_COLOURS)})")
        elif count:
            held[wool] += count
    return dict(sorted(held.items()))


# ----- one task -----
def _size_text(cells: Any) -> str:
    xs, ys, zs = zip(*cells, strict=True)
    return f"{max(xs) - min(xs) + 1} x {max(ys) - min(ys) + 1} x {max(zs) - min(zs) + 1}"


def convert_instance(instance: Any, session_blueprint: Any = None) -> tuple[dict[str, Any], list[str]]:
    """(coblock task dict, warnings) for one portal task instance; TaskRefused with its problems."""
    if not isinstance(instance, Mapping) or "agents" not in instance:
        raise TaskRefused([f"is neither a task instance (with 'agents') nor a collaboration session (with "
                        f"'task_config'), got {quote(instance)}"])
    agents = instance.get("agents")
    if not isinstance(agents, list) or len(agents) != 2:
        count = (f"{len(agents)} agent{'' if len(agents) == 1 else 's'}" if isinstance(agents, list)
                 else f"no list of agents ({quote(agents)})")
        raise TaskRefused([f"has {count}: a CoBlock task needs two agents"])
    problems: list[str] = []
    warnings: list[str] = []
    base = next((b for b in (instance.get("baseBlueprint"), session_blueprint) if b is not None), None)
    if base is None and all(isinstance(a, Mapping) and a.get("blueprint") is not None for a in agents):
        base = agents[0]["blueprint"]
    goals: list[dict[Coord, str]] = []
    inventories: list[dict[str, int]] = []
    for i, agent in enumerate(agents):
        if not isinstance(agent, Mapping):
            problems.append(f"agent {i} must be an object {{name, inventory, motives}}, got {quote(agent)}")
            goals.append({})
            inventories.append({})
            continue
        before = len(problems)
        goals.append(_motive_blocks(agent, i, base, problems))
        inventories.append(_inventory(agent, i, problems))
        if not goals[-1] and len(problems) == before:
            problems.append(f"agent {i} has no goal blocks (its motives give none)")
    if problems:
        raise TaskRefused(problems)

    overlap = sorted(set(goals[0]) & set(goals[1]), key=lambda c: (c[1], c[0], c[2]))
    if overlap:
        problems.append(f"the agents' goals overlap in {len(overlap)} position{'s' if len(overlap) > 1 else ''} "
                        f"(the first: {list(overlap[0])}): each block must be one agent's")
    structure = {**goals[0], **goals[1]}
    blueprint = _blueprint_blocks(base, "the base blueprint", problems) if base is not None else None
    if blueprint:
        wanted: dict[Coord, str] = {}
        for found in blueprint:
            if found is not None:
                _add(wanted, *found, "the base blueprint", problems)
        for cell, wool in sorted(structure.items(), key=lambda p: (p[0][1], p[0][0], p[0][2])):
            if wanted.get(cell) != wool:
                there = wanted.get(cell, "nothing")
                problems.append(f"a goal has {wool} at {list(cell)}, where the base blueprint has {there}")
        left = sorted(set(wanted) - set(structure), key=lambda c: (c[1], c[0], c[2]))
        if left:
            warnings.append(f"{len(left)} block{'s' if len(left) > 1 else ''} of the base blueprint "
                            f"(the first: {wanted[left[0]]} at {list(left[0])}) {'are' if len(left) > 1 else 'is'} "
                            f"in no agent's goal: left out of the task")
    if problems:
        raise TaskRefused(problems)

    low = tuple(min(c[axis] for c in structure) for axis in range(3))
    if low[1] not in (0, 1):  # the portal's ground is y = 0; its prompt calls it y = 1
        warnings.append(f"the structure's lowest layer is y = {low[1]}, not on the portal's ground (y = 0): it is "
                        f"moved onto the ground all the same")
    size = [max(c[axis] for c in structure) - low[axis] + 1 for axis in range(3)]
    if size[0] > SITE_SIZE or size[2] > SITE_SIZE or size[1] > SITE_HEIGHT:
        raise TaskRefused([f"has a structure of {_size_text(structure)} blocks (x by y by z), larger than the site "
                        f"({SITE_SIZE} x {SITE_HEIGHT} x {SITE_SIZE})"])

    def local(cells: Mapping[Coord, str]) -> Structure:
        return {(x - low[0], y - low[1], z - low[2]): wool for (x, y, z), wool in cells.items()}

    site, goal_a, goal_b = local(structure), local(goals[0]), local(goals[1])
    if not is_buildable(site):
        raise TaskRefused(["has blocks that neither rest on the ground nor join, face to face, a block that does: "
                        "the structure cannot be built"])
    held = Counter(inventories[0]) + Counter(inventories[1])
    short = {wool: n - held[wool] for wool, n in colour_needs(site).items() if n > held[wool]}
    if short:
        raise TaskRefused([f"the agents together hold too few blocks: they need "
                        f"{', '.join(f'{n} more {wool}' for wool, n in short.items())}"])
    kind = task_type_of(goal_a, goal_b, inventories[0], inventories[1])
    spec = _mapping(_json_value(instance.get("spec")))
    label = spec.get("motiveType")
    if label is not None:
        expected = MOTIVE_TYPES.get(str(label).lower())
        if expected is None:
            warnings.append(f"has motiveType {quote(label)}, not one the portal offers; its blocks and inventories "
                            f"make it {kind}")
        elif expected and kind not in expected:
            warnings.append(f"has motiveType {quote(label)} (read as {' or '.join(expected)}), but its blocks and "
                            f"inventories make it {kind}: {kind} is used")
    return task_dict(site, goal_a, goal_b, inventories[0], inventories[1], kind, ORIGIN), warnings


# ----- a file -----
def convert_data(data: Any, source: str = "<memory>") -> Conversion:
    """Convert every task the data holds; each refused task keeps its problems, the others convert."""
    result = Conversion(source)
    entries = [_unwrap(n, e) for n, e in enumerate(_entries(data))]
    if not entries:
        raise PaperTaskError([f"{source}: holds no tasks"])
    for entry, task_id in zip(entries, _task_ids(entries), strict=True):
        label = f"task '{shown_name(task_id)}' (entry {entry.number})"
        try:
            task, warnings = convert_instance(entry.instance, entry.blueprint)
        except TaskRefused as refused:
            result.refused[label] = [f"{source}: {label}: {p}" for p in refused.problems]
            continue
        result.tasks[task_id] = task
        if warnings:
            result.warnings[label] = [f"{source}: {label}: warning: {w}" for w in warnings]
    _validate(result)
    return result


def _validate(result: Conversion) -> None:
    """The family's own checks (what `mindpy tasks validate` runs) on the converted tasks: any problem refuses
    the task, as a converted task must be one mindpy can play."""
    from ...schema import NameChecker, check_tasks
    from ...solvable import unsolvable_reason

    report = check_tasks(json.loads(json.dumps(result.tasks)), source=result.source,
                         names=NameChecker.for_version())
    for task_id, problems in report.problems.items():
        del result.tasks[task_id]
        result.refused[f"task '{shown_name(task_id)}'"] = problems
    for task_id, task in report.tasks.items():
        reason = unsolvable_reason(task)
        if reason:
            del result.tasks[task_id]
            result.refused[f"task '{shown_name(task_id)}'"] = [
                f"{result.source}: task '{shown_name(task_id)}': unsolvable: {reason}"]


def convert_file(path: str | Path) -> Conversion:
    """Convert a JSON (or YAML) file of the portal's tasks; PaperTaskError when the file cannot be read as one."""
    try:
        data = read_user_file(path, "CoBlock task file", max_bytes=SOURCE_MAX_BYTES, default_format="json")
    except UserFileError as exc:
        raise PaperTaskError([str(exc)]) from None
    try:
        return convert_data(data, str(path))
    except PaperTaskError as exc:
        raise PaperTaskError([p if p.startswith(str(path)) else f"{path}: {p}" for p in exc.problems]) from None
