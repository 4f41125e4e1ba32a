"""Defuse baselines on the test split, played by the episodes' round loop (TeamPlay) without a world: the `random`
model's team (the paper's random baseline, Table 1: 38 +- 14.7 points in 30.0 rounds), the `oracle` model's
scripted team, and constant probers (always yes, always no) answering the balanced ToM probes asked while the
oracle team plays.

    python benchmarks/bench_defuse_baselines.py --trials 3      # 30 tasks x 3 trials
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from mindpy.models import create_model
from mindpy.models.replay import ReplayModel
from mindpy.tasks.families.defuse.play import TeamPlay, _seed_of, defuse_game, tell_models
from mindpy.tasks.families.defuse.tom_probes import ProbeScore
from mindpy.tasks.loader import read_task_file

TASKS = Path(__file__).resolve().parent.parent / "tasks" / "defuse_test.json"
NAMES = ["alpha", "bravo", "charlie"]


def team_play(task, model: str, trial: int, probe_word: str | None = None) -> TeamPlay:
    """One episode's play of `task` by a team of `model` (trial numbers from 1, as `mindpy eval --trials`)."""
    game = defuse_game(task)
    goals = [task.goal_for(i) for i in range(game.agent_count)]
    models = [create_model(model) for _ in goals]
    tell_models(models, task, NAMES, trial - 1)
    probers = None if probe_word is None else [ReplayModel([], default=probe_word) for _ in goals]
    play = TeamPlay(game, models, goals, names=NAMES, tom_probes=probers is not None, probe_models=probers,
                    probe_seed=_seed_of(task.id))
    play.run()
    return play


def describe(plays: list[TeamPlay]) -> str:
    points = [p.game.score for p in plays]
    rounds = [p.game.rounds_used for p in plays]
    valid = [p.game.valid_rate() for p in plays]
    ends = {reason: sum(1 for p in plays if (p.game.stopped or ("success" if p.game.score == 90 else "limit"))
                        == reason) for reason in ("success", "deadlock", "limit")}
    return (f"{len(plays)} episodes: points {statistics.fmean(points):.1f} +- {statistics.pstdev(points):.1f}, "
            f"rounds {statistics.fmean(rounds):.1f} +- {statistics.pstdev(rounds):.1f}, valid actions "
            f"{statistics.fmean(valid):.1%}; ends {ends}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    tasks = [read_task_file(TASKS).task(t) for t in sorted(read_task_file(TASKS).tasks,
                                                            key=lambda t: int(t.split("_")[1]))]
    start = time.perf_counter()
    for model in ("random", "oracle"):
        plays = [team_play(task, model, trial) for task in tasks for trial in range(1, args.trials + 1)]
        print(f"{model:7s} team: {describe(plays)}")
    for word in ("Yes.", "No."):
        score = ProbeScore()
        for task in tasks:
            summary = team_play(task, "oracle", 1, word).probe_score.summary()
            score = ProbeScore.merge([score.summary(), summary])
        line = ", ".join(f"{level} {s['accuracy']:.1%} of {s['asked']}" for level, s in score.summary().items())
        print(f"always {word.rstrip('.').lower():3s}: {line}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
