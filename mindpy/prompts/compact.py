"""The compact prompt (`--prompt compact`): the task's goal, state and conversation without command docs or
examples, for models tuned on mindpy's transcripts (`mindpy sft train`), which must be served with the prompt they
were trained on.

    profile_fields("compact")                  # what each agent's profile takes: the template, no example lookup
    to_compact_system(call_system, template)   # a call played with the full task prompt, as the compact one reads

The compact state is the full task prompt's, so converting a transcript changes only its system part: the values of
its placeholders ($NAME, $TASK_GOAL, $TASK_INVENTORY) are read back from the text the full template rendered, and
the call is left out (None) when that text was not rendered from the template given.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

FULL_PROMPT = "full"
COMPACT_PROMPT = "compact"
PROMPT_STYLES = (FULL_PROMPT, COMPACT_PROMPT)
_TOKEN = re.compile(r"\$([A-Z][A-Z_]*)")


@functools.lru_cache(maxsize=1)
def compact_template() -> dict[str, str]:
    """The compact conversing template: {"system": ..., "state": ...} from compact.yaml."""
    import yaml

    data = yaml.safe_load((Path(__file__).parent / "compact.yaml").read_text(encoding="utf-8"))
    return dict(data["conversing"])


def profile_fields(style: str) -> dict[str, Any]:
    """The profile fields a prompt style sets for every agent: none for the full prompt; for the compact one its
    template, and no embedding model (it shows no retrieved examples, so none is loaded)."""
    if style == FULL_PROMPT:
        return {}
    if style != COMPACT_PROMPT:
        raise ValueError(f"no prompt style {style!r} (have: {', '.join(PROMPT_STYLES)})")
    return {"conversing": compact_template(), "embedding": "none"}


def _pattern(template: str, flexible: bool) -> re.Pattern[str]:
    """A regex matching what `template` renders: each placeholder any text (the same text where it repeats). With
    `flexible`, a newline of the template matches several (the prompter folds the blank lines an empty value leaves,
    so some may be gone)."""
    parts, seen, last = [], set(), 0
    for m in _TOKEN.finditer(template):
        parts.append(_literal(template[last:m.start()], flexible))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.*?)")
        seen.add(name)
        last = m.end()
    parts.append(_literal(template[last:], flexible))
    return re.compile("".join(parts), re.S)


def _literal(text: str, flexible: bool) -> str:
    """`text` as a regex; spaces before a newline are optional (the prompter strips them)."""
    pieces = re.split(r"[ \t]*\n", text)
    return (r"[ \t]*\n+" if flexible else r"[ \t]*\n").join(re.escape(p) for p in pieces)


def placeholder_values(rendered: str, template: str) -> dict[str, str] | None:
    """The placeholder values `template` was filled with to give `rendered` (checked by rendering them again);
    None when it was not rendered from it."""
    from .prompter import _tidy, fill

    for flexible in (False, True):
        m = _pattern(template.strip(), flexible).fullmatch(rendered.strip())
        if m is not None and _tidy(fill(template, m.groupdict())) == _tidy(rendered):
            return dict(m.groupdict())
    return None


def to_compact_system(system: str, full_system_template: str) -> str | None:
    """The compact prompt's system part for a call whose system part the full template rendered; None when it did
    not (another prompt, a profile of its own)."""
    from .prompter import _tidy, fill

    values = placeholder_values(system, full_system_template)
    if values is None:
        return None
    return _tidy(fill(compact_template()["system"], values))
