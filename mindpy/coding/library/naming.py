"""A skill's name and description, made from the request the model answered (no model call).

The name is the function the code of later requests calls, so it must be a plain Python identifier that hides
nothing the code already uses (a builtin, `skills`, `world`, `print`, an allowed module, a keyword).
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Collection

from ..api import EXTRA_GLOBALS, MODULES, SAFE_BUILTINS
from ..checker import FORBIDDEN_NAMES, NAMESPACES

MAX_NAME_WORDS = 5
MAX_NAME_CHARS = 40
MAX_DESCRIPTION_CHARS = 200
# Words that say nothing about what the code does: left out of names ("collect the oak log next to you" ->
# collect_oak_log).
STOP_WORDS = frozenset("""
a an the and or then to of for with in on at by from into onto up down out off over under next near nearby
you your yours me my mine i we us our it its this that these those there here some any all each every
please just now first also so as is are be been being do does did can could should would will shall let
""".split())
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def reserved_names() -> frozenset[str]:
    """Names a skill may not take: they would hide what generated code already uses."""
    return frozenset({*keyword.kwlist, *keyword.softkwlist, *dir(builtins), *SAFE_BUILTINS, *EXTRA_GLOBALS,
                      *NAMESPACES, *MODULES, *FORBIDDEN_NAMES})


def name_problem(name: str) -> str:
    """Why `name` cannot be a skill's name ('' when it can)."""
    if not NAME.match(name):
        return "a skill's name is lower-case letters, digits and '_', starting with a letter"
    if len(name) > MAX_NAME_CHARS + 8:
        return f"a skill's name has at most {MAX_NAME_CHARS + 8} characters"
    if name in reserved_names():
        return f"{name} is a name generated code already uses"
    return ""


def skill_name(request: str, taken: Collection[str] = ()) -> str:
    """A function name for the request: its first meaningful words in snake case, made unique among `taken`."""
    words = [w for w in re.findall(r"[a-z0-9]+", request.lower()) if w not in STOP_WORDS]
    base = "_".join(words[:MAX_NAME_WORDS])[:MAX_NAME_CHARS].rstrip("_") or "skill"
    if not base[0].isalpha():
        base = f"skill_{base}"[:MAX_NAME_CHARS].rstrip("_")
    if base in reserved_names():
        base += "_skill"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def describe(request: str) -> str:
    """The request on one line, cut at a word to MAX_DESCRIPTION_CHARS: what the skill was written to do."""
    text = " ".join(request.split())
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text
    return text[:MAX_DESCRIPTION_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "..."
