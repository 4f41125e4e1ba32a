"""One evaluation folder read for the runs page: every episode it holds (the rows of results.csv, and the episode
folders without a row: still playing, or their process died), each with its result, models, and the searchable
lines of its transcript. Anything missing or malformed becomes a one-line note on the episode or the run; reading
never raises for a file's content.

    episodes, notes = read_run(Path("runs/eval"), run=0)
    episodes[0].family, episodes[0].score, episodes[0].passages[3].text
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tasks.records import EpisodeResult, Summary
from .evalfeed import EvalFeed, read_console
from .runs_calls import PROMPT_KINDS, read_episode_calls

# console.log's labels (mindpy.agent.runner.CONSOLE_EVENTS) by what a search calls them
PASSAGE_KINDS = {"says": "message", "hears": "message", "tells": "message", "runs": "command", "sees": "output",
                 "refused": "output"}
FOLDER_NAME = re.compile(r"-(\d+)_agents-trial_(\d+)$")
UNFINISHED = "unfinished"  # the end reason shown for an episode with no result (yet)


@dataclass
class Passage:
    """A searchable piece of a transcript: a message, a command, its output, a model's reply or another event."""
    kind: str
    agent: str
    text: str
    call: int | None = None  # a reply: its place in the episode's calls (mindpy.ui.runs_calls.read_episode_calls)
    lowered: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        self.lowered = f"{self.agent}: {self.text}".lower()  # "jill timed out" finds jill's lines


@dataclass
class IndexedEpisode:
    """An episode as the runs page lists and searches it."""
    id: str
    run: int  # which of the dashboard's run folders holds it
    run_dir: Path
    folder: Path
    label: str
    task_id: str
    family: str
    agent_count: int | None
    trial: int
    score: float | None = None
    success: bool | None = None
    end_reason: str = UNFINISHED
    duration_s: float | None = None
    models: list[str] = field(default_factory=list)
    tokens: int = 0
    calls: int = 0
    notes: list[str] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list, repr=False)
    stamp: tuple = field(default=(), repr=False)  # its files' sizes and times when read

    def data(self) -> dict:
        """As JSON for the page."""
        return {"id": self.id, "run": self.run, "run_dir": str(self.run_dir), "folder": str(self.folder),
                "label": self.label, "task_id": self.task_id, "family": self.family,
                "agent_count": self.agent_count, "trial": self.trial, "score": self.score, "success": self.success,
                "end_reason": self.end_reason, "duration_s": self.duration_s, "models": self.models,
                "tokens": self.tokens, "calls": self.calls, "notes": self.notes}


def episode_id(run_dir: Path, folder: Path) -> str:
    """A short id that stays the same across refreshes and restarts (the folder, not its place in a list)."""
    return hashlib.sha1(f"{run_dir.resolve()}\0{folder.resolve()}".encode("utf-8", "surrogateescape")).hexdigest()[:12]


def files_stamp(folder: Path) -> tuple:
    """The sizes and times of the files an episode is read from: when they change, it is read again."""
    paths = [folder / "result.json", folder / "console.log", *sorted((folder / "calls").glob("*.jsonl"))]
    out: list[Any] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            out.append(None)
            continue
        out.append((path.name, info.st_size, info.st_mtime_ns))
    return tuple(out)


def run_model(run_dir: Path, notes: list[str]) -> str | None:
    """The --model of the evaluation (summary.json), or None; a note when summary.json is unreadable."""
    path = run_dir / "summary.json"
    if not path.is_file():
        return None
    try:
        return Summary.read(path).model
    except ValueError as exc:
        notes.append(_line(str(exc)))
        return None


