"""Reading the files users bring (task files, profiles, settings, example files) so that none can hang or crash mindpy.

    data = read_user_file("tasks/x.yaml", "task file", max_bytes=TASK_FILE_MAX_BYTES)
    f"got {quote(value)}"          # at most QUOTE_LIMIT characters, however big the value

A file is read as bytes up to a size limit, decoded as UTF-8 and parsed by its name: `.json` as JSON, `.yaml` and
`.yml` as YAML, anything else as `default_format`. Both formats are nested at most MAX_DEPTH levels. YAML aliases
may repeat a part of the file, but what they add is bounded (ALIAS_ALLOWANCE values): a "billion laughs" file is
refused while it is read, before anything expands it. Whatever is wrong comes back as one `UserFileError` line that
names the file (and the line, column or byte); `quote` shows a value in such a line without serialising more of it
than it prints.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import time
import unicodedata
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, UserFileError

MB = 1024 * 1024
DEFAULT_MAX_BYTES = 4 * MB        # profiles, settings, example files
TASK_FILE_MAX_BYTES = 64 * MB     # the generated construction train split is about 21 MB
MAX_DEPTH = 64                    # nesting levels of lists and mappings (blueprints need about 6)
ALIAS_ALLOWANCE = 1_000_000       # values that YAML aliases may add to those the file writes out
QUOTE_LIMIT = 80                  # characters of a value shown in a message
READ_TIME_LIMIT_S = 60.0          # a 64 MB file takes well under a second from a local disk
READ_CHUNK = MB

JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")


def read_user_file(path: str | Path, what: str = "file", *, max_bytes: int = DEFAULT_MAX_BYTES,
                   default_format: str = "yaml") -> Any:
    """The data in a JSON or YAML file (None for an empty YAML file); UserFileError naming the file if it is
    missing, too big, not UTF-8, malformed or nested too deeply. `what` names the file in messages."""
    path = Path(path)
    text = read_user_text(path, what, max_bytes=max_bytes)
    if file_format(path, default_format) == "json":
        return _parse_json(path, text)
    return _parse_yaml(path, text)


def read_user_text(path: str | Path, what: str = "file", *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The text of a file (for formats parsed elsewhere, such as JSON lines); UserFileError naming the file if it
    is missing, too big or not UTF-8."""
    path = Path(path)
    return _decode(path, what, _read_bytes(path, what, max_bytes))


def file_format(path: Path, default_format: str = "yaml") -> str:
    """"json" or "yaml": by the file's suffix, else `default_format`."""
    suffix = path.suffix.lower()
    if suffix in JSON_SUFFIXES:
        return "json"
    if suffix in YAML_SUFFIXES:
        return "yaml"
    return default_format


