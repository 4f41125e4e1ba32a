"""Finding the command in a model's reply and checking its arguments.

Grammar: `!name` or `!name(arg, arg, ...)`. Only the first command of a reply counts; the text before it is the
message part (said in chat), the text after it is dropped.

Arguments are numbers (`-?\\d+(\\.\\d+)?`), true/false, or quoted strings. Also read, because the intent is clear:
- single quotes and typographic quotes ('oak_log', “oak_log”), and quotes inside a string when they are not
  followed by `,` or `)` (`"say "hi" to Bob"`); `\\"` inside a string;
- spaces anywhere between the parts, also before `(`; an empty `()` after a command without parameters;
  a trailing comma before `)`;
- unquoted arguments: a bare word or words up to the next `,` or `)` (`!collectBlocks(oak_log, 3)`,
  `!goal(collect ten logs)`). Their text is used as is; a text containing a comma must be quoted;
- a command name in another case (`!Inventory`) when it matches one command only, and a command glued to the
  next sentence (`!inventoryI have...`). Right after a letter or digit (`compass!craftRecipe(...)`) only an exact
  command name counts, so that prose such as "great!Stay tuned" is not taken for a command.
Strict: the number of arguments must match, every value must fit its parameter (see params.py), a missing `)`
or an unclosed quote is refused. A `!word` that is neither a command nor close to one (`Wow!Great`) is plain text.

`parse_reply` never raises: any text gives a ParseResult with either a command, a refusal (`error`), or neither.
`parse_command` reads a message meant as a command (a player's `!...`): there, neither is a refusal too.
"""

from __future__ import annotations

import difflib
import functools
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .params import Literal, ParamError, show_value
from .registry import Command, CommandRegistry

log = logging.getLogger(__name__)

# Only so many "!word"s are looked at: a reply repeating "!x" thousands of times would otherwise cost seconds.
MAX_CANDIDATES = 200
_NAME = re.compile(r"!([A-Za-z_][A-Za-z0-9_]*)")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")
_QUOTES = {'"': '"”', "“": '”"', "”": '”"', "'": "'’", "‘": "’'", "’": "’'", "`": "`"}
_SPACE = " \t"
_LEADING_NAME = re.compile(r"\s*!+([A-Za-z_][A-Za-z0-9_]*)")  # "!!foo": the name a player meant
_SHOWN_NAME = 30  # characters of an unknown command's name quoted back


@dataclass
class ParseResult:
    """What a model reply asks for: the command and its converted arguments, or the refusal."""

    command: str | None = None          # the command to run; None when there is none or it was refused
    args: list[Any] = field(default_factory=list)
    error: str | None = None            # the refusal, written for the model
    message: str = ""                   # the text before the command
    attempted: str | None = None        # the command name as recognised, also when refused
    written: str = ""                   # the command as it appears in the reply
    rest: str = ""                      # the text after the command (not run)
    notes: list[str] = field(default_factory=list)  # values read in a forgiving way

    @property
    def ok(self) -> bool:
        return self.command is not None and self.error is None

    def call_text(self) -> str:
        """The command in its canonical form, e.g. `!craftRecipe("oak_planks", 4)`."""
        if self.command is None:
            return ""
        if not self.args:
            return f"!{self.command}"
        return f"!{self.command}(" + ", ".join(show_value(a) for a in self.args) + ")"


class _Refusal(Exception):
    pass


def parse_reply(text: Any, registry: CommandRegistry, blocked: Iterable[str] = ()) -> ParseResult:
    """The first command in `text`, checked against `registry`; commands named in `blocked` are refused."""
    try:
        return parse_strict(text if isinstance(text, str) else str(text), registry, blocked)
    except Exception as exc:  # a safety net only: parse_strict is fuzz-tested not to raise
        log.exception("command parser failed")
        return ParseResult(error=f"The command could not be read ({type(exc).__name__}). Write it as "
                                 f'!name or !name(arg, ...), e.g. !craftRecipe("oak_planks", 1).')


def parse_command(text: Any, registry: CommandRegistry, blocked: Iterable[str] = ()) -> ParseResult:
    """`text` as one command, as a player types it (`!stats`): like `parse_reply`, but a text that holds no
    command (`!`, `!!`, `!(`, `!1`, an unknown `!word`) is refused with how to write one, never read as words."""
    result = parse_reply(text, registry, blocked)
    if result.command is not None or result.error is not None:
        return result
    result.error = _not_a_command(result.message, registry, blocked)
    return result


def _not_a_command(text: str, registry: CommandRegistry, blocked: Iterable[str]) -> str:
    """Why `text`, sent as a command, is none, with how to write one (one line)."""
    how = "Write a command as !name or !name(arg, ...), e.g. !stats; !help lists them."
    named = _LEADING_NAME.match(text)
    if named is None:
        return f"'!' must be followed by a command name. {how}"
    written = named.group(1)
    blocked_names = frozenset(b.strip().lstrip("!") for b in blocked)
    close = _close_commands(written, tuple(registry.names()), blocked_names)
    shown = written if len(written) <= _SHOWN_NAME else written[:_SHOWN_NAME] + "..."
    hint = f" Did you mean !{close[0]}?" if close else ""
    return f"Unknown command !{shown}.{hint} {how}"


