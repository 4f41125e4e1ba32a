"""`mindpy eval`: play a suite of episodes, N at a time, each in its own process with its own server.

    Evaluation(["tasks/crafting_test.json", "other/tasks/"], out="runs/eval", parallel=2).run()   # -> the summary
    Evaluation(["tasks/crafting_test.json"], runner=RayRunner("auto"), parallel=None).run()  # on a Ray cluster

Where an episode is played is the runner's business (mindpy.harness.runners: this machine, or a Ray cluster);
everything below (resuming, retries, rows, the summary) is the same for both.

Task files are given as files, folders (their .json/.yaml/.yml files, recursively) or globs, and read task by
task: an invalid task is skipped with one line and listed in summary.json, never blocking the others. Several files
may use the same task ids: an episode is told apart by (file, task id, agent count, trial), and its folder, its row,
the progress counter and resuming all use that identity.

Output folder:
    episodes/<file>-<hash>/<task id>-<N>_agents-trial_<k>/    one run directory per episode (mindpy.harness.episode)
    results.csv             one row per episode, with the task's breakdown keys (BREAKDOWN_FIELDS) and the
                            episode's own building assistance (`cheat`, from its result.json)
    summary.json            success rate by family and agent count, mean construction score, for coblock the
                            mean workload balance (gamma), timesteps and rounds, for orders CoS per level, for
                            defuse with --tom-probes the probes' accuracy per level, tokens, cost, the tasks
                            skipped (by reason, with their problems), success by breakdown (`by_breakdown`) and,
                            with several trials, the spread over trials (`trials`), and `cheat`: building
                            assistance as the episodes were played (cheat_setting; "mixed" when they differ)
    summary.png             the summary as bar charts: by family and agent count, then one panel per breakdown

Breakdowns (after MINDcraft's ablations): every row names its family and agent count, and the task's plan depth
(crafting's `depth`), difficulty (cooking's `difficulty_metrics.difficulty_category`), coblock type, whether any
agent is blocked from recipes or actions, and whether it is a Hell's Kitchen task. "n/a": the task has no such
value (left out of that breakdown); a row of an older run without the column counts as "unknown".

    summarize(read_results(Path("runs/eval/results.csv")))["by_breakdown"]["plan_depth"]["1"]
    # {"episodes": 12, "successes": 9, "success_rate": 0.75}

Resumable: an episode whose run directory holds a result.json (not an error) is not played again. An episode that
fails for infrastructure reasons is retried once, then reported as an error: errors are never counted as failures
of the model, and they are left out of the success rates.

Budget (`budget`, BudgetLimits): the dollars of one `mindpy eval` command are shared out to its episodes. Each
child is given what is left of `max_usd` (split between the episodes played at once, so that together they never
pass it); what an episode spent (its result's `budget.usd`) is added up, and once nothing is left no further
episode starts. An episode cut off by the budget ends as "budget" and the ones never started are listed in
summary.json's `budget.not_played`: neither counts as a failure nor an error, both are left out of the success
rates, and a rerun (with more money) plays them. The request and token rates are split evenly between the
episodes played at once.

    Evaluation(["tasks/cooking_test.json"], budget=BudgetLimits(max_usd=20.0)).run()["budget"]
    # {"max_usd": 20.0, "spent_usd": 20.4, "ended": 1, "ended_episodes": [...], "not_played": [...]}
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..models.budget import BUDGET_END_REASON, BudgetLimits
from ..tasks.records import MIXED, EpisodeResult, Summary
from .ablations import Ablations
from .runners import EpisodeJob, EpisodeRunner, LocalRunner

ATTEMPTS = 2  # an infrastructure failure is retried once (the default of --retries: ATTEMPTS - 1)
RECORD = "evaluation.json"  # the evaluation's own settings, in its output folder (for --retry-errors)
COBLOCK_FIELDS = ("timesteps", "gamma", "rounds")
BREAKDOWN_FIELDS = ("plan_depth", "difficulty", "coblock_type", "blocked_access", "hells_kitchen")
BREAKDOWN_KEYS = ("family", "agent_count", *BREAKDOWN_FIELDS)  # the keys of summary.json's by_breakdown
CSV_FIELDS = ("task_id", "file", "family", "agent_count", "trial", "score", "success", "end_reason", "duration_s",
              "commands", "messages", "tokens", "attempts", "error", "run_dir",
              *COBLOCK_FIELDS,  # coblock episodes only (empty for the others)
              *BREAKDOWN_FIELDS,
              "cheat", "human_count")  # new columns go last: readers of older files find theirs where they were
NOT_APPLICABLE = "n/a"  # a breakdown value the task does not have (crafting's depth of a cooking task)
UNKNOWN = "unknown"  # a breakdown value a row does not record (rows of runs from before the column)
NAME_LIMIT = 100  # characters of a file or task name kept in a folder name
NOT_COUNTED = ("error", BUDGET_END_REASON)  # ends that say nothing about the model: out of the success rates
MIN_GRANT_USD = 1e-6  # a share of the dollars below this is no money: the episode is not started
# Called with every Evaluation of this process as it starts playing (a dashboard showing its progress adds itself
# here; see mindpy.ui). A watcher that fails is reported, never the evaluation's problem.
EVALUATION_WATCHERS: list = []


@dataclass
class Episode:
    """One episode of an evaluation: its task and where its results go."""
    file: str
    task_id: str
    family: str
    agent_count: int
    run_dir: Path  # the episode's identity: built from its file, task id, agent count and trial (episode_dir)
    trial: int = 1
    breakdown: dict[str, str] = field(default_factory=dict)  # the task's breakdown values (task_breakdown)
    human_count: int = 0  # slots people play beside the agents (orders' person cooks)

    @property
    def label(self) -> str:
        """How progress lines name the episode."""
        return f"{self.file}:{self.task_id}" + (f" (trial {self.trial})" if self.trial > 1 else "")

    @property
    def result_path(self) -> Path:
        return self.run_dir / "result.json"

    def finished(self) -> EpisodeResult | None:
        """The saved result when the episode was played to the end (not an infrastructure error, nor cut off by
        the budget: a rerun plays those)."""
        result = self.saved()
        return result if result is not None and result.counted else None

    def saved(self) -> EpisodeResult | None:
        """The episode's saved result, however it ended (None when there is none, or it is unreadable)."""
        try:
            result = EpisodeResult.read(self.result_path)
        except ValueError:
            return None
        if "task_id" in result.key_order and result.task_id != self.task_id:  # another episode's
            return None
        return result


