"""Construction questions, asked at the moments right after an agent read its !checkBlueprint answer.

The state shown is the usual one (goal, every agent's INVENTORY, the last messages) followed by that check, in the
command's own words, cut to the lowest SHOWN_LEVELS levels that still need blocks:

    Level 0 is complete
    Level 1 requires the following fixes:
    Place bricks at coordinates X: 150, Y: -59, Z: -170
    ...

The answers follow the oracle's policy, which its opening message announces to the team ("I'll place the blocks I
have materials for, lowest level first"): each agent places the blocks whose material it holds, on the lowest level
where it has any. Checks that ask for removals are skipped: those fall to one agent (the lead), which the state does
not show.

- EC: how many blocks of a kind a level still lacks (counting the check's lines); the lowest level not complete
  yet; whether I hold enough of a block for what a level still lacks; who places the missing blocks of a kind (the
  one agent holding them: who holds what, read off the state, so it is asked as EC).
- ToM: which level a teammate places blocks on next (its policy on the state shown, kept only when the teammate
  then built there in the episode), against what it could do instead: its blocks on another shown level, waiting
  for me, giving me its blocks.
- JP: which blocks I should place now (mine on the lowest open level, kept only when I then built there), against
  what I could do instead: my blocks on a higher level, waiting, giving my blocks to a teammate. A teammate's
  blocks, which I do not hold, are no option: a feasibility check would rule them out.

Where an agent then built is read from what it did, not from one wording: the level whose blocks (of a kind only
it holds) are gone from its own next check; its reply naming "level N" serves when there is no later check, and a
reply and a check that disagree drop the question.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ....oracle.construction import Fix, my_fixes, parse_check
from ....probes.build import FamilyQuestions
from ....probes.moments import Moment, make_probe, next_moment_of, state_text
from ....probes.record import Probe

SHOWN_LEVELS = 2             # open levels shown of a check: enough to ask about, short enough to read
_COMPLETE = re.compile(r"^Level (\d+) is complete", re.M)
_BUILDING = re.compile(r"\blevel (\d+)\b", re.I)


@dataclass
class Check:
    """The part of an agent's last blueprint check a question shows."""

    complete: list[int]      # levels reported complete, below the highest shown open level
    fixes: list[Fix]         # the blocks the shown open levels still need
    more: bool               # higher open levels were left out

    @property
    def open_levels(self) -> list[int]:
        return sorted({f.level for f in self.fixes})

    def missing(self, level: int, block: str) -> int:
        return sum(1 for f in self.fixes if f.level == level and f.block == block)

    def blocks(self, level: int) -> list[str]:
        return sorted({f.block for f in self.fixes if f.level == level})

    def text(self) -> str:
        """The check in !checkBlueprint's own words."""
        lines: list[str] = []
        for level in sorted(set(self.complete) | set(self.open_levels)):
            if level in self.complete:
                lines.append(f"Level {level} is complete")
                continue
            lines.append(f"Level {level} requires the following fixes:")
            lines += [f"Place {f.block} at coordinates X: {f.x}, Y: {f.y}, Z: {f.z}"
                      for f in self.fixes if f.level == level]
        if self.more:
            lines.append("(the higher levels that need blocks are not shown)")
        return "\n".join(lines)


def read_check(moment: Moment) -> Check | None:
    """The check the agent read just before this turn, cut to SHOWN_LEVELS open levels; None when its last output
    was no check, the blueprint was complete, or the check asks for removals."""
    if not moment.view.last_output:
        return None
    fixes = parse_check(moment.view.last_output)
    if not fixes or any(f.kind != "place" for f in fixes):
        return None
    levels = sorted({f.level for f in fixes})
    shown = levels[:SHOWN_LEVELS]
    complete = [int(n) for n in _COMPLETE.findall(moment.view.last_output) if int(n) < shown[-1]]
    return Check(complete, [f for f in fixes if f.level in shown], more=len(levels) > len(shown))


def check_state(moment: Moment, check: Check) -> str:
    """The moment's state with the check under it."""
    return f"{state_text(moment)}\n\nLast blueprint check of {moment.me} (!checkBlueprint):\n{check.text()}"


