"""Assemble an Agent from a profile and the settings: model, commands, prompter, examples and history.

    settings = load_settings()
    profile = load_profile("profiles/andy.yaml", settings=settings)
    agent = build_agent(profile, bot, settings)        # or model=ReplayModel(...) to script it
    agent.start()

Everything the agent uses is built here and handed to its constructor; nothing is rewired afterwards. Callers
that watch agents give middleware: `wrap_model(name, model, role=...)` wraps every model the agent uses before
anything uses it, its chat model (role "chat") and a profile's separate `code_model` ("code") and `vision_model`
("vision"): budgets and call logs see all its calls. A `wrap_model(name, model)` without a `role` parameter is
applied to each of them alike. `on_event` hooks see every traced event (consoles, counters).

The embedding model is loaded once per process and shared by every agent, on a thread of its own: call
`start_embedder(profiles, settings)` before the bots join so it loads meanwhile (build_agent starts it otherwise).
Agents that do not read examples never load it: the oracle's and chaos models' (they play from rules, not from
examples) and profiles with `embedding: none`; they rank examples by word overlap.

    start_embedder(profiles, settings, models)   # True when the load started (or had started)
    embedding_load()                             # the BackgroundEmbedder (ready, load_seconds), or None
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..commands import AgentCommands, default_registry
from ..commands.coblock import blocked_outside_coblock
from ..commands.defuse import blocked_outside_defuse
from ..commands.rounds import blocked_outside_rounds
from ..memory import BotState, History
from ..models import create_model
from ..prompts import Prompter
from ..rag import BackgroundEmbedder, CachedEmbedder, ExampleSelector, load_embedder
from ..skills import Skills
from .actions import ACTION_TIME_LIMIT
from .agent import Agent, AgentSettings, EventHook
from .bus import MessageBus

log = logging.getLogger(__name__)

_embedder: CachedEmbedder | None = None
_embedder_lock = threading.Lock()

# Environment variables that mean a hosted model can be used when a profile names none.
API_KEY_VARIABLES = ("OPENAI_API_KEY",)
# Models that play from rules and never read the prompt's examples: no embedding model is loaded for them.
APIS_WITHOUT_EXAMPLES = ("oracle", "chaos")


def shared_embedder(cache_dir: str | Path) -> CachedEmbedder:
    """The process's embedder; its model starts loading in the background on the first call (retrieval uses word
    overlap if it cannot be loaded)."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            folder = Path(cache_dir) / "embeddings"
            loading = BackgroundEmbedder(lambda: load_embedder(check=False, cache_dir=folder))
            _embedder = CachedEmbedder(loading, folder)
        return _embedder


def embedding_load() -> BackgroundEmbedder | None:
    """The background load of the process's embedding model, or None when nothing asked for it."""
    inner = _embedder.inner if _embedder is not None else None
    return inner if isinstance(inner, BackgroundEmbedder) else None


def model_api(profile, model: Any = None) -> str:
    """The api of the agent's chat model: the given model object's, else the one its profile (or the default)
    names; "" when the profile's model cannot be parsed (build_agent reports that)."""
    if model is not None:
        return str(getattr(model, "api", ""))
    try:
        spec = profile.model_spec() or default_model_spec()
    except ValueError:
        return ""
    return str(spec["api"] if isinstance(spec, dict) else spec.api)


def needs_embedder(profile, settings, model: Any = None) -> bool:
    """Whether the agent ranks anything by embeddings: it has examples (or writes code, whose docs are ranked),
    its profile does not say `embedding: none`, and its model reads examples."""
    if profile.embedding == "none" or model_api(profile, model) in APIS_WITHOUT_EXAMPLES:
        return False
    return bool(profile.conversation_examples or profile.coding_examples or settings.allow_insecure_coding)


def start_embedder(profiles: Sequence[Any], settings, models: dict[str, Any] | None = None) -> bool:
    """Start loading the embedding model now if any of the agents will use it (call before the bots join).
    `models`: ready model objects by profile name, as AgentRunner takes them."""
    models = models or {}
    if any(needs_embedder(p, settings, models.get(p.name)) for p in profiles):
        shared_embedder(settings.cache_dir)
        return True
    return False


