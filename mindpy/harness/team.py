"""Mixed teams: a model for each agent of an episode, and cross-play over every ordered pairing of models.

    team = parse_team(["andy=gpt-4o-mini", "1=oracle"])   # {"andy": "gpt-4o-mini", "1": "oracle"}
    team_specs(team, ["andy", "jill", "bob"], "chaos")     # {"andy": "gpt-4o-mini", "jill": "oracle", "bob": "chaos"}

An agent is named by its name in the task (andy, jill, bob...) or by its index (0, 1, 2...); the agents no entry
names play the run's `--model`. `mindpy eval --pairings A,B` plays the tasks once per ordered pair: agent 0 plays
the first model, every other agent the second (A with A is self-play). Its `summary.json` holds the success rate of
each pair, a cross-play matrix (rows: agent 0's model; columns: its partners'), drawn as cross_play.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError


def parse_team(values: Iterable[str] | None) -> dict[str, str]:
    """`--team` entries ("NAME=MODEL" or "INDEX=MODEL") as a mapping. ConfigError for a malformed entry, a model
    spec that does not parse, or an agent named twice."""
    from ..models import parse_model_spec

    team: dict[str, str] = {}
    for value in values or []:
        key, sep, spec = str(value).partition("=")
        key, spec = key.strip(), spec.strip()
        if not sep or not key or not spec:
            raise ConfigError(f"--team {value!r}: expected AGENT=MODEL, e.g. --team andy=gpt-4o-mini or "
                              "--team 1=oracle")
        if key in team:
            raise ConfigError(f"--team: agent {key!r} is given twice")
        try:
            parse_model_spec(spec)
        except ValueError as exc:
            raise ConfigError(f"--team {key}={spec}: {exc}") from None
        team[key] = spec
    return team


def team_specs(team: dict[str, str] | None, names: Sequence[str], default: Any) -> dict[str, Any]:
    """Each agent's model spec: its team entry (by name or index), else `default`. ConfigError for an entry that
    names no agent of the task."""
    specs = {name: default for name in names}
    for key, spec in (team or {}).items():
        if key.isdigit():
            if int(key) >= len(names):
                raise ConfigError(f"--team {key}={spec}: the task has agents 0 to {len(names) - 1} "
                                  f"({', '.join(names)})")
            specs[names[int(key)]] = spec
        elif key in specs:
            specs[key] = spec
        else:
            raise ConfigError(f"--team {key}={spec}: no agent {key!r} in the task (its agents: {', '.join(names)}; "
                              f"or give an index, 0 to {len(names) - 1})")
    return specs


# ---- cross-play ----------------------------------------------------------------------------------------------
def pairing_folder(first: str, second: str) -> str:
    """The folder of one pairing's evaluation, its models made safe for a file name."""
    safe = [re.sub(r"[^A-Za-z0-9._-]+", "_", m) for m in (first, second)]
    return f"pair_{safe[0]}__{safe[1]}"


def pairings(models: Sequence[str]) -> list[tuple[str, str]]:
    """Every ordered pair of the models, self-play included."""
    return [(a, b) for a in models for b in models]


def cross_play_matrix(rates: dict[tuple[str, str], float | None], models: Sequence[str]) -> dict[str, dict]:
    """{first: {second: success rate}} (None for a pair with no played episode)."""
    return {a: {b: rates.get((a, b)) for b in models} for a in models}


def matrix_table(matrix: dict[str, dict], models: Sequence[str]) -> str:
    """The matrix as text: one row per agent-0 model."""
    width = max(len(m) for m in models) + 2
    head = "agent 0 \\ others".ljust(width) + "".join(m.rjust(width) for m in models)
    rows = [a.ljust(width) + "".join(("-" if matrix[a][b] is None else f"{matrix[a][b]:.2f}").rjust(width)
                                     for b in models) for a in models]
    return "\n".join([head, *rows])


def write_cross_play(out: Path, models: Sequence[str], summaries: dict[tuple[str, str], dict]) -> dict:
    """Write OUT/summary.json (every pair's summary and the matrix) and, with matplotlib, OUT/cross_play.png."""
    rates = {pair: (s["success_rate"] if s.get("played") else None) for pair, s in summaries.items()}
    matrix = cross_play_matrix(rates, models)
    summary = {"models": list(models), "cross_play": matrix,
               "pairings": [{"agent0": a, "others": b, "folder": pairing_folder(a, b), "played": s.get("played"),
                             "success_rate": rates[(a, b)]} for (a, b), s in summaries.items()]}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    _heatmap(out / "cross_play.png", matrix, models)
    return summary


def _heatmap(path: Path, matrix: dict[str, dict], models: Sequence[str]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the chart is optional: summary.json holds the numbers
        return
    values = [[float("nan") if matrix[a][b] is None else matrix[a][b] for b in models] for a in models]
    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(models), 1.2 + 1.0 * len(models)))
    image = ax.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(len(models)), list(models), rotation=30, ha="right")
    ax.set_yticks(range(len(models)), list(models))
    ax.set_xlabel("the other agents' model")
    ax.set_ylabel("agent 0's model")
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            ax.text(j, i, "-" if v != v else f"{v:.2f}", ha="center", va="center", color="white")
    fig.colorbar(image, ax=ax, label="success rate")
    ax.set_title("Cross-play")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