@dataclass
class SkippedTask:
    """A task that is not played, and why: its reason ("invalid", "unsolvable", "not playable" for a family that
    cannot be played yet, or "unreadable" for a whole file) and the problems found."""
    file: str
    task_id: str | None  # None: the whole file could not be read
    reason: str
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for the progress output."""
        extra = len(self.problems) - 1
        more = f" (and {extra} more problem{'s' if extra > 1 else ''})" if extra > 0 else ""
        first = self.problems[0] if self.problems else f"{self.file}: task '{self.task_id}'"
        return f"skipped ({self.reason}): {first}{more}"


def episode_dir(out: Path, file: str, task_id: str, agent_count: int, trial: int) -> Path:
    """The run directory of one episode: a folder per task file (its name and a hash of its full path, so files of
    one name in different folders stay apart) and one per (task id, agent count, trial) in it."""
    file_folder = f"{folder_name(Path(file).stem)}-{_digest(_file_key(file))}"
    return out / "episodes" / file_folder / f"{folder_name(task_id)}-{agent_count}_agents-trial_{trial}"


def task_breakdown(task) -> dict[str, str]:
    """The task's values for BREAKDOWN_FIELDS, as results.csv writes them ("n/a" where the task has none; a
    family's own, such as coblock_type, from its family)."""
    from ..tasks.family import family_of

    blocked = bool(task.blocked_access_to_recipe) or any(task.blocked_actions_for(i) for i in task.agent_indices)
    difficulty = task.difficulty_metrics.get("difficulty_category")
    return {"plan_depth": NOT_APPLICABLE if task.depth is None else str(task.depth),
            "difficulty": str(difficulty) if difficulty not in (None, "") else NOT_APPLICABLE,
            "coblock_type": NOT_APPLICABLE,
            "blocked_access": "yes" if blocked else "no",
            "hells_kitchen": "yes" if task.is_hells_kitchen else "no", **family_of(task).breakdown(task)}