def planned(run_dir: Path, notes: list[str]) -> list[tuple[Path, dict]]:
    """The episode folders of a run with what results.csv says of each ({} when it has no row), in its order."""
    found: list[tuple[Path, dict]] = []
    try:
        entries = EvalFeed.from_dir(run_dir).entries()
    except (OSError, ValueError, KeyError) as exc:  # results.csv unreadable or malformed: its folders still count
        notes.append(f"{run_dir / 'results.csv'}: cannot be read ({_line(str(exc))}); episodes from their folders")
        entries = []
    for entry in entries:
        row = dict(entry.row or {})
        row.update(label=entry.label, task_id=entry.task_id, family=entry.family, agent_count=entry.agent_count,
                   trial=entry.trial)
        found.append((entry.run_dir, row))
    known = {folder.resolve() for folder, _ in found}
    for folder in sorted(p for p in run_dir.glob("episodes/*/*") if p.is_dir()):
        if folder.resolve() not in known:
            found.append((folder, {}))
    return found


def read_episode(run: int, run_dir: Path, folder: Path, row: dict, model: str | None) -> IndexedEpisode:
    """One episode from its row (may be {}) and its folder's files."""
    name = FOLDER_NAME.search(folder.name)
    agents = row.get("agent_count")
    episode = IndexedEpisode(
        id=episode_id(run_dir, folder), run=run, run_dir=run_dir, folder=folder,
        label=str(row.get("label") or folder.name), task_id=str(row.get("task_id") or ""),
        family=str(row.get("family") or ""), agent_count=_whole(agents if agents not in (None, "") else
                                                               name.group(1) if name else None),
        trial=_whole(row.get("trial") or (name.group(2) if name else 1)) or 1, stamp=files_stamp(folder))
    if row.get("end_reason"):
        episode.end_reason = str(row["end_reason"])
        episode.score = _real(row.get("score"))
        episode.duration_s = _real(row.get("duration_s"))
        episode.success = _truth(row.get("success"))
        if row.get("error"):
            episode.notes.append(f"error: {_line(str(row['error']))}")
    if not folder.is_dir():
        episode.notes.append("its folder is missing")
        return episode
    _read_result(episode, folder / "result.json", has_row=bool(row.get("end_reason")))
    console = read_console(folder / "console.log")
    calls, problems = read_episode_calls(folder, console)
    episode.notes += problems
    episode.calls = len(calls)
    episode.tokens = sum(c.prompt_tokens + c.completion_tokens for c in calls) or episode.tokens
    episode.models = sorted({m for m in [model, *(c.model for c in calls)] if m})
    episode.passages = [Passage(PASSAGE_KINDS.get(line["kind"], "event"), line["agent"], line["text"])
                        for line in console]
    episode.passages += [Passage("reply", c.agent, c.reply, call=i) for i, c in enumerate(calls)
                         if c.kind in PROMPT_KINDS and c.reply]
    return episode


def _read_result(episode: IndexedEpisode, path: Path, has_row: bool) -> None:
    """Fill in what result.json says (the row's values stay when it is missing or malformed)."""
    if not path.is_file():
        if not has_row:
            episode.notes.append("no result.json: not finished, or its process died")
        return
    try:
        result = EpisodeResult.read(path)
    except ValueError as exc:
        episode.notes.append(_line(str(exc).replace(str(path), "result.json")))
        return
    episode.task_id = episode.task_id or result.task_id
    episode.family = episode.family or result.family
    if episode.agent_count is None:
        episode.agent_count = len(result.agent_names or result.agents) or None
    episode.score = float(result.score)
    episode.success = result.succeeded
    episode.end_reason = result.end_reason or UNFINISHED
    episode.duration_s = result.duration_s
    episode.tokens = result.total("tokens")
    if result.error and not any(n.startswith("error:") for n in episode.notes):
        episode.notes.append(f"error: {_line(result.error)}")


def read_run(run_dir: Path, run: int) -> tuple[list[IndexedEpisode], list[str]]:
    """Every episode of a run folder and the run's own notes."""
    notes: list[str] = []
    model = run_model(run_dir, notes)
    return [read_episode(run, run_dir, folder, row, model) for folder, row in planned(run_dir, notes)], notes


def _line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _whole(value: Any) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _real(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _truth(value: Any) -> bool:
    return value.strip().lower() in ("true", "1", "yes") if isinstance(value, str) else bool(value)
