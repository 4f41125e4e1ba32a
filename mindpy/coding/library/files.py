"""One saved skill as a file people can read and edit: `<name>.py` in the agent's skills folder.

    # description: collect the oak log next to you and make planks
    # saved: 2025-06-01T10:00:00Z
    # agent: andy

    print("collected:", skills.collect_blocks("oak_log", 1))
    ...

The file name is the skill's name (the function later code calls); the `# key: value` lines at the top say what it
does, when it was saved and by whom; the rest is the code exactly as it ran, top-level code that runs as it is.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..checker import MAX_CODE_CHARS
from .naming import name_problem

SUFFIX = ".py"
REQUIRED = ("description", "saved")
MAX_FILE_BYTES = MAX_CODE_CHARS * 4 + 4096  # the code's characters in UTF-8 at worst, and the header
_HEADER = re.compile(r"^#\s*([a-z_]+)\s*:\s?(.*)$")


class SkillFileError(ValueError):
    """A skill file that cannot be used; the message says why in one line."""


@dataclass(frozen=True)
class SavedSkill:
    """A skill: its function name, what it does, the code, when it was saved (UTC, ISO 8601) and by which agent."""

    name: str
    description: str
    code: str
    saved: str
    agent: str = ""

    @property
    def signature(self) -> str:
        """How code calls it: saved code takes no arguments."""
        return f"{self.name}()"

    def file_text(self) -> str:
        """The file's content (see the module's doc)."""
        header = [f"# description: {self.description}", f"# saved: {self.saved}"]
        if self.agent:
            header.append(f"# agent: {self.agent}")
        return "\n".join(header) + "\n\n" + self.code.strip("\n") + "\n"


def now_text() -> str:
    """The time as a skill file writes it: UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def parse_skill(name: str, text: str) -> SavedSkill:
    """The skill in a file's text; SkillFileError when its name or header cannot be used (the code is checked
    by the library, which knows the other skills' names)."""
    problem = name_problem(name)
    if problem:
        raise SkillFileError(problem)
    lines = text.splitlines()
    fields: dict[str, str] = {}
    start = 0  # where the code begins: after the header's lines
    while start < len(lines) and (match := _HEADER.match(lines[start])) is not None:
        fields[match.group(1)] = match.group(2).strip()
        start += 1
    missing = [key for key in REQUIRED if not fields.get(key)]
    if missing:
        raise SkillFileError(f"the header has no {' or '.join(missing)} line (# {missing[0]}: ...)")
    code = "\n".join(lines[start:]).strip("\n")
    if not code.strip():
        raise SkillFileError("the file holds no code after its header")
    return SavedSkill(name, fields["description"], code, fields["saved"], fields.get("agent", ""))


def read_skill(path: Path) -> SavedSkill:
    """The skill in the file at `path`; SkillFileError (one line) when it cannot be read or used."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SkillFileError(f"the file is {size} bytes (at most {MAX_FILE_BYTES})")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFileError("the file is not UTF-8 text") from None
    except OSError as exc:
        raise SkillFileError(f"the file cannot be read ({exc.strerror or type(exc).__name__})") from None
    return parse_skill(path.name[:-len(SUFFIX)], text)
