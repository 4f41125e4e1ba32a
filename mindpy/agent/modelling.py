"""Partner and self modelling in a reply (CoBlock, paper seed 000, step 2): split the modelling sections from what
the agent says or does, and keep the latest sections for the next prompt.

With the profile option `partner_modelling` the model writes, before its action, lines in the paper's format:

    # Partner Modelling
    # Long-term goal: build the blue tower
    # Short-term goal: waiting for my red base
    # Partner inventory: [blue_wool: 4, orange_wool: unknown]
    # Explanation: they said they lack red_wool
    # Self Modelling
    # ...
    Sure, I will place the red base first. !placeBlock("red_wool", 100, -60, -98)

The "#" lines are the sections; what is left is the message or command. A header block written without "#"
("Partner modelling:" ... up to a blank line) counts too. Lines inside ``` code fences are never sections (a
Python comment is not a model of anyone), and a command written at the end of a "#" line goes to the rest, so a
reply squeezed onto one line still acts.
"""

from __future__ import annotations

import re

MAX_NOTES_CHARS = 1500  # the sections kept for the next prompt; the paper's eight fields fit in a few hundred
# "Partner modelling:", "**Self Modeling**", "Partner state:": a header alone on its line or followed by a colon
_HEADER = re.compile(r"^[\W_]*(partner|self)[ -]?(state[ -])?(modell?ing|state)[*_\s]*(:|$)", re.IGNORECASE)
_COMMAND = re.compile(r"(?<!\S)![A-Za-z]\w*")  # "!placeBlock(..." but not "Hello!" or "it is done !"
_FENCE = "```"


def split_modelling(reply: str) -> tuple[str, str]:
    """(sections, rest) of a reply: the modelling lines, and the remaining text (message or command), each with
    surrounding blank lines removed. A reply without sections gives ("", reply stripped)."""
    sections: list[str] = []
    rest: list[str] = []
    in_fence = False
    in_header_block = False
    for line in reply.splitlines():
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            in_fence = not in_fence
            in_header_block = False
            rest.append(line)
            continue
        if in_fence:
            rest.append(line)
            continue
        if in_header_block and not stripped:
            in_header_block = False
            continue
        if stripped.startswith("#"):
            section, command = _cut_command(stripped)
            sections.append(section)
            if command:
                rest.append(command)
            continue
        if _HEADER.match(stripped):
            in_header_block = True
        if in_header_block:
            section, command = _cut_command(stripped)
            sections.append(section)
            if command:
                rest.append(command)
                in_header_block = False
            continue
        rest.append(line)
    return _join(sections), _join(rest)


def _cut_command(line: str) -> tuple[str, str]:
    """A modelling line split before a command it ends with: (section, command or "")."""
    found = _COMMAND.search(line)
    if not found:
        return line, ""
    return line[:found.start()].rstrip(), line[found.start():].strip()


def _join(lines: list[str]) -> str:
    return "\n".join(lines).strip()


class ModellingNotes:
    """The agent's latest modelling sections, shown in its next prompt ($MODELLING).

    Each reply with sections replaces the notes: the paper's agent rewrites its whole model of both players every
    round, and the newest one is the one to build on. A reply without sections (a plain answer to a command's
    output) keeps the notes, so they are not lost between the steps of one turn. The text is bounded to
    `limit` characters, cut at a line break."""

    def __init__(self, limit: int = MAX_NOTES_CHARS):
        self.limit = limit
        self.text = ""

    def update(self, sections: str) -> None:
        sections = sections.strip()
        if sections:
            self.text = _clip(sections, self.limit)

    def observe(self, reply: str) -> str:
        """Keep the sections of `reply` and return the rest (what is said or parsed as a command)."""
        sections, rest = split_modelling(reply)
        self.update(sections)
        return rest

    def clear(self) -> None:
        self.text = ""

    def __str__(self) -> str:
        return self.text


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    newline = cut.rfind("\n")
    return (cut[:newline] if newline > limit // 2 else cut).rstrip() + "\n# ..."
