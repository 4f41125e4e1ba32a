"""The skills API: everything a bot can do, one method per skill.

Commands call these, and so will generated code (its docs are made from these docstrings). Each method blocks
until the skill ends and returns True on success, False otherwise; what happened, in sentences the model can
read, is appended to `log`. Every skill stops within about 100 ms of `interrupt()` and has a time limit.
"""

from __future__ import annotations

from ..bridge import Bot
from ..userfiles import quote
from .runner import LONGEST_SKILL_S, SkillResult, SkillRunner

# The saved places are kept for the whole run and listed to the model: a loop or a chatty player must not grow
# them without end.
MAX_PLACES = 100
MAX_PLACE_NAME_CHARS = 100
# No skill needs a number beyond this (the world border is at 30 million): larger ones, NaN and infinity are
# refused before they reach Node, where NaN makes every comparison false and 1e400 is Infinity.
MAX_SKILL_NUMBER = 1e9


def _number_refusal(skill: str, args: tuple) -> str | None:
    """Why a skill's arguments hold a number no skill can use (NaN, infinity, beyond ±MAX_SKILL_NUMBER), or None."""
    for value in args:
        # NaN fails the comparison, and an int too large for a float is compared exactly, without converting it
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= MAX_SKILL_NUMBER:
            return f"{skill} cannot use the number {quote(value)}: give a finite number within ±{MAX_SKILL_NUMBER:g}."
    return None


def _usable(number: float) -> float:
    """`number` for working out a time limit, or 0 when `_do` will refuse it anyway (10**400 * 40 overflows)."""
    return number if _number_refusal("", (number,)) is None else 0


def _place_refusal(name: str, places: dict) -> str | None:
    """Why `name` cannot be saved as a new place, or None."""
    if len(name) > MAX_PLACE_NAME_CHARS:
        return (f"A place name can be at most {MAX_PLACE_NAME_CHARS} characters long (got {len(name)}): "
                f"choose a shorter one.")
    if name not in places and len(places) >= MAX_PLACES:
        return (f"{len(places)} places are saved already (the limit is {MAX_PLACES}): save under a name "
                f"already used.")
    return None


