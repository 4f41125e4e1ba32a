"""Agent profiles: who a bot is, which model it uses, its prompts, examples and modes.

Profiles are YAML (MINDcraft's JSON profiles load unchanged) and merge in order:
    built-in defaults  ->  base profile (survival, creative, god_mode, task, coblock, or a path)  ->  the bot's own file
Mappings (prompts, modes) merge key by key; everything else is replaced. Example lists may be given inline or
as a file name, looked up next to the profile, then in the profiles folder.
Errors name the file and the field.

Two options turn on the CoBlock agent method (paper seed 000, steps 2 and 3), both off by default:
`partner_modelling` asks the model to write its model of the partner and of itself before each action, and
`reflection` tells it that a review of the structure comes after each round and asks it to reflect on it. Two
more come from LLM-Coordination (seed 002; mindpy.agent.deliberation): `tom_step` (notes on each partner before a
choice) and `verification` (the chosen command checked against the state, chosen again when not okay).
CoBlock's own departures from its paper are named options too (COBLOCK_OPTIONS): `summarize_history`,
`check_goal`, `retrieved_examples` and `review_detail`; the coblock base profile sets each to the paper's value.
"""

from __future__ import annotations

import copy
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .agent.modes import MODE_NAMES
from .errors import MindpyError, UserFileError
from .tasks.families.coblock.record import OPTIONS as COBLOCK_RECORDED
from .userfiles import one_line, quote, read_user_file

log = logging.getLogger(__name__)

PROFILES_DIR = Path(__file__).resolve().parent.parent / "profiles"
BASE_PROFILES = ("survival", "creative", "god_mode", "task", "coblock")
PROMPT_FIELDS = ("conversing", "coding", "saving_memory", "bot_responder")
LOCAL_EMBEDDINGS = (None, "", "local", "minilm", "all-minilm-l6-v2", "sentence-transformers")
NO_EMBEDDINGS = ("none", "off", "word_overlap", "words")
# true/false switches of the agent's method: CoBlock's (partner_modelling, reflection) and LLM-Coordination's
# (tom_step, verification: mindpy.agent.deliberation)
# and Theory of Mind for Multi-Agent Collaboration's (belief_state: mindpy.agent.belief)
# CoBlock's departures from its paper (seed 000), each off in the coblock base profile (the paper's setting):
# summarize_history: the conversation is folded into a memory note (the paper shows the whole dialogue and action
#   history in the XML state; without it old turns leave the chat history unsummarized, no model call);
# check_goal: !checkGoal lists the agent's missing and wrong blocks (the paper has no such command: its program's
#   comparison is the reflection's); retrieved_examples: the 2 short chat examples most like the conversation
#   (the paper shows all its three-round chain-of-thought examples); review_detail: the reflection review also
#   names floating blocks, blocks outside the structure, clashes in the partner's cells and placeable missing
#   blocks (the paper's program says only whether the built structure is a partial structure of the goal).
COBLOCK_OPTIONS = COBLOCK_RECORDED
METHOD_OPTIONS = ("partner_modelling", "reflection", "tom_step", "verification", "belief_state", *COBLOCK_OPTIONS)
# Fields MINDcraft profiles may carry that mindpy does not use (speech...): accepted and kept.
_IGNORED_FIELDS = ("speak", "speak_model", "image_analysis", "max_tokens", "task_goal")

DEFAULTS: dict[str, Any] = {
    "model": None,  # none: the caller's default policy decides
    "code_model": None,
    "embedding": "local",
    "cooldown": 3.0,
    "conversation_examples": "conversation_examples.yaml",
    "coding_examples": "coding_examples.yaml",
    "modes": {"self_preservation": True, "unstuck": True, "cowardice": False, "self_defense": True,
              "hunting": True, "item_collecting": True, "torch_placing": True, "elbow_room": True,
              "idle_staring": True, "cheat": False},
    "blocked_actions": [],
    "partner_modelling": False,
    "reflection": False,
    "tom_step": False,
    "verification": False,
    "belief_state": False,
    "summarize_history": True,   # every family but coblock summarizes (profiles/coblock.yaml: false, the paper's)
    "check_goal": False,
    "retrieved_examples": False,
    "review_detail": False,
    "allow_vision": False,
    "vision_model": None,
    "save_skills": True,
    "skills_in_prompt": 3,
}
_FIELDS = {"name", "model", "code_model", "embedding", "cooldown", "prompts", "conversation_examples",
           "coding_examples", "modes", "blocked_actions", "base_profile", "allow_vision", "vision_model",
           "save_skills", "skills_in_prompt", *METHOD_OPTIONS, *PROMPT_FIELDS}