def _ask(moment: Moment, check: Check, category: str, kind: str, question: str, right: str, wrong: list[str],
         rng: random.Random, **meta):
    return make_probe(moment, category, kind, question, right, wrong, rng, state=check_state(moment, check), **meta)


def ec_missing_count(moment: Moment, check: Check, rng: random.Random):
    """How many blocks of one kind a shown level still lacks."""
    level = rng.choice(check.open_levels)
    block = rng.choice(check.blocks(level))
    n = check.missing(level, block)
    total = sum(check.missing(shown, block) for shown in check.open_levels)
    wrong = [str(x) for x in (n + 1, n + 2, n - 1, n - 2, total) if x >= 0 and x != n]
    return _ask(moment, check, "EC", "missing_count", f"By the last blueprint check, how many {block} blocks are "
                f"still missing on level {level}?", str(n), wrong, rng, level=level, block=block)


def ec_lowest_open(moment: Moment, check: Check, rng: random.Random):
    """The lowest level not complete yet (asked only above level 0, so the completed ones must be read past)."""
    low = check.open_levels[0]
    if low == 0:
        return None
    wrong = [f"level {low - 1}", f"level {low + 1}", "none: every level is complete"]
    return _ask(moment, check, "EC", "lowest_open", "Which is the lowest level of the house that is not complete "
                "yet?", f"level {low}", wrong, rng)


def ec_enough(moment: Moment, check: Check, rng: random.Random):
    """Whether I hold enough of one of my blocks for what a shown level still lacks of it."""
    inv = moment.team[moment.me]
    asked = [(level, block) for level in check.open_levels for block in check.blocks(level) if inv.get(block, 0)]
    if not asked:
        return None
    level, block = rng.choice(asked)
    enough = inv[block] >= check.missing(level, block)
    return _ask(moment, check, "EC", "enough", f"Does {moment.me} hold enough {block} to place all the {block} still "
                f"missing on level {level}?", "Yes" if enough else "No", ["No" if enough else "Yes"], rng,
                level=level, block=block)


def holds_any(inv: dict[str, int], blocks: list[str]) -> bool:
    """Whether an agent holding `inv` has any of `blocks` (those a level still needs: it could place there)."""
    return any(inv.get(block, 0) > 0 for block in blocks)


def ec_who_places(moment: Moment, check: Check, rng: random.Random):
    """Who places the missing blocks of one kind: the one agent holding that block (a teammate when there is one)."""
    def holders(block: str) -> list[str]:
        return [name for name in sorted(moment.team) if moment.team[name].get(block, 0)]

    asked = [(level, block) for level in check.open_levels for block in check.blocks(level)
             if len(holders(block)) == 1]
    by_mate = [(level, block) for level, block in asked if holders(block) != [moment.me]]
    if not asked:
        return None
    level, block = rng.choice(by_mate or asked)
    right = holders(block)[0]
    wrong = [n for n in sorted(moment.team) if n != right] + [f"nobody: the team holds no {block}"]
    return _ask(moment, check, "EC", "who_places", f"Who on the team will place the missing {block} blocks of "
                f"level {level}?", right, wrong, rng, level=level, block=block)


def _level_said(reply: str) -> int | None:
    """The level a building reply names ("Building level 2. !newAction(...)"), None for other replies."""
    if "!newAction" not in reply:
        return None
    found = _BUILDING.search(reply)
    return int(found.group(1)) if found else None


def _level_placed(turn: Moment, moments: list[Moment], check: Check) -> int | None:
    """The level the agent of `turn` placed blocks on by that turn, read from its own next blueprint check: the
    level of the shown fixes that are gone from it, counting only blocks no teammate holds (so the agent placed
    them). None when it made no later check, or blocks went from more than one level or none."""
    alone = {block for block, n in turn.team[turn.me].items() if n > 0
             and not any(turn.team[mate].get(block, 0) for mate in turn.team if mate != turn.me)}
    later = next((fixes for m in moments if m.me == turn.me and m.time > turn.time and m.view.last_output
                  and (fixes := parse_check(m.view.last_output)) is not None), None)
    if later is None:
        return None
    still = {(f.x, f.y, f.z) for f in later}
    gone = {f.level for f in check.fixes if f.block in alone and (f.x, f.y, f.z) not in still}
    return gone.pop() if len(gone) == 1 else None


