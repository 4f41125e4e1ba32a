"""What an evaluation's summary.json says of its defuse episodes (under `defuse`), read from their result.json:
how they were played (settings.py's record, a key "mixed" when episodes differ), the team's mean points, rounds
and valid-action rate, how the episodes ended, and the theory-of-mind probes merged over the episodes that asked
them (tom_probes.py; None when none did)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from ...records import MIXED
from .tom_probes import ProbeScore


def defuse_summary(rows: list[dict]) -> dict | None:
    """The figures over `rows` (results.csv rows with their `run_dir`); None when no result.json can be read."""
    results = [r for r in (_result(row) for row in rows) if r is not None]
    if not results:
        return None
    probes = [r["tom_probes"] for r in results if isinstance(r.get("tom_probes"), dict)]
    return {
        "episodes": len(results),
        "settings": merged_settings([r.get("defuse_settings") for r in results]),
        "points_mean": _mean(r.get("points") for r in results),
        "points_sd": _sd(r.get("points") for r in results),
        "rounds_mean": _mean(r.get("rounds") for r in results),
        "valid_action_rate_mean": _mean(r.get("valid_action_rate") for r in results),
        "end_reasons": dict(sorted(Counter(str(r.get("end_reason")) for r in results).items())),
        "tom_probes": {"episodes": len(probes), **ProbeScore.merge(probes).summary()} if probes else None,
    }


def merged_settings(records: list[Any]) -> dict[str, Any] | None:
    """One settings record for all episodes: each key's value when they agree, else "mixed" (None: none kept
    one, as results written before the settings were recorded)."""
    kept = [r for r in records if isinstance(r, dict)]
    if not kept:
        return None
    keys = dict.fromkeys(k for r in kept for k in r)
    merged = {}
    for key in keys:
        values = {json.dumps(r.get(key), sort_keys=True) for r in kept}
        merged[key] = kept[0].get(key) if len(values) == 1 and len(kept) == len(records) else MIXED
    return merged


def _result(row: dict) -> dict | None:
    try:
        data = json.loads((Path(row["run_dir"]) / "result.json").read_text())
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return data if isinstance(data, dict) else None


def _numbers(values: Any) -> list[float]:
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def _mean(values: Any) -> float | None:
    numbers = _numbers(values)
    return round(statistics.fmean(numbers), 4) if numbers else None


def _sd(values: Any) -> float | None:
    numbers = _numbers(values)
    return round(statistics.pstdev(numbers), 4) if numbers else None
