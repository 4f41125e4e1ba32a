"""`mindpy eval compare RUN_DIR RUN_DIR...`: finished eval runs side by side, one column per run.

    runs, problems = load_runs(["runs/gpt", "runs/oracle"])      # a folder without summary.json: one line in problems
    print(comparison_table(runs))                                # success overall and by breakdown, tokens, cost...
    comparison_chart(runs, Path("runs/compare.png"))             # grouped bars: one colour per run

Each run is read from its summary.json. A summary written before breakdowns existed gets them from the run's
results.csv (its rows then count as "unknown" where they lack a column); without that file its breakdown cells
show "-".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from ..tasks.records import MIXED, Summary
from .evaluate import BREAKDOWN_KEYS, read_results, summarize, value_order

MISSING = "-"  # a cell the run has no value for


@dataclass
class RunSummary:
    """One eval run to compare: how its column is headed, its folder and its summary.json."""
    label: str
    path: Path
    summary: Summary

    @property
    def breakdowns(self) -> dict[str, dict]:
        return self.summary.by_breakdown or {}


def load_run(path: Path) -> Summary:
    """The run's summary, with `by_breakdown` (and `trials`) from results.csv when the summary predates them.
    ValueError (one line) when the folder holds no readable summary.json."""
    file = path / "summary.json"
    if not file.is_file():
        raise ValueError(f"{path}: no summary.json (give the --out folder of a `mindpy eval` run)")
    try:
        summary = Summary.read(file)
    except ValueError as exc:
        raise ValueError(f"{exc}; rerun `mindpy eval` with that --out to rewrite it") from None
    if "success_rate" not in summary.key_order:
        raise ValueError(f"{file}: not an eval summary (no success_rate); give the --out folder of `mindpy eval`")
    if "by_breakdown" not in summary.key_order and (path / "results.csv").is_file():
        try:
            recounted = summarize(read_results(path / "results.csv"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path / 'results.csv'}: {exc}") from None
        summary = replace(summary, by_breakdown=recounted["by_breakdown"], trials=recounted["trials"])
    return summary


def load_runs(paths: Sequence[str | Path]) -> tuple[list[RunSummary], list[str]]:
    """The runs that could be read, in the order given, and one line for each folder that could not."""
    runs: list[RunSummary] = []
    problems: list[str] = []
    for path in map(Path, paths):
        try:
            runs.append(RunSummary(path.name or str(path), path, load_run(path)))
        except ValueError as exc:
            problems.append(str(exc))
    names = [run.label for run in runs]
    for run in runs:
        if names.count(run.label) > 1:  # runs/a/eval and runs/b/eval: the folder name alone is ambiguous
            run.label = str(run.path)
    return runs, problems


def comparison_rows(runs: Sequence[RunSummary]) -> list[tuple[str, list[str]]]:
    """(row name, one cell per run): counts, success overall and by every breakdown value any run has, the trial
    spread per family, construction score, tokens and cost."""
    rows: list[tuple[str, list[str]]] = [
        ("episodes", [str(run.summary.episodes) for run in runs]),
        ("played", [str(run.summary.played) for run in runs]),
        ("errors", [str(run.summary.errors) for run in runs]),
        ("success", [_rate(run.summary.success_rate, _overall_wins(run.summary), run.summary.played)
                     for run in runs]),
    ]
    for key in BREAKDOWN_KEYS:
        for value in _values(runs, key):
            cells = []
            for run in runs:
                part = run.breakdowns.get(key, {}).get(value)
                cells.append(_rate(part["success_rate"], part["successes"], part["episodes"]) if part else MISSING)
            rows.append((f"{key}={value}", cells))
    families = sorted({family for run in runs for family in ((run.summary.trials or {}).get("by_family", {}))})
    for family in families:
        cells = []
        for run in runs:
            spread = ((run.summary.trials or {}).get("by_family") or {}).get(family)
            cells.append(f"{spread['mean']:.0%} ± {spread['std']:.0%}" if spread else MISSING)
        rows.append((f"{family} success over trials", cells))
    means = [run.summary.extra.get("construction_mean_score") for run in runs]  # the family's own figure
    if any(mean is not None for mean in means):
        rows.append(("construction mean score", [_number(mean, ".2f") for mean in means]))
    rows.append(("tokens", [_number(run.summary.tokens, ",") for run in runs]))
    rows.append(("cost (USD)", [_number(run.summary.cost_usd, ".4f") for run in runs]))
    return rows


def comparison_table(runs: Sequence[RunSummary]) -> str:
    """The comparison as aligned text: a header of run labels, then comparison_rows."""
    rows = [("", [run.label for run in runs])] + comparison_rows(runs)
    first = max(len(name) for name, _ in rows)
    widths = [max(len(cells[i]) for _, cells in rows) for i in range(len(runs))]
    return "\n".join(f"{name:<{first}}  " + "  ".join(f"{cell:>{w}}" for cell, w in zip(cells, widths, strict=True))
                     for name, cells in rows).rstrip()


def comparison_chart(runs: Sequence[RunSummary], path: Path) -> None:
    """Grouped bars of success rate, one colour per run: overall and by family, then a panel per breakdown."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[str, list[str]] = {"family": ["all", *_values(runs, "family")]}
    for key in BREAKDOWN_KEYS[1:]:
        values = _values(runs, key)
        if any(value != "unknown" for value in values):
            panels[key] = values
    columns = min(3, len(panels))
    lines = -(-len(panels) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 4 * lines), squeeze=False)
    width = 0.8 / max(1, len(runs))
    for ax, (key, values) in zip(axes.flat, panels.items(), strict=False):
        for n, run in enumerate(runs):
            heights = [_success_rate(run, key, value) for value in values]
            where = [i + (n - (len(runs) - 1) / 2) * width for i in range(len(values))]
            ax.bar(where, [0.0 if h is None else h for h in heights], width, label=run.label, color=f"C{n % 10}")
            for x, height in zip(where, heights, strict=True):
                if height is not None:  # a 0% bar is drawn as its label; a run without the value gets none
                    ax.text(x, height + 0.01, f"{height:.0%}", ha="center", fontsize=7)
        ax.set_xticks(range(len(values)), values, fontsize=8)
        ax.set_xlim(-0.6, len(values) - 0.4)
        ax.set_ylim(0, 1.1)
        ax.set_title("success overall and by family" if key == "family" else f"success by {key.replace('_', ' ')}",
                     fontsize=9)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    axes.flat[0].set_ylabel("success rate")
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def compare_runs(paths: Sequence[str | Path], out: Path, say: Callable[[str], None] = print) -> int:
    """`mindpy eval compare`: print the table, write the chart; 1 when a folder was left out or none could be read."""
    runs, problems = load_runs(paths)
    for line in problems:
        say(f"left out: {line}")
    if not runs:
        say("nothing to compare: none of the folders holds a summary.json")
        return 1
    clash = settings_clash(runs)
    if clash:
        say(clash)
        return 1
    say(comparison_table(runs))
    comparison_chart(runs, out)
    say(f"Chart: {out}")
    return 1 if problems else 0


