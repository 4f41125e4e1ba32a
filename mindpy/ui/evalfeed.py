"""An evaluation as a dashboard shows it: progress (episodes done, success so far by family and agent count,
errors, the time left) and the list of episodes, from a live `mindpy eval` of this process or from a run
directory on disk.

    EvalFeed.live(evaluation)           # mindpy eval --ui: the Evaluation object as it plays
    EvalFeed.from_dir("runs/eval")      # mindpy dashboard RUN_DIR: results.csv (and summary.json) as written
    EvalFeed.from_dir("runs/x")         # a `mindpy run --task` folder: its result.json, one episode
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..harness.evaluate import NOT_COUNTED, read_results
from ..tasks.records import EpisodeResult, Summary


@dataclass
class EpisodeEntry:
    """One episode of the list: what it is, where its files are, and how it went (row None: not finished)."""
    label: str
    task_id: str
    family: str
    agent_count: int | str
    trial: int
    run_dir: Path
    row: dict | None = None


class EvalFeed:
    """Progress and episodes of one evaluation (see the module's docstring)."""

    def __init__(self, out: Path, evaluation: Any = None):
        self.out = Path(out)
        self.evaluation = evaluation  # live: the Evaluation; None: read from disk
        self._cached: tuple[tuple, dict] | None = None  # from disk: (the files' times, the progress read then)

    @classmethod
    def live(cls, evaluation: Any) -> EvalFeed:
        return cls(evaluation.out, evaluation)

    @classmethod
    def from_dir(cls, run_dir: str | Path) -> EvalFeed:
        return cls(Path(run_dir))

    # ---- the episodes ----------------------------------------------------------------------------------
    def entries(self) -> list[EpisodeEntry]:
        if self.evaluation is not None:
            return self._live_entries()
        return self._disk_entries()

    def _live_entries(self) -> list[EpisodeEntry]:
        ev = self.evaluation
        with ev._lock:
            rows = dict(ev.rows)
        return [EpisodeEntry(ep.label, ep.task_id, ep.family, ep.agent_count, ep.trial, ep.run_dir,
                             rows.get(ep.run_dir)) for ep in ev.episodes]

    def _disk_entries(self) -> list[EpisodeEntry]:
        results = self.out / "results.csv"
        if results.is_file():
            entries = []
            for row in read_results(results):
                run_dir = self._local_dir(row.get("run_dir", ""))
                trial = int(row.get("trial") or 1)
                label = f"{row.get('file', '')}:{row.get('task_id', '')}" + (f" (trial {trial})" if trial > 1 else "")
                entries.append(EpisodeEntry(label, row.get("task_id", ""), row.get("family", ""),
                                            row.get("agent_count", ""), trial, run_dir, row))
            return entries
        result = _read_record(EpisodeResult, self.out / "result.json")
        if result is not None:  # one episode (mindpy run --task)
            names = result.agent_names or list(result.agents)
            row = {"score": result.score, "success": result.succeeded, "end_reason": result.end_reason,
                   "duration_s": result.duration_s, "error": result.error or ""}
            label = result.task_id if "task_id" in result.key_order else self.out.name
            return [EpisodeEntry(label, result.task_id, result.family, len(names) or "", 1, self.out, row)]
        return []

    def _local_dir(self, recorded: str) -> Path:
        """An episode folder as results.csv recorded it, found under this run directory even if it was moved."""
        path = Path(recorded)
        parts = path.parts
        if "episodes" in parts:
            return self.out.joinpath(*parts[parts.index("episodes"):])
        return path if path.is_absolute() else self.out / path

    # ---- progress ----------------------------------------------------------------------------------------
    def progress(self) -> dict:
        """Everything the evaluation page shows, as plain data (from disk: read again only when its files change,
        so that a dashboard of many finished runs costs nothing while they stay as they are)."""
        if self.evaluation is not None:
            return self._progress()
        stamp = tuple(_mtime(self.out / name) for name in ("results.csv", "result.json", "summary.json"))
        if self._cached is None or self._cached[0] != stamp:
            self._cached = (stamp, self._progress())
        return self._cached[1]

    def _progress(self) -> dict:
        entries = self.entries()
        started_at = getattr(self.evaluation, "started_at", None) if self.evaluation is not None else None
        episodes = [self._episode_data(i, e, started_at) for i, e in enumerate(entries)]
        played = [e.row for e in entries if e.row is not None and e.row.get("end_reason") not in NOT_COUNTED]
        groups: dict[str, list[int]] = {}
        for row in played:
            key = f"{row.get('family')} / {row.get('agent_count')} agents"
            group = groups.setdefault(key, [0, 0])
            group[0] += int(_success(row))
            group[1] += 1
        done = sum(1 for e in entries if e.row is not None)
        errors = sum(1 for e in entries if e.row is not None and e.row.get("end_reason") == "error")
        wins = sum(int(_success(r)) for r in played)
        data: dict[str, Any] = {
            "out": str(self.out), "live": self.evaluation is not None, "total": len(entries), "done": done,
            "playing": sum(1 for e in episodes if e["status"] == "playing"), "errors": errors,
            "success": {"wins": wins, "played": len(played)},
            "by_group": {k: {"wins": w, "played": p} for k, (w, p) in sorted(groups.items())},
            "episodes": episodes, "eta_s": None, "elapsed_s": None, "skipped": self._skipped(),
        }
        if self.evaluation is not None and started_at is not None:
            elapsed = time.time() - started_at
            finished_here = [e for e in entries if e.row is not None and int(e.row.get("attempts") or 0) > 0]
            left = len(entries) - done
            data["elapsed_s"] = round(elapsed)
            if finished_here and left:
                data["eta_s"] = round(elapsed / len(finished_here) * left)
            elif not left:
                data["eta_s"] = 0
            data["parallel"] = self.evaluation.parallel
        else:
            summary = _read_record(Summary, self.out / "summary.json")
            if summary is not None:
                data["summary"] = {"model": summary.model, "episodes": summary.episodes, "played": summary.played,
                                   "errors": summary.errors, "success_rate": summary.success_rate,
                                   "tokens": summary.tokens, "cost_usd": summary.cost_usd}
        return data

    def _skipped(self) -> int:
        if self.evaluation is not None:
            return len(self.evaluation.skipped)
        summary = _read_record(Summary, self.out / "summary.json")
        return sum((summary.skipped or {}).values()) if summary is not None else 0

    @staticmethod
    def _episode_data(index: int, entry: EpisodeEntry, started_at: float | None) -> dict:
        row = entry.row
        if row is None:
            status = "pending"
            if started_at is not None and entry.run_dir.is_dir() and entry.run_dir.stat().st_mtime >= started_at - 1:
                status = "playing"
        elif row.get("end_reason") == "error":
            status = "error"
        elif row.get("end_reason") in NOT_COUNTED:
            status = str(row.get("end_reason"))
        else:
            status = "success" if _success(row) else "failure"
        data = {"index": index, "label": entry.label, "task_id": entry.task_id, "family": entry.family,
                "agent_count": entry.agent_count, "trial": entry.trial, "status": status}
        if row is not None:
            data.update({"score": row.get("score"), "end_reason": row.get("end_reason"),
                         "duration_s": row.get("duration_s"), "error": row.get("error") or ""})
        return data

    # ---- one episode's transcript ----------------------------------------------------------------------
    def transcript(self, index: int) -> dict:
        """Episode `index`'s result and who said and did what (its console.log), line by line."""
        entries = self.entries()
        if not 0 <= index < len(entries):
            raise IndexError(index)
        entry = entries[index]
        result = _read_json(entry.run_dir / "result.json")
        lines = read_console(entry.run_dir / "console.log")
        return {"index": index, "label": entry.label, "run_dir": str(entry.run_dir), "result": result,
                "lines": lines, "finished": entry.row is not None}


def read_console(path: Path, limit: int = 5000) -> list[dict]:
    """The lines of an episode's console.log ("12:00:01 [andy] runs: !craftRecipe(...)") as {time, agent, kind,
    text}; a line of another shape keeps its whole text with no agent."""
    try:
        raw = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in raw[-limit:]:
        time_part, _, rest = line.partition(" [")
        agent, sep, rest = rest.partition("] ")
        kind, sep2, text = rest.partition(": ")
        if sep and sep2 and len(time_part) == 8:
            out.append({"time": time_part, "agent": agent, "kind": kind, "text": text})
        elif line.strip():
            out.append({"time": "", "agent": "", "kind": "", "text": line})
    return out


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _success(row: dict) -> bool:
    value = row.get("success")
    return value.strip().lower() in ("true", "1", "yes") if isinstance(value, str) else bool(value)


def _read_record(kind: Any, path: Path) -> Any:
    """The EpisodeResult or Summary in `path`; None when there is none or it is unreadable (the page shows the
    rest)."""
    try:
        return kind.read(path)
    except ValueError:
        return None


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
