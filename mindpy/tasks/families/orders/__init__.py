"""The orders family (MindAgent's CuisineWorld, seed 001): one dispatcher commands every cook, a step at a time,
while orders for dishes arrive and expire; the score is the completion rate. `FAMILY` is its Family object
(mindpy.tasks.family)."""

from __future__ import annotations

from typing import Any, ClassVar

from ...family import Family
from ..common import need_origin
from . import fields as orders_fields


class OrdersFamily(Family):
    """MindAgent's orders: a dispatcher, cooks and a stream of orders."""

    name = "orders"
    summary = "a dispatcher commands every cook while orders arrive and expire (MindAgent's CuisineWorld)"
    fields = orders_fields.FIELDS
    split_sizes: ClassVar[dict[str, int]] = {"train": 360, "test": 180}  # 12 levels x 3 team sizes x 5 alphas
    play_entry = "mindpy.tasks.families.orders.play:play"
    one_model = True         # the dispatcher's: the cooks' own models never speak (no --team)
    human_dispatcher = True  # `--model human:NAME`: a player gives the orders in chat
    paper_trials = 3  # the paper's figures are the mean of three episodes
    loot_rolls = "expected"  # two runs play the same steps: a potato dug or a cow killed gives the same count
    ablations = ()  # the dispatcher's orders are the only talk and the cooks run no commands of their own
    episode_options = orders_fields.OPTIONS  # our variations, off by default (play.OrdersOptions)

    def parse_fields(self, parser: Any) -> Any:
        return orders_fields.parse_fields(parser)

    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        from .generator import generate

        return generate(split, seed, self.count(split, count), agents=agents)

    def plan_world(self, setup: Any, origin: Any, seed: int) -> None:
        from .world import plan_kitchen

        plan_kitchen(setup, need_origin(setup, origin), seed)

    def unsolvable_reason(self, task: Any, version: str) -> str | None:
        return None  # the world restocks what the dishes need

    def summarize(self, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        from .cos import cos_summary

        return cos_summary(rows)

    summary_key = "orders_cos"

    def what(self, task: Any) -> str:
        fields = task.fields
        if fields is None:
            return ""
        return f"{fields.level}, alpha {fields.alpha:g}, {len(fields.dishes)} dishes, {fields.episode_steps} steps"


FAMILY = OrdersFamily()
