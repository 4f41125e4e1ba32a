"""What generated code can use: the skills, the world queries, and the modules it may import.

The same description drives the static checker (which names exist), the API docs (signatures and docstrings),
and the sandbox (which calls the parent answers). `CodeApi` binds it to one bot's `Skills`.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..skills import Skills
from ..world import queries

# Methods of Skills that are plumbing, not skills: the agent controls these, generated code must not.
SKILL_EXCLUDED = frozenset({"interrupt", "take_log"})

# World queries exposed as `world.<name>(...)`, bound to the agent's bot. queries.py has no docstrings
# for most of them, so the docs (including the shape of what they return) are kept here.
WORLD_DOCS: dict[str, str] = {
    "stats": "The bot's state: {'position': {'x', 'y', 'z'}, 'gamemode', 'health' (0-20), 'hunger' (0-20), "
             "'biome', 'weather', 'timeOfDay' (0-24000 ticks), 'dimension', 'heldItem' (name or None), "
             "'nearbyPlayers' (names)}.",
    "inventory": "What the bot carries: {'items': {name: count}, 'equipment': {'head', 'torso', 'legs', 'feet', "
                 "'offHand'} (names or None), 'heldItem', 'freeSlots'}.",
    "nearby_blocks": "Block types within `search_range` blocks, nearest first: [{'name', 'distance'}].",
    "entities": "Entities within `search_range` blocks, nearest first: [{'id', 'name', 'username' (players), "
                "'type', 'distance', 'item' ({'name', 'count'} for dropped items, else None)}].",
    "craftable": "Names of the items the bot can craft now with its inventory (and a nearby crafting table).",
    "block_at": "The block at (x, y, z) as {'name', 'properties'}, or None where the world is not loaded.",
}

# Modules generated code may import, and the names each one offers. Only these names are copied into the
# module the code sees: no submodules, no private names (`random._os` is the os module).
MODULES: dict[str, tuple[str, ...]] = {
    "math": ("*",),
    "itertools": ("*",),
    "random": ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform", "gauss",
               "seed"),
    "collections": ("Counter", "defaultdict", "deque", "OrderedDict"),
    "re": ("match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split", "escape", "compile",
           "IGNORECASE", "I", "MULTILINE", "M", "DOTALL", "S"),
    "json": ("dumps", "loads"),
    "time": ("sleep", "time", "monotonic"),
}

# Standard modules the allowed ones import lazily (Counter.most_common imports heapq on first use). The child
# loads them up front: once the code runs, no module can be loaded.
PRELOAD: tuple[str, ...] = ("heapq", "encodings.ascii", "encodings.latin_1")

# Builtins generated code may call or name. Everything that reaches the interpreter, the file system or
# objects' internals is left out (open, exec, eval, getattr, type, object, vars, globals, __import__...).
SAFE_BUILTINS: tuple[str, ...] = (
    "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "hash", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next",
    "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip",
    "True", "False", "None", "Ellipsis", "NotImplemented",
    "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError", "KeyError", "LookupError",
    "NameError", "OverflowError", "RuntimeError", "StopIteration", "TypeError", "ValueError",
    "ZeroDivisionError", "MemoryError", "RecursionError", "TimeoutError",
)

# Names the sandbox adds to the code's globals besides the builtins and the two namespaces.
EXTRA_GLOBALS: tuple[str, ...] = ("print", "log")

# Size limits of the arguments of one skills.*/world.* call from generated code. Skills take names (blocks,
# items, players, places) and numbers; larger values only grow what the agent keeps (remember_place stores
# its name, the skills' messages repeat them) and what it sends to the bot.
MAX_ARGUMENT_CHARS = 200      # characters of one text, alone or inside a list or dict
MAX_ARGUMENT_ITEMS = 100      # elements of one list or dict argument, all levels together


def skill_names() -> list[str]:
    """Public skill methods of `Skills`, in the order they are defined (grouped by area)."""
    names = []
    for name, member in vars(Skills).items():
        if name.startswith("_") or name in SKILL_EXCLUDED or not inspect.isfunction(member):
            continue
        names.append(name)
    return names


def _skill_signature(name: str) -> inspect.Signature:
    sig = inspect.signature(getattr(Skills, name))
    return sig.replace(parameters=list(sig.parameters.values())[1:])  # drop self


def _world_signature(name: str) -> inspect.Signature:
    sig = inspect.signature(getattr(queries, name))
    return sig.replace(parameters=list(sig.parameters.values())[1:])  # drop bot


@dataclass(frozen=True)
class Member:
    """One function of the code API (`skills.*` or `world.*`): its signature and documentation."""

    namespace: str  # "skills" or "world"
    name: str
    signature: inspect.Signature
    doc: str

    @property
    def qualname(self) -> str:
        return f"{self.namespace}.{self.name}"


def plain_signature(member: Member) -> str:
    """`(block, num=1)`: the parameters as a call would be written, without annotations."""
    parts = []
    for p in member.signature.parameters.values():
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"({', '.join(parts)})"


def api_members() -> dict[str, dict[str, Member]]:
    """{"skills": {name: Member}, "world": {name: Member}}, computed from the code (no bot needed)."""
    skills = {n: Member("skills", n, _skill_signature(n), inspect.getdoc(getattr(Skills, n)) or "")
              for n in skill_names()}
    world = {n: Member("world", n, _world_signature(n), WORLD_DOCS[n] or inspect.getdoc(getattr(queries, n)) or "")
             for n in WORLD_DOCS}
    return {"skills": skills, "world": world}


@functools.lru_cache(maxsize=1)
def allowed_modules() -> dict[str, list[str]]:
    """The import allow-list with each module's public names resolved (what the sandboxed child builds).
    Cached: do not modify the result."""
    import importlib

    resolved = {}
    for mod_name, names in MODULES.items():
        module = importlib.import_module(mod_name)
        if names == ("*",):
            names = tuple(n for n in dir(module) if not n.startswith("_")
                          and not inspect.ismodule(getattr(module, n)))
        resolved[mod_name] = list(names)
    return resolved


@dataclass
class CodeApi:
    """The calls the sandboxed code can make, answered in this process.

    `namespaces` maps "skills"/"world" to {name: callable}. `take_log` returns the messages the last calls
    produced (the skills' log), which become part of the code's output; `interrupt` stops a running skill
    when the code is stopped.
    """

    namespaces: dict[str, dict[str, Callable[..., Any]]]
    interrupt: Callable[[], None] | None = None
    take_log: Callable[[], str] | None = None
    members: dict[str, dict[str, Member]] = field(default_factory=lambda: cached_members())

    def call(self, namespace: str, name: str, args: list, kwargs: dict) -> Any:
        """Run one API call; raises LookupError/TypeError for bad calls. The result is made JSON-able."""
        fn = self.namespaces.get(namespace, {}).get(name)
        if fn is None:
            raise LookupError(f"{namespace}.{name} is not part of the API")
        member = self.members.get(namespace, {}).get(name)
        if member is not None:
            try:
                arguments = member.signature.bind(*args, **kwargs).arguments
            except TypeError as exc:
                raise TypeError(f"{namespace}.{name}{plain_signature(member)}: {exc}") from None
        else:
            arguments = {**{f"#{i + 1}": a for i, a in enumerate(args)}, **kwargs}
        check_argument_sizes(f"{namespace}.{name}", arguments)
        return jsonable(fn(*args, **kwargs))


def argument_size_problem(value: Any) -> str:
    """Why one argument is too large for a skill call ('' when it fits), as the end of a sentence."""
    pending, items = [value], 0
    while pending:
        current = pending.pop()
        if isinstance(current, str) and len(current) > MAX_ARGUMENT_CHARS:
            inside = "" if current is value else "holds a text that "
            return f"{inside}is {len(current)} characters long (the limit is {MAX_ARGUMENT_CHARS})"
        if isinstance(current, dict):
            pending.extend(current)
            pending.extend(current.values())
            items += len(current)
        elif isinstance(current, (list, tuple)):
            pending.extend(current)
            items += len(current)
        if items > MAX_ARGUMENT_ITEMS:
            return f"holds more than {MAX_ARGUMENT_ITEMS} items (the limit)"
    return ""


def check_argument_sizes(qualname: str, arguments: dict[str, Any]) -> None:
    """Raise ValueError with a one-line message if an argument is larger than any skill needs."""
    for parameter, value in arguments.items():
        problem = argument_size_problem(value)
        if problem:
            raise ValueError(f"{qualname}: the argument {parameter} {problem}; use short names and small values")


def jsonable(value: Any) -> Any:
    """The value itself if JSON can carry it, else its text."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def bind_api(skills: Skills, bot=None) -> CodeApi:
    """The API for one agent: its Skills object and world queries about its bot."""
    bot = bot if bot is not None else skills.bot
    skill_fns = {name: getattr(skills, name) for name in skill_names()}
    world_fns: dict[str, Callable[..., Any]] = {}
    for name in WORLD_DOCS:
        query = getattr(queries, name)
        world_fns[name] = (lambda q: lambda *a, **k: q(bot, *a, **k))(query)
    return CodeApi({"skills": skill_fns, "world": world_fns}, interrupt=skills.interrupt, take_log=skills.take_log)


_lock = threading.Lock()
_cache: dict[str, Any] = {}


def cached_members() -> dict[str, dict[str, Member]]:
    """`api_members()`, computed once per process."""
    with _lock:
        if "members" not in _cache:
            _cache["members"] = api_members()
        return _cache["members"]
