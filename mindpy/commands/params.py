"""Command parameters: their types, numeric domains, and the conversion of a parsed literal into a value.

Types: int, float, bool, string, BlockName, ItemName, EntityName and Choice (one of a few words). A parsed
argument arrives as a `Literal` (a number, a quoted string, or a bare word); `Param.convert` turns it into the
value the command's function receives, or raises `ParamError` with a sentence telling the model what to change.

Lenient where nothing is lost: "4" (quoted) for an int, 4.0 for an int, "on"/"yes"/1 for a bool, a bare word for a
string or a name, "Oak Plank" for "oak_planks". Strict otherwise: 2.5 is not an int, a number is not an item
name, and values outside a domain are refused (unless the parameter clamps, e.g. a search range: a range below the
minimum is raised to it, with a note, since searching further still finds the nearest block).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from .. import DEFAULT_MINECRAFT_VERSION
from .names import NameTable, Resolved

TRUE_WORDS = ("true", "t", "1", "on", "yes", "y")
FALSE_WORDS = ("false", "f", "0", "off", "no", "n")


class ParamError(ValueError):
    """A value that does not fit a parameter; the message is written for the model."""


@dataclass(frozen=True)
class Literal:
    """One argument as written: kind is "number", "string" (was quoted) or "word" (bare)."""

    kind: str
    text: str

    def show(self) -> str:
        return f'"{self.text}"' if self.kind == "string" else self.text


@dataclass(frozen=True)
class Domain:
    """A numeric range: [lo, hi) by default, [lo, hi] when closed. None leaves a side open."""

    lo: float | None = None
    hi: float | None = None
    closed: bool = False

    def __contains__(self, value: float) -> bool:
        if self.lo is not None and value < self.lo:
            return False
        if self.hi is not None and (value > self.hi or (value == self.hi and not self.closed)):
            return False
        return True

    def clamp(self, value: float) -> float:
        if self.lo is not None and value < self.lo:
            return self.lo
        if self.hi is not None and value > self.hi:
            return self.hi
        return value

    def __str__(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"[{_num(self.lo)}, {_num(self.hi)}{']' if self.closed else ')'}"
        if self.lo is not None:
            return f">= {_num(self.lo)}"
        if self.hi is not None:
            return f"{'<=' if self.closed else '<'} {_num(self.hi)}"
        return "any"

    def describe(self) -> str:
        if self.lo is not None and self.hi is not None:
            if self.closed:
                return f"in {self} (from {_num(self.lo)} to {_num(self.hi)}, both included)"
            return f"in {self} (from {_num(self.lo)} up to, not including, {_num(self.hi)})"
        if self.lo is not None:
            return f"at least {_num(self.lo)}"
        if self.hi is not None:
            return f"at most {_num(self.hi)}" if self.closed else f"below {_num(self.hi)}"
        return "a number"


def _num(value: float) -> str:
    if abs(value) >= 1e15:  # a number a model made up: short, not hundreds of digits
        return f"{value:.3g}"
    return str(int(value)) if float(value).is_integer() else str(value)


def _number(lit: Literal) -> float | None:
    if lit.kind == "string" and not lit.text.strip():
        return None
    try:
        value = float(lit.text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@cache
def name_table(kind: str, version: str = DEFAULT_MINECRAFT_VERSION) -> NameTable:
    """The known item, block or entity names (`kind`) of a Minecraft version (built once)."""
    from ..mcdata import minecraft_data

    data = minecraft_data(version)
    return {"item": NameTable.items, "block": NameTable.blocks, "entity": NameTable.entities}[kind](data)


class ParamType:
    """Base of the parameter types. `convert` returns (value, note); note is "" unless the value was reinterpreted."""

    name = "value"
    example: Any = "text"

    def convert(self, lit: Literal, param: Param, version: str) -> tuple[Any, str]:
        raise NotImplementedError

    def show(self) -> str:
        return self.name


class IntType(ParamType):
    name = "int"
    example = 1

    def convert(self, lit, param, version):
        value = _number(lit)
        if value is None:
            raise ParamError(f"{param.name} must be a whole number, got {lit.show()}.")
        if not value.is_integer():
            raise ParamError(f"{param.name} must be a whole number, got {lit.show()}.")
        return int(value), ""


class FloatType(ParamType):
    name = "float"
    example = 3

    def convert(self, lit, param, version):
        value = _number(lit)
        if value is None:
            raise ParamError(f"{param.name} must be a number, got {lit.show()}.")
        return (int(value) if value.is_integer() else value), ""


class BoolType(ParamType):
    name = "bool"
    example = True

    def convert(self, lit, param, version):
        word = lit.text.strip().lower()
        if word in TRUE_WORDS:
            return True, ""
        if word in FALSE_WORDS:
            return False, ""
        raise ParamError(f"{param.name} must be true or false, got {lit.show()}.")


class StringType(ParamType):
    name = "string"
    example = "text"

    def convert(self, lit, param, version):
        return lit.text, ""


class NameType(ParamType):
    """A block, item or entity name, checked against minecraft-data."""

    def __init__(self, kind: str, name: str, example: str, also: tuple[str, ...] = ()):
        self.kind = kind
        self.name = name
        self.example = example
        self.also = tuple(also)  # extra words accepted as they are, e.g. "hand" for "no item"

    def convert(self, lit, param, version):
        if lit.text.strip().lower() in self.also:
            return lit.text.strip().lower(), ""
        if lit.kind == "number":
            raise ParamError(f"{param.name} must be {_article(self.kind)} {self.kind} name such as "
                             f'"{self.example}", got the number {lit.text}.')
        found = name_table(self.kind, version).resolve(lit.text)
        if isinstance(found, Resolved):
            return found.name, found.note
        raise ParamError(found.message)


class Choice(ParamType):
    """One of a fixed set of words (case-insensitive)."""

    def __init__(self, options: tuple[str, ...]):
        self.options = tuple(options)
        self.name = "one of " + "/".join(self.options)
        self.example = self.options[0]

    def convert(self, lit, param, version):
        word = lit.text.strip().lower().replace(" ", "_")
        for option in self.options:
            if option.lower() == word:
                return option, ""
        import difflib

        close = difflib.get_close_matches(word, self.options, n=1, cutoff=0.6)
        hint = f" Did you mean \"{close[0]}\"?" if close else ""
        listed = ", ".join(f'"{o}"' for o in self.options)
        raise ParamError(f"{param.name} must be one of {listed}, got {lit.show()}.{hint}")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


class CommandNameType(ParamType):
    """A command's name, with or without its "!" (checked by whoever reads it, who knows the commands)."""

    name = "CommandName"
    example = "craftRecipe"

    def convert(self, lit, param, version):
        return lit.text.strip().lstrip("!"), ""


