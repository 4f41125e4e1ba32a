"""`SkillLibrary`: one agent's saved skills in `bots/<name>/skills/`, one file per skill and an index.

    library = SkillLibrary("bots/andy/skills", agent="andy")   # loads every skill file in the folder
    library.save("collect the oak log next to you", code)      # -> SavedSkill collect_oak_log, written to disk
    library.retrieve("gather some wood", k=3, rank=rank)       # the skills most like the request, best first

The skill files are what is loaded: a folder copied from another agent (or files copied into one) works as it
is. `index.json` lists the skills for people and tools; it is rewritten on every save and never read. A file
that cannot be used (not UTF-8, no header, a bad name, code that fails the sandbox's checks) is skipped with a
one-line warning: a hand edit never stops the agent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from ...memory.state import atomic_write_json, atomic_write_text
from ..api_docs import Rank, lexical_rank
from ..checker import check_code
from .files import SUFFIX, SavedSkill, SkillFileError, now_text, read_skill
from .naming import describe, skill_name

log = logging.getLogger(__name__)

INDEX_FILE = "index.json"
# Every saved skill travels to each sandboxed run (later code may call any of them): a bound on what that costs.
MAX_SKILLS = 200


class SkillLibrary:
    """The saved skills of one agent (see the module's doc). Thread-safe: the agent saves while !skills lists."""

    def __init__(self, folder: str | Path, agent: str = ""):
        self.folder = Path(folder)
        self.agent = agent
        self._skills: dict[str, SavedSkill] = {}
        self._lock = threading.Lock()
        self.load()

    # ---- reading -------------------------------------------------------------------------------------------
    def load(self) -> None:
        """(Re)read every skill file of the folder; unusable ones are skipped with a warning each."""
        found: dict[str, SavedSkill] = {}
        paths = sorted(self.folder.glob(f"*{SUFFIX}")) if self.folder.is_dir() else []
        for path in paths:
            try:
                skill = read_skill(path)
            except SkillFileError as exc:
                log.warning("skill file %s skipped: %s", path, exc)
                continue
            found[skill.name] = skill
        usable: dict[str, SavedSkill] = {}
        for name, skill in found.items():
            checked = check_code(skill.code, extra_names=found)  # a skill may call the others
            if checked.ok:
                usable[name] = skill
            else:
                log.warning("skill file %s skipped: its code fails the checks (%s)", self.folder / f"{name}{SUFFIX}",
                            checked.problems[0])
        with self._lock:
            self._skills = dict(sorted(usable.items(), key=lambda item: (item[1].saved, item[0])))

    def skills(self) -> list[SavedSkill]:
        """Every usable skill, oldest first."""
        with self._lock:
            return list(self._skills.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._skills)

    def get(self, name: str) -> SavedSkill | None:
        with self._lock:
            return self._skills.get(name)

    def codes(self) -> dict[str, str]:
        """{name: code} of every skill: what the sandbox makes callable by name."""
        with self._lock:
            return {name: skill.code for name, skill in self._skills.items()}

    def retrieve(self, query: str, k: int, rank: Rank | None = None) -> list[SavedSkill]:
        """The `k` skills whose descriptions are most like `query`, best first; `rank(query, texts)` is the
        embedding ranking (word overlap without one)."""
        skills = self.skills()
        if k <= 0 or not skills:
            return []
        order = (rank or lexical_rank)(query, [skill.description for skill in skills])
        chosen: list[SavedSkill] = []
        for i in order:
            if isinstance(i, int) and 0 <= i < len(skills) and skills[i] not in chosen:
                chosen.append(skills[i])
            if len(chosen) == k:
                break
        return chosen

    # ---- writing -------------------------------------------------------------------------------------------
    def save(self, request: str, code: str) -> SavedSkill | None:
        """Save `code`, written for `request`, as a new skill; returns it, or the skill that already holds the
        same code, or None when the library is full."""
        code = code.strip("\n")
        with self._lock:
            for skill in self._skills.values():
                if skill.code.strip() == code.strip():
                    return skill
            if len(self._skills) >= MAX_SKILLS:
                log.warning("%s: %d skills saved already (the most); this one is not saved", self.folder, MAX_SKILLS)
                return None
            on_disk = {p.name[:-len(SUFFIX)] for p in self.folder.glob(f"*{SUFFIX}")} if self.folder.is_dir() else set()
            name = skill_name(request, set(self._skills) | on_disk)  # never overwrite a file, even a skipped one
            skill = SavedSkill(name, describe(request), code, now_text(), self.agent)
            atomic_write_text(self.folder / f"{name}{SUFFIX}", skill.file_text())
            self._skills[name] = skill
            self._write_index()
            return skill

    def _write_index(self) -> None:
        atomic_write_json(self.folder / INDEX_FILE, {
            "about": "Skills saved from !newAction code that worked; each file <name>.py holds one. Copy this "
                     "folder to bots/<other agent>/skills/ to share them. This index is written on each save and "
                     "never read.",
            "skills": [{"name": s.name, "signature": s.signature, "description": s.description, "saved": s.saved,
                        "agent": s.agent, "file": f"{s.name}{SUFFIX}"} for s in self._skills.values()]})

    # ---- text for the model ----------------------------------------------------------------------------------
    def listing(self) -> str:
        """The answer to !skills: every skill with what it does and when it was saved."""
        skills = self.skills()
        if not skills:
            return "You have no saved skills yet: code you run with !newAction that works is saved as one."
        lines = [f"SAVED_SKILLS ({len(skills)}; code in !newAction can call them by name)"]
        lines += [f"- {s.signature}: {s.description} (saved {s.saved.replace('T', ' ').replace('Z', ' UTC')})"
                  for s in skills]
        return "\n".join(lines)


def prompt_section(skills: Sequence[SavedSkill]) -> str:
    """The coding prompt's part about the retrieved skills ('' without any)."""
    if not skills:
        return ""
    lines = ["Your saved skills most relevant here (code that worked before; call one by name, with no "
             "arguments, to run that code again; an error in it stops your code):"]
    lines += [f"{s.signature}: {s.description}" for s in skills]
    return "\n".join(lines)