class Evaluation:
    """Plays a task suite, each episode in a child process (resuming finished ones), and writes the results."""
    def __init__(self, files: list[str], out: str | Path = "runs/eval", model: str | None = None,
                 parallel: int | None = 1, servers: list[str] | None = None, ids: list[str] | None = None,
                 limit: int | None = None, usd_per_mtok: float = 0.0, progress=None, trials: int | None = None,
                 rounds=None,
                 profile_options: dict | None = None, budget: BudgetLimits | None = None,
                 team: dict[str, str] | None = None, runner: EpisodeRunner | None = None,
                 ablations: Ablations | None = None, cache: str | None = None, retries: int = ATTEMPTS - 1,
                 only: Iterable[Path] | None = None, mc_version: str | None = None):
        """`parallel`: episodes at once (None: as many as the runner has room for); `runner`: where episodes are
        played (default: child processes on this machine);
        `rounds`: a RoundRequest each episode's family resolves (None: the default, each family's paper's way:
        mindpy.harness.rounds), or RoundOptions every episode plays as they are;
        `profile_options`: the agent method's switches for every agent (partner_modelling, reflection);
        `trials`: episodes per task (None: each task's family's paper's count, Family.paper_trials);
        `budget`: limits on the model calls of the whole evaluation (see the module's "Budget"); `team`: a model
        for some agents, by name or index (mindpy.harness.team), over `model`; `ablations`: the paper's ablations
        and named settings for every episode (mindpy.harness.ablations), recorded in summary.json; `cache`: the
        response cache's folder (mindpy.models.cache; None: off), recorded in summary.json; `retries`: how often
        an episode that failed for infrastructure reasons is played again; `only`: the run directories of the
        episodes to play (None: every one not done yet), the others' rows kept from OUT/results.csv; `mc_version`:
        the Minecraft version every episode plays (None: the minecraft_version setting), its item names the ones the
        tasks are checked against."""
        from .options import check_model_option
        from .session import refuse_unpriced

        self.out = Path(out)
        self.model = model
        self.servers = servers
        self.usd_per_mtok = usd_per_mtok
        self.rounds = rounds
        self.profile_options = dict(profile_options or {})
        self.team = dict(team or {})
        self.ablations = ablations or Ablations()
        self.cache = cache
        self.mc_version = mc_version
        self.attempts = 1 + max(0, int(retries))
        self.only = None if only is None else {Path(p).resolve() for p in only}
        self.progress = progress or _stderr
        check_model_option(model)  # first: a typo costs nothing, not even the planning
        self.budget = budget or BudgetLimits()
        for spec in [model, *self.team.values()]:
            refuse_unpriced(spec, self.budget)
        self.spent_usd = 0.0  # what the episodes of this command spent (a rerun starts its own count)
        self._grants: dict[Path, float] = {}  # dollars given to the episodes being played
        self._unstarted = 0  # episodes still to start (their share of the dollars is kept for them)
        self.not_played: list[Episode] = []  # never started: the budget was spent
        self.episodes: list[Episode] = []
        self.skipped: list[SkippedTask] = []
        self.notes: list[str] = []  # what to say before playing (files read with warnings)
        self.files, self.ids, self.limit, self.trials = list(files), ids, limit, trials
        self._plan(files, ids, limit, None if trials is None else max(1, trials))
        self.runner = runner or LocalRunner()
        if parallel is None:  # after the planning: a Ray runner connects to its cluster to answer
            parallel = self.runner.slots()
        self.parallel = max(1, parallel if not servers else min(parallel, len(servers)))
        self.rows: dict[Path, dict] = {}  # by run directory
        self._lock = threading.Lock()
        self._free_servers = list(servers or [])
        self._stopping = False

    # ---- planning ------------------------------------------------------------------------------------------
    def _plan(self, files: list[str], ids: list[str] | None, limit: int | None, trials: int | None) -> None:
        """Episodes of every valid task of every file (each file once), and the tasks skipped."""
        for path in _task_files(files):
            self.episodes += self._plan_file(path, ids, limit, trials)
        if trials is None:  # say where a family's paper plays more than one episode a task
            counted = Counter((ep.family, ep.trial) for ep in self.episodes)
            for family in sorted({family for family, trial in counted if trial > 1}):
                count = max(trial for f, trial in counted if f == family)
                self.notes.append(f"{family} tasks: {count} trials each, as its paper averages (--trials 1 for one)")
        dirs = Counter(ep.run_dir for ep in self.episodes)
        clash = [str(d) for d, n in dirs.items() if n > 1]
        if clash:  # one episode's result would overwrite another's; the folder names are built so it cannot be
            raise RuntimeError(f"episodes share run directories: {', '.join(clash[:3])}")

    def _plan_file(self, path: str, ids: list[str] | None, limit: int | None, trials: int | None) -> list[Episode]:
        from ..tasks.family import family_of
        from ..tasks.loader import read_task_file

        # the tasks not asked for are not checked; names are checked in the version played ("auto": in each episode)
        version = self.mc_version if self.mc_version != "auto" else None
        report = read_task_file(path, only=ids or None, version=version)
        if report.file_problems:
            self.skipped.append(SkippedTask(path, None, "unreadable", report.file_problems))
            return []
        for task_id, problems in report.problems.items():  # in the file's order
            self.skipped.append(SkippedTask(path, task_id, "invalid", problems))
        if report.warnings:
            tasks = f"{len(report.warnings)} task{'s' if len(report.warnings) != 1 else ''}"
            self.notes.append(f"{path}: {tasks} read with warnings (`mindpy tasks validate {path}` lists them)")
        chosen = [t for t in list(report.tasks.values())[:limit]
                  if self._playable(path, t) and self._solvable(path, t)]
        return [Episode(path, task.id, family_of(task).name, task.agent_count,
                        episode_dir(self.out, path, task.id, task.agent_count, trial), trial, task_breakdown(task),
                        task.human_count)
                for task in chosen for trial in range(1, (trials or family_of(task).paper_trials) + 1)]

    def _playable(self, path: str, task) -> bool:
        """Whether episodes of `task` can be played at all, and with the evaluation's ablations (a family whose play
        does not apply one); one that cannot is skipped as "not playable", with the reason."""
        from ..tasks.family import family_of
        from ..tasks.schema import unplayable_reason

        reason = unplayable_reason(task) or self.ablations.unhonoured(family_of(task))
        if reason:
            self.skipped.append(SkippedTask(path, task.id, "not playable", [f"{path}: task '{task.id}': {reason}"]))
        return reason is None

    def _solvable(self, path: str, task) -> bool:
        """Whether `task` can be solved at all; an unsolvable one is skipped with its reason, so it counts as
        neither success nor failure (summary.json shows it under `skipped`)."""
        from ..tasks.solvable import unsolvable_reason

        reason = unsolvable_reason(task, self.mc_version if self.mc_version != "auto" else None)
        if reason:
            self.skipped.append(SkippedTask(path, task.id, "unsolvable", [f"{path}: task '{task.id}': {reason}"]))
        return reason is None

    # ---- running -------------------------------------------------------------------------------------------
    def run(self) -> dict:
        self.out.mkdir(parents=True, exist_ok=True)
        self.started_at = time.time()
        for watch in list(EVALUATION_WATCHERS):
            try:
                watch(self)
            except Exception as exc:
                self._report(f"a watcher of the evaluation failed: {exc}")
        for line in [s.line() for s in self.skipped] + self.notes:
            self._report(line)
        self._write_record()
        kept = self._kept_rows()
        todo = []
        for ep in self.episodes:
            done = ep.finished()
            if done is not None:
                self.rows[ep.run_dir] = self._row(ep, done, attempts=0)
            elif self.only is not None and ep.run_dir.resolve() not in self.only:
                if ep.run_dir.resolve() in kept:  # not asked for: its row stays as it was
                    self.rows[ep.run_dir] = kept[ep.run_dir.resolve()]
            else:
                todo.append(ep)
        skipped = f", {len(self.skipped)} skipped" if self.skipped else ""
        self._report(f"{len(self.episodes)} episodes: {len(self.episodes) - len(todo)} already done, "
                     f"{len(todo)} to play, {self.parallel} at a time{self.runner.where}{skipped}")
        self._unstarted = len(todo)
        pool = ThreadPoolExecutor(max_workers=self.parallel)
        try:
            for _ in pool.map(self._play, todo):
                pass
        except BaseException:  # Ctrl-C or SIGTERM: stop the episodes being played; a rerun resumes
            self._stopping = True
            self.runner.stop()  # the episode stops its own server and bots
            pool.shutdown(wait=True, cancel_futures=True)
            self.write()
            raise
        pool.shutdown()
        summary = self.write()
        coblock = coblock_line(summary)
        if coblock:
            self._report(coblock)
        return summary

    def _play(self, ep: Episode) -> None:
        error = ""
        with self._lock:
            self._unstarted -= 1
        for attempt in range(1, self.attempts + 1):
            if self._stopping:
                return
            grant = self._grant(ep)
            if grant is not None and grant < MIN_GRANT_USD:
                self._not_played(ep)
                return
            if ep.run_dir.exists():
                shutil.rmtree(ep.run_dir)  # a half-played episode (killed run, or the failed attempt)
            ep.run_dir.mkdir(parents=True)
            try:
                code, error = self._run_process(ep, grant)
            finally:
                self._settle(ep)
            if self._stopping:
                return  # cut off, not failed: left unrecorded so that a rerun plays it
            result = ep.saved()
            # a saved result is only written once the episode was played to the end: it counts even when the
            # process then died in the interpreter's teardown (native thread pools sometimes abort there)
            if result is not None and result.end_reason != "error":
                self._record(ep, self._row(ep, result, attempts=attempt))
                return
            self._report(f"{ep.label}: attempt {attempt} failed ({error or f'exit code {code}'})")
        self._record(ep, self._error_row(ep, error, self.attempts))

    # ---- the record of the settings, for --retry-errors ----------------------------------------------------------
    def record(self) -> dict:
        """What plays this evaluation's episodes again as they were played: its task files and choices of tasks,
        and the options of every episode (OUT/evaluation.json; mindpy.harness.rerun reads it)."""
        from .options import EpisodeOptions
        from .rounds import RoundRequest

        options = EpisodeOptions(model=self.model, rounds=self.rounds if self.rounds is not None else RoundRequest(),
                                 profile_options=dict(self.profile_options), budget=self.budget,
                                 team=dict(self.team), ablations=self.ablations, cache=self.cache,
                                 mc_version=self.mc_version)
        return {"files": list(self.files), "ids": self.ids, "limit": self.limit, "trials": self.trials,
                "usd_per_mtok": self.usd_per_mtok, "servers": self.servers, "retries": self.attempts - 1,
                "options": json.loads(options.to_json())}

    def _write_record(self) -> None:
        tmp = self.out / (RECORD + ".tmp")
        tmp.write_text(json.dumps(self.record(), indent=1, sort_keys=True))
        os.replace(tmp, self.out / RECORD)

    def _kept_rows(self) -> dict[Path, dict]:
        """OUT/results.csv's rows by run directory (for the episodes not played again; {} when there is none)."""
        path = self.out / "results.csv"
        if self.only is None or not path.exists():
            return {}
        return {Path(row["run_dir"]).resolve(): _typed_row(row) for row in read_results(path) if row.get("run_dir")}

    # ---- the dollars -----------------------------------------------------------------------------------------
    def _grant(self, ep: Episode) -> float | None:
        """The dollars episode `ep` may spend (None: no dollar limit): what is left of max_usd after what was spent
        and what the running episodes were given, shared with the episodes that could start beside it."""
        cap = self.budget.max_usd
        if cap is None:
            return None
        with self._lock:
            left = cap - self.spent_usd - sum(self._grants.values())
            sharing = max(1, min(self.parallel - len(self._grants), self._unstarted + 1))
            grant = max(0.0, left / sharing)
            if grant >= MIN_GRANT_USD:
                self._grants[ep.run_dir] = grant
            return grant

    def _settle(self, ep: Episode) -> None:
        """The episode's process ended: count what it spent (from its result) and give back the rest of its grant."""
        result = ep.saved()
        spent = (result.budget or {}).get("usd", 0.0) if result is not None else 0.0
        with self._lock:
            self._grants.pop(ep.run_dir, None)
            self.spent_usd += float(spent or 0.0)

    def _not_played(self, ep: Episode) -> None:
        with self._lock:
            self.not_played.append(ep)
            self.progress(f"not played: {ep.label} (the budget of ${self.budget.max_usd:g} is spent: "
                          f"${self.spent_usd:.4f})")

    def _run_process(self, ep: Episode, grant: float | None = None) -> tuple[int, str]:
        """Play the episode in a child process, where the runner puts it; `grant`: the dollars it may spend (None:
        no limit)."""
        from ..models.prices import parse_price
        from .options import EpisodeOptions

        server = self._take_server()
        # the rates are shared out between the episodes played at once, so that together they keep to them
        rates = [None if rate is None else float(rate) / self.parallel
                 for rate in (self.budget.max_requests_per_minute, self.budget.max_tokens_per_minute)]
        price = parse_price(float(self.usd_per_mtok)) if self.usd_per_mtok else self.budget.usd_per_mtok
        options = EpisodeOptions(model=self.model or None, server=server or "embedded", seed=ep.trial - 1,
                                 rounds=self.rounds, profile_options=dict(self.profile_options),
                                 budget=BudgetLimits(rates[0], rates[1], grant, price), team=dict(self.team or {}),
                                 ablations=self.ablations, cache=self.cache, mc_version=self.mc_version)
        try:
            return self.runner.play(EpisodeJob(Path(ep.file), ep.task_id, ep.run_dir, ("--options", options.to_json())),
                                    report=self._report)
        finally:
            self._give_back(server)

    def _take_server(self) -> str | None:
        with self._lock:
            return self._free_servers.pop(0) if self._free_servers else None

    def _give_back(self, server: str | None) -> None:
        if server is not None:
            with self._lock:
                self._free_servers.append(server)

    def _record(self, ep: Episode, row: dict) -> None:
        with self._lock:
            self.rows[ep.run_dir] = row
            played = [r for r in self.rows.values() if r["end_reason"] not in NOT_COUNTED]
            wins = sum(1 for r in played if r["success"])
            errors = sum(1 for r in self.rows.values() if r["end_reason"] == "error")
            rate = f"{wins / len(played):.0%}" if played else "-"
            cap = self.budget.max_usd
            spent = "" if cap is None and not self.spent_usd else \
                f", spent ${self.spent_usd:.4f}" + (f" of ${cap:g}" if cap is not None else "")  # (free models)
            self.progress(f"[{len(self.rows)}/{len(self.episodes)}] success so far {wins}/{len(played)} ({rate}), "
                          f"errors {errors}{spent} | {ep.label}: {row['end_reason']} score {row['score']}")
            self._write_csv()  # keep the file current: a crash loses nothing finished

    def _report(self, text: str) -> None:
        with self._lock:
            self.progress(text)

    # ---- rows and summary ----------------------------------------------------------------------------------
    def _row(self, ep: Episode, result: EpisodeResult, attempts: int) -> dict:
        """The results.csv row of a played episode."""
        return {"task_id": ep.task_id, "file": ep.file, "family": ep.family, "agent_count": ep.agent_count,
                "trial": ep.trial, "score": result.score, "success": result.succeeded,
                "end_reason": result.end_reason, "duration_s": result.duration_s,
                "commands": result.total("commands_used"), "messages": result.total("messages_sent"),
                "tokens": result.total("tokens"), "attempts": attempts,
                "error": result.error or "", "run_dir": str(ep.run_dir),
                **{key: _blank_if_none(result.value(key)) for key in COBLOCK_FIELDS}, **self._breakdown(ep),
                "cheat": _blank_if_none(result.cheat),  # the episode's own building assistance (blank: unrecorded)
                "human_count": ep.human_count}

    def _error_row(self, ep: Episode, error: str, attempts: int) -> dict:
        return {"task_id": ep.task_id, "file": ep.file, "family": ep.family, "agent_count": ep.agent_count,
                "trial": ep.trial, "score": "", "success": False, "end_reason": "error", "duration_s": "",
                "commands": 0, "messages": 0, "tokens": 0, "attempts": attempts, "error": error,
                "run_dir": str(ep.run_dir), **dict.fromkeys(COBLOCK_FIELDS, ""), **self._breakdown(ep), "cheat": "",
                "human_count": ep.human_count}

    @staticmethod
    def _breakdown(ep: Episode) -> dict[str, str]:
        """The row's breakdown columns; blank (read back as "unknown") for an episode planned without them."""
        return {key: ep.breakdown.get(key, "") for key in BREAKDOWN_FIELDS}

    def _write_csv(self) -> None:
        order = {ep.run_dir: i for i, ep in enumerate(self.episodes)}
        rows = [row for _, row in sorted(self.rows.items(), key=lambda item: order.get(item[0], 0))]
        tmp = self.out / "results.csv.tmp"
        with tmp.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, self.out / "results.csv")

    def write(self) -> dict:
        with self._lock:
            self._write_csv()
            summary = summarize(list(self.rows.values()), self.usd_per_mtok, self.model, self.skipped,
                                budget={"max_usd": self.budget.max_usd, "spent_usd": round(self.spent_usd, 6),
                                        "not_played": [_identity(ep) for ep in self.not_played]})
            if self.team:
                summary["team"] = dict(self.team)
            # runs with other settings are not comparable; as the episodes' families apply them
            summary["ablations"] = self.ablations.record(_families_of(self.rows.values()))
            # building assistance as the episodes were played (a resumed run may have had another --cheat)
            summary["cheat"] = cheat_setting(list(self.rows.values()), bool(self.profile_options.get("cheat")))
            # rounds (their limit, messages as actions, turns one after another) or real time, as the families play
            summary["rounds"] = rounds_setting(self.rounds, _families_of(self.rows.values()))
            summary["response_cache"] = self.cache  # replies recorded earlier were replayed from it (None: off)
            summary["retries"] = self.attempts - 1
        Summary.from_dict(summary).write(self.out / "summary.json")
        chart(summary, self.out / "summary.png")
        return summary