INT = IntType()
FLOAT = FloatType()
BOOL = BoolType()
STRING = StringType()
COMMAND_NAME = CommandNameType()
BLOCK = NameType("block", "BlockName", "oak_log")
ITEM = NameType("item", "ItemName", "oak_planks")
ENTITY = NameType("entity", "EntityName", "cow")
ITEM_OR_HAND = NameType("item", 'ItemName or "hand"', "bucket", also=("hand",))


@dataclass(frozen=True)
class Param:
    """One parameter of a command: its type, description, optional numeric domain and example."""

    name: str
    type: ParamType
    description: str
    domain: Domain | None = None
    clamp: bool = False          # bring values outside the domain into it (with a note) instead of refusing
    cap: float | None = None     # a sanity ceiling, not shown in the docs: larger values are brought down to it
    example: Any = None          # shown in signatures and refusals; the type's example when None
    optional: bool = False       # may be left out (trailing parameters only); the command then gets None

    def example_value(self) -> Any:
        if self.example is not None:
            return self.example
        value = self.type.example
        if self.domain is not None and isinstance(value, (int, float)) and not isinstance(value, bool) \
                and value not in self.domain:
            # a domain without bounds holds every number, so here at least one side is set
            lo, hi = self.domain.lo, self.domain.hi
            value = lo if lo is not None else (hi - 1 if hi is not None else value)
            value = int(value) if float(value).is_integer() else value
        return value

    def signature(self) -> str:
        text = f"{self.name}{'?' if self.optional else ''}: {self.type.show()}"
        if self.domain is not None:
            two_sided = self.domain.lo is not None and self.domain.hi is not None
            text += f" in {self.domain}" if two_sided else f" {self.domain}"
        return text

    def convert(self, lit: Literal, version: str = DEFAULT_MINECRAFT_VERSION) -> tuple[Any, str]:
        value, note = self.type.convert(lit, self, version)
        if self.cap is not None and isinstance(value, (int, float)) and value > self.cap:
            capped = type(value)(self.cap)
            return capped, f"{self.name} {_num(value)} is more than {_num(self.cap)}; used {_num(capped)}"
        if self.domain is not None and isinstance(value, (int, float)) and not isinstance(value, bool) \
                and value not in self.domain:
            if self.clamp:
                fixed = self.domain.clamp(value)
                fixed = int(fixed) if isinstance(value, int) and float(fixed).is_integer() else fixed
                return fixed, f"{self.name} {_num(value)} is outside {self.domain}; used {_num(fixed)}"
            raise ParamError(f"{self.name} must be {self.domain.describe()}, got {_num(value)}.")
        return value, note


def show_value(value: Any) -> str:
    """A value written as a command argument."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _num(value)
    return '"' + str(value).replace('"', '\\"') + '"'


__all__ = ["BLOCK", "BOOL", "Choice", "Domain", "ENTITY", "FLOAT", "INT", "ITEM", "ITEM_OR_HAND", "Literal", "Param",
           "ParamError",
           "ParamType", "STRING", "name_table", "show_value"]