def default_model_spec() -> Any:
    """The model for a profile that names none: the oracle when it is installed and no API key is set,
    otherwise OpenAI's default chat model."""
    from ..models import available_apis

    if not any(os.environ.get(v) for v in API_KEY_VARIABLES) and "oracle" in available_apis():
        return {"api": "oracle", "model": "oracle"}
    return {"api": "openai", "model": "gpt-4o-mini"}


def make_model(profile, settings) -> Any:
    """The chat model a profile names (or the default one), with the settings' retries, time limit and response
    cache."""
    spec = profile.model_spec() or default_model_spec()
    return create_model(spec, **settings.model_options())


ModelWrapper = Callable[..., Any]  # wrap_model(name, model, role="chat") -> the model to use


def wrap_with(wrap_model: ModelWrapper | None, name: str, model: Any, role: str) -> Any:
    """`model` through the middleware for `role`; a wrapper that takes no role is applied to every role alike."""
    if wrap_model is None:
        return model
    if _takes_role(wrap_model):
        return wrap_model(name, model, role=role)
    return wrap_model(name, model)


def _takes_role(function: Callable[..., Any]) -> bool:
    import inspect

    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "role" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def make_vision(profile, settings, model, wrap_model: ModelWrapper | None = None):
    """The agent's vision: its profile's vision_model (checked now, so a bad one stops the start; wrapped with
    role "vision"), else its own model (already wrapped, so budgets and call logs count its pictures)."""
    from ..commands.vision import Vision

    if profile.vision_model is None:
        return Vision(model)
    return Vision(wrap_with(wrap_model, profile.name,
                            create_model(profile.vision_model_spec(), **settings.model_options()), "vision"))


def make_library(profile, settings):
    """The agent's skill library, `bots/<name>/skills/` or, with the `skills_dir` setting, `<skills_dir>/<name>/`
    (kept across runs and episodes); its saved skills are loaded now. None when the profile has `save_skills: false`."""
    from ..coding.library import SkillLibrary

    if not profile.save_skills:
        return None
    if settings.skills_dir:
        return SkillLibrary(Path(settings.skills_dir).expanduser().resolve() / profile.name, agent=profile.name)
    return SkillLibrary(Path(settings.bots_dir) / profile.name / "skills", agent=profile.name)


def make_coder(profile, settings, skills: Skills, model, embedder, wrap_model: ModelWrapper | None = None,
               library=None):
    """The agent's !newAction: its own code model if the profile names one (wrapped with role "code"), docs and
    saved skills ranked by retrieval."""
    import functools

    from ..coding import Coder, CodingPolicy, bind_api, model_asker
    from ..rag import rank

    code_model = model
    if profile.code_model is not None:
        code_model = wrap_with(wrap_model, profile.name,
                               create_model(profile.code_model_spec(), **settings.model_options()), "code")
    coder = Coder(bind_api(skills, skills.bot), model_asker(code_model),
                  CodingPolicy(True, tuple(settings.trusted_players)), name=profile.name,
                  rank=functools.partial(rank, embedder=embedder), relevant_docs_count=settings.relevant_docs_count,
                  model=code_model, library=library, library_k=profile.skills_in_prompt)
    # -1 (MINDcraft's default): no limit of the code's own, so code runs as long as the action it is part of may
    # (a house's level built by hand takes minutes, past the sandbox's default)
    coder.timeout = settings.code_timeout_mins * 60 if settings.code_timeout_mins > 0 else ACTION_TIME_LIMIT
    return coder


def command_layer(profile, settings, blocked: Sequence[str] = (), task: Any = None,
                  rounds: bool = False) -> AgentCommands:
    """The commands of an agent (see build_agent for what is blocked). A profile's own `blocked_actions` may block
    the state queries (`!stats`, `!inventory`, `!goal`), as CoBlock's does: its XML state tells what they would."""
    return AgentCommands(default_registry(settings.minecraft_version),
                         blocked=[*profile.blocked_actions, *settings.blocked_actions, *blocked,
                                  *blocked_outside_coblock(task, rounds), *blocked_outside_defuse(task),
                                  *blocked_outside_rounds(rounds),
                                  *([] if getattr(profile, "check_goal", False) else ["checkGoal"])],
                         may_block=profile.blocked_actions)