def parse_strict(text: str, registry: CommandRegistry, blocked: Iterable[str] = ()) -> ParseResult:
    """`parse_reply` without the safety net (the tests call this one, so that a bug shows)."""
    blocked_names = frozenset(b.strip().lstrip("!") for b in blocked)
    all_names = tuple(registry.names())
    for seen, match in enumerate(_NAME.finditer(text)):
        if seen == MAX_CANDIDATES:
            break
        written = match.group(1)
        command, glued = _find(written, registry)
        glued_to_word = match.start() > 0 and text[match.start() - 1].isalnum()
        if glued_to_word and (command is None or (command.name != written and not glued)):
            continue  # "great!Stay tuned": only an exact command name counts right after a letter
        if command is None:
            paren = text.startswith("(", _skip(text, match.end(), _SPACE))
            close = _close_commands(written, all_names, blocked_names)
            if not close and not paren:
                continue  # "Wow!Great": not a command
        result = ParseResult(message=text[:match.start()].strip())
        if command is None:
            result.attempted = written
            result.written = match.group(0)
            result.rest = text[match.end():]
            hint = f" Did you mean !{close[0]}?" if close else " Use !help to list the commands."
            result.error = f"Unknown command !{written}.{hint}"
            return result
        result.attempted = command.name
        if command.name != written and not glued:
            result.notes.append(f"read !{written} as !{command.name}")
        end = match.start() + 1 + len(command.name) if glued else match.end()
        literals: list[Literal] = []
        after_name = _skip(text, end, _SPACE)
        if not glued and after_name < len(text) and text[after_name] == "(":
            try:
                literals, end = _arguments(text, after_name + 1)
            except _Refusal as refusal:
                result.written = text[match.start():]
                result.error = f"{refusal} Usage: {command.signature()}, e.g. {command.example()}"
                return result
        result.written = text[match.start():end]
        result.rest = text[end:]
        if command.name in blocked_names:
            result.error = (f"Command !{command.name} is blocked for you: you cannot use it. Do without it, "
                            f"with other commands or by asking the other players.")
            return result
        _convert(command, literals, registry.version, result)
        return result
    return ParseResult(message=text.strip())


def _find(written: str, registry: CommandRegistry) -> tuple[Command | None, bool]:
    """The command called `written`, or whose name starts `written` and is followed by a capital letter."""
    command = registry.get(written)
    if command is not None:
        return command, False
    best = None
    for name in registry.names():
        if len(name) < len(written) and written.startswith(name) and written[len(name)].isupper():
            if best is None or len(name) > len(best):
                best = name
    return (registry.get(best), True) if best else (None, False)


@functools.lru_cache(maxsize=1024)  # a reply may repeat one unknown word thousands of times
def _close_commands(written: str, all_names: tuple[str, ...], blocked: frozenset[str]) -> list[str]:
    names = [n for n in all_names if n not in blocked]
    lowered = {n.lower(): n for n in names}
    close = difflib.get_close_matches(written.lower(), list(lowered), n=1, cutoff=0.75)
    return [lowered[c] for c in close]


def _skip(text: str, i: int, chars: str) -> int:
    """The index of the first character at or after `i` that is not in `chars` (no copy of the text: a reply
    of thousands of "!x" would make that quadratic)."""
    while i < len(text) and text[i] in chars:
        i += 1
    return i


def _skip_to(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _arguments(text: str, i: int) -> tuple[list[Literal], int]:
    """Read arguments from just after `(` to the matching `)`; returns them and the index after `)`."""
    literals: list[Literal] = []
    while True:
        i = _skip_to(text, i)
        if i >= len(text):
            raise _Refusal("The argument list is not closed: add the missing ')'.")
        if text[i] == ")":
            return literals, i + 1
        if text[i] == ",":
            raise _Refusal(f"Argument {len(literals) + 1} is empty (two commas in a row, or a comma first).")
        if text[i] in _QUOTES:
            lit, i = _quoted(text, i)
        else:
            lit, i = _bare(text, i)
        literals.append(lit)
        i = _skip_to(text, i)
        if i >= len(text):
            raise _Refusal("The argument list is not closed: add the missing ')'.")
        if text[i] == ",":
            i += 1
        elif text[i] != ")":
            raise _Refusal(f"Expected ',' or ')' after argument {len(literals)}, found '{text[i]}'.")


def _quoted(text: str, start: int) -> tuple[Literal, int]:
    """A quoted string; it ends at a closing quote followed by `,`, `)` or the end of the text."""
    closers = _QUOTES[text[start]]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and (text[i + 1] in _QUOTES or text[i + 1] == "\\"):
            out.append(text[i + 1])
            i += 2
            continue
        if c in closers:
            j = _skip_to(text, i + 1)
            if j >= len(text) or text[j] in ",)":
                return Literal("string", "".join(out)), i + 1
        out.append(c)
        i += 1
    shown = text[start:start + 30]
    raise _Refusal(f"The quoted argument {shown}... is never closed: add the closing quote.")


def _bare(text: str, start: int) -> tuple[Literal, int]:
    """An unquoted argument: everything up to the next `,` or `)` outside parentheses."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        i += 1
    raw = text[start:i].strip()
    kind = "number" if _NUMBER.fullmatch(raw) else "word"
    return Literal(kind, raw), i


def _convert(command: Command, literals: list[Literal], version: str, result: ParseResult) -> None:
    usage = f"Usage: {command.signature()}, e.g. {command.example()}"
    if command.fill(literals) is None:
        got = len(literals)
        result.error = f"{command.arity_text()}, got {got}. Example: {command.example()}"
        if not command.params:
            result.error = f"{command.arity_text()}, got {got}. Write just !{command.name}"
        return
    values: list[Any] = []
    problems: list[str] = []
    for param, lit in zip(command.params, literals, strict=False):  # fewer literals: optional ones left out
        try:
            value, note = param.convert(lit, version)
        except ParamError as exc:
            problems.append(str(exc))
            continue
        values.append(value)
        if note:
            result.notes.append(note)
    if problems:
        result.error = " ".join(problems) + " " + usage
        return
    result.command = command.name
    result.args = command.fill(values) or []  # optional ones left out: None (the count was checked above)
