"""Fill prompt templates from the agent's state, laid out so the unchanging part comes first.

A prompt is sent as:  system = the stable part (rules, command docs, examples),  messages = the history turns,
then one last system message with the changing state (memory, stats, inventory, action, goal). Turns only grow
between memory summaries, so from one call to the next everything but that last message is a shared prefix
that providers' prompt caches reuse. MINDcraft-style single-string prompts are split the same way
(`split_template`).

    prompter = Prompter.from_profile(profile, settings, examples=ExampleSelector(profile.conversation_examples))
    system, messages = prompter.conversing(agent)       # what the model is sent
    prompter.last["conversing"].shared_prefix_tokens    # tokens that start as the previous call did

The examples ($EXAMPLES) are chosen by the opening of the conversation, so they too stay the same until a memory
summary shortens the turns, and those using a command the docs ($COMMAND_DOCS) do not offer are left out. A
task's goal, already in a task prompt's stable part, is not repeated in the state.

Placeholder values come from, in order: `extra` values given to a call, the `providers` given to the Prompter
(values, or callables taking the agent or nothing), then what the agent object itself offers.

The profile options `partner_modelling` and `reflection` (the CoBlock method, mindpy.prompts.coblock) add their
rules to the conversing prompt's stable part ($METHOD, appended when the template does not place it) and, for
partner modelling, the agent's last notes to its state ($MODELLING). With both off the prompts are unchanged.
CoBlock's own template (profiles/coblock.yaml) places the paper's parts itself: $STEPS (the four reasoning steps,
as the switches have them, instead of $METHOD), $COBLOCK_EXAMPLES (the three-round examples; with the option
`retrieved_examples` they give way to $EXAMPLES, the retrieved chat examples), $COBLOCK_STATE (the XML state) and
$PARTNERS.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..models.tokens import MESSAGE_OVERHEAD, common_prefix_tokens, count_tokens, encode
from ..profiles import METHOD_OPTIONS
from ..rag.examples import render_example
from .coblock import (
    coblock_state,
    cot_examples_text,
    method_text,
    modelling_text,
    partners_text,
    steps_text,
    structure_text,
)

log = logging.getLogger(__name__)

PLACEHOLDERS = ("NAME", "STATS", "INVENTORY", "ACTION", "COMMAND_DOCS", "CODE_DOCS", "EXAMPLES", "MEMORY",
                "TO_SUMMARIZE", "CONVO", "SELF_PROMPT", "LAST_GOALS", "BLUEPRINTS", "TASK_GOAL", "TASK_INVENTORY",
                "METHOD", "MODELLING", "STRUCTURE", "COBLOCK_STATE", "STEPS", "COBLOCK_EXAMPLES", "PARTNERS",
                "COBLOCK_MEMORY")
# Values that change from call to call; lines holding them belong after the conversation.
VOLATILE = frozenset({"STATS", "INVENTORY", "ACTION", "MEMORY", "TO_SUMMARIZE", "CONVO", "SELF_PROMPT",
                      "LAST_GOALS", "MODELLING", "STRUCTURE", "COBLOCK_STATE", "COBLOCK_MEMORY"})
PROMPT_KINDS = ("conversing", "coding", "saving_memory", "bot_responder")
_TOKEN = re.compile(r"\$([A-Z][A-Z_]*)")
_COMMAND = re.compile(r"!([A-Za-z_][A-Za-z0-9_]*)")
_DOCS_LINE = re.compile(r"^!([A-Za-z_][A-Za-z0-9_]*)", re.M)
MEMORY_LIMIT = 500
SPARE_EXAMPLES = 3  # examples looked at beyond num_examples, to replace those using commands not offered


@functools.lru_cache(maxsize=1)
def default_prompts() -> dict[str, Any]:
    """The default prompts and settings from defaults.yaml (read once)."""
    import yaml

    return yaml.safe_load((Path(__file__).parent / "defaults.yaml").read_text(encoding="utf-8"))


class SystemPrompt(str):
    """The system text, carrying how many prompt tokens of the whole request are the stable prefix
    (models copy it into `Usage.stable_prefix_tokens`)."""

    stable_prefix_tokens: int = 0
    prompt_tokens: int = 0


@dataclass
class Prompt:
    """A model request built from a template: system text, turns and token counts."""
    kind: str
    system: SystemPrompt
    messages: list[dict]
    prompt_tokens: int          # estimate of the whole request (cl100k)
    stable_prefix_tokens: int   # system + turns: what comes before anything that changes per call
    shared_prefix_tokens: int   # measured: leading tokens identical to the previous prompt of this kind

    def as_pair(self) -> tuple[SystemPrompt, list[dict]]:
        return self.system, self.messages


def split_template(template: Any) -> tuple[str, str]:
    """(stable part, changing part) of a template: a {system, state} mapping, or a single string whose lines
    holding a changing placeholder are moved, in order, to the changing part."""
    if isinstance(template, dict):
        return str(template.get("system") or ""), str(template.get("state") or "")
    stable, state = [], []
    for line in str(template).split("\n"):
        m = re.match(r"\s*\$([A-Z_]+)\s+(\S.*)$", line)
        if m and m.group(1) in VOLATILE:  # "$SELF_PROMPT Act human-like...": the rule text stays stable
            state.append(f"${m.group(1)}")
            stable.append(m.group(2))
        elif any(name in VOLATILE for name in _TOKEN.findall(line)):
            state.append(line)
        else:
            stable.append(line)
    return "\n".join(stable).strip(), "\n".join(state).strip()


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace known `$PLACEHOLDERS`; unknown `$WORDS` are left as written."""
    return _TOKEN.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


