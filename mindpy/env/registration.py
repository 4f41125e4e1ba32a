"""The environments' ids in Gymnasium's registry, one per task family they serve: `mindpy/<family>-v0`."""

from __future__ import annotations

from typing import Any

FAMILIES = ("crafting", "cooking", "construction")
ENV_IDS = tuple(f"mindpy/{family}-v0" for family in FAMILIES)
ENTRY_POINT = "mindpy.env.gym_env:MindpyEnv"


def register_envs() -> None:
    """Register every id with Gymnasium (again is harmless). The game runs in real time beside the learner, so
    an episode is not exactly reproducible step by step: the ids say `nondeterministic` (a seed reproduces the
    world a reset sets up, not the timing of what follows)."""
    import gymnasium

    for family, env_id in zip(FAMILIES, ENV_IDS, strict=True):
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=ENTRY_POINT, kwargs={"family": family}, nondeterministic=True,
                               disable_env_checker=False)


def family_of_id(env_id: str) -> str:
    """The family an id names ("mindpy/cooking-v0" -> "cooking"); ValueError for an id that is not one of ours."""
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment id {env_id!r}; mindpy's are {', '.join(ENV_IDS)}")
    return FAMILIES[ENV_IDS.index(env_id)]


def parallel_env(env_id: str = ENV_IDS[0], **kwargs: Any) -> Any:
    """The PettingZoo environment of `env_id` (the Gymnasium id of the same family), with MindpyParallelEnv's
    arguments."""
    from .parallel import MindpyParallelEnv

    return MindpyParallelEnv(family_of_id(env_id), **kwargs)
