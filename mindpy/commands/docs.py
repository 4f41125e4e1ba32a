"""The command list as the model reads it, in the prompt ($COMMAND_DOCS) and as the answer to !help.

Two forms: `full` gives each command's description and parameters (type, domain, meaning); `short` gives one line
per command. Blocked commands are left out. Both start with how to write a command and the rule that only the
first command of a reply runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from .blocking import available
from .registry import Command, CommandRegistry

RULES = (
    "Write a command in your reply as !name, or as !name(arg1, arg2, ...) when it takes arguments: numbers as "
    'they are, true or false, and text in double quotes, e.g. !craftRecipe("oak_planks", 4). '
    "Only the first command in a reply is run and anything written after it is ignored, so use at most one "
    "command per reply, and do not put it in a code block."
)


def _first_sentence(text: str) -> str:
    for end in (". ", ": "):
        if end in text:
            return text.split(end, 1)[0] + "."
    return text


def _param_line(param) -> str:
    kind = param.type.show()
    if param.domain is not None:
        kind += f", {param.domain.describe()}"
    return f"    {param.name} ({kind}): {param.description}"


def render_full(commands: Iterable[Command]) -> str:
    """The long docs: queries then actions, each with its description, parameters and example."""
    commands = list(commands)
    out = ["COMMANDS", RULES]
    for title, kind in (("Queries (they look and answer at once):", "query"), ("Actions:", "action")):
        group = [c for c in commands if c.kind == kind]
        if not group:
            continue
        out.append("")
        out.append(title)
        for command in group:
            out.append(f"!{command.name}: {command.description}")
            if command.params:
                out.append("  Params:")
                out.extend(_param_line(p) for p in command.params)
                out.append(f"  Example: {command.example()}")
    return "\n".join(out)


def render_short(commands: Iterable[Command]) -> str:
    """The compact docs: one line per command with its parameter names and first sentence."""
    out = ["COMMANDS", RULES]
    for command in commands:
        params = ", ".join(p.name for p in command.params)
        head = f"!{command.name}({params})" if params else f"!{command.name}"
        out.append(f"{head}: {_first_sentence(command.description)}")
    return "\n".join(out)


def command_docs(registry: CommandRegistry, blocked: Iterable[str] = (), form: str = "full",
                 only_bound: bool = False) -> str:
    """The docs of the commands left after blocking (and, with only_bound, those that have a function)."""
    commands = [c for c in available(registry, blocked) if c.bound or not only_bound]
    if form == "full":
        return render_full(commands)
    if form == "short":
        return render_short(commands)
    raise ValueError(f"docs form must be 'full' or 'short', not {form!r}")


def command_table(registry: CommandRegistry) -> str:
    """A plain table for `mindpy commands`: name and parameters, kind, description."""
    rows = [(c.signature(), c.kind + ("" if c.bound else ", unbound"), c.description) for c in registry]
    width = min(max(len(r[0]) for r in rows), 60)
    lines = []
    for signature, kind, description in rows:
        if len(signature) > width:
            lines.append(signature)
            lines.append(f"{'':{width}}  [{kind}] {description}")
        else:
            lines.append(f"{signature:{width}}  [{kind}] {description}")
    return "\n".join(lines)
