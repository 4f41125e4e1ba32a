"""The MineCollab train/test splits at the paper's sizes (seed 004, Table 2), and CoBlock's, made by the generators.

    tasks = generate("crafting", "test")                 # the committed tasks/crafting_test.json
    text = dumps_tasks(generate("cooking", "train"))     # reproducible: same seed, same bytes
    sha256_of("construction", "train")

Test splits are committed under tasks/; train splits are made by command (`mindpy tasks generate ...`) and their
hashes are checked by the tests. Train and test use different seeds, and
- cooking dishes follow seed 004's item division (section 14.2);
- crafting targets are divided by item family (families/crafting/generator.py), so no target is in both;
- construction blueprints of the train split exclude every blueprint of the test split;
- coblock structures of the train split exclude every structure of the test split;
- orders tasks of both splits cover the same levels; the train split's order streams have other seeds;
- defuse maps of the train split exclude every map of the test split.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .family import families, family_named
from .loader import dumps_tasks
from .schema import NameChecker, Task, parse_tasks

SEEDS = {"train": 1, "test": 2}
TASKS_DIR = Path(__file__).resolve().parents[2] / "tasks"
EXAMPLES = TASKS_DIR / "example_tasks.json"


def generated_families() -> list[str]:
    """The families with a generator and splits (mindpy's own six, and any registered one that has splits)."""
    return [family.name for family in families() if family.split_sizes]


def committed(family: str) -> Path:
    """Where a family's test split is committed: tasks/<family>_test.json."""
    return TASKS_DIR / f"{family_named(family).name}_test.json"


def split_size(family: str, split: str) -> int:
    """The number of tasks of a family's split (the paper's sizes for MineCollab's)."""
    return family_named(family).count(split, None)


def generate_raw(family: str, split: str, seed: int | None = None, count: int | None = None,
                 agents: Any = None) -> dict[str, dict[str, Any]]:
    """Task id -> MINDcraft task dict, unvalidated."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    seed = SEEDS[split] if seed is None else seed
    if count is not None and count < 0:
        raise ValueError("count must be >= 0")
    return family_named(family).generate_raw(split, seed, count, agents)


def generate(family: str, split: str, seed: int | None = None, count: int | None = None, agents: Any = None,
             *, validate: bool = True) -> dict[str, Task]:
    """Task id -> Task for a family's split (defaults: the paper's size and the split's standard seed)."""
    raw = generate_raw(family, split, seed, count, agents)
    names = NameChecker.for_version() if validate else None
    return parse_tasks(raw, source=f"<{family} {split} split>", names=names)


def fingerprints_of_test_split(family: str = "construction") -> frozenset[str]:
    """The fingerprints of the test split's blueprints (construction houses, or coblock structures): a builder's
    train split leaves them out."""
    from .blueprint import Blueprint

    tasks = family_named(family).generate_raw("test", SEEDS["test"], None)
    return frozenset(Blueprint.from_dict(t["blueprint"]).fingerprint() for t in tasks.values())


def sha256_of(family: str, split: str, seed: int | None = None, count: int | None = None) -> str:
    """sha256 of the JSON text `mindpy tasks generate` writes for this split."""
    return hashlib.sha256(dumps_tasks(generate(family, split, seed, count, validate=False)).encode()).hexdigest()


def target_items(tasks: Mapping[str, Task]) -> set[str]:
    """Every item some task has as a target."""
    return {item for task in tasks.values() for item in task.targets()}


def blueprint_fingerprints(tasks: Mapping[str, Task]) -> set[str]:
    """The fingerprints of the tasks' blueprints."""
    return {task.blueprint.fingerprint() for task in tasks.values() if task.blueprint is not None}


def example_tasks() -> dict[str, Task]:
    """One small task per family that has one, for demos (tasks/example_tasks.json; `Family.examples`)."""
    raw: dict[str, dict[str, Any]] = {}
    for family in families():
        raw.update(family.examples())
    return parse_tasks(raw, source="<examples>", names=NameChecker.for_version())
