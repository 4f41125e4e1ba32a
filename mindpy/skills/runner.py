"""Runs one JS skill per call on the bridge, with a timeout and an interrupt that works from any thread."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..bridge import Bot
from ..bridge.runtime import call_js
from ..errors import BridgeError, BridgeTimeout

# the mineflayer plugin that registers every skill on a bot (js/core.js runs them)
SKILLS_JS = Path(__file__).resolve().parent / "js" / "index.js"
DEFAULT_TIMEOUT = 300.0
# Node's timers hold at most 2^31 - 1 ms (24.8 days; a longer one fires at once), and no skill needs over a day.
LONGEST_SKILL_S = 24 * 3600.0


@dataclass
class SkillResult:
    """How a skill ended: success flag, the messages it logged, and whether it was interrupted or failed."""

    ok: bool
    messages: list[str] = field(default_factory=list)
    interrupted: bool = False
    error: str | None = None

    @property
    def output(self) -> str:
        lines = list(self.messages)
        if self.error:
            lines.append(self.error)
        if self.interrupted:
            lines.append("(interrupted)")
        return "\n".join(lines)


def skill_time_limit(seconds: float) -> float:
    """A skill's time limit as Node can hold it: at least a second, at most LONGEST_SKILL_S (NaN counts as the
    longest)."""
    if math.isnan(seconds):
        return LONGEST_SKILL_S
    return min(max(float(seconds), 1.0), LONGEST_SKILL_S)


class SkillRunner:
    """One per bot. `run` blocks until the skill ends, is interrupted, or times out."""

    def __init__(self, bot: Bot):
        self.bot = bot
        self.js = bot.load_plugin(SKILLS_JS)

    def run(self, name: str, *args, timeout: float = DEFAULT_TIMEOUT) -> SkillResult:
        # the JS side enforces `timeout`; the bridge's own limit is only a backstop well after it
        timeout = skill_time_limit(timeout)
        backstop = timeout + 60
        try:
            raw = call_js(lambda: self.js.run(self.bot.js, name, json.dumps(list(args)), int(timeout * 1000),
                                              timeout=backstop), f"skill {name}", timeout=backstop)
        except BridgeTimeout:
            return SkillResult(False, error=f"{name} did not answer within {backstop:.0f} s.")
        except BridgeError as exc:
            return SkillResult(False, error=f"{name} failed: {exc}")
        data = json.loads(raw)
        return SkillResult(bool(data.get("ok")), list(data.get("messages", [])), bool(data.get("interrupted")),
                           data.get("error"))

    def interrupt(self) -> None:
        """Stop the running skill (it notices within about 100 ms)."""
        call_js(lambda: self.js.interrupt(self.bot.js), "interrupting a skill", timeout=10)

    def running(self) -> str | None:
        """The name of the skill running now (None when none is)."""
        return call_js(lambda: self.js.runningSkill(self.bot.js), "reading the running skill", timeout=10) or None

    def set_cheat(self, on: bool) -> None:
        call_js(lambda: self.js.setCheat(self.bot.js, bool(on)), "setting cheat mode")

    def protect_blocks(self, names: list[str]) -> None:
        """Blocks the bot's walking must never break (the pathfinder digs through blocks in its way otherwise)."""
        call_js(lambda: self.js.setProtectedBlocks(self.bot.js, json.dumps(sorted(names))), "protecting blocks")

    def restrict_to_inventory(self, on: bool) -> None:
        """With cheat mode on, place only blocks the bot holds (a task's `restrict_to_inventory`, as MINDcraft)."""
        call_js(lambda: self.js.setRestrictToInventory(self.bot.js, bool(on)), "restricting to the inventory")
