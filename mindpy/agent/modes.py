"""Modes: automatic behaviours checked every update tick, in priority order.

Each mode looks at one observation of the bot's surroundings (one JS call per tick for all modes) and may
start an action through the action manager. A mode may interrupt the running action only if its
`interrupts` list allows it ('all', or specific action labels); otherwise it acts only when the agent is idle.
What modes do is written to the behaviour log the model is shown.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..world import observe as world_observe

log = logging.getLogger(__name__)

BEHAVIOR_LOG_LIMIT = 500


@dataclass
class Mode:
    """A named automatic behaviour: its on/paused flags, which actions it may interrupt, and its per-tick state."""

    name: str
    description: str
    on: bool = True
    interrupts: list[str] = field(default_factory=list)  # 'all' or action labels it may cut short
    active: bool = False
    paused: bool = False
    state: dict = field(default_factory=dict)

    def update(self, ctl: ModeController, obs: dict) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class SelfPreservation(Mode):
    """Jump while in water; flee falling blocks, fire or lava; run away when health is low and dropping."""

    def update(self, ctl, obs):
        if obs["inWater"]:
            if not self.state.get("jumping"):
                ctl.set_jump(True)
                self.state["jumping"] = True
            return
        if self.state.pop("jumping", False):
            ctl.set_jump(False)
        if obs["fallingBlockAbove"]:
            ctl.execute(self, "A block is falling on me! Moving away.", lambda s: s.move_away(2))
        elif obs["inLava"] or obs["onFire"] or obs["hotNearby"]:
            ctl.execute(self, "I'm on fire or next to lava! Getting away.", lambda s: s.move_away(5))
        elif obs["health"] < 5 and obs["health"] < self.state.get("last_health", 20):
            ctl.execute(self, "I'm dying! Running away.", lambda s: s.move_away(20))
        self.state["last_health"] = obs["health"]


class Unstuck(Mode):
    """No movement for `max_stuck_seconds` while an action runs: move away a little. A skill's report (a block
    placed or broken where the bot stands, the end of any skill call, failed or not) is progress too, as MINDcraft
    counts a dig in progress: a builder placing a wall from one spot is not stuck."""

    max_stuck_seconds = 20.0
    min_distance = 2.0
    ignore = ("stay", "followPlayer", "goToBed", "consume", "smeltItem", "mode:")

    def update(self, ctl, obs):
        label = ctl.actions.current_label
        pos = obs["position"]
        if not label or any(word in label for word in self.ignore):
            self.state.clear()
            return
        anchor = self.state.get("anchor")
        now = time.monotonic()
        reports = obs.get("skillReports", 0)
        if anchor is None or _distance(anchor, pos) > self.min_distance or reports != self.state.get("reports"):
            self.state.update(anchor=pos, since=now, reports=reports)
            return
        if now - self.state["since"] > self.max_stuck_seconds:
            self.state.clear()
            ctl.execute(self, "I'm stuck! Moving away to get free.", lambda s: s.move_away(5))


class Cowardice(Mode):
    """Run away from a hostile mob within 16 blocks."""

    def update(self, ctl, obs):
        hostile = obs["hostile"]
        if hostile and hostile["distance"] < 16:
            ctl.execute(self, f"Aaa! A {hostile['name']}! Running away.",
                        lambda s: s.avoid_entity(hostile["id"], 24))


class SelfDefense(Mode):
    """Attack a hostile mob that comes within 8 blocks."""

    def update(self, ctl, obs):
        hostile = obs["hostile"]
        if hostile and hostile["distance"] < 8:
            ctl.execute(self, f"Fighting a {hostile['name']}!", lambda s: s.attack(hostile["name"], True))


class Hunting(Mode):
    """Attack a nearby huntable animal when the agent is idle."""

    def update(self, ctl, obs):
        prey = obs["huntable"]
        if prey and ctl.is_idle():
            ctl.execute(self, f"Hunting a {prey['name']}.", lambda s: s.attack(prey["name"], True))


class ItemCollecting(Mode):
    """Pick up dropped items nearby once they have lain there a moment (so a catch in flight is not chased)."""

    wait_seconds = 2.0

    def update(self, ctl, obs):
        item = obs["item"]
        if not item or not ctl.is_idle():
            self.state.clear()
            return
        if ctl.now() < self.state.get("quiet_until", 0):
            return
        first_seen = self.state.setdefault(item["id"], ctl.now())
        if ctl.now() - first_seen >= self.wait_seconds:
            self.state.pop(item["id"], None)
            ctl.execute(self, "Picking up items nearby.", lambda s: s.pickup_nearby_items(8))

    def quiet_for(self, seconds: float, now: float) -> None:
        """Leave items alone for a while (e.g. right after this bot tossed some to a partner)."""
        self.state["quiet_until"] = now + seconds


class TorchPlacing(Mode):
    """Place a torch where it is dark and none is nearby, when idle (at most every few seconds)."""

    cooldown_seconds = 5.0

    def update(self, ctl, obs):
        if not (obs["dark"] and obs["hasTorch"] and not obs["torchNearby"] and ctl.is_idle()):
            return
        if ctl.now() - self.state.get("last", 0) < self.cooldown_seconds:
            return
        self.state["last"] = ctl.now()
        ctl.execute(self, "Placing a torch.", lambda s: s.place_here("torch"))


class ElbowRoom(Mode):
    """Step away from a player standing closer than one block, when idle."""

    def update(self, ctl, obs):
        player = obs["player"]
        if player and player["distance"] < 1.0 and ctl.is_idle():
            ctl.execute(self, "Giving people some room.", lambda s: s.move_away(2))


class IdleStaring(Mode):
    """Turn to look at a nearby player or animal about once a second, when idle."""

    def update(self, ctl, obs):
        target = obs["lookTarget"]
        if not ctl.is_idle() or not target:
            return
        if ctl.now() - self.state.get("last", 0) > 1.0:
            self.state["last"] = ctl.now()
            ctl.look_at(target["id"])


class Cheat(Mode):
    """Not a behaviour: while on, building skills place blocks instantly with commands."""

    def update(self, ctl, obs):
        if self.state.get("applied") != self.on:
            ctl.set_cheat(self.on)
            self.state["applied"] = self.on


def default_modes() -> list[Mode]:
    """The ten modes, in priority order, with their default on/off states."""
    return [
        SelfPreservation("self_preservation", "Respond to drowning, burning, falling blocks and low health.",
                         True, ["all"]),
        Unstuck("unstuck", "Move away when stuck in one place for a while.", True, ["all"]),
        Cowardice("cowardice", "Run away from hostile mobs.", False, ["all"]),
        SelfDefense("self_defense", "Fight hostile mobs that come close.", True, ["all"]),
        Hunting("hunting", "Hunt nearby animals when idle.", True, ["action:followPlayer"]),
        ItemCollecting("item_collecting", "Pick up nearby items when idle.", True, ["action:followPlayer"]),
        TorchPlacing("torch_placing", "Place torches when idle and in the dark.", True, ["action:followPlayer"]),
        ElbowRoom("elbow_room", "Move away from players who stand too close.", True, []),
        IdleStaring("idle_staring", "Look at nearby players and animals when idle.", True, []),
        Cheat("cheat", "Place blocks instantly with commands (for building tasks).", False, []),
    ]


# The modes' names, in priority order: profiles and !setMode accept these.
MODE_NAMES = tuple(mode.name for mode in default_modes())


class ModeController:
    """Owns the modes of one agent; `update()` is called every tick by the agent."""

    def __init__(self, bot, skills, actions, narrate: Callable[[str], None] | None = None,
                 modes: list[Mode] | None = None, clock: Callable[[], float] = time.monotonic):
        self.bot = bot
        self.skills = skills
        self.actions = actions
        self.modes = modes or default_modes()
        self.behavior_log = ""
        self._narrate = narrate
        self.now = clock
        self._mode_thread: threading.Thread | None = None
        self._agent_busy: Callable[[], bool] = lambda: False

    # ---- configuration -------------------------------------------------------------------------
    def get(self, name: str) -> Mode:
        for mode in self.modes:
            if mode.name == name:
                return mode
        raise KeyError(name)

    def names(self) -> list[str]:
        return [mode.name for mode in self.modes]

    def set_on(self, name: str, on: bool) -> None:
        self.get(name).on = bool(on)

    def apply_profile(self, settings: dict[str, bool]) -> None:
        for name, on in (settings or {}).items():
            if name in self.names():
                self.set_on(name, on)

    def describe(self) -> str:
        lines = ["Available Modes:"]
        for mode in self.modes:
            state = "ON" if mode.on else "OFF"
            paused = " (paused)" if mode.paused else ""
            lines.append(f"- {mode.name}({state}{paused}): {mode.description}")
        return "\n".join(lines)

    def pause(self, name: str) -> None:
        self.get(name).paused = True

    def unpause_all(self) -> None:
        for mode in self.modes:
            mode.paused = False

    def set_agent_busy(self, busy: Callable[[], bool]) -> None:
        """Tell the controller how to know that the agent is busy beyond its action (e.g. talking)."""
        self._agent_busy = busy

    # ---- used by modes -------------------------------------------------------------------------
    def is_idle(self) -> bool:
        return not self.actions.executing and not self._agent_busy()

    def set_jump(self, on: bool) -> None:
        world_observe.set_jump(self.bot, on)

    def look_at(self, entity_id: int) -> None:
        world_observe.look_at_entity(self.bot, entity_id)

    def set_cheat(self, on: bool) -> None:
        self.skills.runner.set_cheat(on)

    def log(self, message: str) -> None:
        self.behavior_log = (self.behavior_log + message + "\n")[-BEHAVIOR_LOG_LIMIT:]
        if self._narrate:
            self._narrate(message)

    def take_behavior_log(self) -> str:
        text, self.behavior_log = self.behavior_log, ""
        return text.strip()

    def execute(self, mode: Mode, message: str, action: Callable) -> None:
        """Run a mode's reaction as the agent's action, on its own thread (the tick goes on)."""
        if mode.active:
            return
        mode.active = True
        self.log(f"{mode.name}: {message}")

        def work():
            try:
                self.actions.run(f"mode:{mode.name}", lambda: action(self.skills), timeout=60.0,
                                 by_mode=f"mode {mode.name}")
            finally:
                mode.active = False
                self._resume_if_idle()

        self._mode_thread = threading.Thread(target=work, name=f"mode-{mode.name}", daemon=True)
        self._mode_thread.start()

    def _resume_if_idle(self) -> None:
        pending = self.actions.resume_pending()
        if pending and not any(m.active for m in self.modes) and self.is_idle():
            label, fn, timeout = pending
            threading.Thread(target=lambda: self.actions.run(label, fn, timeout, resume=True),
                             name="resume", daemon=True).start()

    # ---- the tick --------------------------------------------------------------------------------
    def observe(self) -> dict:
        return world_observe.observe(self.bot)

    def update(self) -> None:
        if any(mode.active for mode in self.modes):
            return  # one mode reaction at a time
        if self.is_idle():
            self.unpause_all()
        obs = self.observe()
        current = self.actions.current_label
        for mode in self.modes:
            if not mode.on or mode.paused:
                continue
            allowed = self.is_idle() or "all" in mode.interrupts or (current and current in mode.interrupts)
            if isinstance(mode, (Unstuck, Cheat)) or allowed:
                mode.update(self, obs)
            if mode.active:
                break


def _distance(a: dict, b: dict) -> float:
    return ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2 + (a["z"] - b["z"]) ** 2) ** 0.5
