"""Read LLM-Coordination's CoordQA question sheets (CSV) into probes.

    result = import_coordqa(["single_turn_trials.csv"])    # ImportResult: probes, rows, refused, duplicates
    write_probes("coordqa.jsonl", result.probes)

A sheet has one row per scenario and, for each category, a question column and an answer-ordinal column: "EC
Question" / "EC Answer Ordinal", "TOM Question" / "TOM Answer Ordinal", "JP Question" / "JP Answer Ordinal". A
question cell holds the whole scene: the state, the question on its last line, then "Available Answers:" (or
"Available Actions:") and one lettered line per option ("B. wait."). The ordinal names the right option's letter,
or several separated by commas ("A,C": each counts as right, as in the paper's scoring). Read when present: "Game",
"Game Description" (kept as the probe's context, shown before the state), "EC/TOM/JP Directive" (the system
message), "EC/TOM/JP Answer" (the right option's text: kept in meta, and used to tell apart two options written
with the same letter), "Concept", "Tags", "Map", "Scenario".

Headers are matched ignoring case, spaces and punctuation ("TOM QUestion" is "TOM Question"); of columns that
match the same name the first non-empty cell is used; other columns are ignored; cells may span lines. A row is
refused per category (the row's other questions are kept), with one line naming the file, row and category: a
missing or empty cell, no lettered options at the end of the question, an ordinal that is not a letter, a letter
no option carries, a letter two options carry that the answer text does not settle. A file that cannot be read
as such a sheet (not text, empty, no question and ordinal columns) raises CoordQAError.

Every probe is read with `matching="coordqa"`: `mindpy probe run` reads replies by the paper's rule.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from .answers import closeness
from .record import Probe

# the sheet's category prefixes and ours
PREFIXES = {"EC": "ec", "ToM": "tom", "JP": "jp"}
_OPTION_LINE = re.compile(r"^\s*([A-Z])\s*[.)]\s*(.*?)\s*$")
_OPTIONS_HEADING = re.compile(r"^\s*available\s+(?:answers?|actions?|options?)\s*:?\s*$", re.I)
_EMPTY = {"", "nan", "none", "null"}  # what a spreadsheet tool writes for an empty cell


class CoordQAError(ValueError):
    """A file that cannot be read as a CoordQA sheet at all."""


@dataclass
class ImportResult:
    """What the sheets gave: the probes, how many rows were read, what was refused and what repeated."""

    probes: list[Probe] = field(default_factory=list)
    rows: int = 0
    refused: list[str] = field(default_factory=list)  # one line each: "FILE: row N (line L): CAT: why"
    duplicates: list[str] = field(default_factory=list)  # questions already read from an earlier row or file


def _key(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


def split_question(cell: str) -> tuple[str, str, list[str], list[str]]:
    """(state, question, letters as written, option texts) of a question cell; ValueError says what is missing."""
    lines = cell.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    end = len(lines)
    found: list[tuple[str, str]] = []
    while end > 0:
        line = lines[end - 1]
        option = _OPTION_LINE.match(line)
        if line.strip() and not option:
            break
        if option:
            found.append((option.group(1), option.group(2)))
        end -= 1
    found.reverse()
    if len(found) < 2:
        raise ValueError("no list of lettered options ('A. ...' lines) ends the question")
    empty = [written for written, text in found if not text]
    if empty:
        raise ValueError(f"option {empty[0]} has no text")
    if end > 0 and _OPTIONS_HEADING.match(lines[end - 1]):
        end -= 1
    before = [line.rstrip() for line in lines[:end]]
    while before and not before[-1].strip():
        before.pop()
    if not before:
        raise ValueError("no question before the options")
    question = before.pop().strip()
    return "\n".join(before).strip(), question, [w for w, _ in found], [t for _, t in found]


def _answer_letters(cell: str) -> list[str]:
    parts = [p.strip() for p in cell.split(",")]
    if not parts or any(not re.fullmatch(r"[A-Za-z]", p) for p in parts):
        raise ValueError(f"answer ordinal {cell.strip()!r} is not an option letter (or letters separated by commas)")
    return list(dict.fromkeys(p.upper() for p in parts))


def _answer_indexes(letters: list[str], written: list[str], options: list[str], answer_text: str) -> list[int]:
    indexes = []
    for wanted in letters:
        carriers = [i for i, w in enumerate(written) if w == wanted]
        if not carriers:
            raise ValueError(f"answer {wanted!r} is not among its options ({', '.join(written)})")
        if len(carriers) > 1:  # two options written with one letter: the answer text tells which is meant
            text = re.sub(r"^\s*[A-Z]\s*[.)]\s*", "", answer_text)
            scores = [closeness(text, options[i]) for i in carriers] if text.strip() else []
            best = max(scores) if scores else 0.0
            if best == 0.0 or scores.count(best) > 1:
                raise ValueError(f"answer {wanted!r} names {len(carriers)} options (both lettered {wanted}) and the "
                                 "answer text does not tell which")
            carriers = [carriers[scores.index(best)]]
        if carriers[0] not in indexes:
            indexes.append(carriers[0])
    return indexes


def _needed(cell, column: str, length: int, width: int) -> str:
    """The cell of a column every row needs; ValueError when the row ends before it or it is empty."""
    value = cell(column)
    if value is None:
        raise ValueError(f"no {column!r} cell (the row has {length} of {width} columns)")
    if not value.strip():
        raise ValueError(f"empty {column!r} cell")
    return value


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "sheet"


def read_coordqa(path: str | Path, game: str | None = None) -> ImportResult:
    """The probes of one sheet; `game` names the game of rows without a "Game" cell (default: the file's stem)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CoordQAError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CoordQAError(f"{path}: not a CSV file (not UTF-8 text)") from None
    if "\x00" in text:
        raise CoordQAError(f"{path}: not a CSV file (binary content)")
    if not text.strip():
        raise CoordQAError(f"{path}: empty file")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        records = []
        start = 1
        for record in reader:
            records.append((start, record))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise CoordQAError(f"{path}: not a readable CSV file (line {reader.line_num}: {exc})") from None
    records = [(line, r) for line, r in records if any(cell.strip() for cell in r)]
    header = records[0][1]
    columns: dict[str, list[int]] = {}
    for index, name in enumerate(header):
        columns.setdefault(_key(name), []).append(index)
    needed = [f"{p.upper()} {what}" for p in PREFIXES.values() for what in ("Question", "Answer Ordinal")]
    if not any(_key(n) in columns for n in needed):
        shown = ", ".join(repr(h) for h in header[:6]) + (", ..." if len(header) > 6 else "")
        raise CoordQAError(f"{path}: not a CoordQA sheet: its first row has none of the columns "
                           f"{', '.join(needed)} (it starts {shown})")
    missing = [n for n in needed if _key(n) not in columns]
    if missing:
        raise CoordQAError(f"{path}: missing column(s) {', '.join(repr(m) for m in missing)}")
    if len(records) < 2:
        raise CoordQAError(f"{path}: no rows after the header")

    result = ImportResult()
    stem = _slug(path.stem)
    for number, (line, row) in enumerate(records[1:], start=1):
        result.rows += 1
        where = f"{path}: row {number} (line {line})"

        def cell(name: str, row: list[str] = row) -> str | None:
            """The first non-empty cell of the columns named so; '' when all are empty, None when the row ends
            before them."""
            indexes = columns.get(_key(name), [])
            present = [row[i] for i in indexes if i < len(row)]
            if indexes and not present:
                return None
            return next((v for v in present if v.strip().lower() not in _EMPTY), "")

        row_game = (cell("Game") or "").strip() or game or path.stem
        for category, prefix in PREFIXES.items():
            name = prefix.upper()
            try:
                question_cell, ordinal = (_needed(cell, f"{name} {what}", len(row), len(header))
                                          for what in ("Question", "Answer Ordinal"))
                state, question, written, options = split_question(question_cell)
                answer_text = (cell(f"{name} Answer") or "").strip()
                right = _answer_indexes(_answer_letters(ordinal), written, options, answer_text)
                meta: dict[str, object] = {"game": row_game, "file": path.name, "row": number}
                for extra in ("Concept", "Scenario", "Tags", "Map"):
                    value = (cell(extra) or "").strip()
                    if value:
                        meta[extra.lower()] = value
                if answer_text:
                    meta["answer_text"] = answer_text
                if written != [chr(ord("A") + i) for i in range(len(written))]:
                    meta["letters_as_written"] = "".join(written)
                probe = Probe(id=f"coordqa-{stem}-{number:03d}-{prefix}", category=category, state=state,
                              question=question, options=options, answer=right[0], also_right=right[1:],
                              source_task=f"{path.name} row {number}", meta=meta,
                              context=(cell("Game Description") or "").strip(),
                              system=(cell(f"{name} Directive") or "").strip(), matching="coordqa")
            except ValueError as exc:
                result.refused.append(f"{where}: {category}: {exc}")
                continue
            result.probes.append(probe)
    return result


def import_coordqa(paths: list[str | Path], game: str | None = None) -> ImportResult:
    """The probes of several sheets, in order; a question already read (same category, context, state, question and
    options) is listed in `duplicates` and not kept twice."""
    total = ImportResult()
    seen: dict[tuple, str] = {}
    ids: set[str] = set()
    for path in paths:
        part = read_coordqa(path, game=game)
        total.rows += part.rows
        total.refused += part.refused
        for probe in part.probes:
            key = (probe.category, probe.context, probe.state, probe.question, tuple(probe.options))
            if key in seen:
                total.duplicates.append(f"{probe.source_task}: {probe.category}: the same question as {seen[key]}")
                continue
            base, n = probe.id, 2
            while probe.id in ids:  # two sheets with one name in different folders
                probe.id, n = f"{base}-{n}", n + 1
            seen[key] = probe.id
            ids.add(probe.id)
            total.probes.append(probe)
    return total


def summary(result: ImportResult) -> str:
    """Probes per category and game, as a small table."""
    games = list(dict.fromkeys(str(p.meta.get("game", "")) for p in result.probes))
    width = max([len(g) for g in games] + [8]) + 2
    lines = [f"{'game':<{width}}" + "".join(f"{c:>6}" for c in PREFIXES) + f"{'all':>6}"]
    for game in games + ["all"]:
        mine = [p for p in result.probes if game == "all" or p.meta.get("game") == game]
        lines.append(f"{game:<{width}}" + "".join(f"{sum(p.category == c for p in mine):>6}" for c in PREFIXES)
                     + f"{len(mine):>6}")
    return "\n".join(lines)
