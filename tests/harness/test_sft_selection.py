"""Which episodes SFT export keeps: those scoring 1, and, in a family judged by its mean score (construction), the
best quarter of that family's episodes (MINDcraft's rule), each family cut apart."""

from pathlib import Path

from mindpy.harness.sft import successful
from mindpy.tasks.records import EpisodeResult


def episode(kind: str, score: float, n: int) -> tuple[Path, EpisodeResult]:
    return Path(f"run{n}"), EpisodeResult.from_dict({"task_id": f"t{n}", "type": kind, "score": score,
                                                     "end_reason": "timeout"})


def test_construction_keeps_its_best_quarter_and_the_others_only_full_scores():
    runs = [episode("construction", s, i) for i, s in enumerate((0.9, 0.2, 0.5, 0.95, 0.4, 0.7, 0.1, 0.3))]
    runs += [episode("techtree", 1.0, 10), episode("techtree", 0.5, 11), episode("cooking", 1.0, 12)]
    kept = {result.task_id for _, result in successful(runs)}
    assert kept == {"t3", "t0", "t10", "t12"}  # 2 of 8 construction episodes (0.95, 0.9); crafting at 1 only


def test_a_construction_episode_scoring_nothing_is_never_kept():
    assert successful([episode("construction", 0.0, 1)]) == []
