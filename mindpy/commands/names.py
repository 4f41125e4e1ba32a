"""Reading block, item and entity names the way a model writes them.

Models write "Oak Planks", "minecraft:oak_plank", "wheat_seed" or "cows". `NameTable.resolve` turns such a name
into the exact minecraft-data name when only one reading makes sense, and otherwise refuses with the closest
names it knows:

    items = NameTable.items(data)
    items.resolve("Oak Plank")     -> Resolved("oak_planks", note="read 'Oak Plank' as 'oak_planks'")
    items.resolve("oak_plnks")     -> Unknown("Unknown item 'oak_plnks'. Did you mean 'oak_planks'?")

Normalisation: case, surrounding quotes and spaces, a "minecraft:" prefix, spaces and hyphens to underscores.
Then, only if the name is still unknown: a trailing "plank" is read as "planks", "seed" as "seeds", and a few
plural/singular forms are tried ("oak_logs" -> "oak_log", "cows" -> "cow", "sweet_berry" -> "sweet_berries").
A form is taken only when exactly one of them is a known name.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..mcdata import MinecraftData

_SEPARATORS = re.compile(r"[\s\-]+")
_UNDERSCORES = re.compile(r"_+")


@dataclass(frozen=True)
class Resolved:
    """A name that was recognised, with a note when it was read as another spelling."""

    name: str
    note: str = ""  # set when the name was changed beyond case and spacing


@dataclass(frozen=True)
class Unknown:
    """A name that matches nothing: the message for the model and the closest known names."""

    message: str
    suggestions: tuple[str, ...] = ()


def normalize(raw: str) -> str:
    """Lower case, no "minecraft:" prefix, underscores between words."""
    name = raw.strip().strip("\"'`“”‘’").strip().lower()
    if name.startswith("minecraft:"):
        name = name[len("minecraft:"):]
    name = _SEPARATORS.sub("_", name)
    return _UNDERSCORES.sub("_", name).strip("_")


def _forms(name: str) -> list[str]:
    """Other spellings of a name that is not known, most likely first."""
    forms: list[str] = []
    if name.endswith("plank") or name.endswith("seed"):
        forms.append(name + "s")
    if name.endswith("ies"):
        forms.append(name[:-3] + "y")
    if name.endswith("es"):
        forms.append(name[:-2])
    if name.endswith("s"):
        forms.append(name[:-1])
    if name.endswith("y"):
        forms.append(name[:-1] + "ies")
    forms.append(name + "s")
    forms.append(name + "es")
    seen: list[str] = []
    for form in forms:
        if form and form != name and form not in seen:
            seen.append(form)
    return seen


def _join_or(names: Iterable[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


class NameTable:
    """The known names of one kind (item, block, entity), with forgiving lookup and suggestions."""

    def __init__(self, kind: str, names: Iterable[str], aliases: dict[str, str] | None = None,
                 hint=None):
        self.kind = kind
        self.names = frozenset(names)
        self._sorted = sorted(self.names)
        self.aliases = {k: v for k, v in (aliases or {}).items() if v in self.names}
        self._hint = hint  # callable(name) -> extra sentence for an unknown name, or ""

    @classmethod
    def items(cls, data: MinecraftData) -> NameTable:
        return cls("item", data.items_by_name, {"seeds": "wheat_seeds", "seed": "wheat_seeds"})

    @classmethod
    def blocks(cls, data: MinecraftData) -> NameTable:
        drops: dict[str, list[str]] = {}
        for block, entry in data.block_loot.items():
            for drop in entry.get("drops", []):
                item = drop.get("item")
                if item and item != block and block not in drops.setdefault(item, []):
                    drops[item].append(block)

        def hint(name: str) -> str:
            if name in data.items_by_name:
                sources = drops.get(name, [])
                if sources:
                    return f" '{name}' is an item, not a block; it drops from {_join_or(sources[:4])}."
                return f" '{name}' is an item, not a block."
            return ""

        return cls("block", data.blocks_by_name, hint=hint)

    @classmethod
    def entities(cls, data: MinecraftData) -> NameTable:
        return cls("entity", data.entities_by_name)

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def suggestions(self, name: str, n: int = 3) -> list[str]:
        close = difflib.get_close_matches(name, self._sorted, n=n, cutoff=0.6)
        if len(close) < n and name:
            # names holding the word as a whole part ("planks" -> "oak_planks"), shortest first
            parts = [k for k in self._sorted
                     if k not in close and (name in k.split("_") or k.endswith("_" + name))]
            parts.sort(key=lambda k: (len(k), k))
            close += [k for k in parts if k not in close][: n - len(close)]
        return close

    def resolve(self, raw: str) -> Resolved | Unknown:
        name = normalize(raw)
        if name in self.names:
            return Resolved(name)
        if not name:
            return Unknown(f"An empty {self.kind} name was given. Give a {self.kind} name, e.g. "
                           f"'{self._example()}'.")
        if name in self.aliases:
            real = self.aliases[name]
            return Resolved(real, f"read '{raw}' as '{real}'")
        known = [form for form in _forms(name) if form in self.names]
        if known:
            return Resolved(known[0], f"read '{raw}' as '{known[0]}'")
        close = self.suggestions(name)
        message = f"Unknown {self.kind} '{raw}'."
        if self._hint:
            message += self._hint(name)
        if close:
            message += f" Did you mean {_join_or(close)}?"
        return Unknown(message, tuple(close))

    def _example(self) -> str:
        for candidate in ("oak_log", "cow", "stone"):
            if candidate in self.names:
                return candidate
        return self._sorted[0] if self._sorted else "?"
