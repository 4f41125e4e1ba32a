"""The environments' ids, one per task family: `mindpy/<family>-v0`. The families played toward goals (crafting,
cooking, construction, coblock) share one Gymnasium env and one PettingZoo env; orders and defuse, which play their
own way, have their own: orders the dispatcher, in Gymnasium and in PettingZoo (one agent), defuse the team in
PettingZoo only (no agent of it plays alone)."""

from __future__ import annotations

import importlib
from typing import Any

GOAL_FAMILIES = ("crafting", "cooking", "construction", "coblock")
FAMILIES = (*GOAL_FAMILIES, "orders", "defuse")
ENV_IDS = tuple(f"mindpy/{family}-v0" for family in FAMILIES)
# family -> (Gymnasium entry point, or None: no single-agent env; PettingZoo class)
ENTRY_POINTS: dict[str, tuple[str | None, str]] = {
    **{family: ("mindpy.env.gym_env:MindpyEnv", "mindpy.env.parallel:MindpyParallelEnv") for family in GOAL_FAMILIES},
    "orders": ("mindpy.env.orders_env:OrdersEnv", "mindpy.env.orders_env:OrdersParallelEnv"),
    "defuse": (None, "mindpy.env.defuse_env:DefuseParallelEnv"),
}
GYM_IDS = tuple(env_id for env_id, family in zip(ENV_IDS, FAMILIES, strict=True) if ENTRY_POINTS[family][0])


def register_envs() -> None:
    """Register every id that has a Gymnasium env (again is harmless). The game runs in real time beside the
    learner, so an episode is not exactly reproducible step by step: the ids say `nondeterministic` (a seed
    reproduces the world a reset sets up, not the timing of what follows)."""
    import gymnasium

    for family, env_id in zip(FAMILIES, ENV_IDS, strict=True):
        entry = ENTRY_POINTS[family][0]
        if entry is not None and env_id not in gymnasium.registry:
            kwargs = {"family": family} if family in GOAL_FAMILIES else {}
            gymnasium.register(env_id, entry_point=entry, kwargs=kwargs, nondeterministic=True,
                               disable_env_checker=False)


def family_of_id(env_id: str) -> str:
    """The family an id names ("mindpy/cooking-v0" -> "cooking"); ValueError for an id that is not one of ours."""
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment id {env_id!r}; mindpy's are {', '.join(ENV_IDS)}")
    return FAMILIES[ENV_IDS.index(env_id)]


def parallel_env(env_id: str = ENV_IDS[0], **kwargs: Any) -> Any:
    """The PettingZoo environment of `env_id`, with its class's arguments (MindpyParallelEnv's for the families
    played toward goals)."""
    family = family_of_id(env_id)
    module, name = ENTRY_POINTS[family][1].split(":")
    cls = getattr(importlib.import_module(module), name)
    return cls(family, **kwargs) if family in GOAL_FAMILIES else cls(**kwargs)
