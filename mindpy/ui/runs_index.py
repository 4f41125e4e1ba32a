"""The episodes of several evaluations in memory, to list them by what they are and find what was said and done in
them: the runs page's filters and full-text search, as plain Python (mindpy.ui.runs_api serves them).

    index = RunsIndex(lambda: [Path("runs/a"), Path("runs/b")])
    index.episodes(EpisodeFilter(family="crafting", agents=2, score_min=1.0, text="craftRecipe"))
    index.search('"gold ingot" jill')      # passages holding every term (a quoted phrase is one term)
    index.calls(episode_id)                # its model calls, prompts included (read when asked)

Built when made, then read again at most every REFRESH_S seconds when asked: only the episodes whose files changed
(and new ones) are read again, so a live evaluation's new episodes appear and a big finished one costs a few stats.
"""

from __future__ import annotations

import shlex
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .runs_calls import Call, read_episode_calls
from .runs_read import IndexedEpisode, Passage, episode_id, files_stamp, planned, read_episode, run_model

REFRESH_S = 2.0
TEXT_KINDS = ("message", "command", "reply")  # what the episodes' `text` filter looks in
SNIPPET_CHARS = 240
MAX_HITS_PER_EPISODE = 5


@dataclass(frozen=True)
class EpisodeFilter:
    """What the listed episodes must be (None: anything). `model` and `text` match a part, in any case."""
    family: str | None = None
    agents: int | None = None
    model: str | None = None
    end_reason: str | None = None
    score_min: float | None = None
    score_max: float | None = None
    text: str | None = None

    def matches(self, episode: IndexedEpisode) -> bool:
        if self.family and episode.family.lower() != self.family.lower():
            return False
        if self.agents is not None and episode.agent_count != self.agents:
            return False
        if self.model and not any(self.model.lower() in m.lower() for m in episode.models):
            return False
        if self.end_reason and episode.end_reason.lower() != self.end_reason.lower():
            return False
        if self.score_min is not None and (episode.score is None or episode.score < self.score_min):
            return False
        if self.score_max is not None and (episode.score is None or episode.score > self.score_max):
            return False
        if self.text:
            terms = query_terms(self.text)
            return any(holds(p, terms) for p in episode.passages if p.kind in TEXT_KINDS)
        return True


def query_terms(query: str) -> list[str]:
    """The lowercased terms of a query: words, or "a phrase" in quotes (an unclosed quote: plain words)."""
    try:
        terms = shlex.split(query)
    except ValueError:
        terms = query.split()
    return [t.lower() for t in terms if t.strip()]


def holds(passage: Passage, terms: list[str]) -> bool:
    """Whether the passage holds every term."""
    return bool(terms) and all(t in passage.lowered for t in terms)


