"""What a coblock episode's result adds: the paper's timesteps, refused actions, messages, placements per agent and
the workload balance gamma (mindpy.tasks.results' module doc lists the fields), and `coblock_settings`: the prompt
settings the agents played with (partner_modelling, reflection and our options; summary.json's coblock section
merges them as `settings`, "mixed" where episodes differ)."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...records import MIXED
from ...results import BREAK, PLACE
from ...schema import Task
from .site import structure_cells
from .workload import optimal_assignment, workload_balance

WAIT, END = "wait", "endTask"  # the paper's other actions, as commands (a message is counted as a message)


def merged_settings(records: list[Any]) -> dict[str, Any] | None:
    """One settings record for all episodes: each key's value when they agree, else "mixed" (None: no episode
    recorded its settings, as results written before they were)."""
    kept = [r for r in records if isinstance(r, dict)]
    if not kept:
        return None
    keys = dict.fromkeys(k for r in kept for k in r)
    return {key: kept[0].get(key) if len({json.dumps(r.get(key)) for r in kept}) == 1 and len(kept) == len(records)
            else MIXED for key in keys}


def coblock_metrics(recorder: Any, agents: dict[str, dict]) -> dict:
    """The coblock fields of a result (the module doc of mindpy.tasks.results says what each is), and each
    agent's `commands_failed` added to its entry of `agents`."""
    for name, entry in agents.items():
        entry["commands_failed"] = dict(sorted(recorder.failed.get(name, Counter()).items()))
    names = sorted(set(recorder.agent_names) | set(recorder.commands) | set(recorder.failed), key=recorder.order)
    done = {name: recorder.succeeded(name) for name in names}
    placed = {name: done[name][PLACE] for name in names}
    broken = {name: done[name][BREAK] for name in names}
    gamma, note = coblock_gamma(recorder.task, [placed.get(name, 0) for name in recorder.agent_names])
    built = sum(placed.values()) + sum(broken.values())
    messages = sum(recorder.messages.values())
    # the paper's actions: place, remove, message, wait and end; counted as they happen, so that the last round's
    # are in even when the structure is found complete before the round has ended
    waits_and_ends = sum(done[name][WAIT] + done[name][END] for name in names)
    return {
        "timesteps": built + messages + waits_and_ends,
        "build_actions": built,
        "refused_actions": sum(recorder.failed.get(name, Counter())[kind] for name in names for kind in (PLACE, BREAK)),
        "messages": messages,
        "placed_by_agent": placed,
        "broken_by_agent": broken,
        "gamma": gamma,
        "gamma_note": note,
        "rounds": recorder.rounds,
        "coblock_settings": recorded_settings(recorder.task),
    }


def recorded_settings(task: Task) -> dict[str, Any] | None:
    """The prompt settings the episode's agents played with (record.SETTINGS: the paper's switches and our options),
    as the team's public record keeps them: each key's value when the agents agree, else "mixed"; None when no
    agent recorded its settings (agents built without the family's configure_agent)."""
    from .record import record_for

    record = record_for(task)
    kept = list(record.settings.values()) if record is not None else []
    if not kept:
        return None
    return {key: kept[0].get(key) if len({r.get(key) for r in kept}) == 1 else MIXED for key in kept[0]}


def coblock_gamma(task: Task, placed: Sequence[int]) -> tuple[float | None, str | None]:
    """(γ, None), or (None, why γ is undefined), for the successful placements of the task's agents in task order.
    The optimal split comes from the colours each agent holds at the start (mindpy.tasks.families.coblock.workload)."""
    if task.agent_count != 2 or task.human_count:
        return None, (f"γ compares two agents' placements; this task has {task.agent_count} agent(s) and "
                      f"{task.human_count} human player(s), whose placements are not recorded")
    colours = [_colours(task.inventory_for(i)) for i in (0, 1)]
    best = optimal_assignment(colours[0], colours[1], list(structure_cells(task).values()))
    n_a, n_b = (int(n) for n in (list(placed) + [0, 0])[:2])
    gamma = workload_balance(n_a, n_b, best)
    if math.isnan(gamma):
        return None, "N_a* = 0: agent 0 holds none of the structure's colours, so its optimal share is empty"
    if n_a == n_b == 0:
        return gamma, "nobody placed a block"
    return gamma, None


def _colours(inventory: Mapping[str, int]) -> set[str]:
    return {item for item, n in inventory.items() if n > 0}


def coblock_summary(rows: list[dict]) -> dict | None:
    """For the played coblock episodes: mean γ over those where it is defined, mean timesteps, and mean rounds
    over those played in rounds (each mean None when no episode has the value); None without coblock episodes."""
    if not rows:
        return None

    def mean_of(key: str) -> tuple[float | None, int]:
        values = [float(r[key]) for r in rows if r.get(key) not in (None, "")]
        return (sum(values) / len(values) if values else None), len(values)

    gamma, with_gamma = mean_of("gamma")
    timesteps, _ = mean_of("timesteps")
    rounds, in_rounds = mean_of("rounds")
    return {"episodes": len(rows), "mean_gamma": gamma, "episodes_with_gamma": with_gamma,
            "mean_timesteps": timesteps, "mean_rounds": rounds, "episodes_in_rounds": in_rounds,
            "settings": merged_settings([_result(row).get("coblock_settings") for row in rows])}


def _result(row: dict) -> dict:
    """The row's episode result.json ({} when it cannot be read)."""
    try:
        data = json.loads((Path(row["run_dir"]) / "result.json").read_text())
    except (OSError, ValueError, TypeError, KeyError):
        return {}
    return data if isinstance(data, dict) else {}