def _families_of(rows: Iterable[dict]) -> list[Any]:
    """The registered families the rows' episodes were of (a name no longer registered is left out)."""
    from ..tasks.family import family_named, is_family

    return [family_named(name) for name in sorted({str(row.get("family") or "") for row in rows}) if is_family(name)]


def summarize(rows: list[dict], usd_per_mtok: float = 0.0, model: str | None = None,
              skipped: Sequence[SkippedTask] = (), budget: dict | None = None) -> dict:
    """Success rates, scores and costs per task family and agent count (errored episodes and those cut off by the
    budget left out), and the tasks that were not played: `skipped` counts them by reason, `skipped_tasks` lists
    each with its problems. Also success by breakdown, and with several trials their spread; `budget` (max_usd,
    spent_usd, not_played) is reported with the episodes the budget cut off. Rows may come from results.csv
    (strings)."""
    rows = [_typed_row(r) for r in rows]
    played = [r for r in rows if r["end_reason"] not in NOT_COUNTED]
    cut_off = [r for r in rows if r["end_reason"] == BUDGET_END_REASON]
    errors = [r for r in rows if r["end_reason"] == "error"]
    groups: dict[str, dict] = {}
    for r in played:
        # episodes with people beside the agents are a group of their own: a person's play is not the agents'
        people = f"+{r['human_count']}_humans" if r["human_count"] else ""
        key = f"{r['family']}/{r['agent_count']}_agents{people}"
        g = groups.setdefault(key, {"family": r["family"], "agent_count": r["agent_count"], "episodes": 0,
                                    "successes": 0, "scores": [], "human_count": r["human_count"]})
        g["episodes"] += 1
        g["successes"] += int(bool(r["success"]))
        g["scores"].append(float(r["score"]))
    by_group = {}
    for key, g in sorted(groups.items()):
        by_group[key] = {"family": g["family"], "agent_count": g["agent_count"],
                         **({"human_count": g["human_count"]} if g["human_count"] else {}), "episodes": g["episodes"],
                         "success_rate": g["successes"] / g["episodes"],
                         "mean_score": sum(g["scores"]) / len(g["scores"])}
    families: dict[str, dict] = {}
    for r in played:
        f = families.setdefault(r["family"], {"episodes": 0, "successes": 0, "score_sum": 0.0})
        f["episodes"] += 1
        f["successes"] += int(bool(r["success"]))
        f["score_sum"] += float(r["score"])
    by_family = {name: {"episodes": f["episodes"], "success_rate": f["successes"] / f["episodes"],
                        "mean_score": f["score_sum"] / f["episodes"]} for name, f in sorted(families.items())}
    tokens = sum(int(r["tokens"] or 0) for r in rows)
    return {
        "model": model or "default",
        "episodes": len(rows), "played": len(played), "errors": len(errors),
        "success_rate": (sum(1 for r in played if r["success"]) / len(played)) if played else 0.0,
        "by_family": by_family, "by_family_and_agents": by_group,
        **partial_score_means(played),
        "tokens": tokens, "cost_usd": round(tokens / 1e6 * usd_per_mtok, 4),
        "errors_by_episode": [{k: r.get(k) for k in ("file", "task_id", "agent_count", "trial", "error")}
                              for r in errors],
        "budget": {"max_usd": None, "spent_usd": None, "not_played": [], **(budget or {}), "ended": len(cut_off),
                   "ended_episodes": [{k: r.get(k) for k in ("file", "task_id", "agent_count", "trial")}
                                      for r in cut_off]},
        "skipped": {"invalid": 0, **Counter(s.reason for s in skipped)},
        "skipped_tasks": [asdict(s) for s in skipped],
        "by_breakdown": by_breakdown(played),
        "trials": trial_spread(played),
        **family_summaries(played),
    }


