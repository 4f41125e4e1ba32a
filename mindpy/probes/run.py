"""Ask a model every probe of a set, several times over, and score it per category against random guessing.

    from mindpy.models import create_model
    report = run_probes(read_probes("tasks/probes_example.jsonl").probes, create_model("gpt-4o-mini"), trials=3)
    print(format_table(report))       # per category: accuracy mean ± std over trials, beside the random baseline
    write_report(report, "out/")      # out/report.json, out/report.txt, out/report.png (when matplotlib is there)

Each question is one single-turn chat with no tools: the scene, the question, the lettered options and the
instruction to give the letter after "Answer:". Replies are read with `parse_answer`, or for a probe whose
`matching` is "coordqa" (an imported CoordQA question) with `parse_answer_coordqa`, LLM-Coordination's rule; an
unreadable reply or a failed call counts as wrong. A probe's `context` comes first in the message and its `system`
replaces SYSTEM. The random baseline of a category is the mean over its questions of (right options)/(options):
the accuracy a uniform guesser expects.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..models import ChatModel, ModelError
from .answers import letter, parse_answer, parse_answer_coordqa
from .record import CATEGORIES, Probe

SYSTEM = "You answer multiple-choice questions about two Minecraft players working together."
ALL = "all"  # the row that pools every category


def build_prompt(probe: Probe) -> str:
    """The single user message for one probe."""
    options = "\n".join(f"{letter(i)}. {text}" for i, text in enumerate(probe.options))
    context = f"{probe.context.strip()}\n\n" if probe.context.strip() else ""
    state = f"{probe.state.strip()}\n\n" if probe.state.strip() else ""
    if probe.matching == "coordqa":  # that rule reads a letter only when a full stop or ")" follows it
        ask_for = "Answer with the letter of your choice and a full stop after 'Answer:', as in 'Answer: B.'."
    else:
        ask_for = "Answer with the letter of your choice after 'Answer:'."
    return f"{context}{state}{probe.question.strip()}\n\nAvailable answers:\n{options}\n\n{ask_for}"


def read_choice(probe: Probe, reply: str) -> int | None:
    """The option a reply chose, read the way the probe says (its `matching`)."""
    if probe.matching == "coordqa":
        return parse_answer_coordqa(reply, probe.options)
    return parse_answer(reply, probe.options)


@dataclass
class ProbeAnswer:
    """One reply to one probe in one trial."""

    probe_id: str
    category: str
    trial: int
    reply: str
    chosen: int | None  # None: the reply named no option
    correct: bool
    error: str = ""  # the model call failed: reply is empty


@dataclass
class CategoryScore:
    """Accuracy of one category (or of all, pooled): per trial, mean and spread over trials, random baseline."""

    category: str
    questions: int
    per_trial: list[float]
    mean: float
    std: float  # population std over trials: 0 with one trial
    random_baseline: float
    unparsed: int  # replies (over all trials) that named no option


@dataclass
class ProbeReport:
    """Everything a probe run produced."""

    model: str
    trials: int
    scores: list[CategoryScore]
    answers: list[ProbeAnswer] = field(default_factory=list)
    source: str = ""
    skipped_lines: list[str] = field(default_factory=list)

    def score(self, category: str) -> CategoryScore:
        for s in self.scores:
            if s.category == category:
                return s
        raise KeyError(f"no score for category {category!r} (have: {', '.join(s.category for s in self.scores)})")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def ask(model: ChatModel, probe: Probe, trial: int = 0) -> ProbeAnswer:
    """Ask one probe once; a failed call is recorded as an unanswered (wrong) reply."""
    try:
        reply = model.send([{"role": "user", "content": build_prompt(probe)}], system=probe.system or SYSTEM).text
    except ModelError as exc:
        return ProbeAnswer(probe.id, probe.category, trial, "", None, False, error=str(exc))
    chosen = read_choice(probe, reply)
    return ProbeAnswer(probe.id, probe.category, trial, reply, chosen, chosen in probe.right)


def score(probes: list[Probe], answers: list[ProbeAnswer], trials: int) -> list[CategoryScore]:
    """One score per category present (in CATEGORIES order), then the pooled 'all' row."""
    groups = [(c, [p for p in probes if p.category == c]) for c in CATEGORIES]
    groups = [(c, ps) for c, ps in groups if ps] + [(ALL, probes)]
    rows = []
    for category, members in groups:
        ids = {p.id for p in members}
        mine = [a for a in answers if a.probe_id in ids]
        per_trial = [sum(a.correct for a in mine if a.trial == t) / len(members) for t in range(trials)]
        rows.append(CategoryScore(
            category=category, questions=len(members), per_trial=per_trial,
            mean=statistics.fmean(per_trial), std=statistics.pstdev(per_trial),
            random_baseline=statistics.fmean(len(p.right) / len(p.options) for p in members),
            unparsed=sum(1 for a in mine if a.chosen is None)))
    return rows


def run_probes(probes: list[Probe], model: ChatModel, trials: int = 1) -> ProbeReport:
    """Ask every probe `trials` times (trial by trial) and score the replies."""
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    if not probes:
        raise ValueError("no probes to run: the probe file is empty or every line was malformed")
    answers = [ask(model, probe, trial) for trial in range(trials) for probe in probes]
    return ProbeReport(model=model.describe(), trials=trials, scores=score(probes, answers, trials), answers=answers)


def format_table(report: ProbeReport) -> str:
    """A plain-text table: one row per category, accuracy as mean ± std in percent, beside random guessing."""
    lines = [f"model {report.model}, {report.trials} trial(s)",
             f"{'category':<9}{'questions':>10}{'accuracy':>18}{'random':>9}{'unparsed':>10}"]
    for s in report.scores:
        accuracy = f"{100 * s.mean:.1f} ± {100 * s.std:.1f}%"
        lines.append(f"{s.category:<9}{s.questions:>10}{accuracy:>18}{100 * s.random_baseline:>8.1f}%"
                     f"{s.unparsed:>10}")
    return "\n".join(lines)


def plot_report(report: ProbeReport, path: Path) -> bool:
    """A bar chart of accuracy per category with random-baseline markers; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: never open a window
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [s.category for s in report.scores]
    positions = list(range(len(names)))
    figure, axes = plt.subplots(figsize=(1.4 * len(names) + 2, 3.5))
    axes.bar(positions, [100 * s.mean for s in report.scores], yerr=[100 * s.std for s in report.scores],
             capsize=4, color="#4c72b0", label="model")
    axes.scatter(positions, [100 * s.random_baseline for s in report.scores], marker="_", s=600, color="#c44e52",
                 zorder=3, label="random")
    axes.set_xticks(positions, names)
    axes.set_ylim(0, 100)
    axes.set_ylabel("accuracy (%)")
    axes.set_title(f"{report.model} ({report.trials} trial(s))", fontsize=9)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def write_report(report: ProbeReport, out: str | Path) -> list[Path]:
    """Write report.json, report.txt and (with matplotlib) report.png into `out`; returns the files written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "report.json", out / "report.txt"]
    written[0].write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written[1].write_text(format_table(report) + "\n", encoding="utf-8")
    if plot_report(report, out / "report.png"):
        written.append(out / "report.png")
    return written
