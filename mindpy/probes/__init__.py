"""Coordination probes: multiple-choice questions (EC, ToM, JP) about a scene, asked to a model and scored.

    from mindpy.probes import read_probes, run_probes, format_table
    report = run_probes(read_probes("tasks/probes_example.jsonl").probes, model, trials=3)
    print(format_table(report))
"""

from .answers import parse_answer, parse_answer_coordqa
from .record import CATEGORIES, Probe, ProbeFile, parse_probes, read_probes, write_probes
from .run import CategoryScore, ProbeAnswer, ProbeReport, build_prompt, format_table, run_probes, write_report

__all__ = ["CATEGORIES", "CategoryScore", "Probe", "ProbeAnswer", "ProbeFile", "ProbeReport", "build_prompt",
           "format_table", "parse_answer", "parse_answer_coordqa", "parse_probes", "read_probes", "run_probes",
           "write_probes", "write_report"]