MAX_SKILLS_IN_PROMPT = 20
_NAME = re.compile(r"^[A-Za-z0-9_]{3,16}$")
MAX_COOLDOWN_S = 60.0  # larger numbers are MINDcraft's milliseconds


class ProfileError(MindpyError):
    """A profile file mindpy cannot use; the message names the file and the field."""


@dataclass
class Profile:
    """A bot's settings from its profile files: name, models, prompts, examples and modes."""
    name: str
    model: Any = None
    code_model: Any = None
    embedding: str = "local"        # "local" (all-MiniLM-L6-v2) or "none" (word overlap)
    cooldown: float = 3.0           # seconds between model calls
    prompts: dict[str, Any] = field(default_factory=dict)  # only the prompts the files set
    conversation_examples: list[list[dict]] = field(default_factory=list)
    coding_examples: list[list[dict]] = field(default_factory=list)
    modes: dict[str, bool] = field(default_factory=dict)
    blocked_actions: list[str] = field(default_factory=list)
    partner_modelling: bool = False  # write partner and self modelling sections before each action
    reflection: bool = False         # reflect on the review of the structure that follows each round
    tom_step: bool = False           # note what each partner is doing and needs before each choice
    verification: bool = False       # check each chosen command against the state, choose again when not okay
    belief_state: bool = False       # a written belief about partners and progress stands for the raw history
    summarize_history: bool = True   # fold old turns into a memory note (coblock's paper setting: false)
    check_goal: bool = False         # coblock: !checkGoal is offered (not in the paper)
    retrieved_examples: bool = False  # coblock: 2 retrieved chat examples instead of the paper's CoT examples
    review_detail: bool = False      # coblock: the reflection review's extra lines (not in the paper)
    allow_vision: bool = False       # !lookAtPlayer / !lookAtPosition describe a first-person snapshot
    vision_model: Any = None         # the model that reads the snapshots (default: `model`)
    save_skills: bool = True         # !newAction code that worked is saved in bots/<name>/skills/ (coding on)
    skills_in_prompt: int = 3        # how many saved skills (the most relevant) the coding prompt shows
    sources: list[str] = field(default_factory=list)  # the files merged, in order
    extra: dict[str, Any] = field(default_factory=dict)

    def model_spec(self):
        """The chat model's spec, or None when the profile names none."""
        from .models import parse_model_spec

        return None if self.model is None else parse_model_spec(self.model)

    def code_model_spec(self):
        from .models import parse_model_spec

        spec = self.code_model if self.code_model is not None else self.model
        return None if spec is None else parse_model_spec(spec)

    def vision_model_spec(self):
        """The spec of the model that reads snapshots: `vision_model`, else None (the agent's own model)."""
        from .models import parse_model_spec

        return None if self.vision_model is None else parse_model_spec(self.vision_model)


