"""`!newAction`: the model writes Python for the task, the sandbox runs it, the outcome goes back to the model.

Up to `max_attempts` model replies: a reply with a ```python block is checked and run; an error (or a refusal
by the checker) is fed back so the next reply can fix it; a clean run ends the loop. Replies without code
are answered with a reminder, and `max_no_code` of them in a row end the loop. The model is any callable
`ask_model(messages) -> str` (messages are {"role", "content"} dicts, the first one the system prompt).

Nothing runs unless the `CodingPolicy` allows it: coding must be switched on (`allow_insecure_coding`) and the
chain of requests that led to the code must have started with a trusted player or with the bot itself (its
settings, the code that runs it, a task). The requester is that origin, not whoever prompted the last turn: a
goal an untrusted player set stays untrusted through the turns the bot then takes on its own.
"""

from __future__ import annotations

import re
import string
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from ..models.base import strip_thinking
from .api import MODULES, CodeApi
from .api_docs import RELEVANT_DOCS_COUNT, Rank, docs_text, relevant_docs
from .library.store import SkillLibrary, prompt_section
from .sandbox import DEFAULT_TIMEOUT, Limits, RunResult, run_code

AskModel = Callable[[list[dict]], str]
MAX_ATTEMPTS = 5
MAX_NO_CODE = 3
# Who stands for the agent itself (its settings, the code that runs it, a task's goal). Not a valid player name
# (names are 3-16 of [A-Za-z0-9_]), so no player can pass for it: a player may well be called "system".
SELF_REQUESTER = "<self>"
SELF_REQUESTERS = (SELF_REQUESTER,)

DEFAULT_CODING_PROMPT = """You are $NAME, a Minecraft bot that acts by writing Python code. Your task: $TASK

Reply with one ```python code block that does what was asked, using the skills.* actions and world.* queries \
documented below. The code runs as soon as you send it, and you get back everything it printed and any error. \
Every skills.* call waits until the action is over and returns True or False: check it, and print what \
happened and what you found (world.inventory(), world.stats()...) so the output tells you how far the code got.
If the output shows the task is done, reply with a sentence or two and no code block. If something went wrong, \
send a corrected code block. Use only code here, no !commands.
The code is plain synchronous Python: no await or async, no classes, no files, no network, and imports only \
from: $MODULES. Keep it short and focused on the task.
$SELF_PROMPT
Summarized memory: '$MEMORY'
$STATS
$INVENTORY
$CODE_DOCS
$SKILL_LIBRARY

Examples:
$EXAMPLES

Conversation:"""

DEFAULT_EXAMPLES = """Task: get 4 oak logs
```python
have = world.inventory()["items"].get("oak_log", 0)
if have < 4:
    ok = skills.collect_blocks("oak_log", 4 - have)
    print("collected:", ok)
print("oak logs now:", world.inventory()["items"].get("oak_log", 0))
```

Task: build a 3-block cobblestone pillar next to me
```python
p = world.stats()["position"]
x, y, z = round(p["x"]) + 2, round(p["y"]), round(p["z"])
for dy in range(3):
    if not skills.place_block("cobblestone", x, y + dy, z):
        print("could not place the block at height", dy)
        break
print("top block:", world.block_at(x, y + 2, z))
```"""

NO_CODE_REMINDER = ("No code block found. Reply with the code in a ```python block (use skills.* and world.*), "
                    "or say in words that the task is done.")

_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)


def extract_code(reply: str) -> str | None:
    """The first ```python block of the reply (or the first untagged block), without the fences."""
    reply = strip_thinking(reply)
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(reply)]
    for lang, body in blocks:
        if lang in ("python", "py", "python3"):
            return body.strip("\n")
    for lang, body in blocks:
        if lang == "":
            return body.strip("\n")
    return None


def fill_prompt(template: str, values: dict[str, str]) -> str:
    """Put the values into the $PLACEHOLDERS; the ones without a value become empty."""
    text = string.Template(template).safe_substitute({k.upper(): v for k, v in values.items()})
    return re.sub(r"\$[A-Z_]+", "", text)


@dataclass
class CodingPolicy:
    """Who may have the bot write and run code."""

    allow_insecure_coding: bool = False
    trusted_players: Collection[str] = ()

    def refusal(self, requester: str | None, bot_name: str | None = None) -> str | None:
        """Why `requester` cannot use !newAction, or None if they can. `requester` is the origin of the request:
        the player who started the chain of requests that led to it, or SELF_REQUESTER when the bot itself did
        (its own goals count as the bot's only when the code running it set them, not when a player did)."""
        if not self.allow_insecure_coding:
            return ("Writing and running code is switched off (allow_insecure_coding is false in the settings); "
                    "use the other commands instead.")
        if requester in SELF_REQUESTERS or (bot_name is not None and requester == bot_name):
            return None
        if requester is not None and requester in set(self.trusted_players):
            return None
        return (f"I only write and run code for trusted players, and this request comes from "
                f"{requester or 'someone unknown'}, who is not one of them; use the other commands instead.")


@dataclass
class CodingOutcome:
    """The result of one coding action: success, summary, the code that ran and the exchange."""

    success: bool
    summary: str                   # what the agent records as the action's output
    attempts: int = 0              # model replies used
    runs: list[RunResult] = field(default_factory=list)
    code: str | None = None        # the last code that ran (or was refused)
    messages: list[dict] = field(default_factory=list)  # the whole exchange, for logs and tests
    refused: bool = False          # the policy said no: nothing was generated or run


