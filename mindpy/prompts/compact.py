"""The compact prompt (`--prompt compact`): the task's goal, state and conversation without command docs or
examples, for models tuned on mindpy's transcripts (`mindpy sft train`), which must be served with the prompt they
were trained on.

    profile_fields("compact")                       # what each agent's profile takes: the template, no examples
    to_compact(system, messages, full_template)     # a call played with the full task prompt, as the compact reads

Converting a transcript changes its system part and its last message (the state): the values of their
placeholders ($NAME, $TASK_GOAL, $MEMORY, $INVENTORY...) are read back from the text the full template rendered and
filled into the compact one. A call whose text was not rendered from the template given is left out (None).
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
# The shapes of values that stand next to each other on their own lines in the state, so that reading them back is
# not ambiguous when one is empty: the !stats and !inventory outputs open with their headings, a goal is one line.
VALUE_SHAPES = {"STATS": r"(?:STATS\n.*?)?", "INVENTORY": r"(?:INVENTORY\n.*?)?", "SELF_PROMPT": r"[^\n]*"}


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


@functools.lru_cache(maxsize=32)  # an export converts every call of an agent with the same few templates
def _pattern(template: str, flexible: bool) -> re.Pattern[str]:
    """A regex matching what `template` renders: each placeholder any text (the same text where it repeats). With
    `flexible`, a newline of the template matches several (the prompter folds the blank lines an empty value leaves,
    so some may be gone)."""
    parts, seen, last = [], set(), 0
    for m in _TOKEN.finditer(template):
        parts.append(_literal(template[last:m.start()], flexible))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>{VALUE_SHAPES.get(name, '.*?')})")
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


def _convert(rendered: str, full_part: str, compact_part: str) -> str | None:
    """`rendered` (from `full_part` of the full template) as `compact_part` renders the same values, or None."""
    from .prompter import _tidy, fill

    values = placeholder_values(rendered, full_part)
    return None if values is None else _tidy(fill(compact_part, values))


def to_compact_system(system: str, full_system_template: str) -> str | None:
    """The compact prompt's system part for a call whose system part the full template rendered; None when it did
    not (another prompt, a profile of its own)."""
    return _convert(system, full_system_template, compact_template()["system"])


def to_compact(system: str, messages: list[dict], full_template: Any) -> tuple[str, list[dict]] | None:
    """A conversing call played with `full_template` ({system, state}) as the compact prompt would have sent it:
    (system, messages), or None when the call was not rendered from that template."""
    from .prompter import split_template

    full_system, full_state = split_template(full_template)
    new_system = to_compact_system(system, full_system)
    if new_system is None or not messages:
        return None
    state = _convert(str(messages[-1].get("content", "")), full_state, compact_template()["state"])
    if state is None:
        return None
    return new_system, [*messages[:-1], {**messages[-1], "content": state}]