def history_summarizer(profile, prompter: Any, model: Any) -> Callable[[str, list[dict]], str] | None:
    """What folds the oldest turns into the memory note; None without `summarize_history` (CoBlock's paper setting:
    its XML state carries the whole dialogue and action history, so the oldest turns leave the chat history
    unsummarized, without a model call)."""
    if not getattr(profile, "summarize_history", True):
        return None
    return lambda memory, turns: prompter.summarize(model, memory, turns)


def build_agent(profile, bot, settings, *, model=None, bus: MessageBus | None = None, task: Any = None,
                blocked: list[str] | tuple[str, ...] = (), extra_examples: bool = True,
                wrap_model: ModelWrapper | None = None, on_event: Sequence[EventHook] = (),
                on_restart: Callable[[Agent], None] | None = None, agent_index: int | None = None,
                rounds: bool = False) -> Agent:
    """An agent for `bot` as `profile` describes it. `blocked` adds commands blocked for this agent (a task's
    blocked actions); the profile's and the settings' are always blocked, and so are the coblock commands unless
    `task` is a coblock task and the round commands (`!wait`) unless the agent plays in `rounds` (they would only
    lengthen every other prompt); `!checkGoal` is blocked unless the profile's `check_goal` is on (CoBlock's
    paper has no such command). `agent_index`: which player of `task` the agent is. With `rounds` the agent is
    driven by turns (Agent.drive_by_turns) from the start. `wrap_model(name, model, role=...)` wraps each of its
    models (see the module's doc)."""
    model = model if model is not None else make_model(profile, settings)
    if hasattr(task, "to_dict") and hasattr(model, "set_task_context"):  # the model itself, before any wrapper
        # the episode's own facts beside the file's: Hell's Kitchen, and building assistance (the profile's cheat)
        model.set_task_context({"task_id": task.id, "hells_kitchen": task.is_hells_kitchen,
                                "building_assistance": bool(profile.modes.get("cheat")), **task.to_dict()},
                               profile.name, agent_index)
    uses_embedder = needs_embedder(profile, settings, model)  # the model itself: a wrapper may hide its api
    model = wrap_with(wrap_model, profile.name, model, "chat")
    commands = command_layer(profile, settings, blocked, task, rounds)

    embedder = shared_embedder(settings.cache_dir) if uses_embedder else None
    examples = ExampleSelector(profile.conversation_examples, embedder) if profile.conversation_examples else None
    coding_examples = (ExampleSelector(profile.coding_examples, embedder)
                       if profile.coding_examples and extra_examples else None)
    prompter = Prompter.from_profile(profile, settings, examples=examples, coding_examples=coding_examples,
                                     model=model)
    state = BotState(profile.name, settings.bots_dir)
    history = History(profile.name, summarizer=history_summarizer(profile, prompter, model),
                      max_messages=settings.max_messages, state=state)
    agent_settings = AgentSettings(max_commands=settings.max_commands, cooldown=profile.cooldown,
                                   only_chat_with=list(settings.only_chat_with),
                                   narrate_behavior=settings.narrate_behavior,
                                   chat_bot_messages=settings.chat_bot_messages,
                                   init_message=settings.init_message,
                                   player_commands=settings.player_commands,
                                   player_messages_per_10s=settings.player_messages_per_10s,
                                   trusted_players=list(settings.trusted_players),
                                   tom_step=profile.tom_step, verification=profile.verification,
                                   belief_state=profile.belief_state)
    skills = Skills(bot)
    library = make_library(profile, settings) if settings.allow_insecure_coding else None
    coder = (make_coder(profile, settings, skills, model, embedder, wrap_model, library)
             if settings.allow_insecure_coding else None)
    agent = Agent(profile.name, bot, model, commands, prompter, history, settings=agent_settings, bus=bus,
                  skills=skills, task=task, version=settings.minecraft_version, coder=coder, on_event=on_event,
                  on_restart=on_restart, agent_index=agent_index, library=library)
    agent.modes.apply_profile(profile.modes)
    if profile.allow_vision:
        vision = make_vision(profile, settings, model, wrap_model)
        agent.context = dataclasses.replace(agent.context, vision=vision)
    if rounds:
        agent.drive_by_turns()
    if settings.load_memory:
        saved = history.load()
        agent.restore_state(saved)
    return agent
