"""The dashboard's control panel, in plain Python: agents created from a profile while the run plays, destroyed
(they leave the game, their memory saved), all stopped at once, and their profile edited as text (they restart
with it and their memory, as after !restart). The web routes (mindpy.ui.agents_api) only translate HTTP to these
calls, so everything here can be tested without a web server.

    manager = AgentManager(feed, folder=Path("runs/run/profiles"))
    manager.create({"profile": "andy.yaml"})                       # a file under profiles/
    manager.create({"name": "bob", "model": "replay", "modes": {"hunting": False}, "base_profile": "survival"})
    manager.edit_profile("bob", "name: bob\\nmodel: replay\\nmodes: {hunting: true}\\n")
    manager.destroy("bob"); manager.stop_all()

Agents are added to the newest running AgentRunner of this process that plays no task (`mindpy run --ui`, or
`mindpy dashboard --server ...`, which starts one with no agents). Profiles written from the page (a form, a text,
a file given another name, an edit) are saved in `folder` as NAME.yaml or NAME.json; the files under profiles/
are never written.

Creating agents and editing profiles are privileged: they choose models (and the files a profile names), so they
are allowed to the dashboard's player only where it may give agents !commands (the `player_commands` setting:
everyone, or trusted_players listing it). Every refusal is a ManageError whose one line says why; its `status`
is the HTTP status the routes answer with.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..agent.modes import MODE_NAMES
from ..agent.steering import DASHBOARD_PLAYER
from ..errors import MindpyError, UserFileError
from ..profiles import BASE_PROFILES, PROFILES_DIR, load_profile, read_profile_file
from ..userfiles import one_line, read_user_text
from . import inputs

PROFILE_SUFFIXES = (".yaml", ".yml", ".json")
NAME_CHARS = 16  # a Minecraft name
MODEL_CHARS = 300
TEXT_CHARS = 60_000  # a profile's text (the body's limit is 64 KiB)


class ManageError(MindpyError):
    """A control-panel action refused; `status`: the HTTP status that says so."""

    status = 400


class NotAllowed(ManageError):
    """The dashboard's player may not create agents or edit profiles here (the settings say who may)."""

    status = 403


class NoSuchAgent(ManageError):
    """No running agent has that name."""

    status = 404


class NameTaken(ManageError):
    """An agent of that name is playing already."""

    status = 409


def profiles_folder() -> Path:
    """Where the profiles to pick from are: ./profiles when there is one, else mindpy's own."""
    here = Path("profiles")
    return here if here.is_dir() else PROFILES_DIR