def _level_acted(turn: Moment, moments: list[Moment], check: Check) -> int | None:
    """The level the agent of `turn` built on in that turn: what its blocks did (its next check), and what its
    reply said. Either does when the other is missing (a model that never writes "level N", an episode that ends
    before the next check); None when they disagree or neither tells."""
    said, placed = _level_said(turn.reply), _level_placed(turn, moments, check)
    if said is not None and placed is not None and said != placed:
        return None
    return placed if placed is not None else said


def tom_partner_level(moment: Moment, moments: list[Moment], check: Check, rng: random.Random) -> list:
    """Which level each teammate places blocks on next: its policy on the state shown, when its next reply agrees."""
    asked = []
    for mate in [n for n in sorted(moment.team) if n != moment.me]:
        theirs = my_fixes(check.fixes, moment.team[mate], lead=False)
        if not theirs:
            continue  # it may have blocks on a level not shown: no answer follows from the state
        level = theirs[0].level
        then = next_moment_of(moments, mate, moment.time)
        if then is None or _level_acted(then, moments, check) != level:
            continue
        # what the teammate could do instead: its blocks on another shown level, waiting, handing them over
        wrong = [f"level {n}" for n in check.open_levels
                 if n != level and holds_any(moment.team[mate], check.blocks(n))]
        wrong += [f"none: {mate} waits until {moment.me} finishes level {check.open_levels[0]}",
                  f"none: {mate} gives its blocks to {moment.me}"]
        asked.append(_ask(moment, check, "ToM", "partner_level", f"Which level will {mate} place blocks on next?",
                          f"level {level}", wrong, rng, partner=mate, level=level))
    return asked


def jp_my_share(moment: Moment, moments: list[Moment], check: Check, rng: random.Random):
    """Which blocks I should place now: mine on the lowest open level (when the agent then built there)."""
    mine = my_fixes(check.fixes, moment.team[moment.me], lead=False)
    low = check.open_levels[0]
    if not mine or mine[0].level != low or _level_acted(moment, moments, check) != low:
        return None  # nothing of mine on the lowest level: whether to wait or go up is not clear-cut
    my_blocks = sorted({f.block for f in mine})
    right = f"the {', '.join(my_blocks)} blocks of level {low}"
    # what I could do instead (a teammate's blocks I do not hold are no option): my blocks higher up, waiting,
    # handing them over
    wrong = []
    for level in check.open_levels[1:]:
        higher = [b for b in check.blocks(level) if b in my_blocks]
        if higher:
            wrong.append(f"the {', '.join(higher)} blocks of level {level}")
    mates = [n for n in sorted(moment.team) if n != moment.me]
    wrong.append(f"nothing yet: wait until {mates[0]} finishes level {low}" if mates else "nothing yet")
    if mates:
        wrong.append(f"nothing: give my {', '.join(my_blocks)} to {mates[0]}")
    return _ask(moment, check, "JP", "my_share", f"You are {moment.me}. Which blocks should you place now?", right,
                wrong, rng, level=low)


def construction_probes(moment: Moment, moments: list[Moment], rng: random.Random) -> list:
    """Every construction question this moment gives (none unless it follows a blueprint check)."""
    check = read_check(moment)
    if check is None:
        return []
    return [ec_missing_count(moment, check, rng), ec_lowest_open(moment, check, rng), ec_enough(moment, check, rng),
            ec_who_places(moment, check, rng), *tom_partner_level(moment, moments, check, rng),
            jp_my_share(moment, moments, check, rng)]


class ConstructionQuestions(FamilyQuestions):
    """Construction: any team's questions, and those of the blueprint check a turn follows."""

    def questions(self, moment: Moment, moments: list[Moment], rng: random.Random) -> list[Probe | None]:
        return [*super().questions(moment, moments, rng), *construction_probes(moment, moments, rng)]