def format_turns(turns: list[dict], name: str = "") -> str:
    """Turns as plain text for summaries and the respond-or-ignore prompt."""
    lines = []
    for t in turns:
        role, content = t.get("role"), str(t.get("content", ""))
        if role == "assistant":
            lines.append(f"{name or 'You'} (you): {content}")
        elif role == "system":
            lines.append(f"System: {content}")
        else:
            lines.append(content)
    return "\n".join(lines)


def opening(turns: list[dict]) -> list[dict]:
    """The turns up to the first message from someone else: what the examples are chosen by. Turns only grow
    between memory summaries, so the examples, and the prompt prefix they are part of, stay the same until one."""
    first = next((i for i, t in enumerate(turns) if t.get("role") == "user"), len(turns) - 1)
    return turns[:first + 1]


def uses_only(example: list[dict], commands: frozenset[str]) -> bool:
    """Whether every command the example's replies write is one of `commands`."""
    return all(name in commands for t in example if t.get("role") == "assistant"
               for name in _COMMAND.findall(str(t.get("content", ""))))


def _call(provider: Any, agent: Any) -> Any:
    if not callable(provider):
        return provider
    try:
        wants_agent = len(inspect.signature(provider).parameters) >= 1
    except (TypeError, ValueError):
        wants_agent = False
    return provider(agent) if wants_agent else provider()


def _placeholders(*texts: str) -> set[str]:
    return {n for t in texts for n in _TOKEN.findall(t) if n in PLACEHOLDERS}