def partial_score_means(played: list[dict]) -> dict[str, float | None]:
    """`<family>_mean_score` for each family judged by its mean score (construction), None when none was played."""
    from ..tasks.family import families

    means: dict[str, float | None] = {}
    for family in families():
        if family.partial_scores:
            scores = [float(r["score"]) for r in played if r["family"] == family.name]
            means[f"{family.name}_mean_score"] = sum(scores) / len(scores) if scores else None
    return means


def family_summaries(played: list[dict]) -> dict[str, dict | None]:
    """Each family's own figures over its played episodes (Family.summarize), under its `summary_key`
    (coblock, orders_cos, tom_probes): None for a family none of whose episodes was played."""
    from ..tasks.family import families

    return {family.summary_key: family.summarize([r for r in played if r["family"] == family.name])
            if any(r["family"] == family.name for r in played) else None
            for family in families() if family.summary_key}


def by_breakdown(played: list[dict]) -> dict[str, dict[str, dict]]:
    """{key: {value: {episodes, successes, success_rate}}} for every key of BREAKDOWN_KEYS, over played rows;
    a row whose task has no value for a key ("n/a") is left out of that key's breakdown."""
    out: dict[str, dict[str, dict]] = {}
    for key in BREAKDOWN_KEYS:
        counts: dict[str, list[int]] = {}
        for r in played:
            value = breakdown_value(r, key)
            if value == NOT_APPLICABLE:
                continue
            episodes_successes = counts.setdefault(value, [0, 0])
            episodes_successes[0] += 1
            episodes_successes[1] += int(bool(r["success"]))
        out[key] = {value: {"episodes": n, "successes": wins, "success_rate": wins / n}
                    for value, (n, wins) in sorted(counts.items(), key=lambda item: value_order(item[0]))}
    return out


