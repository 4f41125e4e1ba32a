"""The MINDcraft paper's ablations and named settings, as episode options (`mindpy run --task`, `mindpy eval`).

    Ablations(communication=False)     # Table 3: the conversation commands blocked for every agent
    Ablations(tools=False)             # Table 4: every command but the conversation ones blocked
    Ablations(init_message="", temperature=0.0)   # no joining message (the default is the family's paper's)
    Ablations(prompt="compact")        # ours: the compact prompt a tuned model is trained and served with

Each turns into settings (blocked actions, the message sent on joining) and model parameters; `record()` is what
result.json and summary.json say of it, so that runs with different settings are never taken for one another.
The paper's other comparisons (number of agents, hidden plans, blueprint complexity) are properties of the task
files, already in the evaluation's breakdowns; its vision comparison is the `allow_vision` profile field.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..prompts.compact import FULL_PROMPT, PROMPT_STYLES, profile_fields
from ..tasks.families.common import MINECOLLAB_JOINING_MESSAGE
from ..tasks.records import MIXED

# What the MINDcraft paper's bots are told on joining a task's world (its section 10.1.1); `--init-message paper`.
PAPER_INIT_MESSAGE = MINECOLLAB_JOINING_MESSAGE
INIT_MESSAGES = {"none": "", "paper": PAPER_INIT_MESSAGE}
CONVERSATION_COMMANDS = ("startConversation", "endConversation")  # what MINDcraft blocks to stop communication
MAX_INIT_MESSAGE = 2000
# each setting and the option that asks for it (a family says which its play honours: Family.ablations)
ABLATION_NAMES = {"communication": "--no-communication", "tools": "--no-tools", "init_message": "--init-message",
                  "temperature": "--temperature", "prompt": "--prompt"}
MAX_TEMPERATURE = 2.0  # the OpenAI API's range


@dataclass(frozen=True)
class Ablations:
    """How far an episode departs from the full agent: communication and tools on or off, the message each bot
    gets on joining (None: the one its family's paper gives, Family.joining_message; "": none), and the models'
    sampling temperature (None: the API's default, as in the paper's runs), and the conversing prompt ("full": the
    paper's kind, with command docs and examples; "compact": ours, the same goal, state and conversation without
    them, for models tuned on mindpy's data: mindpy.prompts.compact)."""

    communication: bool = True
    tools: bool = True
    init_message: str | None = None
    temperature: float | None = None
    prompt: str = FULL_PROMPT

    def for_family(self, family: Any) -> Ablations:
        """These settings as `family`'s play applies them: the joining message its paper gives, unless another
        was asked for (a family whose play sends none gets none)."""
        if self.init_message is not None:
            return self
        message = family.joining_message if "init_message" in family.ablations else ""
        return replace(self, init_message=message)

    def blocked_actions(self) -> list[str]:
        """The commands every agent of the episode may not use."""
        from ..commands.catalog import all_commands

        blocked: list[str] = []
        if not self.tools:
            blocked += sorted(c.name for c in all_commands() if c.name not in CONVERSATION_COMMANDS)
        if not self.communication:
            blocked += list(CONVERSATION_COMMANDS)
        return blocked

    def with_temperature(self, spec: Any) -> Any:
        """A model spec (name or mapping) with this temperature among its parameters, unless it sets its own."""
        if self.temperature is None or spec is None:
            return spec
        data: dict[str, Any] = dict(spec) if isinstance(spec, dict) else {"model": str(spec)}
        params = dict(data.get("params") or {})
        params.setdefault("temperature", self.temperature)
        return {**data, "params": params}

    def profile_fields(self) -> dict[str, Any]:
        """What every agent's profile takes from these settings (the compact prompt's template; none for full)."""
        return profile_fields(self.prompt)

    def departures(self) -> list[str]:
        """The names of the settings asked for that a play which does not take them would not apply
        (ABLATION_NAMES' keys, in that order): anything but the full agent's, and a joining message."""
        full = Ablations()
        return [name for name in ABLATION_NAMES if getattr(self, name) != getattr(full, name)
                and not (name == "init_message" and self.init_message == "")]

    def unhonoured(self, family: Any) -> str | None:
        """One line when `family`'s play would not apply some of these settings (its `ablations` leave them out),
        else None: an episode recorded with a setting its play never applied would be taken for an ablation."""
        options = [ABLATION_NAMES[name] for name in self.departures() if name not in family.ablations]
        if not options:
            return None
        takes = ", ".join(ABLATION_NAMES[name] for name in family.ablations) or "none"
        return (f"{', '.join(options)}: {family.name} episodes are played by rules of their own that do not take "
                f"this setting (they take: {takes})")

    def record(self, families: Any = ()) -> dict[str, Any]:
        """What result.json and summary.json keep of these settings as the plays of `families` apply them (the
        message by name when it has one; "mixed" when the families' own messages differ)."""
        named = {_message_name(self.for_family(family).init_message) for family in families} or \
            {_message_name(self.init_message or "")}
        return {"communication": self.communication, "tools": self.tools,
                "init_message": named.pop() if len(named) == 1 else MIXED, "temperature": self.temperature,
                "prompt": self.prompt}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ablations:
        """The settings `to_dict` wrote; ValueError for anything else."""
        unknown = set(data) - {"communication", "tools", "init_message", "temperature", "prompt"}
        if unknown:
            raise ValueError(f"unknown ablation setting(s) {sorted(unknown)}")
        temperature = data.get("temperature")
        message = data.get("init_message")
        return cls(communication=bool(data.get("communication", True)), tools=bool(data.get("tools", True)),
                   init_message=None if message is None else init_message_value(str(message)),
                   temperature=None if temperature is None else temperature_value(str(temperature)),
                   prompt=prompt_value(str(data.get("prompt", FULL_PROMPT))))


def _message_name(message: str | None) -> str:
    """A joining message's name in the records: none, paper or custom."""
    return next((name for name, text in INIT_MESSAGES.items() if text == (message or "")), "custom")


def init_message_value(text: str) -> str:
    """--init-message: 'none', 'paper' (the paper's message) or a message of your own."""
    text = text.strip()
    if text.lower() in INIT_MESSAGES:
        return INIT_MESSAGES[text.lower()]
    if len(text) > MAX_INIT_MESSAGE:
        raise argparse.ArgumentTypeError(f"an initial message is at most {MAX_INIT_MESSAGE} characters, got "
                                         f"{len(text)}")
    return text


def temperature_value(text: str) -> float | None:
    """--temperature: 'default' (the model API's own, as the paper ran) or a number from 0 to 2."""
    if text.strip().lower() in ("default", "paper", "none"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a temperature is a number from 0 to {MAX_TEMPERATURE:g} or 'default', "
                                         f"got {text[:40]!r}") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_TEMPERATURE:
        raise argparse.ArgumentTypeError(f"a temperature is from 0 to {MAX_TEMPERATURE:g}, got {text[:40]!r}")
    return value


def prompt_value(text: str) -> str:
    """--prompt: 'full' (the default) or 'compact'."""
    style = text.strip().lower()
    if style not in PROMPT_STYLES:
        raise argparse.ArgumentTypeError(f"a prompt is one of {', '.join(PROMPT_STYLES)}, got {text[:40]!r}")
    return style


def add_ablation_options(parser) -> None:
    """--no-communication, --no-tools, --init-message, --temperature and --prompt, for the commands that play
    tasks."""
    parser.add_argument("--no-communication", action="store_true",
                        help="block the conversation commands for every agent and skip the task's opening "
                             "conversation (the paper's Table 3)")
    parser.add_argument("--no-tools", action="store_true",
                        help="block every command but the conversation ones (the paper's Table 4)")
    parser.add_argument("--init-message", type=init_message_value, default=None, metavar="TEXT",
                        help="what each bot is told once the world is set up: 'paper' (the MINDcraft paper's "
                             "message; the default for its families), 'none' or your own text")
    parser.add_argument("--temperature", type=temperature_value, default=None, metavar="T",
                        help="the models' sampling temperature, 0 to 2, or 'default' (the API's own, as the paper)")
    parser.add_argument("--prompt", type=prompt_value, default=FULL_PROMPT, metavar="full|compact",
                        help="the conversing prompt: 'full' (command docs and examples, as the paper's) or 'compact' "
                             "(ours: goal, state and conversation only, for models tuned on mindpy's data)")


def ablations_from_args(args: Any) -> Ablations:
    """The Ablations a command's arguments ask for."""
    return Ablations(communication=not getattr(args, "no_communication", False),
                     tools=not getattr(args, "no_tools", False),
                     init_message=getattr(args, "init_message", None),
                     temperature=getattr(args, "temperature", None),
                     prompt=getattr(args, "prompt", FULL_PROMPT) or FULL_PROMPT)
