"""The CoBlock checker: the site box must hold exactly the structure G."""

from __future__ import annotations

from collections.abc import Sequence

from ...blueprint import GetBlock, block_base_name
from ...checkers import CheckResult
from ...schema import Task
from .site import box_cells, site_box, structure_cells


class CoblockChecker:
    """CoBlock: done when the site box holds exactly the structure G: every cell of G has its block and no other
    non-air block is in the box.

    score = max(0, (correct - extra) / |G|), the paper's "fraction of G built, minus extra blocks", where
    correct = cells of G holding their block, and extra = non-air blocks in the box that are not a correct block
    of G. A wrong colour in a cell of G is therefore both not correct and an extra: it costs twice, as it must be
    broken before the right block can go there. Cells no bot has loaded count as air, and while any cell of the
    box is unseen the task is not done (an unseen extra block must not pass for success)."""

    def __init__(self, task: Task):
        self.structure = structure_cells(task)
        box = box_cells(site_box(task))
        inside = set(box)
        self.positions = box + [cell for cell in self.structure if cell not in inside]  # G lies in the box

    def check_blocks(self, get_block: GetBlock) -> CheckResult:
        correct = extra = unseen = 0
        for pos in self.positions:
            name = get_block(*pos)
            unseen += name is None
            have, want = block_base_name(name), self.structure.get(pos)
            if want is not None and have == want:
                correct += 1
            elif have != "air":
                extra += 1
        total = len(self.structure)
        score = max(0.0, (correct - extra) / total) if total else 0.0
        detail = f"{correct}/{total} blocks of the structure built, {extra} extra"
        if unseen:
            detail += f", {unseen} cells of the site not seen"
        return CheckResult(score, bool(total) and correct == total and extra == 0 and not unseen, detail)

    def check(self, bots: Sequence) -> CheckResult:
        """Reads the whole site through the first bot in one bridge call; cells it has not loaded through the
        others."""
        from ....world.bulk import block_map

        blocks = block_map(bots[0], self.positions)
        for bot in bots[1:]:
            unseen = [pos for pos, name in blocks.items() if name is None]
            if not unseen:
                break
            blocks.update((pos, name) for pos, name in block_map(bot, unseen).items() if name is not None)
        return self.check_blocks(lambda x, y, z: blocks.get((x, y, z)))
