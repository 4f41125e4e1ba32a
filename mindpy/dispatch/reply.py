"""Reading a dispatcher's reply: one command per agent, `name: !command(args)` a line, and the problems with it.

    parsed = parse_dispatch_reply('Plan:\\n- andy -> !collectBlocks("wheat", 3)\\nbob: !stop',
                                  agents=["andy", "jill"], registry=default_registry())
    parsed.commands    # {"andy": '!collectBlocks("wheat", 3)'}
    parsed.problems    # ["unknown agent 'bob': the agents are andy, jill"]

Wordings read: `andy: !cmd(...)`, `andy -> !cmd(...)`, `- andy = !cmd(...)`, `1. **andy**: !cmd(...)`,
`` `andy`: ``, `"andy": "!cmd(...)"`, `| andy | !cmd(...) |`, `Agent andy: !cmd(...)` (prose before the name when
it names one agent only), a name alone on the line before its command (`### andy` or `**andy**:`), a command
whose arguments go on over the next lines, and several `name: !cmd(...)` on one line; names in any case. Lines
without a command are prose and are skipped. Problems (one line each, written for the model, shown in the next
prompt's feedback): an unknown agent, a command for one of the `people` cooking beside the agents (a person is not
commanded: the line is not run), two commands for one agent (the first is kept; a second command on a line
without a name of its own is one of them), a busy agent given a command (it is dropped), a command the command
parser refuses (its message), a command line without an agent name, and no command at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..commands import CommandRegistry, ParseResult
from ..commands.parser import parse_strict

# What may stand before the command on a line: bullets, numbers or table bars, the name, a separator.
_PREFIX = re.compile(r"^\s*(?:(?:[-*•>#|.,;]|\d+[.)])\s*)*(?P<name>[A-Za-z0-9_]{1,32})\s*"
                     r"(?::|->|=>|→|—|–|=|-|,|\|)?\s*$")
_MARKED_NAME = re.compile(r"(\*\*|__|[`*\"'])(?P<n>[A-Za-z0-9_]+)\1|[“‘](?P<q>[A-Za-z0-9_]+)[”’]")
_MARKUP = re.compile(r"[*`\"'“”‘’@]")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_COMMAND_START = re.compile(r"![A-Za-z_]")
_DECORATION = " \t`*_#>-|=~\"'"  # a line of only these (a code fence, a rule) is neither prose nor a name
MAX_SPLIT_LINES = 8  # how many more lines the arguments of one command may run on


@dataclass
class ParsedReply:
    """The valid command text per agent, in canonical form, and the problems found."""

    commands: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _agent_name(prefix: str) -> str | None:
    """The agent name a command line starts with, without markup; None when the prefix is not just a name."""
    # Underscores belong to names: drop only markup pairs around the name, not inside it.
    cleaned = _MARKUP.sub("", _MARKED_NAME.sub(lambda m: m.group("n") or m.group("q"), prefix))
    match = _PREFIX.match(cleaned)
    return match.group("name") if match else None


class _Names:
    """The agents a reply may command, looked up in any case (and without `_..._` italics)."""

    def __init__(self, agents: Iterable[str]):
        self.known = {name.lower(): name for name in agents}

    def get(self, written: str) -> str | None:
        lowered = written.lower()
        return self.known.get(lowered) or self.known.get(lowered.strip("_"))

    def alone(self, text: str) -> str | None:
        """The agent `text` names and says nothing else (`andy:`, `### andy`, `**andy**:`), if any."""
        written = _agent_name(text)
        return None if written is None else self.get(written)

    def resolve(self, prefix: str) -> tuple[str | None, str | None]:
        """(the agent the text before a command names, the name as written when it is not an agent's). Prose
        before the name counts when exactly one agent is named in it."""
        written = _agent_name(prefix)
        agent = None if written is None else self.get(written)
        if agent is not None:
            return agent, written
        named = self.named(prefix)
        if len(named) == 1:
            return named.pop(), None
        return None, written

    def named(self, text: str) -> set[str]:
        """The agents named as words in `text`."""
        return {agent for word in _WORD.findall(text) if (agent := self.get(word))}


def _commands_in(chunk: str, registry: CommandRegistry, blocked: list[str]) -> list[ParseResult]:
    """Each command in `chunk`, in order; a refused one ends the list (what follows it is not known)."""
    found = []
    pos = 0
    while pos < len(chunk):
        result = parse_strict(chunk[pos:], registry, blocked)
        if result.attempted is None:
            break
        found.append(result)
        if not result.ok:
            break
        pos = len(chunk) - len(result.rest)
    return found


def _unclosed(result: ParseResult) -> bool:
    return not result.ok and result.written.count("(") > result.written.count(")")


def _chunks(lines: list[str], registry: CommandRegistry,
            blocked: list[str]) -> Iterable[tuple[str, list[ParseResult]]]:
    """Each line with its commands; a line whose last command's argument list is not closed is read together
    with the following lines that close it (none of them starting another command)."""
    i = 0
    while i < len(lines):
        chunk, results = lines[i], _commands_in(lines[i], registry, blocked)
        if results and _unclosed(results[-1]):
            for j in range(i + 1, min(i + 1 + MAX_SPLIT_LINES, len(lines))):
                if _COMMAND_START.search(lines[j]):
                    break
                joined = "\n".join(lines[i:j + 1])
                longer = _commands_in(joined, registry, blocked)
                if not _unclosed(longer[-1]):
                    chunk, results, i = joined, longer, j
                    break
        yield chunk, results
        i += 1


def person_problem(person: str, command: str) -> str:
    """The problem of a line that commands a person: told back to the dispatcher, the line never runs."""
    return (f"{person} is a person playing beside the cooks: you cannot command them; {command} was not run; "
            f"give commands to the cooks only")


def parse_dispatch_reply(text: str, agents: Iterable[str], registry: CommandRegistry,
                         busy: Mapping[str, str] | None = None, allowed: Iterable[str] | None = None,
                         people: Iterable[str] = ()) -> ParsedReply:
    """Commands per agent from `text`. `busy` maps busy agents to what they are doing; `allowed`, when given,
    limits the commands to those names (others are refused with the command parser's message); `people` are the
    persons playing beside the agents, whose lines are refused as such."""
    names = _Names(agents)
    persons = _Names(people)
    busy = busy or {}
    blocked = [] if allowed is None else sorted(set(registry.names()) - set(allowed))
    parsed = ParsedReply()
    attempted = False
    heading: str | None = None  # the agent named alone on an earlier line, for commands without a name
    for chunk, results in _chunks(str(text).splitlines(), registry, blocked):
        if not results:
            start = _COMMAND_START.search(chunk)
            name = names.alone(chunk[:start.start()]) if start else None
            if start and name:  # "andy: !collect": meant as a command, not prose
                attempted = True
                parsed.problems.append(f"{name}: no command could be read in "
                                       f"{chunk[start.start():].strip()[:60]!r}")
            elif chunk.strip(_DECORATION):
                heading = names.alone(chunk)
            continue
        attempted = True
        name = None
        for result in results:
            named, written = names.resolve(result.message)
            if named is not None:
                heading = None
            elif name is not None:
                named = name  # a second command on the line, without a name of its own
            elif heading is not None and not result.message.strip(_DECORATION):
                named = heading
            elif (person := persons.resolve(result.message)[0]) is not None and not names.named(result.message):
                parsed.problems.append(person_problem(person, result.call_text() if result.ok else
                                                      result.written.strip()[:60]))
                break
            elif written is not None:
                parsed.problems.append(f"unknown agent {written!r}: the agents are {', '.join(names.known.values())}")
                break
            else:
                several = sorted(names.named(result.message))
                what = f"for several agents ({', '.join(several)})" if several else "without an agent name"
                parsed.problems.append(f"a command {what}: {chunk.strip()[:80]!r}; write it as name: !command(args), "
                                       f"one line per agent")
                break
            name = named
            _accept(parsed, name, result, busy)
    if not attempted:
        parsed.problems.append("no command found in the reply: write one line per free agent as name: !command(args)")
    return parsed


def _accept(parsed: ParsedReply, name: str, result: ParseResult, busy: Mapping[str, str]) -> None:
    """Keeps `name`'s command, or says why not."""
    if not result.ok:
        parsed.problems.append(f"{name}: {result.error}")
        return
    call = result.call_text()
    if name in parsed.commands:
        parsed.problems.append(f"two commands for {name}: kept {parsed.commands[name]}, dropped {call}; "
                               f"give each agent one command per step")
    elif name in busy:
        doing = f" ({busy[name]})" if busy[name] else ""
        parsed.problems.append(f"{name} is busy{doing}: {call} was not run; give commands to free agents only")
    else:
        parsed.commands[name] = call