def snippet(text: str, term: str, width: int = SNIPPET_CHARS) -> str:
    """The part of `text` around the first `term`, with "…" where it was cut."""
    if len(text) <= width:
        return text
    at = max(0, text.lower().find(term))
    start = max(0, min(at - width // 3, len(text) - width))
    return ("…" if start else "") + text[start:start + width] + ("…" if start + width < len(text) else "")


class RunsIndex:
    """The episodes of the run folders `folders()` names (see the module's docstring); safe to use from several
    threads."""

    def __init__(self, folders: Callable[[], Iterable[Path]], refresh_s: float = REFRESH_S):
        self.folders = folders
        self.refresh_s = refresh_s
        self.notes: list[str] = []  # one line per run folder (or part of one) that could not be read
        self._episodes: dict[str, IndexedEpisode] = {}
        self._order: list[str] = []
        self._rows: dict[str, dict] = {}  # id -> the results.csv row it was read with
        self._read_at = float("-inf")
        self._lock = threading.Lock()
        self.refresh(force=True)

    # ---- reading -------------------------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        """Read the new and changed episodes (at most every refresh_s seconds unless `force`)."""
        with self._lock:
            if not force and time.monotonic() - self._read_at < self.refresh_s:
                return
            notes: list[str] = []
            episodes: dict[str, IndexedEpisode] = {}
            rows: dict[str, dict] = {}
            for run, run_dir in enumerate(dict.fromkeys(Path(f) for f in self.folders())):
                if not run_dir.is_dir():
                    notes.append(f"{run_dir}: not found, skipped")
                    continue
                model = run_model(run_dir, notes)
                for folder, row in planned(run_dir, notes):
                    episode = self._read(run, run_dir, folder, row, model)
                    if episode.id not in episodes:
                        episodes[episode.id] = episode
                        rows[episode.id] = row
                if not any(e.run == run for e in episodes.values()):
                    notes.append(f"{run_dir}: no episodes (no results.csv, result.json or episodes/ folders)")
            self._episodes, self._rows, self._order = episodes, rows, list(episodes)
            self.notes = notes
            self._read_at = time.monotonic()

    def _read(self, run: int, run_dir: Path, folder: Path, row: dict, model: str | None) -> IndexedEpisode:
        """The episode as read before when neither its files nor its row changed; else read again (one that cannot
        be read at all is listed with a note)."""
        known = self._episodes.get(episode_id(run_dir, folder))
        if known is not None and known.run == run and self._rows.get(known.id) == row and \
                known.stamp == files_stamp(folder) and (model is None or model in known.models):
            return known
        try:
            return read_episode(run, run_dir, folder, row, model)
        except Exception as exc:  # a file of a shape nobody foresaw: the other episodes still show
            return IndexedEpisode(id=episode_id(run_dir, folder), run=run, run_dir=run_dir, folder=folder,
                                  label=folder.name, task_id="", family="", agent_count=None, trial=1,
                                  notes=[f"could not be read: {type(exc).__name__}: {str(exc)[:160]}"])

    def all(self) -> list[IndexedEpisode]:
        """Every episode, run folder by run folder, each in its results.csv order."""
        self.refresh()
        with self._lock:
            return [self._episodes[i] for i in self._order]

    def get(self, episode_id: str) -> IndexedEpisode | None:
        self.refresh()
        with self._lock:
            return self._episodes.get(episode_id)

    # ---- questions -----------------------------------------------------------------------------------------
    def episodes(self, wanted: EpisodeFilter | None = None) -> list[IndexedEpisode]:
        """The episodes `wanted` lets through (all without one)."""
        return [e for e in self.all() if wanted is None or wanted.matches(e)]

    def facets(self) -> dict:
        """The values the filters can take, as the episodes have them (for the page's choices)."""
        episodes = self.all()
        return {"families": sorted({e.family for e in episodes if e.family}),
                "agents": sorted({e.agent_count for e in episodes if e.agent_count is not None}),
                "models": sorted({m for e in episodes for m in e.models}),
                "end_reasons": sorted({e.end_reason for e in episodes})}

    def search(self, query: str, limit: int = 100) -> list[dict]:
        """The episodes whose transcripts hold every term of `query` in one passage (a message, command, output,
        model reply or other event), each with its first hits; at most `limit` episodes."""
        terms = query_terms(query)
        if not terms:
            return []
        found = []
        for episode in self.all():
            hits = [p for p in episode.passages if holds(p, terms)]
            if not hits:
                continue
            found.append({"episode": episode.data(), "count": len(hits),
                          "hits": [{"kind": p.kind, "agent": p.agent, "text": snippet(p.text, terms[0]),
                                    "call": p.call} for p in hits[:MAX_HITS_PER_EPISODE]]})
            if len(found) >= limit:
                break
        return found

    def calls(self, episode_id: str) -> tuple[list[Call], list[str]] | None:
        """An episode's model calls, prompts included, and a note per line skipped (read now); None: no such
        episode."""
        episode = self.get(episode_id)
        if episode is None:
            return None
        return read_episode_calls(episode.folder)
