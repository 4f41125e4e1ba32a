"""Multiple-choice coordination probes (CoordQA-style): one question about a scene, its options and the right one.

    probe = Probe(id="cook-1-ec", category="EC", state="Alice holds 2 wheat.", question="How many more wheat
                  for one bread?", options=["0", "1", "3"], answer=1, source_task="cooking_bread_1")
    write_probes("probes.jsonl", [probe])
    loaded = read_probes("probes.jsonl")          # ProbeFile: loaded.probes, loaded.errors (bad lines, skipped)

A file is JSONL, one probe per line; blank lines and lines starting with '#' are skipped. A malformed line does not
sink the file: the good lines are used and each bad one is listed as "line N: what was wrong". Written by hand, a
line may give the answer as its letter ("B"), options as numbers, and the category in any case ("tom").

Imported question sets (`mindpy probe import`) may carry more: `context` (text shown before the state, such as a
game's rules), `system` (the system message to ask with, instead of the runner's), `also_right` (other options
that count as right: a question with several right answers) and `matching` (how a reply is read: "mindpy", our
reader, or "coordqa", LLM-Coordination's rule; see answers.py). These are left out of a line when they hold their
default, so files without them are unchanged.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .answers import letter, letter_index

# Environment comprehension, theory of mind, joint planning (the paper's three question types).
CATEGORIES = ("EC", "ToM", "JP")
# how a reply is read: our reader (parse_answer) or LLM-Coordination's CoordQA rule (parse_answer_coordqa)
MATCHINGS = ("mindpy", "coordqa")
MAX_OPTIONS = 26  # options are lettered A..Z


@dataclass
class Probe:
    """One multiple-choice question; `answer` is the index of the right option."""

    id: str
    category: str
    state: str
    question: str
    options: list[str]
    answer: int
    source_task: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    context: str = ""  # shown before the state (a game's rules)
    system: str = ""  # the system message to ask with; empty: the runner's
    also_right: list[int] = field(default_factory=list)  # other options that count as right
    matching: str = "mindpy"  # how a reply is read (MATCHINGS)

    def __post_init__(self) -> None:
        if not self.id:
            raise ValueError("probe has no id: give every probe a unique 'id'")
        if self.category not in CATEGORIES:
            raise ValueError(f"probe {self.id}: category {self.category!r} is not one of {', '.join(CATEGORIES)}")
        if not self.question.strip():
            raise ValueError(f"probe {self.id}: empty 'question'")
        if not 2 <= len(self.options) <= MAX_OPTIONS:
            raise ValueError(f"probe {self.id}: needs 2 to {MAX_OPTIONS} options, got {len(self.options)}")
        if any(not isinstance(o, str) or not o.strip() for o in self.options):
            raise ValueError(f"probe {self.id}: every option must be a non-empty string")
        if isinstance(self.answer, bool) or not isinstance(self.answer, int) \
                or not 0 <= self.answer < len(self.options):
            raise ValueError(f"probe {self.id}: 'answer' must be an option index 0..{len(self.options) - 1} (or "
                             f"its letter A..{letter(len(self.options) - 1)}), got {self.answer!r}")
        for other in self.also_right:
            if isinstance(other, bool) or not isinstance(other, int) or not 0 <= other < len(self.options) \
                    or other == self.answer:
                raise ValueError(f"probe {self.id}: 'also_right' must list option indexes 0..{len(self.options) - 1}"
                                 f" (or letters) other than the answer, got {other!r}")
        if len(set(self.also_right)) != len(self.also_right):
            raise ValueError(f"probe {self.id}: 'also_right' repeats an option")
        if self.matching not in MATCHINGS:
            raise ValueError(f"probe {self.id}: matching {self.matching!r} is not one of {', '.join(MATCHINGS)}")

    @property
    def right(self) -> list[int]:
        """Every option that counts as right: the answer first."""
        return [self.answer, *self.also_right]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in _OPTIONAL:  # written only when set, so probe files without them stay as they were
            if data[name] == _OPTIONAL[name]:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Probe:
        """A probe from a parsed JSON object; ValueError names the first thing wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown key(s) {sorted(unknown)} (allowed: {', '.join(sorted(known))})")
        missing = [k for k in ("id", "category", "question", "options", "answer") if k not in data]
        if missing:
            raise ValueError(f"missing key(s) {missing}")
        if not isinstance(data["options"], list):
            raise ValueError("'options' must be a list of strings")
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise ValueError("'meta' must be an object")
        options = [_text(o, "options") for o in data["options"]]
        category = str(data["category"])
        answer = _index(data["answer"], len(options))
        also = data.get("also_right") or []
        if not isinstance(also, list):
            raise ValueError("'also_right' must be a list of option indexes (or letters)")
        return cls(id=_text(data["id"], "id"), state=_text(data.get("state") or "", "state"),
                   category=next((c for c in CATEGORIES if c.lower() == category.lower()), category),
                   question=_text(data["question"], "question"), options=options, answer=answer,
                   source_task=_text(data.get("source_task") or "", "source_task"), meta=dict(meta),
                   context=_text(data.get("context") or "", "context"),
                   system=_text(data.get("system") or "", "system"),
                   also_right=[_index(a, len(options)) for a in also],
                   matching=_text(data.get("matching") or "mindpy", "matching"))


# the fields an imported probe may carry, with the default that leaves them out of a line
_OPTIONAL: dict[str, Any] = {"context": "", "system": "", "also_right": [], "matching": "mindpy"}


def _index(value: Any, count: int) -> Any:
    """An option index as written: a number, or the option's letter ("B"); anything else is left for the check."""
    if isinstance(value, str) and len(value.strip()) == 1:
        found = letter_index(value.strip(), count)
        return value if found is None else found
    return value


def _text(value: Any, key: str) -> str:
    """A text field of a probe line: a string, or a number written without quotes."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"'{key}' must be text, got {json.dumps(value)}")


@dataclass
class ProbeFile:
    """What a probe file held: the usable probes and one message per line that was skipped."""

    path: str
    probes: list[Probe]
    errors: list[str]


def parse_probes(text: str, where: str = "probes") -> ProbeFile:
    """Probes from JSONL text; bad lines (and repeated ids) are listed in `errors`, not raised."""
    probes: list[Probe] = []
    errors: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            probe = Probe.from_dict(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: line {number}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        except (ValueError, TypeError) as exc:
            errors.append(f"{where}: line {number}: {exc}")
            continue
        if probe.id in seen:
            errors.append(f"{where}: line {number}: duplicate id {probe.id!r} (ids must be unique)")
            continue
        seen.add(probe.id)
        probes.append(probe)
    return ProbeFile(path=where, probes=probes, errors=errors)


def read_probes(path: str | Path) -> ProbeFile:
    """Read a probe file; raises ValueError only when it cannot be read at all."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as some editors write, is no probe
    except OSError as exc:
        raise ValueError(f"cannot read probe file {path}: {exc.strerror or exc}") from None
    return parse_probes(text, str(path))


def write_probes(path: str | Path, probes: list[Probe]) -> None:
    """Write probes as JSONL, one per line."""
    lines = [json.dumps(p.to_dict(), ensure_ascii=False) for p in probes]
    Path(path).write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
