"""The scripted player's plan for cooking goals (mindpy.oracle.plan): the lead makes every dish and ends up
holding them, the others give it their items. Hell's Kitchen: each agent makes its own dish, sends the recipe it
holds to the agent who needs it, and gives the others what their dishes take."""

from __future__ import annotations

from ....oracle import cooking
from ....oracle.cooking import Move
from ....oracle.goals import TaskGoal
from ....oracle.plan import ItemsPlan
from ....oracle.prompt import PromptView


class CookingPlan(ItemsPlan):
    """Cooking: dishes from the kitchen; in Hell's Kitchen, a dish of one's own."""

    def leads(self, view: PromptView, goal: TaskGoal) -> bool:
        return goal.hells_kitchen or super().leads(view, goal)

    def relevant(self, goal: TaskGoal) -> set[str]:
        out = super().relevant(goal)
        if goal.partner_dish:
            out |= cooking.ingredients(goal.partner_dish)
        return out

    def keep(self, view: PromptView, goal: TaskGoal, item: str) -> int:
        if not goal.hells_kitchen:
            return super().keep(view, goal, item)
        need = 0
        for dish, n in goal.targets.items():
            if view.has(dish) < n:
                need += cooking.needed(dish, n, view.inventory, frozenset(goal.world_made)).get(item, 0)
        return need

    # ----- work -----
    def my_dishes(self, view: PromptView, goal: TaskGoal) -> dict[str, int]:
        """The dishes I make, those that go into other dishes last (so the bigger dish does not eat a finished
        one)."""
        if not self.leads(view, goal):
            return {}
        used = set().union(*(cooking.ingredients(d) for d in goal.targets)) if goal.targets else set()
        return dict(sorted(goal.targets.items(), key=lambda kv: kv[0] in used))

    def lack_now(self, view: PromptView, goal: TaskGoal) -> dict[str, int]:
        out: dict[str, int] = {}
        for dish, n in self.my_dishes(view, goal).items():
            for item, k in cooking.lacking(dish, n, view.inventory, frozenset(goal.world_made)).items():
                out[item] = out.get(item, 0) + k
        return out

    def work(self, view: PromptView, goal: TaskGoal) -> tuple[Move | None, dict[str, int]]:
        left = dict(view.inventory)
        stuck: dict[str, int] = {}
        for dish, n in self.my_dishes(view, goal).items():
            if left.get(dish, 0) >= n:
                left[dish] -= n
                continue
            move = cooking.next_move(dish, n, left, frozenset(goal.world_made))
            if move is not None and move.command in self.mem.stuck:
                stuck[move.item] = stuck.get(move.item, 0) + move.count
            elif move is not None:
                return move, {}
        lack = self.lack_now(view, goal)
        for item, k in stuck.items():
            lack[item] = max(lack.get(item, 0), k)
        return None, lack

    # ----- Hell's Kitchen -----
    def hk_partner(self, view: PromptView, goal: TaskGoal) -> str | None:
        """Hell's Kitchen: who makes the dish whose recipe I hold. By its number when the goal gives one (the
        other agents are listed in agent order, and I make the dish before theirs unless the goal says my
        number); otherwise the only other agent, as in MINDcraft's two-agent goals."""
        n = len(view.others) + 1
        if goal.partner_index is None:
            return view.others[0] if n == 2 else None
        mine = goal.my_index if goal.my_index is not None else goal.partner_index - 1
        ordered = list(view.others)
        ordered.insert(mine % n, view.name)
        return ordered[goal.partner_index % n]

    def recipe_once(self, goal: TaskGoal) -> str:
        """Hell's Kitchen: the recipe I hold for my partner's dish, the first time only."""
        if self.mem.recipe_sent or not goal.partner_dish or goal.partner_dish not in goal.recipes:
            return ""
        self.mem.recipe_sent = True
        steps = " ".join(f"{i}) {s}" for i, s in enumerate(goal.recipes[goal.partner_dish], 1))
        return f"Here is the recipe for {goal.partner_dish}: {steps}"

    def gift(self, view: PromptView, goal: TaskGoal) -> str:
        if not goal.hells_kitchen:
            return super().gift(view, goal)
        receiver = self.hk_partner(view, goal)
        if not receiver or receiver == view.name or not goal.partner_dish:
            return ""
        wanted = cooking.lacking(goal.partner_dish, 1, {}, frozenset(goal.world_made))
        return self.hand_over(view, goal, receiver, wanted, goal.partner_dish, lambda: self.recipe_once(goal))

    def opening(self, view: PromptView, goal: TaskGoal, partner: str) -> str:
        if not goal.hells_kitchen:
            return super().opening(view, goal, partner)
        text = ""
        if self.hk_partner(view, goal) in (partner, None):
            text = self.recipe_once(goal)
        lack = self.lack_now(view, goal)
        if lack:
            for item in lack:
                self.mem.asked.setdefault(item, set()).add(partner)
            text += " " + self.request_text(view, goal, lack)
        return text.strip() or f"I'm making my {goal.target_text}."
