"""Layers only look down: no module of mindpy imports from a layer above its own.

The map below is the architecture (docs/architecture.md draws it). A module belongs to the layer of the longest
prefix that names it; an import counts wherever it stands (top of the file, inside a function, or under
TYPE_CHECKING), because each of them ties the lower layer to the upper one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mindpy

PACKAGE = Path(mindpy.__file__).resolve().parent

# Bottom up. A module may import from its own layer and the ones below it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("mindpy", "mindpy.errors", "mindpy.nodejs", "mindpy.userfiles")),
    ("processes", ("mindpy.bridge", "mindpy.server", "mindpy.mcdata")),
    ("world", ("mindpy.recipes", "mindpy.world", "mindpy.skills", "mindpy.view")),
    ("services", ("mindpy.models", "mindpy.memory", "mindpy.rag", "mindpy.settings", "mindpy.tasks",
                  "mindpy.probes", "mindpy.training")),
    ("agent parts", ("mindpy.agent.actions", "mindpy.agent.modes", "mindpy.agent.self_prompt", "mindpy.agent.bus",
                     "mindpy.agent.conversation", "mindpy.coding")),
    ("commands", ("mindpy.commands", "mindpy.profiles", "mindpy.prompts")),
    ("agent", ("mindpy.agent", "mindpy.oracle", "mindpy.dispatch")),
    # probes: the records, answer reading and scoring are services; building them from played episodes (the
    # oracle's prompts, the command parser, mindpy eval) and the `mindpy probe` command are runs
    ("runs", ("mindpy.harness", "mindpy.demo", "mindpy.doctor", "mindpy.probes.build", "mindpy.probes.cli",
              "mindpy.probes.moments", "mindpy.probes.refresh")),
    # the environments for learning agents: a task's world stepped, built from an episode's pieces
    ("environments", ("mindpy.env",)),
    # the web dashboard: it watches runs and evaluations (through their watcher hooks) and steers their agents
    ("interface", ("mindpy.ui",)),
]

# The command-line entry point wires every layer together; it alone may import anything.
ALLOWED_ANYWHERE = ("mindpy.cli",)

# A task family's folder (mindpy/tasks/families/<name>/) holds parts of several layers; a module's name says which:
# `play` plays an episode (a run), `oracle` is the scripted player's plan and `random_model` a random team (agent
# parts, plugged into the model registry by entry point), `probes` builds probe questions from played episodes (a
# run); the rest are services.
# Lower layers reach a family's parts only through the registry (mindpy.tasks.family), by name, never by import.
FAMILIES = "mindpy.tasks.families"
FAMILY_ROLES = {"play": "runs", "oracle": "agent", "random_model": "agent", "probes": "runs"}


def layer_index(name: str) -> int:
    return next(i for i, (layer, _) in enumerate(LAYERS) if layer == name)


def layer_of(module: str) -> int:
    parts = module.split(".")
    if module.startswith(FAMILIES + ".") and len(parts) > 4 and parts[4] in FAMILY_ROLES:
        return layer_index(FAMILY_ROLES[parts[4]])
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    if best < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in {__file__}")
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, runtime_only: bool = False) -> list[tuple[int, str]]:
    """(line, module) for every import of a mindpy module in the file, relative imports resolved. `runtime_only`
    leaves out the imports under `if TYPE_CHECKING:`, which name types and never run."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {id(node) for branch in ast.walk(tree)
                 if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
                 for statement in branch.body for node in ast.walk(statement)} if runtime_only else set()
    found = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from . import x` may name a submodule: judge the submodule
            names = [f"{target}.{alias.name}" for alias in node.names] if node.module is None else [target]
            found += [(node.lineno, name) for name in names]
    return [(line, name) for line, name in found if name == "mindpy" or name.startswith("mindpy.")]


def upward_imports() -> list[str]:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        if module in ALLOWED_ANYWHERE:
            continue
        own = layer_of(module)
        for line, target in imported_modules(path):
            if layer_of(target) > own:
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module} ({LAYERS[own][0]}) imports "
                                f"{target} ({LAYERS[layer_of(target)][0]})")
    return problems


def test_no_module_imports_from_a_layer_above_it():
    problems = upward_imports()
    assert not problems, "upward imports:\n" + "\n".join(problems)


def test_the_check_sees_an_upward_import(tmp_path):
    # the walker must resolve relative imports, or the test above could pass by seeing nothing
    assert layer_of("mindpy.commands.movement") > layer_of("mindpy.skills.api")
    assert layer_of("mindpy.agent.modes") < layer_of("mindpy.commands") < layer_of("mindpy.agent.agent")
    assert layer_of("mindpy.tasks.families.orders.play") == layer_of("mindpy.harness.episode")
    assert layer_of("mindpy.tasks.families.crafting.oracle") == layer_of("mindpy.oracle.player")
    assert layer_of("mindpy.tasks.families.orders.world") == layer_of("mindpy.tasks.world")
    skills_api = PACKAGE / "skills" / "api.py"
    assert any(name.startswith("mindpy.bridge") for _, name in imported_modules(skills_api))


# ----- import cycles -----
def import_graph() -> dict[str, set[str]]:
    """Every module of mindpy -> the mindpy modules it imports when it runs (wherever the import stands, in a
    function too; an import of a package is its __init__, a name that is no module is its module's)."""
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}

    def known(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    return {module: {known(target) for _, target in imported_modules(path, runtime_only=True)} - {module, ""}
            for module, path in modules.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops of a graph: each strongly connected group of more than one module (Tarjan's algorithm),
    sorted, as a list of its modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(groups)


def test_no_import_cycles_in_mindpy():
    cycles = import_cycles(import_graph())
    assert not cycles, "import loops:\n" + "\n".join(" <-> ".join(group) for group in cycles)


def test_the_cycle_check_sees_a_loop_inside_one_layer():
    graph = {"mindpy.tasks.a": {"mindpy.tasks.b"}, "mindpy.tasks.b": {"mindpy.tasks.c"},
             "mindpy.tasks.c": {"mindpy.tasks.a"}, "mindpy.tasks.d": {"mindpy.tasks.a"}}
    assert import_cycles(graph) == [["mindpy.tasks.a", "mindpy.tasks.b", "mindpy.tasks.c"]]
    assert import_cycles({"mindpy.x": {"mindpy.y"}, "mindpy.y": set()}) == []


def test_a_function_level_import_counts_and_a_type_only_one_does_not(tmp_path, monkeypatch):
    folder = tmp_path / "mindpy"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "a.py").write_text("def f():\n    from . import b\n")
    (folder / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n"
                                 "from . import a\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", folder)
    assert import_graph()["mindpy.a"] == {"mindpy.b"}
    assert import_cycles(import_graph()) == [["mindpy.a", "mindpy.b"]]
    (folder / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n")
    assert import_cycles(import_graph()) == []
