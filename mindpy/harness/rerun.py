"""`mindpy eval --retry-errors OUT`: play again only the episodes of an earlier evaluation that ended in an
infrastructure error, with the task files and options that evaluation recorded (OUT/evaluation.json), so a server
that crashed or an endpoint that was down costs only its own episodes. The other episodes' rows stay as they are,
and results.csv and summary.json are written again over all of them.

    evaluation = errored_evaluation(Path("runs/eval"))   # None when nothing ended in an error
    evaluation.run()
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..userfiles import one_line, read_json_record
from .evaluate import RECORD, Evaluation, read_results


def errored_run_dirs(out: Path) -> list[Path]:
    """The run directories of OUT's episodes whose row in results.csv ended in an infrastructure error."""
    path = out / "results.csv"
    if not path.exists():
        raise ConfigError(f"--retry-errors {one_line(str(out), 80)}: no results.csv there (the --out folder of a "
                          f"mindpy eval run)")
    return [Path(row["run_dir"]) for row in read_results(path) if row.get("end_reason") == "error"
            and row.get("run_dir")]


def read_record(out: Path) -> dict[str, Any]:
    """OUT/evaluation.json, as Evaluation.record wrote it; ConfigError (one line) when it is missing or bad."""
    path = out / RECORD
    record = read_json_record(path, "--retry-errors", f"{path} is missing (evaluations record their settings there); "
                              "rerun the evaluation's own command instead: it plays the errored episodes again")
    if not isinstance(record, dict) or not isinstance(record.get("files"), list):
        raise ConfigError(f"--retry-errors: {path} is not an evaluation's record")
    return record


def errored_evaluation(out: Path, *, parallel: int | None = 1, runner: Any = None, retries: int | None = None,
                       servers: list[str] | None = None, progress: Any = None) -> Evaluation | None:
    """The Evaluation that plays OUT's errored episodes again as OUT's record says (`retries` and `servers`: None
    keeps the record's); None when no episode ended in an error."""
    from .options import EpisodeOptions

    errored = errored_run_dirs(out)
    if not errored:
        return None
    record = read_record(out)
    options = EpisodeOptions.from_json(json.dumps(record.get("options") or {}))
    return Evaluation(record["files"], out=out, model=options.model, parallel=parallel,
                      servers=servers or record.get("servers"), ids=record.get("ids"), limit=record.get("limit"),
                      usd_per_mtok=float(record.get("usd_per_mtok") or 0.0), progress=progress,
                      trials=record.get("trials"), rounds=options.rounds, profile_options=options.profile_options,
                      budget=options.budget, team=options.team, runner=runner, ablations=options.ablations,
                      cache=options.cache, mc_version=options.mc_version,
                      retries=int(record.get("retries", 1)) if retries is None else retries,
                      only=errored)