def _should_stop(cancel) -> bool:
    if cancel is None:
        return False
    return cancel.is_set() if hasattr(cancel, "is_set") else bool(cancel())


class _CancelEvent(threading.Event):
    """Makes a `should_stop()` callable look like an Event for the sandbox (polled every 100 ms). Only `is_set()`
    follows the callable: `set()` and `wait()` keep the plain Event behaviour, and the sandbox uses neither."""

    def __init__(self, cancel):
        super().__init__()
        self.cancel = cancel

    def is_set(self) -> bool:
        return _should_stop(self.cancel)


@dataclass
class Coder:
    """One agent's code generation: its API, its model, its policy and prompt."""

    api: CodeApi | None
    ask_model: AskModel
    policy: CodingPolicy = field(default_factory=CodingPolicy)
    name: str = "bot"
    prompt: str = DEFAULT_CODING_PROMPT
    examples: str = DEFAULT_EXAMPLES
    rank: Rank | None = None
    relevant_docs_count: int = RELEVANT_DOCS_COUNT
    timeout: float = DEFAULT_TIMEOUT
    limits: Limits = field(default_factory=Limits)
    max_attempts: int = MAX_ATTEMPTS
    max_no_code: int = MAX_NO_CODE
    feedback_role: str = "user"
    model: Any = None  # the model behind ask_model, when known: what its calls cost is read from it
    library: SkillLibrary | None = None  # the agent's saved skills: shown in the prompt, callable from the code
    library_k: int = 3  # how many of them the prompt shows (the ones most like the request)

    def new_action(self, task: str, requester: str | None, context: dict[str, str] | None = None,
                   cancel: threading.Event | Callable[[], bool] | None = None) -> CodingOutcome:
        """The `!newAction(task)` command: refuse, or generate and run code until it works or we give up.

        `context` fills the prompt's other placeholders (stats, inventory, memory, self_prompt...).
        `cancel` (an Event or a callable) stops the loop and the running code (e.g. on !stop).
        """
        refusal = self.policy.refusal(requester, self.name)
        if refusal is not None:
            return CodingOutcome(False, refusal, refused=True)
        return self.generate(task, context, cancel)

    def system_prompt(self, task: str, context: dict[str, str] | None = None) -> str:
        docs = relevant_docs(task, self.relevant_docs_count, self.rank)
        values = {"stats": "", "inventory": "", "memory": "", "self_prompt": "", **(context or {})}
        values.update(name=self.name, task=task, code_docs=docs_text(docs), examples=self.examples,
                      modules=", ".join(MODULES), skill_library=self.skill_section(task))
        return fill_prompt(self.prompt, values)

    def skill_section(self, task: str) -> str:
        """The saved skills most like the request, for the prompt ('' without a library or a saved skill)."""
        if self.library is None:
            return ""
        return prompt_section(self.library.retrieve(task, self.library_k, self.rank))

    def generate(self, task: str, context: dict[str, str] | None = None, cancel=None) -> CodingOutcome:
        messages = [{"role": "system", "content": self.system_prompt(task, context)},
                    {"role": "user", "content": task}]
        outcome = CodingOutcome(False, "", messages=messages)
        no_code = 0
        last_failure = ""
        stop = _CancelEvent(cancel) if cancel is not None else None
        while outcome.attempts < self.max_attempts:
            if _should_stop(cancel):
                outcome.summary = "Code generation was stopped."
                return outcome
            try:
                reply = self.ask_model(list(messages))
            except Exception as exc:  # the model being unreachable ends this action, not the agent
                outcome.summary = f"Code generation failed: the model could not be reached ({exc})."
                return outcome
            outcome.attempts += 1
            reply = reply if isinstance(reply, str) else str(reply or "")
            messages.append({"role": "assistant", "content": reply})
            code = extract_code(reply)
            if code is None:
                no_code += 1
                if no_code >= self.max_no_code:
                    outcome.summary = (f"Gave up on the code: {no_code} replies in a row had no code block."
                                       + (f" Last problem: {last_failure}" if last_failure else ""))
                    return outcome
                messages.append({"role": self.feedback_role, "content": NO_CODE_REMINDER})
                continue
            no_code = 0
            outcome.code = code
            run = run_code(code, self.api, self.timeout, limits=self.limits, cancel=stop,
                           library=self.library.codes() if self.library is not None else None)
            outcome.runs.append(run)
            if run.ok:
                outcome.success = True
                outcome.summary = run.report()
                return outcome
            if run.stopped:
                outcome.summary = run.report()
                return outcome
            last_failure = run.error
            messages.append({"role": self.feedback_role, "content": run.report() + "\nFix the code and send it again."})
        outcome.summary = (f"Gave up on the code after {self.max_attempts} attempts."
                           + (f" Last problem:\n{last_failure}" if last_failure else ""))
        return outcome


def model_asker(model) -> AskModel:
    """Adapts the agent's model (`send(messages, system) -> reply with .text`) to `ask_model(messages)`."""
    def ask(messages: list[dict]) -> str:
        system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
        rest = messages[1:] if system else messages
        reply = model.send(rest, system)
        return getattr(reply, "text", reply) or ""
    return ask


def run_with_policy(task: str, requester: str | None, coder: Coder, **kwargs) -> str:
    """The text `!newAction` returns to the agent."""
    return coder.new_action(task, requester, **kwargs).summary



