"""Which world an embedded server plays: the `--world` choice of the commands that start one, and how to name it."""

from __future__ import annotations


def world_choice(value: str | None) -> tuple[str | None, str | None]:
    """`--world`: 'flat' or 'normal' name a generator (the world is not saved); anything else is a folder to keep
    the world in, generated as the folder records (normal for a new one)."""
    if value in (None, "flat", "normal"):
        return value, None
    return None, value


def world_summary(server) -> str:
    """'normal world, seed 42, kept in DIR': what a person joining will find (a flat world has no seed to tell)."""
    seed = f", seed {server.seed}" if server.world == "normal" else ""
    kept = f", kept in {server.world_folder}" if server.world_folder else ""
    return f"{server.world} world{seed}{kept}"
