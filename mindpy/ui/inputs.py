"""What the dashboard accepts from a request: a JSON object for a body, whole numbers in their range, true or false,
strings of a bounded length, list indices in a path. Anything else is a BadInput whose one-line message says what
is allowed (the app answers it with a 400): a request can never reach an agent with a value it did not mean, nor
make the dashboard fail.

    body = json_object(raw)
    radius = whole_number(body.get("radius"), "radius", 8, 128, unit="blocks")
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from ..errors import MindpyError

MAX_BODY_BYTES = 64 * 1024  # the page's largest body is a 2000-character message
MAX_INT_DIGITS = 300  # longer integers are read as infinite (Python refuses to read ones past 4300 digits)
INDEX = re.compile(r"[0-9]{1,9}")
SHOWN_CHARS = 40  # how much of a refused value a message repeats


class BadInput(MindpyError):
    """A request's value the dashboard does not take; the message says which and what is allowed."""


def json_object(raw: bytes) -> dict:
    """The body as a JSON object, or BadInput. NaN, Infinity and numbers too large to hold are read as non-finite
    floats, which every number check then refuses with its own range."""
    try:
        value = json.loads(raw.decode("utf-8"), parse_int=_bounded_int)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadInput('the body must be a JSON object, such as {"radius": 32}') from None
    if not isinstance(value, dict):
        raise BadInput(f'the body must be a JSON object ({{"key": value, ...}}), not {type_name(value)}')
    return value


def _bounded_int(digits: str) -> int | float:
    if len(digits) > MAX_INT_DIGITS:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


def whole_number(value: Any, what: str, low: int, high: int, unit: str = "") -> int:
    """`value` as an int from `low` to `high`: a JSON integer, or a float with nothing after the point (the page's
    Number()); BadInput for booleans, strings, lists, non-finite or fractional numbers and numbers out of range."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2 ** 53:
        number = int(value)
    if number is None or not low <= number <= high:
        of = f" of {unit}" if unit else ""
        raise BadInput(f"{what}: a whole number{of} from {low} to {high}, not {shown(value)}")
    return number


def flag(value: Any, what: str) -> bool:
    """`value` if it is true or false (JSON booleans: a "false" string or a 0 would be read as the opposite)."""
    if not isinstance(value, bool):
        raise BadInput(f"{what}: true or false, not {shown(value)}")
    return value


def text(value: Any, what: str, limit: int | None = None, optional: bool = False) -> str | None:
    """`value` if it is a string (of at most `limit` characters), or None when `optional`."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or (limit is not None and len(value) > limit):
        most = f" of at most {limit} characters" if limit is not None else ""
        also = " or null" if optional else ""
        raise BadInput(f"{what}: a string{most}{also}, not {shown(value)}")
    return value


def index(value: str, what: str, count: Callable[[], int]) -> int:
    """A list index from a path ("0", "12"): BadInput unless it is plain digits (the message gives the range, from
    `count()` items); the caller answers an index past the end (a 404: there is no such item)."""
    if INDEX.fullmatch(value) is None:
        items = count()
        where = f"from 0 to {items - 1}" if items > 0 else "from 0 (there is none yet)"
        raise BadInput(f"{what}: a whole number {where}, not {shown(value)}")
    return int(value)


def shown(value: Any) -> str:
    """A refused value as a message repeats it: its type when it is no number or string, cut short when long."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        out = json.dumps(value) if not isinstance(value, int) or isinstance(value, bool) else str(value)
        return out if len(out) <= SHOWN_CHARS else out[:SHOWN_CHARS] + "..."
    return type_name(value)


def type_name(value: Any) -> str:
    """What kind of JSON value `value` is, as a message names it."""
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")