class Skills:
    """One bot's skills as blocking methods returning True/False, with their messages gathered in `log`."""

    def __init__(self, bot: Bot, runner: SkillRunner | None = None):
        self.bot = bot
        self.runner = runner or SkillRunner(bot)
        self.log: list[str] = []
        self.last_result: SkillResult | None = None
        self.places: dict[str, tuple[float, float, float]] = {}

    def _do(self, name: str, *args, timeout: float = 300.0) -> bool:
        refusal = _number_refusal(name, args)
        if refusal:
            self.log.append(refusal)
            return False
        result = self.runner.run(name, *args, timeout=timeout)
        self.last_result = result
        if result.output:
            self.log.append(result.output)
        return result.ok

    def interrupt(self) -> None:
        """Stop the skill that is running now."""
        self.runner.interrupt()

    def take_log(self) -> str:
        """Everything logged since the last call, as one text; clears the log."""
        text = "\n".join(self.log)
        self.log.clear()
        return text

    # ---- movement ------------------------------------------------------------------------------
    def go_to_position(self, x: float, y: float, z: float, closeness: float = 2) -> bool:
        """Walk to within `closeness` blocks of (x, y, z), digging or climbing if needed."""
        return self._do("goToCoordinates", x, y, z, closeness)

    def go_to_player(self, player: str, closeness: float = 3) -> bool:
        """Walk to within `closeness` blocks of the player named `player`."""
        return self._do("goToPlayer", player, closeness)

    def follow_player(self, player: str, distance: float = 4) -> bool:
        """Keep following `player` at `distance` blocks until interrupted."""
        return self._do("followPlayer", player, distance, timeout=24 * 3600)

    def move_away(self, distance: float) -> bool:
        """Move at least `distance` blocks away from where the bot stands."""
        return self._do("moveAway", distance)

    def go_to_nearest_block(self, block: str, min_distance: float = 2, search_range: float = 64) -> bool:
        """Walk to the nearest block of type `block` within `search_range` blocks."""
        return self._do("searchForBlock", block, min_distance, search_range)

    def go_to_nearest_entity(self, entity: str, min_distance: float = 2, search_range: float = 64) -> bool:
        """Walk to the nearest entity of type `entity` (e.g. 'cow', 'villager') within `search_range` blocks."""
        return self._do("searchForEntity", entity, min_distance, search_range)

    def go_to_surface(self) -> bool:
        """Climb to the highest solid block above the bot."""
        return self._do("goToSurface")

    def avoid_entity(self, entity_id: int, distance: float = 16) -> bool:
        """Run until the entity with id `entity_id` is at least `distance` blocks away."""
        return self._do("avoidEntity", entity_id, distance)

    def stay(self, seconds: float = -1) -> bool:
        """Stand still for `seconds` seconds, at most a day (86400; -1: until interrupted)."""
        # written so that NaN fails it: a NaN, a negative or 1e308 from generated code stood still for good
        if seconds != -1 and not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
                                  and 0 <= seconds <= LONGEST_SKILL_S):
            self.log.append(f"stay takes a number of seconds from 0 to {LONGEST_SKILL_S:.0f}, or -1 to stay until "
                            f"interrupted; got {quote(seconds)}.")
            return False
        return self._do("stay", seconds, timeout=LONGEST_SKILL_S if seconds == -1 else seconds + 30)

    def look_at_player(self, player: str, direction: str = "at") -> bool:
        """Look at `player` ('at') or the way the player is looking ('with')."""
        return self._do("lookAtPlayer", player, direction)

    def look_at_position(self, x: float, y: float, z: float) -> bool:
        """Turn to look at the point (x, y, z)."""
        return self._do("lookAtPosition", x, y, z)

    def remember_place(self, name: str) -> bool:
        """Save the bot's current position under `name` (at most MAX_PLACES names, each at most
        MAX_PLACE_NAME_CHARS characters)."""
        refusal = _place_refusal(name, self.places)
        if refusal:
            self.log.append(refusal)
            return False
        self.places[name] = self.bot.position
        x, y, z = self.places[name]
        self.log.append(f"Saved location '{name}' at x: {x:.0f}, y: {y:.0f}, z: {z:.0f}.")
        return True

    def go_to_remembered_place(self, name: str) -> bool:
        """Walk back to a place saved with remember_place."""
        if name not in self.places:
            known = ", ".join(sorted(self.places)) or "none yet"
            self.log.append(f"No place called '{name}' was saved. Saved places: {known}.")
            return False
        x, y, z = self.places[name]
        return self.go_to_position(x, y, z, 1)

    # ---- blocks --------------------------------------------------------------------------------
    def collect_blocks(self, block: str, num: int = 1) -> bool:
        """Dig `num` blocks of type `block` (e.g. 'oak_log', 'stone', 'wheat'), choosing the right tool,
        and pick up what they drop. Crops are harvested only when fully grown."""
        return self._do("collectBlocks", block, num, timeout=max(60.0, 40.0 * _usable(num)))

    def break_block_at(self, x: int, y: int, z: int) -> bool:
        """Break the block at (x, y, z)."""
        return self._do("breakBlockAt", x, y, z)

    def place_block(self, block: str, x: int, y: int, z: int) -> bool:
        """Place a block of type `block` from the inventory at (x, y, z)."""
        return self._do("placeBlock", block, x, y, z)

    def place_here(self, block: str) -> bool:
        """Place a block of type `block` right next to the bot."""
        return self._do("placeHere", block)

    def dig_down(self, distance: int = 10) -> bool:
        """Dig straight down up to `distance` blocks, stopping above lava, water or bedrock."""
        return self._do("digDown", distance)

    def pickup_nearby_items(self, search_range: float = 8) -> bool:
        """Walk over dropped items within `search_range` blocks to pick them up."""
        return self._do("pickupNearbyItems", search_range)

    # ---- crafting ------------------------------------------------------------------------------
    def craft_recipe(self, item: str, num: int = 1) -> bool:
        """Craft `item` by using its recipe `num` times (one use of oak_log gives 4 oak_planks), using a nearby
        crafting table (or placing one from the inventory) when the recipe needs it."""
        return self._do("craftRecipe", item, num)

    def smelt_item(self, item: str, num: int = 1) -> bool:
        """Smelt or cook `num` of `item` (the raw item, e.g. 'beef' or 'raw_iron') in a nearby furnace,
        placing one from the inventory if needed and adding fuel; waits and takes the output."""
        return self._do("smeltItem", item, num, timeout=60.0 + 15.0 * _usable(num))

    def clear_furnace(self) -> bool:
        """Take everything out of the nearest furnace."""
        return self._do("clearFurnace")

    # ---- inventory -----------------------------------------------------------------------------
    def equip(self, item: str) -> bool:
        """Hold `item` in the hand (armour goes on the body)."""
        return self._do("equip", item)

    def discard(self, item: str, num: int = -1) -> bool:
        """Throw away `num` of `item` (-1: all of it)."""
        return self._do("discard", item, num)

    def consume(self, item: str) -> bool:
        """Eat or drink one `item`."""
        return self._do("consume", item)

    def give_to_player(self, player: str, item: str, num: int = 1) -> bool:
        """Walk to `player`, toss them `num` of `item`, and check that they picked it up."""
        return self._do("givePlayer", player, item, num)

    def put_in_chest(self, item: str, num: int = -1) -> bool:
        """Put `num` of `item` (-1: all) into the nearest chest."""
        return self._do("putInChest", item, num)

    def take_from_chest(self, item: str, num: int = -1) -> bool:
        """Take `num` of `item` (-1: all) from the nearest chest."""
        return self._do("takeFromChest", item, num)

    def view_chest(self) -> bool:
        """List what the nearest chest holds."""
        return self._do("viewChest")

    # ---- combat and interaction ----------------------------------------------------------------
    def attack(self, entity: str, kill: bool = True) -> bool:
        """Attack the nearest `entity` (e.g. 'cow', 'zombie'); with kill=True keep hitting until it dies,
        then pick up its drops."""
        return self._do("attack", entity, kill)

    def attack_player(self, player: str) -> bool:
        """Attack the player named `player` until they die or get away."""
        return self._do("attackPlayer", player)

    def go_to_bed(self) -> bool:
        """Sleep in the nearest bed until morning."""
        return self._do("goToBed")

    def activate(self, block: str) -> bool:
        """Use the nearest block of type `block` (a door, lever, button...)."""
        return self._do("activate", block)

    def use_on(self, tool: str, target: str) -> bool:
        """Use `tool` (or 'hand') on the nearest `target` entity or block (e.g. shears on a sheep)."""
        return self._do("useOn", tool, target)

    def show_villager_trades(self, villager_id: int) -> bool:
        """List the trades of the villager with entity id `villager_id`."""
        return self._do("showVillagerTrades", villager_id)

    def trade_with_villager(self, villager_id: int, index: int, count: int = 1) -> bool:
        """Make trade number `index` (from 1) with the villager `villager_id`, `count` times."""
        return self._do("tradeWithVillager", villager_id, index, count)