def read_profile_file(path: str | Path) -> dict[str, Any]:
    """The raw mapping in a YAML or JSON profile file (a `.json` file is read as JSON: MINDcraft's profiles)."""
    path = Path(path)
    try:
        data = read_user_file(path, "profile")
    except UserFileError as exc:
        raise ProfileError(str(exc)) from None
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: a profile must be a mapping of field: value")
    return data


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`: mappings merge key by key, other values are replaced."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def resolve_base(base: str | Path, profiles_dir: Path = PROFILES_DIR) -> Path:
    """A base profile name (survival, creative, god_mode, task, coblock) or a path to a profile file."""
    text = str(base)
    candidates = [Path(text)]
    if "/" not in text and not text.endswith((".yaml", ".yml", ".json")):
        candidates = [profiles_dir / f"{text}.yaml", profiles_dir / f"{text}.json", Path(text)]
    for c in candidates:
        if c.is_file():
            return c
    raise ProfileError(f"base profile '{text}' not found (looked for {', '.join(map(str, candidates))}; "
                       f"built-in bases: {', '.join(BASE_PROFILES)})")


def load_profile(path: str | Path, base: str | Path | None = None, settings=None,
                 profiles_dir: str | Path | None = None) -> Profile:
    """Load a bot's profile merged over its base and the built-in defaults.

    The base is, in order: `base`, the profile's own `base_profile` field, `settings.base_profile`."""
    path = Path(path)
    profiles_dir = Path(profiles_dir) if profiles_dir else PROFILES_DIR
    own = _normalize(read_profile_file(path), path)
    base_name = base or own.pop("base_profile", None) or getattr(settings, "base_profile", None)
    own.pop("base_profile", None)
    layers: list[tuple[str, dict, Path | None]] = [("built-in defaults", copy.deepcopy(DEFAULTS), None)]
    if base_name:
        base_path = resolve_base(base_name, profiles_dir)
        if base_path.resolve() != path.resolve():
            base_data = _normalize(read_profile_file(base_path), base_path)
            base_data.pop("base_profile", None)
            layers.append((str(base_path), base_data, base_path.parent))
    layers.append((str(path), own, path.parent))
    merged: dict[str, Any] = {}
    example_dirs: dict[str, Path | None] = {}
    for _, data, folder in layers:
        for key in ("conversation_examples", "coding_examples"):
            if key in data:
                example_dirs[key] = folder
        merged = merge(merged, data)
    return _build(merged, path, [src for src, _, _ in layers], example_dirs, profiles_dir)


def load_profiles(settings, profiles_dir: str | Path | None = None) -> list[Profile]:
    """Every profile the settings list, checked for duplicate names."""
    profiles = [load_profile(p, settings=settings, profiles_dir=profiles_dir) for p in settings.profiles]
    seen: dict[str, str] = {}
    for prof in profiles:
        if prof.name in seen:
            raise ProfileError(f"{prof.sources[-1]}: field 'name': '{prof.name}' is already used by {seen[prof.name]}")
        seen[prof.name] = prof.sources[-1]
    return profiles


def _normalize(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """Check the fields one file sets and bring prompts under `prompts`."""
    out: dict[str, Any] = {}
    prompts: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{path}: field '{key}'"
        if key in PROMPT_FIELDS:
            prompts[key] = _prompt(value, where)
        elif key == "prompts":
            if not isinstance(value, dict):
                raise ProfileError(f"{where}: must map prompt names ({', '.join(PROMPT_FIELDS)}) to texts")
            for k, v in value.items():
                if k not in PROMPT_FIELDS:
                    raise ProfileError(f"{path}: field 'prompts.{k}': unknown prompt "
                                       f"(known: {', '.join(PROMPT_FIELDS)})")
                prompts[k] = _prompt(v, f"{path}: field 'prompts.{k}'")
        elif key in _FIELDS:
            out[key] = _check_field(key, value, where)
        elif key in _IGNORED_FIELDS:
            out.setdefault("extra", {})[key] = value
        else:
            log.warning("%s: unknown field '%s' ignored", path, one_line(str(key), 80))
            out.setdefault("extra", {})[key] = value
    if prompts:
        out["prompts"] = prompts
    return out


def _prompt(value: Any, where: str) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    if (isinstance(value, dict) and set(value) <= {"system", "state"}
            and all(isinstance(v, str) for v in value.values())):
        return dict(value)
    raise ProfileError(f"{where}: a prompt must be a string or a mapping with 'system' and 'state' strings")


def _check_field(key: str, value: Any, where: str) -> Any:
    if key == "name":
        if not isinstance(value, str) or not _NAME.match(value):
            raise ProfileError(f"{where}: a Minecraft name is 3-16 letters, digits or '_', got {quote(value)}")
    elif key in ("model", "code_model", "vision_model"):
        if value is not None:
            try:
                check_model_spec(value)
            except ValueError as exc:
                raise ProfileError(f"{where}: {one_line(str(exc))}") from None
    elif key == "cooldown":
        value = _cooldown(value, where)
    elif key == "modes":
        if not isinstance(value, dict):
            raise ProfileError(f"{where}: must map mode names to true/false")
        for mode, on in value.items():
            if mode not in MODE_NAMES:
                raise ProfileError(f"{where}: unknown mode {quote(mode)} (known: {', '.join(MODE_NAMES)})")
            if not isinstance(on, bool):
                raise ProfileError(f"{where}: mode '{mode}' must be true or false, got {quote(on)}")
    elif key == "blocked_actions":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ProfileError(f"{where}: must be a list of command names")
        value = [v if v.startswith("!") else f"!{v}" for v in value]
    elif key in ("conversation_examples", "coding_examples"):
        if not isinstance(value, (str, list)):
            raise ProfileError(f"{where}: must be a list of examples or the name of a file holding them")
        if isinstance(value, list):
            from .rag.examples import validate_examples

            try:
                validate_examples(value, where)
            except ValueError as exc:
                raise ProfileError(one_line(str(exc), 300)) from None
    elif key == "skills_in_prompt":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SKILLS_IN_PROMPT:
            raise ProfileError(f"{where}: must be a whole number from 0 to {MAX_SKILLS_IN_PROMPT}, got {quote(value)}")
    elif key in METHOD_OPTIONS or key in ("allow_vision", "save_skills"):
        if not isinstance(value, bool):
            raise ProfileError(f"{where}: must be true or false, got {quote(value)}")
    elif key == "embedding":
        if value is not None and not isinstance(value, (str, dict)):
            raise ProfileError(f"{where}: must be 'local', 'none', or a model spec")
    return value


def _cooldown(value: Any, where: str) -> float:
    """Seconds between model calls: a number from 0 to 60, or MINDcraft's milliseconds (up to 60000). The range
    check comes first: it refuses NaN and infinity, and keeps a huge integer from overflowing a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_COOLDOWN_S * 1000:
        raise ProfileError(f"{where}: expected a number of seconds from 0 to {MAX_COOLDOWN_S:.0f} (or "
                           f"milliseconds up to {MAX_COOLDOWN_S * 1000:.0f}), got {quote(value)}")
    return value / 1000.0 if value > MAX_COOLDOWN_S else float(value)  # MINDcraft's profiles give milliseconds


def check_model_spec(value: Any) -> None:
    """Raise ValueError unless `value` names a model that can be created: the spec parses, its api has a
    provider, and a replay script loads. Nothing is started and no model is called, so a run can check its
    models before it starts a server."""
    from .models import ModelError, parse_model_spec
    from .models.registry import provider_for

    spec = parse_model_spec(value)
    try:
        provider_for(spec)
        if spec.api == "replay":
            from .models.replay import load_script

            load_script(spec.model)
    except ModelError as exc:
        raise ValueError(str(exc)) from None


def _embedding(value: Any, where: str) -> str:
    if isinstance(value, str) and value.lower() in NO_EMBEDDINGS:
        return "none"
    if value is None or (isinstance(value, str) and value.lower() in LOCAL_EMBEDDINGS):
        return "local"
    # Remote embedding APIs cost money and hit rate limits at start-up; the local model does the same job.
    log.info("%s: embedding %r is not used; examples are matched with the local %s", where, value,
             "all-MiniLM-L6-v2")
    return "local"


def _examples(value: Any, key: str, folder: Path | None, profiles_dir: Path, where: str) -> list[list[dict]]:
    from .rag.examples import load_examples

    if isinstance(value, list):
        return [[dict(t) for t in ex] for ex in value]
    candidates = [Path(value)] if Path(value).is_absolute() else \
        [p for p in ((folder / value) if folder else None, profiles_dir / value, Path(value)) if p is not None]
    for c in candidates:
        if c.is_file():
            try:
                return load_examples(c)
            except ValueError as exc:
                raise ProfileError(f"{where}: field '{key}': {one_line(str(exc), 300)}") from None
    if folder is None:  # the built-in default file is missing (e.g. installed without the profiles folder)
        log.warning("no %s file found (looked for %s); the prompt will have no examples", key,
                    ", ".join(map(str, candidates)))
        return []
    raise ProfileError(f"{where}: field '{key}': file '{value}' not found (looked in "
                       f"{', '.join(str(c.parent) for c in candidates)})")


def _build(merged: dict[str, Any], path: Path, sources: list[str], example_dirs: dict[str, Path | None],
           profiles_dir: Path) -> Profile:
    if "name" not in merged:
        raise ProfileError(f"{path}: field 'name' is missing (every bot needs a name)")
    where = str(path)
    return Profile(
        name=merged["name"],
        model=merged.get("model"),
        code_model=merged.get("code_model"),
        embedding=_embedding(merged.get("embedding"), where),
        cooldown=float(merged.get("cooldown", 3.0)),
        prompts=dict(merged.get("prompts", {})),
        conversation_examples=_examples(merged.get("conversation_examples", []), "conversation_examples",
                                        example_dirs.get("conversation_examples"), profiles_dir, where),
        coding_examples=_examples(merged.get("coding_examples", []), "coding_examples",
                                  example_dirs.get("coding_examples"), profiles_dir, where),
        modes=dict(merged.get("modes", {})),
        blocked_actions=list(merged.get("blocked_actions", [])),
        partner_modelling=bool(merged.get("partner_modelling", False)),
        reflection=bool(merged.get("reflection", False)),
        tom_step=bool(merged.get("tom_step", False)),
        verification=bool(merged.get("verification", False)),
        belief_state=bool(merged.get("belief_state", False)),
        summarize_history=bool(merged.get("summarize_history", True)),
        check_goal=bool(merged.get("check_goal", False)),
        retrieved_examples=bool(merged.get("retrieved_examples", False)),
        review_detail=bool(merged.get("review_detail", False)),
        allow_vision=bool(merged.get("allow_vision", False)),
        vision_model=merged.get("vision_model"),
        save_skills=bool(merged.get("save_skills", True)),
        skills_in_prompt=int(merged.get("skills_in_prompt", 3)),
        sources=sources,
        extra=dict(merged.get("extra", {})),
    )