def _read_bytes(path: Path, what: str, max_bytes: int) -> bytes | bytearray:
    """The file's bytes, at most `max_bytes` of them and within READ_TIME_LIMIT_S. Only a regular file is opened:
    a FIFO would wait for a writer for good, and a device (/dev/zero, a tape) may never end or act on being
    opened."""
    try:
        _check_regular(path, what, os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise UserFileError(f"{path}: no such {what}, cannot read it") from None
    except OSError as exc:
        raise UserFileError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        _check_regular(path, what, os.fstat(fd).st_mode)  # swapped for something else since the check above
        os.set_blocking(fd, True)
        data = _read_within(fd, path, what, max_bytes + 1)  # never more than the limit, whatever the file's size
    except OSError as exc:
        raise UserFileError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise UserFileError(f"{path}: the {what} is larger than {_size_text(max_bytes)}, the limit for a {what}")
    return data


def _check_regular(path: Path, what: str, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise UserFileError(f"{path}: is a folder, cannot read it as a {what}")
    if not stat.S_ISREG(mode):
        raise UserFileError(f"{path}: is not a regular file ({_file_kind(mode)}), cannot read it as a {what}")


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def _read_within(fd: int, path: Path, what: str, limit: int) -> bytearray:
    """Up to `limit` bytes, refused when reading takes longer than READ_TIME_LIMIT_S (a stalled network or FUSE
    file system)."""
    deadline = time.monotonic() + READ_TIME_LIMIT_S
    data = bytearray()
    while len(data) < limit:
        chunk = os.read(fd, min(READ_CHUNK, limit - len(data)))
        if not chunk:
            break
        data += chunk
        if time.monotonic() > deadline:
            raise UserFileError(f"{path}: reading the {what} took longer than {READ_TIME_LIMIT_S:g} s (read "
                                f"{_size_text(len(data))}); copy it to a local disk")
    return data


def _size_text(n: int) -> str:
    return f"{n // MB} MB" if n >= MB else f"{n} bytes"


def _decode(path: Path, what: str, data: bytes | bytearray) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserFileError(f"{path}: not valid UTF-8 at byte {exc.start} (line {line}); save the {what} as "
                            f"UTF-8") from None
    return text.removeprefix("\ufeff")  # editors on Windows start UTF-8 files with a byte-order mark


# ----- JSON -----
def _parse_json(path: Path, text: str) -> Any:
    repeated: list[tuple[dict[str, Any], str]] = []  # objects with a key given twice, and the key

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) < len(pairs):  # json.loads would keep the last silently: a task or a field lost unseen
            repeated.append((obj, _first_repeated(pairs)))
        return obj

    try:
        data = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise UserFileError(f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UserFileError(f"{path}: not valid JSON: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # NaN, Infinity, or an integer too long to convert
        raise UserFileError(f"{path}: not valid JSON: {one_line(str(exc))}") from None
    if nesting_depth(data) > MAX_DEPTH:
        raise UserFileError(f"{path}: not valid JSON: nested deeper than {MAX_DEPTH} levels")
    if repeated:
        obj, key = repeated[0]
        more = f" (and {len(repeated) - 1} more objects with a key given twice)" if len(repeated) > 1 else ""
        raise UserFileError(f"{path}: key '{shown_name(key)}' is given twice in {_json_place(data, obj)}{more}; "
                            f"give each key once")
    return data


def _first_repeated(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return ""


def _json_place(data: Any, target: dict[str, Any]) -> str:
    """Where in the parsed document the object `target` is: 'the top-level object' or its path ('t.goal.0')."""
    if data is target:
        return "the top-level object"
    todo: list[tuple[Any, str]] = [(data, "")]
    while todo:
        value, where = todo.pop()
        items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
        for key, child in items:
            place = f"{where}[{key}]" if type(value) is list else f"{where}.{key}" if where else str(key)
            if child is target:
                return f"'{shown_name(place, 120)}'"
            todo.append((child, place))
    return "an object"


def shown_name(text: str, limit: int = 80) -> str:
    """A name from a user's file (a key, a task id) fit for a one-line message: escapes visible, cut short."""
    return one_line(visible_text(text[:limit + 1]), limit)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply the lists and dicts of parsed JSON nest (a scalar is 0), counted up to `limit` + 1. Walks one
    level at a time and skips lists of scalars at C speed, so checking a file costs a fraction of parsing it."""
    level = [value] if type(value) in (dict, list) else []
    depth = 0
    while level and depth <= limit:
        depth += 1
        nested: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            kinds = set(map(type, children))
            if dict in kinds or list in kinds:
                nested += [child for child in children if type(child) is dict or type(child) is list]
        level = nested
    return depth


# ----- YAML -----
class _Refused(yaml.MarkedYAMLError):
    """A YAML document that would be too big or too deep once its aliases are followed."""


class BoundedYamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing documents nested deeper than MAX_DEPTH or whose aliases add more than
    ALIAS_ALLOWANCE values. The sizes are counted on the composed nodes, where an alias is one shared node, so
    checking costs the same as reading the file."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0
        self._composed = 0
        self._extents: dict[int, tuple[int, int]] = {}  # id(node) -> (values once expanded, depth once expanded)

    def compose_node(self, parent: Any, index: Any) -> Any:
        """A node, with its expanded size and depth recorded (an alias's are those of the node it names)."""
        mark = self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            node = super().compose_node(parent, index)
            if id(node) not in self._extents:
                raise _Refused(None, None, "an alias refers to the collection that contains it", mark)
            return node
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(None, None, f"nested deeper than {MAX_DEPTH} levels", mark)
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._composed += 1
        self._extents[id(node)] = self._extent_of(node)
        if isinstance(node, yaml.MappingNode):
            _refuse_repeated_keys(node)
        return node

    def _extent_of(self, node: Any) -> tuple[int, int]:
        if isinstance(node, yaml.MappingNode):
            children = [child for pair in node.value for child in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            return 1, 0
        extents = [self._extents[id(child)] for child in children]
        return 1 + sum(size for size, _ in extents), 1 + max((depth for _, depth in extents), default=0)

    def compose_document(self) -> Any:
        """The document's root node, refused if its aliases expand it too far or too deep."""
        node: Any = super().compose_document()
        size, depth = self._extents.get(id(node), (1, 0))
        if depth > MAX_DEPTH:
            raise _Refused(None, None, f"its aliases nest it deeper than {MAX_DEPTH} levels", node.start_mark)
        if size - self._composed > ALIAS_ALLOWANCE:
            raise _Refused(None, None, f"its aliases expand it to more than {ALIAS_ALLOWANCE:,} values beyond the "
                                       f"{self._composed:,} it writes out", node.start_mark)
        return node


def _refuse_repeated_keys(node: yaml.MappingNode) -> None:
    """A mapping may not give a key twice (PyYAML would keep the last silently); a key that `<<` merges in may be
    given again, which is what merging is for."""
    first: dict[tuple[str, str], Any] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        earlier = first.setdefault((key.tag, key.value), key)
        if earlier is not key:
            raise _Refused(None, None, f"key '{shown_name(key.value)}' is given twice (first at line "
                                       f"{earlier.start_mark.line + 1}); give each key once", key.start_mark)


def _parse_yaml(path: Path, text: str) -> Any:
    loader = BoundedYamlLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
        raise UserFileError(f"{path}: not valid YAML{where}: {one_line(str(problem))}") from None
    except RecursionError:
        raise UserFileError(f"{path}: not valid YAML: nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, TypeError, OverflowError) as exc:  # a tagged value that does not convert (!!int "x")
        raise UserFileError(f"{path}: not valid YAML: {one_line(str(exc))}") from None
    finally:
        loader.dispose()


# ----- showing values in messages -----
def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """`value` as JSON-like text of at most `limit` characters ("..." at the end when cut). Only as much of the
    value is rendered as is shown, so quoting a huge or alias-shared structure costs nothing."""
    parts: list[str] = []
    size = 0
    for piece in _pieces(value, limit):
        parts.append(piece)
        size += len(piece)
        if size > limit:
            break
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _pieces(value: Any, limit: int) -> Iterator[str]:
    if isinstance(value, Mapping):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ", " if i else ""
            yield from _pieces(key if isinstance(key, str) else str(key), limit)
            yield ": "
            yield from _pieces(item, limit)
        yield "}"
    elif isinstance(value, (list, tuple)):
        yield "["
        for i, item in enumerate(value):
            yield ", " if i else ""
            yield from _pieces(item, limit)
        yield "]"
    else:
        yield _scalar(value, limit)


def _scalar(value: Any, limit: int) -> str:
    if isinstance(value, str):
        return json.dumps(value[:limit + 1], ensure_ascii=False)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"  # too long to print
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return one_line(repr(value), limit + 1)


def read_json_record(path: Path, option: str, missing: str) -> Any:
    """A JSON record mindpy wrote earlier (an episode's or an evaluation's settings), for the command line option
    `option` that reads it: ConfigError in one line when it is missing (`missing` says what to do) or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{option}: {missing}") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{option}: {path}: {one_line(str(exc))}") from None


def one_line(text: str, limit: int = 200) -> str:
    """`text` on one line (line breaks shown as \\n) and at most `limit` characters."""
    text = text[:limit + 1].replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ----- showing user text on a terminal -----
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # controls, format, lone surrogates, line breaks
_MAYBE_INVISIBLE = re.compile(r"[\x00-\x1f\x7f-\x9f]|[^\x00-\x7f]")


def visible_text(text: str) -> str:
    """`text` with every character that a terminal would act on or hide shown as an escape: C0 and C1 controls,
    DEL, Unicode format characters (U+202E turns the rest of a line around, U+200B is invisible), line and
    paragraph separators and lone surrogates become `\\xNN`, `\\uNNNN` or `\\UNNNNNNNN`. Everything else, other
    scripts and emoji included, is kept as it is."""
    return _MAYBE_INVISIBLE.sub(_escape_invisible, text)


def _escape_invisible(match: re.Match[str]) -> str:
    char = match.group()
    if unicodedata.category(char) not in _INVISIBLE_CATEGORIES:
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class VisibleLogFormatter(logging.Formatter):
    """Log lines whose text came from outside (a player's chat at INFO, a model's error at WARNING) written as text:
    the message's control and format characters shown as escapes (see visible_text), a traceback line by line."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible_text(super().formatMessage(record))

    def formatException(self, ei: Any) -> str:
        return _visible_lines(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        return _visible_lines(super().formatStack(stack_info))


def _visible_lines(text: str) -> str:
    return "\n".join(visible_text(line) for line in text.split("\n"))


def visible_log_handler(fmt: str) -> logging.Handler:
    """A handler to stderr writing `fmt` lines with VisibleLogFormatter (for logging.basicConfig(handlers=...))."""
    handler = logging.StreamHandler()
    handler.setFormatter(VisibleLogFormatter(fmt))
    return handler