class Prompter:
    """Builds the prompts of one bot.

    prompts:   kind -> template (defaults.yaml's are used for kinds not given)
    providers: placeholder name (e.g. "STATS") -> value or callable(agent) / callable(); or an object whose
               attributes are named after the placeholders in lower case (`ctx.stats`, `ctx.command_docs`)
    examples, coding_examples: objects with `render(turns, k, name) -> str` (mindpy.rag.ExampleSelector)
    partner_modelling, reflection: the CoBlock method's options (see the module's docstring)
    retrieved_examples, review_detail: CoBlock's options of ours (mindpy.profiles.COBLOCK_OPTIONS) the prompts
    use; `options` keeps every method option of the profile, for the record of an episode's settings
    """

    def __init__(self, name: str = "", prompts: Mapping[str, Any] | None = None,
                 providers: Mapping[str, Any] | None = None, examples=None, coding_examples=None,
                 num_examples: int = 2, model=None, prompt_log: str | Path | None = None,
                 partner_modelling: bool = False, reflection: bool = False, retrieved_examples: bool = False,
                 review_detail: bool = False, options: Mapping[str, bool] | None = None):
        self.name = name
        self.partner_modelling = partner_modelling
        self.reflection = reflection
        self.retrieved_examples = retrieved_examples
        self.review_detail = review_detail
        self.options = dict(options or {"partner_modelling": partner_modelling, "reflection": reflection,
                                        "retrieved_examples": retrieved_examples, "review_detail": review_detail})
        self.prompts = {**default_prompts(), **{k: v for k, v in (prompts or {}).items() if v}}
        if providers is None or isinstance(providers, Mapping):
            self.providers: dict[str, Any] = dict(providers or {})
            self.context = None
        else:  # a context object
            self.providers, self.context = {}, providers
        self.examples = examples
        self.coding_examples = coding_examples
        self.num_examples = num_examples
        self.model = model  # for the respond-or-ignore decision when the agent has none
        self.prompt_log = Path(prompt_log) if prompt_log else None
        self._last_tokens: dict[str, list[int]] = {}
        self.last: dict[str, Prompt] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_profile(cls, profile, settings=None, providers=None, examples=None, coding_examples=None,
                     model=None) -> Prompter:
        """A prompter with a profile's prompts and the settings' `num_examples` / `log_all_prompts`."""
        log_path = None
        if settings is not None and settings.log_all_prompts:
            log_path = Path(settings.bots_dir) / profile.name / "logs" / "prompts.jsonl"
        return cls(name=profile.name, prompts=profile.prompts, providers=providers, examples=examples,
                   coding_examples=coding_examples, model=model, prompt_log=log_path,
                   num_examples=settings.num_examples if settings is not None else 2,
                   partner_modelling=bool(getattr(profile, "partner_modelling", False)),
                   reflection=bool(getattr(profile, "reflection", False)),
                   retrieved_examples=bool(getattr(profile, "retrieved_examples", False)),
                   review_detail=bool(getattr(profile, "review_detail", False)),
                   options={name: bool(getattr(profile, name, False)) for name in METHOD_OPTIONS})

    @property
    def thinks_in_comments(self) -> bool:
        """Whether the conversing prompt asks for reasoning on "#" lines before the action (CoBlock's $STEPS):
        the agent then keeps those lines out of what is said or run."""
        template = self.prompts.get("conversing")
        return "$STEPS" in "".join(split_template(template)) if template else False

    # ---- values ---------------------------------------------------------------------------------------
    def _value(self, key: str, agent: Any, turns: list[dict], kind: str, docs: str = "") -> str:
        if key in self.providers:
            value = _call(self.providers[key], agent)
        elif self.context is not None and getattr(self.context, key.lower(), None) is not None:
            value = _call(getattr(self.context, key.lower()), agent)
        else:
            value = self._from_agent(key, agent, turns, kind, docs)
        if value is None:
            return ""
        return value if isinstance(value, str) else json.dumps(value) if isinstance(value, (dict, list)) \
            else str(value)

    def _from_agent(self, key: str, agent: Any, turns: list[dict], kind: str, docs: str = "") -> Any:
        name = getattr(agent, "name", None) or self.name
        if key == "NAME":
            return name
        if key == "METHOD":
            return method_text(self.partner_modelling, self.reflection)
        if key == "STEPS":
            return steps_text(self.partner_modelling, self.reflection)
        if key == "COBLOCK_EXAMPLES":
            return "" if self.retrieved_examples else cot_examples_text(self.partner_modelling, self.reflection)
        if key == "EXAMPLES":
            selector = self.coding_examples if kind == "coding" else self.examples
            if selector is None or self.num_examples <= 0:
                return ""
            # code is written for the newest request; a conversation keeps the examples of its opening
            return self._examples(selector, turns if kind == "coding" else opening(turns), name, docs)
        if agent is None:
            return ""
        history = getattr(agent, "history", None)
        commands = getattr(agent, "commands", None)
        if key == "MEMORY":
            return getattr(history, "memory", "")
        if key == "COBLOCK_MEMORY":  # summarize_history: the note old turns were folded into, when there is one
            memory = getattr(history, "memory", "")
            return f"Your memory of earlier turns (a summary): '{memory}'" if memory else ""
        if key == "COMMAND_DOCS" and commands is not None and hasattr(commands, "docs"):
            return commands.docs(getattr(agent, "context", None))
        if key in ("STATS", "INVENTORY") and commands is not None:
            try:  # the same text the !stats / !inventory queries give the model
                return commands.run(getattr(agent, "context", None), key.lower(), [])
            except Exception as exc:  # a world query failing must not stop the prompt
                log.debug("%s query for the prompt failed: %s", key, exc)
                return ""
        if key == "ACTION":
            actions = getattr(agent, "actions", None)
            return getattr(actions, "current_label", None) or "none"
        if key == "SELF_PROMPT":
            sp = getattr(agent, "self_prompter", None)
            state = getattr(getattr(sp, "state", None), "value", getattr(sp, "state", None))
            if sp is not None and state in ("active", "paused") and getattr(sp, "goal", None):
                if "$TASK_GOAL" in str(self.prompts[kind]) and \
                        sp.goal.strip() == (getattr(agent, "task_goal", "") or "").strip():
                    return "Your current goal is your task: keep working on it."  # the prompt states the task
                return f"Your current goal, which you set yourself: \"{sp.goal}\""
            return ""
        if key == "CONVO":
            return format_turns(turns[-8:], name)
        if key == "TASK_GOAL":
            return getattr(agent, "task_goal", "") or ""
        if key == "TASK_INVENTORY":
            return getattr(agent, "task_inventory", "") or ""
        if key == "MODELLING":
            return modelling_text(getattr(agent, "modelling_notes", "")) if self.partner_modelling else ""
        if key == "STRUCTURE":
            return structure_text(agent)
        if key == "COBLOCK_STATE":
            return coblock_state(agent)
        if key == "PARTNERS":
            return partners_text(agent)
        return ""

    def _examples(self, selector: Any, turns: list[dict], name: str, docs: str) -> str:
        """The examples for `turns`, leaving out those that use a command the docs do not offer (they would teach
        what the agent cannot do here); every example when there are no docs to check against."""
        offered = frozenset(_DOCS_LINE.findall(docs))
        if not offered or not hasattr(selector, "select"):
            return selector.render(turns, self.num_examples, name=name)
        candidates = selector.select(turns, self.num_examples + SPARE_EXAMPLES)
        chosen = [e for e in candidates if uses_only(e, offered)][:self.num_examples]
        if not chosen:
            return ""
        parts = [getattr(selector, "title", "Examples of how to respond:")]
        parts += [f"Example {n}:\n{render_example(example, name)}" for n, example in enumerate(chosen, 1)]
        return "\n\n".join(parts)

    # ---- building ---------------------------------------------------------------------------------------
    def build(self, kind: str, agent: Any = None, turns: list[dict] | None = None,
              extra: Mapping[str, Any] | None = None, include_turns: bool = True) -> Prompt:
        """Render the `kind` prompt. `turns` defaults to the agent's history; `extra` overrides values."""
        if kind not in self.prompts:
            raise KeyError(f"no prompt named '{kind}' (have: {', '.join(self.prompts)})")
        if turns is None:
            turns = list(getattr(getattr(agent, "history", None), "turns", []) or [])
        stable_t, state_t = self._with_method(kind, *split_template(self.prompts[kind]))
        extra = dict(extra or {})
        values: dict[str, str] = {}
        # the docs before the examples: examples using commands the docs do not offer are left out
        for key in sorted(_placeholders(stable_t, state_t), key=lambda k: k == "EXAMPLES"):
            if key == "EXAMPLES" and "COBLOCK_EXAMPLES" in values and not self.retrieved_examples \
                    and key not in extra:
                values[key] = ""  # the paper's examples stand in the template's place for them
                continue
            values[key] = str(extra[key]) if key in extra else \
                self._value(key, agent, turns, kind, values.get("COMMAND_DOCS", ""))
        system = _tidy(fill(stable_t, values))
        state = _tidy(fill(state_t, values))
        messages = [{"role": t["role"], "content": str(t["content"])} for t in turns] if include_turns else []
        if state:
            messages.append({"role": "system" if messages else "user", "content": state})
        return self._account(kind, system, messages, n_stable_messages=len(messages) - (1 if state else 0))

    def state(self, agent: Any = None, kind: str = "conversing", extra: Mapping[str, Any] | None = None) -> str:
        """The changing part of the `kind` prompt alone, as the last message of a model call would have it now
        (memory, stats, inventory, current action, goal); `extra` overrides values. Nothing is logged or counted
        (environments for learning agents show it as their observation's text)."""
        if kind not in self.prompts:
            raise KeyError(f"no prompt named '{kind}' (have: {', '.join(self.prompts)})")
        turns = list(getattr(getattr(agent, "history", None), "turns", []) or [])
        _, state_t = self._with_method(kind, *split_template(self.prompts[kind]))
        extra = dict(extra or {})
        values = {key: str(extra[key]) if key in extra else self._value(key, agent, turns, kind)
                  for key in _placeholders(state_t)}
        return _tidy(fill(state_t, values))

    def _with_method(self, kind: str, stable: str, state: str) -> tuple[str, str]:
        """The conversing template with the method's placeholders added where it does not place them itself:
        $METHOD after the stable part, $MODELLING before the state's last line (its closing instruction)."""
        if kind != "conversing" or not (self.partner_modelling or self.reflection):
            return stable, state
        if "$METHOD" not in stable and "$METHOD" not in state and "$STEPS" not in stable + state:
            stable = f"{stable}\n\n$METHOD"
        if self.partner_modelling and "$MODELLING" not in stable + state:
            lines = state.split("\n") if state else []
            lines.insert(max(len(lines) - 1, 0), "$MODELLING")
            state = "\n".join(lines)
        return stable, state

    def _account(self, kind: str, system: str, messages: list[dict], n_stable_messages: int) -> Prompt:
        sys_tokens = count_tokens(system) + MESSAGE_OVERHEAD
        msg_tokens = [count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages]
        stable = sys_tokens + sum(msg_tokens[:n_stable_messages])
        total = sys_tokens + sum(msg_tokens) + 3
        # measured reuse: the request serialized as one token stream, compared with the previous one
        stream = encode(system + "".join(f"\x00{m['role']}\x00{m['content']}" for m in messages))
        with self._lock:
            shared = common_prefix_tokens(self._last_tokens.get(kind, []), stream)
            self._last_tokens[kind] = stream
        sp = SystemPrompt(system)
        sp.stable_prefix_tokens, sp.prompt_tokens = stable, total
        prompt = Prompt(kind, sp, messages, total, stable, shared)
        self.last[kind] = prompt
        self._log(prompt)
        return prompt

    def _log(self, prompt: Prompt) -> None:
        if self.prompt_log is None:
            return
        try:
            self.prompt_log.parent.mkdir(parents=True, exist_ok=True)
            with self.prompt_log.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"time": time.time(), "kind": prompt.kind, "system": str(prompt.system),
                                    "messages": prompt.messages, "prompt_tokens": prompt.prompt_tokens,
                                    "stable_prefix_tokens": prompt.stable_prefix_tokens}) + "\n")
        except OSError as exc:
            log.warning("could not log the prompt to %s: %s", self.prompt_log, exc)

    # ---- the prompts the agent uses ---------------------------------------------------------------------
    def conversing(self, agent: Any = None, turns: list[dict] | None = None,
                   **extra) -> tuple[SystemPrompt, list[dict]]:
        """`turns` in place of the agent's history (a belief state stands for it)."""
        return self.build("conversing", agent, turns=turns, extra=extra).as_pair()

    def coding(self, agent: Any = None, **extra) -> tuple[SystemPrompt, list[dict]]:
        """`extra` usually carries CODE_DOCS (the docs relevant to the request)."""
        return self.build("coding", agent, extra=extra).as_pair()

    def memory_prompt(self, old_memory: str, to_summarize: list[dict], agent: Any = None) -> Prompt:
        return self.build("saving_memory", agent, turns=to_summarize, include_turns=False,
                          extra={"MEMORY": old_memory, "TO_SUMMARIZE": format_turns(to_summarize, self._name(agent))})

    def summarize(self, model, old_memory: str, to_summarize: list[dict], agent: Any = None,
                  limit: int = MEMORY_LIMIT) -> str:
        """A new memory from the old one and the turns; at most `limit` characters. Raises ModelError."""
        prompt = self.memory_prompt(old_memory, to_summarize, agent)
        reply = model.send(prompt.messages, prompt.system)
        return clip_memory(getattr(reply, "text", str(reply)), limit)

    def should_respond(self, agent: Any, message: str) -> bool:
        """Respond-or-ignore for a bot message that arrives while busy. Defaults to respond on any doubt."""
        model = getattr(agent, "model", None) or self.model
        if model is None:
            return True
        turns = list(getattr(getattr(agent, "history", None), "turns", []) or [])
        convo = format_turns(turns[-6:], self._name(agent))
        if message and message not in convo:
            convo = f"{convo}\n{message}".strip()
        prompt = self.build("bot_responder", agent, turns=[], include_turns=False, extra={"CONVO": convo})
        messages = prompt.messages or [{"role": "user", "content": "Decide now: respond or ignore?"}]
        try:
            text = model.send(messages, prompt.system).text.lower()
        except Exception as exc:
            log.info("respond-or-ignore failed (%s); responding", exc)
            return True
        return not ("ignore" in text and "respond" not in text)

    def _name(self, agent: Any) -> str:
        return getattr(agent, "name", None) or self.name


def clip_memory(text: str, limit: int = MEMORY_LIMIT) -> str:
    """Trim a memory to `limit` characters, at a word boundary when one is near the end."""
    text = text.strip().strip("'\"").strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit * 0.8 else cut).rstrip()


def _tidy(text: str) -> str:
    """Drop the blank lines left by empty values (at most one blank line in a row)."""
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