class AgentManager:
    """Creates, destroys and reconfigures the agents of the runners a dashboard's feed watches."""

    def __init__(self, feed: Any, folder: str | Path, profiles_dir: str | Path | None = None,
                 sender: str = DASHBOARD_PLAYER):
        self.feed = feed
        self.folder = Path(folder)
        self.profiles_dir = Path(profiles_dir) if profiles_dir is not None else profiles_folder()
        self.sender = sender

    # ---- where agents go, and who may add them -------------------------------------------------------------
    def runner(self) -> Any:
        """The runner new agents join: the newest running one of this process that plays no task, or None."""
        for runner in reversed(list(self.feed.runners)):
            if not getattr(runner, "stopped", False) and getattr(runner, "task", None) is None \
                    and hasattr(runner, "add_agent"):
                return runner
        return None

    def refusal(self) -> str | None:
        """Why agents cannot be created or profiles edited from here now (None: they can)."""
        runner = self.runner()
        if runner is None:
            return ("no run to add agents to: start the dashboard with `mindpy run --profile FILE --ui` or "
                    "`mindpy dashboard --server embedded`")
        allowed = runner.settings.player_commands
        if allowed == "everyone" or (allowed == "trusted_players" and self.sender in runner.settings.trusted_players):
            return None
        if allowed == "trusted_players":
            return (f"creating agents and editing profiles are for trusted players: add {self.sender!r} to the "
                    f"settings' trusted_players")
        return "creating agents and editing profiles are refused: the settings' player_commands is 'nobody'"

    def _privileged(self) -> Any:
        """The runner, once the dashboard's player may change agents (NotAllowed, or ManageError without a run)."""
        why = self.refusal()
        if why is not None:
            raise (ManageError if self.runner() is None else NotAllowed)(why)
        return self.runner()

    def catalogue(self) -> dict:
        """What the page's form offers: the profile files to pick, the base profiles, the modes (with their
        default), and whether creating is allowed here (`why` not)."""
        from ..profiles import DEFAULTS

        return {"profiles": self.profile_files(), "bases": list(BASE_PROFILES),
                "modes": {m: bool(DEFAULTS["modes"].get(m, True)) for m in MODE_NAMES},
                "can_create": self.refusal() is None, "why": self.refusal() or ""}

    def profile_files(self) -> list[dict]:
        """The agents' profiles under the profiles folder (files with a `name`; bases and examples have none)."""
        found: list[dict] = []
        if not self.profiles_dir.is_dir():
            return found
        for path in sorted(self.profiles_dir.iterdir()):
            if path.suffix not in PROFILE_SUFFIXES or not path.is_file():
                continue
            try:
                data = read_profile_file(path)
            except MindpyError:
                continue
            if isinstance(data.get("name"), str):
                found.append({"file": path.name, "name": data["name"], "model": _shown_model(data.get("model"))})
        return found

    # ---- creating ------------------------------------------------------------------------------------------
    def create(self, request: dict) -> dict:
        """Create an agent from `request`: {"profile": FILE} (a file of profile_files, "name" to rename it),
        {"text": YAML or JSON, "format"?}, or the form's fields {"name", "model"?, "base_profile"?, "modes"?};
        "restore": true brings back the memory an agent of that name saved. Returns {"name", "message"}."""
        runner = self._privileged()
        restore = inputs.flag(request.get("restore", False), "restore")
        if request.get("profile") is not None:
            profile = self._from_file(request, runner)
        elif request.get("text") is not None:
            text = inputs.text(request["text"], "text", TEXT_CHARS)
            profile = self._from_text(text or "", text_format(text or "", request.get("format")), runner,
                                      self._playable)
        else:
            profile = self._from_text(form_profile(request), "yaml", runner, self._playable)
        self._playable(profile)
        try:
            runner.add_agent(profile, restore=restore)
        except MindpyError as exc:
            raise ManageError(f"{profile.name} could not join: {one_line(str(exc))}") from None
        self.feed.poke()
        return {"name": profile.name, "message": f"{profile.name} joined {runner.host}:{runner.port}"}

    def _playable(self, profile: Any) -> None:
        """Refuse a new agent whose name is playing already, or whose model needs a key that is not set."""
        if profile.name in self.feed.agents() or self.feed.remote_of(profile.name) is not None:
            raise NameTaken(f"an agent named {profile.name} is already playing: pick another name")
        problem = missing_model_key(profile)
        if problem:
            raise ManageError(f"{profile.name}: {problem}")

    def _from_file(self, request: dict, runner: Any) -> Any:
        choice = inputs.text(request.get("profile"), "profile (a file name)", 200)
        files = {f["file"]: f for f in self.profile_files()}
        if choice not in files:
            listed = ", ".join(files) or "none"
            raise ManageError(f"profile: no agent profile named {inputs.shown(choice)} under {self.profiles_dir} "
                              f"(there: {listed})")
        path = self.profiles_dir / str(choice)
        rename = inputs.text(request.get("name"), "name", NAME_CHARS, optional=True)
        if not rename or rename == files[str(choice)]["name"]:
            return self._load(path, runner)
        data = read_profile_file(path)
        data["name"] = rename
        fmt = "json" if path.suffix == ".json" else "yaml"
        return self._from_text(dump(data, fmt), fmt, runner, self._playable)

    def _load(self, path: Path, runner: Any) -> Any:
        try:
            return load_profile(path, settings=runner.settings)
        except MindpyError as exc:
            raise ManageError(one_line(str(exc), 400)) from None

    def _from_text(self, text: str, fmt: str, runner: Any, vet: Callable[[Any], None]) -> Any:
        """The profile `text` holds, checked as a profile file is (mindpy.profiles) and by `vet` (which raises
        ManageError), then saved as NAME.yaml or NAME.json in the folder; nothing is written when it is refused."""
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (\ud800 in the JSON body) is no text a file can hold
            raise ManageError("text: not valid Unicode (it holds a lone surrogate)") from None
        self.folder.mkdir(parents=True, exist_ok=True)
        suffix = ".json" if fmt == "json" else ".yaml"
        trial = self.folder / f".checking-{uuid.uuid4().hex[:8]}{suffix}"
        trial.write_bytes(encoded)
        try:
            profile = load_profile(trial, settings=runner.settings)
        except MindpyError as exc:
            trial.unlink(missing_ok=True)
            raise ManageError(one_line(str(exc).replace(str(trial), "profile"), 400)) from None
        try:
            vet(profile)
        except ManageError:
            trial.unlink(missing_ok=True)
            raise
        saved = self.folder / f"{profile.name}{suffix}"
        for other in PROFILE_SUFFIXES:  # one saved profile per agent
            if other != suffix:
                (self.folder / f"{profile.name}{other}").unlink(missing_ok=True)
        os.replace(trial, saved)
        profile.sources[-1] = str(saved)
        return profile

    # ---- destroying ----------------------------------------------------------------------------------------
    def destroy(self, name: str) -> str:
        """Agent `name` leaves the game, its memory saved."""
        runner = self._runner_of(name)
        try:
            runner.remove_agent(name)
        except KeyError:
            raise NoSuchAgent(f"no running agent named {inputs.shown(name)}") from None
        self.feed.poke()
        return f"{name} left the game (its memory is saved)"

    def stop_all(self) -> dict:
        """Every agent of this process's runs that play no task leaves the game, its memory saved."""
        stopped: list[str] = []
        for runner in list(self.feed.runners):
            if getattr(runner, "stopped", False) or getattr(runner, "task", None) is not None \
                    or not hasattr(runner, "remove_agent"):
                continue
            for name in list(runner.agents):
                try:
                    runner.remove_agent(name)
                except KeyError:  # gone meanwhile
                    continue
                stopped.append(name)
        workers = {c["name"] for c in self.feed.state["agents"] if "process" in c}
        others = sorted((set(self.feed.agents()) | workers) - set(stopped))
        self.feed.poke()
        message = f"stopped {', '.join(stopped)}" if stopped else "no agent to stop"
        if others:
            message += f"; still playing (a task's or a worker process's agents): {', '.join(others)}"
        return {"stopped": stopped, "message": message}

    def _runner_of(self, name: str) -> Any:
        runner = self.feed.runner_of(name)
        if runner is None:
            if self.feed.remote_of(name) is not None:
                raise ManageError(f"{name} plays in a worker process (--processes): it can be steered, not changed "
                                  f"from the dashboard")
            raise NoSuchAgent(f"no running agent named {inputs.shown(name)}")
        if getattr(runner, "task", None) is not None or not hasattr(runner, "remove_agent"):
            raise ManageError(f"{name} plays a task episode: its agents stay until it ends (End episode ends it)")
        return runner

    # ---- profiles ------------------------------------------------------------------------------------------
    def profile_text(self, name: str) -> dict:
        """The text of agent `name`'s own profile file (what the editor shows): {"name", "format", "text",
        "path"}."""
        runner = self._runner_of(name)
        profile = runner.profiles.get(name)
        if profile is None:
            raise NoSuchAgent(f"no running agent named {inputs.shown(name)}")
        path = Path(profile.sources[-1])
        try:
            text = read_user_text(path, "profile")
        except UserFileError as exc:
            raise ManageError(one_line(str(exc))) from None
        return {"name": name, "format": "json" if path.suffix == ".json" else "yaml", "text": text,
                "path": str(path)}

    def edit_profile(self, name: str, text: Any, fmt: Any = None) -> str:
        """Check `text` as agent `name`'s profile; when it is one, save it and restart the agent with it (its
        memory kept). A refused text changes nothing."""
        runner = self._runner_of(name)
        self._privileged()
        checked = inputs.text(text, "text", TEXT_CHARS) or ""

        def same_agent(profile: Any) -> None:
            if profile.name != name:
                raise ManageError(f"profile: field 'name': the name stays {name} (destroy the agent and create "
                                  f"another to rename it), not {inputs.shown(profile.name)}")
            problem = missing_model_key(profile)
            if problem:
                raise ManageError(f"{name}: {problem}")

        profile = self._from_text(checked, text_format(checked, fmt), runner, same_agent)
        try:
            runner.replace_profile(name, profile)
        except KeyError:
            raise NoSuchAgent(f"no running agent named {inputs.shown(name)}") from None
        self.feed.poke()
        return f"{name} restarts with its new profile (saved in {profile.sources[-1]}); its memory stays"


