"""The scripted player's plan for construction goals (mindpy.oracle.plan): each agent places the blocks it holds
materials for, lowest level first, from what `!checkBlueprint` answers; the lead also clears wrong blocks.

Without cheats (the paper's setting) blocks are placed by hand from the inventory: an agent with nothing to place
steps off the site so that it stands in nobody's cell. It walks to every block it can (in through a doorway: doors
go in last, construction.in_order). When a build says some block was out of reach on foot (an upper storey), it digs
dirt beside the site, and its placing climbs a pillar of that dirt beside the block (mindpy/skills/js/climbing.js):
dirt only, never materials, and only on the world's own ground, never on a built floor. With building assistance
(the episode's `building_assistance`, from the profile's cheat mode) it never climbs."""

from __future__ import annotations

from ....oracle import construction
from ....oracle.cooking import Move
from ....oracle.dialogue import quote
from ....oracle.goals import TaskGoal
from ....oracle.plan import OraclePlan
from ....oracle.player import MAX_REPEATS, WAIT
from ....oracle.prompt import PromptView


class ConstructionPlan(OraclePlan):
    """Construction: everyone builds its share of the blueprint; nobody hands materials over."""

    _site: construction.Site | None = None  # the house's extent, as the checks have shown it
    _parked: bool = False                    # stood off the site since the last build
    _dirt_tries: int = 0                     # digs for dirt to climb on
    _unreached: bool = False                 # my last build could not reach some block on foot

    def observe(self, view: PromptView) -> None:
        # every output since my last reply: a build cut short ends with a note about the interruption, after the
        # build's own words about blocks out of reach
        builds = [out for out in view.outputs if construction.is_build_output(out)]
        if builds:
            self._unreached = any(construction.reach_failed(out) for out in builds)
        self._observe_blueprint(view)

    def leads(self, view: PromptView, goal: TaskGoal) -> bool:
        return True  # each agent builds its own share

    def keep(self, view: PromptView, goal: TaskGoal, item: str) -> int:
        return 0

    def done(self, view: PromptView, goal: TaskGoal) -> bool:
        return self.mem.fixes == []

    def finish_text(self, view: PromptView, goal: TaskGoal) -> str:
        return "The house matches the blueprint: the task is done!"

    def idles_when_stalled(self, view: PromptView, goal: TaskGoal) -> bool:
        return True

    def opening(self, view: PromptView, goal: TaskGoal, partner: str) -> str:
        kinds = sorted(i for i in view.inventory if not i.endswith("_pickaxe"))
        return (f"I'll place the blocks I have materials for ({', '.join(kinds) or 'none'}), lowest level "
                f"first; you place yours.")

    def work(self, view: PromptView, goal: TaskGoal) -> tuple[Move | None, dict[str, int]]:
        return self._build(view), {}

    def _observe_blueprint(self, view: PromptView) -> list | None:
        """The fixes of the !checkBlueprint answer I just got, or None when the last output is something else."""
        checked = construction.parse_check(view.last_output) if view.last_output else None
        if checked is not None:
            self.mem.fixes = checked
            self._site = construction.site_of(checked, self._site)
        return checked

    def _assisted(self) -> bool:
        """Building assistance is on (the episode said so): blocks are set by command, at any height."""
        return bool((self.player.fields or {}).get("building_assistance"))

    def _park(self) -> Move | None:
        """Off the site, once after building: a spot outside the house's corner; None when there already."""
        site = self._site
        if site is None or self._parked:
            return None
        self._parked = True
        x, y, z = construction.park_spot(site)
        return Move(f"!goToCoordinates({x}, {y}, {z}, 1)", "")

    def _build(self, view: PromptView) -> Move | None:
        mem = self.mem
        checked = self._observe_blueprint(view)
        if checked is None:
            return Move("!checkBlueprint", "")  # quietly: a message would interrupt a partner's building
        if not checked:
            return None
        by_hand = not self._assisted()
        mine = construction.my_fixes(checked, view.inventory, view.name == self.player.lead(view), by_hand,
                                     construction.LEVELS_BY_HAND if by_hand else 1)
        if checked != mem.build_check or mine != mem.build_share:  # anyone's progress, or a new share of mine
            mem.build_check, mem.build_share, mem.build_tries, mem.build_waits = checked, mine, 0, 0
            self._dirt_tries = 0  # climbing used up its dirt where it helped: more may be dug
            mem.build_counted_at = mem.calls  # the count starts with this call
        counted = mem.build_counted_at != mem.calls  # one per call, however often the call plans its build
        mem.build_counted_at = mem.calls
        low = min((f.level for f in mine), default=0)
        if mine and any(f.level < low for f in (construction.in_order(checked) if by_hand else checked)):
            # bottom-up: a level below that the others are building comes first (nothing to place against yet);
            # should it stall, I place what has something to stand on
            mem.build_waits += counted
            if mem.build_waits < construction.LOWER_LEVEL_WAITS:
                mine = []
        site = self._site
        if mine and site is not None and by_hand and self._unreached and \
                view.inventory.get("dirt", 0) < construction.CLIMB_DIRT // 2:
            park = self._park()  # dig beside the site, not under the house
            if park is not None:
                return park
            if self._dirt_tries < MAX_REPEATS:
                self._dirt_tries = self._dirt_tries + 1
                return Move(f'!collectBlocks("dirt", {construction.CLIMB_DIRT})', "Getting dirt to climb on.")
        if mine:
            mem.build_tries += counted
            if mem.build_tries < MAX_REPEATS:
                mem.coding_fixes = mine
                levels = construction.levels_text(mine).lower()
                kinds = sorted({f.block for f in mine if f.kind != "remove"})
                task = (f"Place the {len(mine)} missing blocks of {levels} that I have materials for "
                        f"({', '.join(kinds) or 'clearing only'}) at their blueprint positions.")
                self._parked = False
                return Move(f"!newAction({quote(task)})", f"Building {levels}.")
        return self._park() or Move(WAIT, "")
