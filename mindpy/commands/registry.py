"""The command registry: an ordered set of command records, looked up by name, and run with their arguments.

A record (`Command`) holds everything about one command side by side: name, description, typed parameters, kind,
and the function that performs it. The records live in one module per concern (movement.py, inventory.py,
crafting.py, ...; catalog.py gathers them):

    registry = default_registry()
    registry.run(context, "goToPlayer", ["Steve", 3])      # -> output text

A function receives the context (an AgentContext, see context.py) and then one value per parameter, already
converted by the parser. `bind` replaces a command's function (extensions, tests) and checks that the function
accepts that many arguments. A command without a function answers plainly that it is not available; it never
pretends to have done something.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import DEFAULT_MINECRAFT_VERSION
from .params import Param, show_value

QUERY = "query"
ACTION = "action"


@dataclass
class Command:
    """One command's record: its spec and the function that performs it."""

    name: str                       # without the "!"
    description: str
    params: tuple[Param, ...] = ()
    kind: str = ACTION              # QUERY (looks, answers at once) or ACTION (does something)
    interrupts: bool | None = None  # runs through the action manager, stopping the running action;
                                    # None: True for actions, False for queries
    run: Callable[..., Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.params = tuple(self.params)
        if self.kind not in (QUERY, ACTION):
            raise ValueError(f"command {self.name}: kind must be {QUERY!r} or {ACTION!r}, not {self.kind!r}")
        if self.interrupts is None:
            self.interrupts = self.kind == ACTION
        flags = [p.optional for p in self.params]
        if flags != sorted(flags):
            raise ValueError(f"command {self.name}: optional parameters must come last")

    @property
    def required(self) -> int:
        """How many arguments must be written (the parameters before the optional ones)."""
        return sum(not p.optional for p in self.params)

    def fill(self, args: list | tuple) -> list | None:
        """`args` with the optional parameters left out set to None; None when their number does not fit."""
        if not self.required <= len(args) <= len(self.params):
            return None
        return [*args, *[None] * (len(self.params) - len(args))]

    @property
    def is_action(self) -> bool:
        return self.kind == ACTION

    @property
    def bound(self) -> bool:
        return self.run is not None

    def signature(self) -> str:
        """`!craftRecipe(recipe_name: ItemName, num: int)`; `!stop` for no parameters."""
        if not self.params:
            return f"!{self.name}"
        return f"!{self.name}(" + ", ".join(p.signature() for p in self.params) + ")"

    def example(self) -> str:
        if not self.params:
            return f"!{self.name}"
        return f"!{self.name}(" + ", ".join(show_value(p.example_value()) for p in self.params) + ")"

    def arity_text(self) -> str:
        n = len(self.params)
        if n == 0:
            return f"Command !{self.name} takes no arguments"
        listed = ", ".join(p.signature() for p in self.params)
        left_out = "; those marked ? may be left out" if self.required < n else ""
        return f"Command !{self.name} takes {n} argument{'s' if n != 1 else ''} ({listed}{left_out})"


class CommandRegistry:
    """An ordered set of commands, looked up by name (exactly, or ignoring case when that is unambiguous)."""

    def __init__(self, commands: Iterable[Command] = (), version: str = DEFAULT_MINECRAFT_VERSION):
        self.version = version
        self._commands: dict[str, Command] = {}
        for command in commands:
            self.add(command)

    def add(self, command: Command) -> Command:
        if command.name in self._commands:
            raise ValueError(f"command !{command.name} is declared twice")
        names = [p.name for p in command.params]
        if len(set(names)) != len(names):
            raise ValueError(f"command !{command.name} has two parameters with the same name")
        self._commands[command.name] = command
        return command

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands.values())

    def __len__(self) -> int:
        return len(self._commands)

    def names(self) -> list[str]:
        return list(self._commands)

    def get(self, name: str) -> Command | None:
        """The command called `name` ("!" optional); case is ignored when only one command matches."""
        name = name.strip().lstrip("!")
        if name in self._commands:
            return self._commands[name]
        folded = [c for n, c in self._commands.items() if n.lower() == name.lower()]
        return folded[0] if len(folded) == 1 else None

    def __getitem__(self, name: str) -> Command:
        command = self.get(name)
        if command is None:
            raise KeyError(f"no command !{name.lstrip('!')}")
        return command

    # ---- binding ---------------------------------------------------------------------------------------
    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        """Make `fn(context, *args)` the body of command `name`. Rebinding replaces the previous function."""
        command = self[name]
        _check_arity(command, fn)
        command.run = fn

    def binds(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form of `bind`."""
        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.bind(name, fn)
            return fn
        return decorate

    def bind_all(self, functions: dict[str, Callable[..., Any]]) -> None:
        for name, fn in functions.items():
            self.bind(name, fn)

    def unbind(self, name: str) -> None:
        self[name].run = None

    def unbound(self) -> list[str]:
        return [c.name for c in self if not c.bound]

    # ---- running ---------------------------------------------------------------------------------------
    def run(self, context: Any, name: str, args: list | tuple = ()) -> Any:
        """Run a command with converted arguments. Unknown or unbound commands answer with a sentence saying so."""
        command = self.get(name)
        if command is None:
            return f"Command !{name.lstrip('!')} does not exist. Use !help to list the commands."
        if command.run is None:
            return (f"Command !{command.name} is not available in this version of the bot (it has no "
                    f"implementation yet). Nothing was done; use another command.")
        filled = command.fill(args)
        if filled is None:
            return f"{command.arity_text()}, got {len(args)}. Example: {command.example()}"
        return command.run(context, *filled)


def _check_arity(command: Command, fn: Callable[..., Any]) -> None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: trust the caller
        return
    args = [object()] * (1 + len(command.params))
    try:
        signature.bind(*args)
    except TypeError as exc:
        raise TypeError(f"cannot bind !{command.name}: the function must accept (context"
                        + "".join(f", {p.name}" for p in command.params) + f"): {exc}") from None