MIXABLE = ("cheat",)           # settings a run's episodes may differ in ("mixed")
DEFUSE_PREFIX = "defuse."       # defuse's settings, as the clash line names them


def settings_clash(runs: Sequence[RunSummary]) -> str | None:
    """One line refusing the comparison when the runs were played with different recorded settings: building
    assistance (--cheat: blocks set with /setblock, against placing them by hand), the ablations
    (mindpy.harness.ablations: communication, tools, the joining message, the temperature, the prompt) and how
    defuse episodes were played (its `defuse` section's settings: history, validity rule...); None when they
    agree. A run that predates a setting's record is not counted for that setting; one whose episodes mixed a
    setting ("mixed") clashes with every other run that records it, another mixed one included."""
    settings = {run.label: _settings(run) for run in runs}
    differ = sorted({key for a, b in combinations(settings.values(), 2) for key in a.keys() & b.keys()
                     if a[key] != b[key] or (key in MIXABLE or key.startswith(DEFUSE_PREFIX))
                     and MIXED in (a[key], b[key])})
    if not differ:
        return None
    shown = "; ".join(f"{label}: " + ", ".join(f"{key}={value[key]}" for key in differ if key in value)
                      for label, value in settings.items() if any(key in value for key in differ))
    return f"not comparable: the runs were played with different settings ({shown}); compare runs of one setting"


def _settings(run: RunSummary) -> dict[str, Any]:
    """The settings a run's summary records: `cheat`, each ablation and defuse's (none for runs from before the
    records)."""
    out: dict[str, Any] = {}
    if run.summary.cheat is not None:
        out["cheat"] = run.summary.cheat
    ablations = run.summary.extra.get("ablations")
    if isinstance(ablations, dict):
        out.update(ablations)
    defuse = run.summary.families.get("defuse")
    played = defuse.get("settings") if isinstance(defuse, dict) else None
    if isinstance(played, dict):  # its summary.py's record; "paper_setting" only sums the others up
        out.update({DEFUSE_PREFIX + key: value for key, value in played.items() if key != "paper_setting"})
    return out


def _values(runs: Sequence[RunSummary], key: str) -> list[str]:
    """Every value of a breakdown key that any run has, in order."""
    return sorted({value for run in runs for value in run.breakdowns.get(key, {})}, key=value_order)


def _success_rate(run: RunSummary, key: str, value: str) -> float | None:
    if key == "family" and value == "all":
        return run.summary.success_rate
    part = run.breakdowns.get(key, {}).get(value)
    return part["success_rate"] if part else None


def _overall_wins(summary: Summary) -> int | None:
    rate, played = summary.success_rate, summary.played
    return round(rate * played) if isinstance(rate, (int, float)) and isinstance(played, int) else None


def _rate(rate: float | None, wins: int | None, episodes: int | None) -> str:
    """'75% (3/4)'; '-' without a rate."""
    if rate is None:
        return MISSING
    return f"{rate:.0%}" + (f" ({wins}/{episodes})" if wins is not None and episodes is not None else "")


def _number(value, form: str) -> str:
    return MISSING if value is None else format(value, form)