def text_format(text: str, fmt: Any = None) -> str:
    """"json" or "yaml": as asked, else JSON for a text that starts with "{"."""
    if fmt is None:
        return "json" if text.lstrip().startswith("{") else "yaml"
    if fmt not in ("json", "yaml"):
        raise inputs.BadInput(f"format: \"json\" or \"yaml\", not {inputs.shown(fmt)}")
    return str(fmt)


def form_profile(request: dict) -> str:
    """The YAML profile the page's small form describes: name, model, base profile and modes."""
    data: dict[str, Any] = {"name": inputs.text(request.get("name"), "name", NAME_CHARS)}
    model = inputs.text(request.get("model"), "model", MODEL_CHARS, optional=True)
    if model:
        data["model"] = model
    base = inputs.text(request.get("base_profile"), "base_profile", 200, optional=True)
    if base:
        if base not in BASE_PROFILES:
            raise inputs.BadInput(f"base_profile: one of {', '.join(BASE_PROFILES)}, not {inputs.shown(base)}")
        data["base_profile"] = base
    modes = request.get("modes")
    if modes is not None:
        if not isinstance(modes, dict):
            raise inputs.BadInput(f'modes: an object of mode names to true or false ({{"hunting": false}}), '
                                  f'not {inputs.type_name(modes)}')
        data["modes"] = {str(m): inputs.flag(on, f"modes.{inputs.shown(m)}") for m, on in modes.items()}
    return dump(data, "yaml")


def dump(data: dict, fmt: str) -> str:
    """A profile's mapping as the text of a file of format `fmt`."""
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def missing_model_key(profile: Any) -> str | None:
    """The one-line complaint when the profile's model needs an API key that is not set (None: it can play)."""
    from ..models import missing_key

    if profile.model is None:
        return None
    try:
        return missing_key(profile.model)
    except ValueError as exc:
        return one_line(str(exc))


def _shown_model(model: Any) -> str:
    if isinstance(model, dict):
        return "/".join(str(model.get(k)) for k in ("api", "model") if model.get(k))
    return "" if model is None else str(model)
