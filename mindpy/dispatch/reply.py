"""Reading a dispatcher's reply: one command per agent, `name: !command(args)` a line, and the problems with it.

    parsed = parse_dispatch_reply('Plan:\\n- andy -> !collectBlocks("wheat", 3)\\nbob: !stop',
                                  agents=["andy", "jill"], registry=default_registry())
    parsed.commands    # {"andy": '!collectBlocks("wheat", 3)'}
    parsed.problems    # ["unknown agent 'bob': the agents are andy, jill"]

Wordings read: `andy: !cmd(...)`, `andy -> !cmd(...)`, `- andy = !cmd(...)`, `1. **andy**: !cmd(...)`,
`` `andy`: ``; names in any case. Lines without a `!` are prose and are skipped. Only the first command of a line
counts. Problems (one line each, written for the model, shown in the next prompt's feedback): an unknown agent,
two commands for one agent (the first is kept), a busy agent given a command (it is dropped), a command the
command parser refuses (its message), a command line without an agent name, and no command at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..commands import CommandRegistry
from ..commands.parser import parse_strict

# What may stand before the command on a line: a bullet or number, the name (maybe in ** or `), a separator.
_PREFIX = re.compile(r"^\s*(?:[-*•>]+|\d+[.)])?\s*(?P<name>[A-Za-z0-9_]{1,32})\s*(?::|->|=>|→|=|-|,)?\s*$")
_COMMAND_START = re.compile(r"![A-Za-z_]")


@dataclass
class ParsedReply:
    """The valid command text per agent, in canonical form, and the problems found."""

    commands: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _agent_name(prefix: str) -> str | None:
    """The agent name a command line starts with, without markup; None when the prefix is not just a name."""
    # Underscores belong to names: drop only markup pairs around the name, not inside it.
    cleaned = re.sub(r"(\*\*|__|`)(?P<n>[A-Za-z0-9_]+)\1", r"\g<n>", prefix).replace("*", "").replace("`", "")
    match = _PREFIX.match(cleaned)
    return match.group("name") if match else None


def parse_dispatch_reply(text: str, agents: Iterable[str], registry: CommandRegistry,
                         busy: Mapping[str, str] | None = None, allowed: Iterable[str] | None = None) -> ParsedReply:
    """Commands per agent from `text`. `busy` maps busy agents to what they are doing; `allowed`, when given,
    limits the commands to those names (others are refused with the command parser's message)."""
    known = {name.lower(): name for name in agents}
    busy = busy or {}
    blocked = [] if allowed is None else sorted(set(registry.names()) - set(allowed))
    parsed = ParsedReply()
    attempted = False
    for line in str(text).splitlines():
        start = _COMMAND_START.search(line)
        if start is None:
            continue
        attempted = True
        written = _agent_name(line[:start.start()])
        if written is None:
            parsed.problems.append(f"a command without an agent name: {line.strip()[:80]!r}; write it as "
                                   f"name: !command(args)")
            continue
        name = known.get(written.lower())
        if name is None:
            parsed.problems.append(f"unknown agent {written!r}: the agents are {', '.join(known.values())}")
            continue
        result = parse_strict(line[start.start():], registry, blocked)
        if not result.ok:
            reason = result.error or f"no command could be read in {line[start.start():].strip()[:60]!r}"
            parsed.problems.append(f"{name}: {reason}")
            continue
        call = result.call_text()
        if name in parsed.commands:
            parsed.problems.append(f"two commands for {name}: kept {parsed.commands[name]}, dropped {call}; "
                                   f"give each agent one command per step")
            continue
        if name in busy:
            doing = f" ({busy[name]})" if busy[name] else ""
            parsed.problems.append(f"{name} is busy{doing}: {call} was not run; give commands to free agents only")
            continue
        parsed.commands[name] = call
    if not attempted:
        parsed.problems.append("no command found in the reply: write one line per free agent as name: !command(args)")
    return parsed
