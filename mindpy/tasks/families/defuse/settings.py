"""How a defuse episode is played: the paper's setting unless an option of ours is named, and what result.json and
summary.json say of it.

    DefuseSettings()                                   # the paper's: two rounds of history, its validity rule...
    DefuseSettings.from_options({"defuse_long_history": True}).record()["history_rounds"]   # 6

Options (episode switches: `mindpy run --task` and `mindpy eval` flags, a family's `episode_options`):
- `belief_state` (--belief-state): the paper's belief-state condition, a written belief kept beside the history;
- `tom_probes` (--tom-probes): the paper's theory-of-mind questions, balanced (tom_probes.py);
- `defuse_long_history` (--defuse-long-history, ours): the previous 6 rounds in the prompt, not the paper's 2;
- `defuse_lenient_validity` (--defuse-lenient-validity, ours): waits and message-only replies count as valid;
- `defuse_show_phases` (--defuse-show-phases, ours): an uninspected bomb shows how many phases it has left.
The deadlock end (deadlock.py) and one bomb a room (layout.py) are the paper's and always apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .deadlock import DEADLOCK_ROUNDS

PAPER_HISTORY_ROUNDS = 2   # "history from the previous two rounds" (section 4)
LONG_HISTORY_ROUNDS = 6    # ours before
OPTIONS = ("belief_state", "tom_probes", "defuse_long_history", "defuse_lenient_validity", "defuse_show_phases")


@dataclass(frozen=True)
class DefuseSettings:
    """The switches of a defuse episode (see the module doc); all False is the paper's setting."""

    belief_state: bool = False
    tom_probes: bool = False
    defuse_long_history: bool = False
    defuse_lenient_validity: bool = False
    defuse_show_phases: bool = False

    @classmethod
    def from_options(cls, *sources: Mapping[str, Any]) -> DefuseSettings:
        """The settings the first source to name each option gives (the family's options, then the profile's)."""
        unknown = {key for source in sources for key in source if key.startswith("defuse_")} - set(OPTIONS)
        if unknown:
            raise ValueError(f"unknown defuse option(s) {sorted(unknown)}: the options are {', '.join(OPTIONS)}")
        return cls(**{name: any(bool(source.get(name)) for source in sources) for name in OPTIONS})

    @property
    def history_rounds(self) -> int:
        return LONG_HISTORY_ROUNDS if self.defuse_long_history else PAPER_HISTORY_ROUNDS

    def record(self) -> dict[str, Any]:
        """What result.json keeps under `defuse_settings` (summary.json: the same, or "mixed" per key)."""
        return {"history_rounds": self.history_rounds,
                "valid_actions": "lenient" if self.defuse_lenient_validity else "paper",
                "phases_before_inspection": self.defuse_show_phases, "belief_state": self.belief_state,
                "tom_probes": "balanced" if self.tom_probes else False, "deadlock_rounds": DEADLOCK_ROUNDS,
                "paper_setting": not (self.defuse_long_history or self.defuse_lenient_validity or
                                      self.defuse_show_phases)}
