"""Docs of the code API for the coding prompt, made from the skills' signatures and docstrings.

Each function gets one short block. The prompt shows an index of every name plus the `relevant_docs_count`
blocks that fit the task best; which ones is decided by a `rank(query, texts) -> [indices]` callable (the
embedding retrieval), or by word overlap when none is given.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .api import MODULES, Member, cached_members

RELEVANT_DOCS_COUNT = 5
Rank = Callable[[str, Sequence[str]], Sequence[int]]


@dataclass(frozen=True)
class ApiDoc:
    """The documentation block of one API function, as shown to the model."""
    name: str  # e.g. "skills.collect_blocks"
    text: str  # the block shown to the model


def _annotation(a) -> str:
    if a is inspect.Parameter.empty:
        return ""
    return a if isinstance(a, str) else getattr(a, "__name__", str(a))


def call_signature(member: Member) -> str:
    """`skills.collect_blocks(block: str, num: int = 1) -> bool`, annotations as written in the code."""
    parts = []
    for p in member.signature.parameters.values():
        ann = _annotation(p.annotation)
        text = f"{p.name}: {ann}" if ann else p.name
        if p.default is not inspect.Parameter.empty:
            text += f" = {p.default!r}" if ann else f"={p.default!r}"
        parts.append(text)
    ret = _annotation(member.signature.return_annotation)
    return f"{member.qualname}({', '.join(parts)})" + (f" -> {ret}" if ret else "")


def format_doc(member: Member) -> str:
    """The member's call signature followed by its docstring, wrapped and indented."""
    doc = " ".join(member.doc.split())
    return call_signature(member) + "\n" + textwrap.fill(doc, 100, initial_indent="    ", subsequent_indent="    ")


def build_docs(members: dict[str, dict[str, Member]] | None = None) -> list[ApiDoc]:
    """One doc per API function, skills first (in the order of the Skills class), then world queries."""
    members = members if members is not None else cached_members()
    return [ApiDoc(m.qualname, format_doc(m)) for ns in ("skills", "world") for m in members.get(ns, {}).values()]


def api_index(members: dict[str, dict[str, Member]] | None = None) -> str:
    """Every name in one short paragraph, so the model knows what exists beyond the detailed docs."""
    members = members if members is not None else cached_members()
    lines = [f"{ns}: " + ", ".join(members[ns]) for ns in ("skills", "world") if members.get(ns)]
    lines.append("modules you may import: " + ", ".join(MODULES))
    return "\n".join(lines)


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def lexical_rank(query: str, texts: Sequence[str]) -> list[int]:
    """Indices of `texts`, best first, by shared words with `query` (stable for ties)."""
    q = _words(query)
    scores = [len(q & _words(t)) for t in texts]
    return sorted(range(len(texts)), key=lambda i: -scores[i])


def relevant_docs(query: str, k: int = RELEVANT_DOCS_COUNT, rank: Rank | None = None,
                  docs: Sequence[ApiDoc] | None = None) -> list[ApiDoc]:
    """The `k` docs that fit `query` best; `rank(query, texts)` returns indices into `texts`, best first."""
    docs = list(docs) if docs is not None else build_docs()
    if k <= 0 or not docs:
        return []
    order = list((rank or lexical_rank)(query, [d.text for d in docs]))
    seen, chosen = set(), []
    for i in order:
        if isinstance(i, int) and 0 <= i < len(docs) and i not in seen:
            seen.add(i)
            chosen.append(docs[i])
        if len(chosen) == k:
            break
    return chosen


def docs_text(docs: Sequence[ApiDoc], index: bool = True) -> str:
    """The API section of the coding prompt: the index of all names, then the chosen docs."""
    parts = []
    if index:
        parts.append("All functions:\n" + api_index())
    if docs:
        parts.append("Details of the functions most relevant here:\n\n" + "\n\n".join(d.text for d in docs))
    return "\n\n".join(parts)