def breakdown_value(row: dict, key: str) -> str:
    """The row's value for a breakdown key, as a string; "unknown" when the row does not record it."""
    value = row.get(key)
    return UNKNOWN if value is None or value == "" else str(value)


def value_order(value: str) -> tuple:
    """Sort key for breakdown values: numbers by size, then words, "unknown" last."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (2 if value == UNKNOWN else 1, 0.0, value)


def trial_spread(played: list[dict]) -> dict | None:
    """With several trials: per task (file, id, agent count) the mean and population standard deviation of success
    and score over its played trials, and per family the success rate of each trial with their mean and standard
    deviation. None when every row is trial 1."""
    if all(r["trial"] <= 1 for r in played):
        return None
    tasks: dict[tuple, list[dict]] = {}
    for r in played:
        tasks.setdefault((r["file"], r["task_id"], r["agent_count"]), []).append(r)
    by_task = []
    for (file, task_id, agent_count), group in tasks.items():
        wins = [float(bool(r["success"])) for r in group]
        scores = [float(r["score"]) for r in group]
        by_task.append({"file": file, "task_id": task_id, "agent_count": agent_count, "family": group[0]["family"],
                        "trials": len(group), "success_mean": statistics.fmean(wins),
                        "success_std": statistics.pstdev(wins), "score_mean": statistics.fmean(scores),
                        "score_std": statistics.pstdev(scores)})
    by_family = {}
    for family in sorted({r["family"] for r in played}):
        per_trial: dict[int, list[bool]] = {}
        for r in played:
            if r["family"] == family:
                per_trial.setdefault(r["trial"], []).append(bool(r["success"]))
        rates = {trial: sum(wins) / len(wins) for trial, wins in sorted(per_trial.items())}
        by_family[family] = {"success_rate_by_trial": {str(t): rate for t, rate in rates.items()},
                             "mean": statistics.fmean(list(rates.values())),
                             "std": statistics.pstdev(list(rates.values()))}
    return {"count": max(r["trial"] for r in played), "by_task": by_task, "by_family": by_family}


def rounds_setting(rounds: Any, families: list[Any]) -> Any:
    """summary.json's `rounds`: the round rules the episodes of `families` played (RoundOptions given are played
    by every family as they are; a RoundRequest, or None, is resolved per family), REALTIME or MIXED."""
    from .rounds import RoundOptions, RoundRequest

    if isinstance(rounds, RoundOptions):
        return rounds.record()
    return (rounds if isinstance(rounds, RoundRequest) else RoundRequest()).record(families)


def cheat_setting(rows: list[dict], flag: bool = False) -> bool | str:
    """summary.json's `cheat` (building assistance) from the episodes' own records (their result's `cheat`: --cheat
    or a profile's own cheat mode): True or False when every episode that records it agrees, MIXED ("mixed")
    when they differ; `flag` (the run's --cheat) only when no episode records it (errors, older results). Rows may
    come from results.csv (strings)."""
    seen = set()
    for row in rows:
        value = row.get("cheat")
        if isinstance(value, str):
            value = {"true": True, "false": False}.get(value.strip().lower())
        if isinstance(value, bool):
            seen.add(value)
    if not seen:
        return bool(flag)
    return seen.pop() if len(seen) == 1 else MIXED


def read_results(path: Path) -> list[dict]:
    """The rows of a results.csv, as `summarize` takes them (older files without some columns included)."""
    with Path(path).open(newline="") as f:
        return list(csv.DictReader(f))


def _typed_row(row: dict) -> dict:
    """A row with success as a bool and agent count and trial as integers, whether it was built in memory or read
    back from results.csv (where every value is a string)."""
    out = dict(row)
    success = row.get("success", False)
    out["success"] = success.strip().lower() in ("true", "1", "yes") if isinstance(success, str) else bool(success)
    # no agent count: kept as it is ("unknown"); no human count: an older file, played without people
    for key, default in (("agent_count", row.get("agent_count")), ("trial", 1), ("human_count", 0)):
        value = row.get(key)
        try:
            out[key] = int(value) if value not in (None, "") else default
        except (TypeError, ValueError):
            raise ValueError(f"results row of task {row.get('task_id')!r}: {key} must be a whole number, got "
                             f"{value!r}; fix or remove that row of results.csv") from None
    return out


def coblock_line(summary: dict) -> str | None:
    """One line for the terminal: the coblock means, or None when no coblock episode was played."""
    part = summary.get("coblock")
    if not part:
        return None
    show = lambda value, form: "-" if value is None else format(value, form)  # noqa: E731
    return (f"coblock: {part['episodes']} episodes, mean gamma {show(part['mean_gamma'], '.3f')} "
            f"(over {part['episodes_with_gamma']}), mean timesteps {show(part['mean_timesteps'], '.1f')}, "
            f"mean rounds {show(part['mean_rounds'], '.1f')} (over {part['episodes_in_rounds']})")


def _identity(ep: Episode) -> dict:
    """How summary.json names an episode: file, task id, agent count, trial."""
    return {"file": ep.file, "task_id": ep.task_id, "agent_count": ep.agent_count, "trial": ep.trial}


def _blank_if_none(value):
    """A result value for the CSV row: '' for None (not recorded), else the value."""
    return "" if value is None else value


def chart(summary: dict, path: Path) -> None:
    """Success rate per family and agent count as a bar chart (the mean score for a family judged by it, such as
    construction), then a panel of success rates per breakdown that has values (summary.json's by_breakdown)."""
    import matplotlib

    from ..tasks.family import scores_partially

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = chart_panels(summary.get("by_breakdown") or {})
    columns = min(3, 1 + len(panels))
    lines = -(-(1 + len(panels)) // columns)
    groups = summary["by_family_and_agents"]
    width = max(4.0, 1.2 * len(groups) + 2) if not panels else 4.8 * columns
    fig, axes = plt.subplots(lines, columns, figsize=(width, 4 * lines), squeeze=False)
    flat = list(axes.flat)
    labels = [f"{g['family']}\n{g['agent_count']} agents" for g in groups.values()]
    partial = [scores_partially(g["family"]) for g in groups.values()]
    values = [g["mean_score"] if by_mean else g["success_rate"] for g, by_mean in zip(groups.values(), partial,
                                                                                      strict=True)]
    _bars(flat[0], labels, values, ["#dd8452" if by_mean else "#4c72b0" for by_mean in partial])
    named = ", ".join(sorted({g["family"] for g, by_mean in zip(groups.values(), partial, strict=True) if by_mean}))
    flat[0].set_ylabel("success rate" + (f" ({named}: mean score)" if named else ""))
    flat[0].set_title(f"{summary['model']}: {summary['played']} episodes, {summary['errors']} errors", fontsize=9)
    for ax, (key, values_of_key) in zip(flat[1:], panels.items(), strict=False):
        labels = [f"{value}\n({part['successes']}/{part['episodes']})" for value, part in values_of_key.items()]
        _bars(ax, labels, [part["success_rate"] for part in values_of_key.values()], "#55a868")
        ax.set_title(f"success by {key.replace('_', ' ')}", fontsize=9)
    for ax in flat[1 + len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def chart_panels(breakdowns: dict[str, dict]) -> dict[str, dict]:
    """The breakdowns worth a panel: those with at least one known value."""
    return {key: values for key, values in breakdowns.items() if any(value != UNKNOWN for value in values)}


def _bars(ax, labels: list[str], values: list[float], colors) -> None:
    """Bars from 0 to 1 with their percentages written above them."""
    bars = ax.bar(range(len(values)), values, color=colors)
    ax.set_xticks(range(len(values)), labels, fontsize=8)
    ax.set_ylim(0, 1.1)
    for bar, value in zip(bars, values, strict=True):
        ax.text(bar.get_x() + bar.get_width() / 2, value + 0.01, f"{value:.0%}", ha="center", fontsize=8)


def _task_files(patterns: list[str]) -> list[str]:
    """Every task file the arguments name (files, folders, globs), each once, in the order given."""
    from ..tasks.loader import task_paths

    found: dict[str, str] = {}
    for pattern in patterns:
        for path in task_paths(pattern):
            found.setdefault(_file_key(str(path)), str(path))
    return list(found.values())


def _file_key(file: str) -> str:
    """A task file's identity: its full path, however it was written on the command line."""
    return str(Path(file).resolve())


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def folder_name(text: str) -> str:
    """`text` as (part of) a folder name: itself when it is safe and short, else a cleaned, cut copy with a hash of
    the original (so two names never share a folder, and none is '.' or '..')."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:NAME_LIMIT]
    if safe == text and safe not in (".", ".."):
        return safe
    return f"{safe}-{_digest(text)}"


def _stderr(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)
