"""The scripted dispatcher, the orders family's oracle: earliest deadline first, one order per cook.

    oracle = ScriptedDispatcher(agent_names=["andy", "jill"])
    decision = oracle.decide(state)      # Decision: commands per free agent, parsed from its own reply text
    oracle.reply(state)                  # 'andy: !collectBlocks("wheat", 3)\\njill: !attack("cow")'

Each step, a free cook that holds an order does the order's next step (mindpy.tasks.families.orders.book' dish steps, as
commands of mindpy.commands) and, once every step is done, puts the dish in the serving chest. A free cook
without an order takes the open, untaken order with the earliest deadline (the lower id on a tie), first among
those it can still serve in time (its dish's workload plus the serving step before the deadline), then among
the rest (a late dish still serves a later order of the same dish); free cooks in the order they are listed.
One cook keeps an order to the end so that its ingredients stay in one inventory. The order a cook holds is
dropped when it leaves the open orders (served or expired). A step whose output the cook already holds is
skipped (what an expired order left in its hands serves the next one: at alpha 1, cooks that started every new
order from its first step kept collecting mushrooms, 44 of each in hand, and served 12 of 97 orders). A step is
counted as done when it has been commanded: the runner reports failures as feedback, which this oracle does not
replan on. The reply text goes through the same parser as a model's, with the same allowed commands, so the
oracle's commands are checked the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..commands import CommandRegistry, default_registry
from ..tasks.families.orders.book import DISHES
from .decision import Decision
from .prompt import DISPATCH_COMMANDS
from .reply import parse_dispatch_reply
from .state import DispatchState, OpenOrder
from .steps import dish_commands

SERVE_STEPS = 1  # putting the dish in the serving chest


def feasible(order: OpenOrder, step: int) -> bool:
    """Whether one cook starting the order now can serve it before its deadline (the serving command takes a
    step too). Orders that cannot be met come after those that can: their dish may still serve a later order
    of the same dish."""
    return step + DISHES[order.dish].workload + SERVE_STEPS < order.deadline


def first_step_to_do(dish: str, start: int, held: Mapping[str, int]) -> int:
    """The index of the dish's first command from `start` whose step's output the cook does not hold yet (the
    serving command, after the last step, is never skipped)."""
    steps = DISHES[dish].steps
    index = start
    while index < len(steps) and held.get(steps[index].output[0], 0) >= steps[index].output[1]:
        index += 1
    return index


@dataclass
class _Claim:
    order_id: int
    dish: str
    next_command: int = 0


@dataclass
class ScriptedDispatcher:
    """EDF assignment of free cooks to open orders, written as a dispatcher reply."""

    agent_names: Sequence[str]
    registry: CommandRegistry = field(default_factory=default_registry)
    claims: dict[str, _Claim] = field(default_factory=dict)
    served: set[int] = field(default_factory=set)  # orders whose dish was put in the chest

    def reply(self, state: DispatchState) -> str:
        """The reply text for this step: a `name: !command(...)` line per free cook with work."""
        open_ids = {o.id for o in state.orders}
        self.claims = {name: c for name, c in self.claims.items() if c.order_id in open_ids}
        taken = {c.order_id for c in self.claims.values()} | self.served
        waiting = sorted((o for o in state.orders if o.id not in taken),
                         key=lambda o: (not feasible(o, state.step), o.deadline, o.id))
        lines = []
        for name in state.free_agents():
            claim = self.claims.get(name)
            if claim is None:
                if not waiting:
                    continue
                order = waiting.pop(0)
                claim = self.claims[name] = _Claim(order.id, order.dish)
            commands = dish_commands(claim.dish)
            claim.next_command = first_step_to_do(claim.dish, claim.next_command, state.agent(name).inventory)
            lines.append(f"{name}: {commands[claim.next_command]}")
            claim.next_command += 1
            if claim.next_command == len(commands):
                self.served.add(claim.order_id)  # it leaves the open orders once the runner sees the dish
                del self.claims[name]
        return "\n".join(lines)

    def decide(self, state: DispatchState) -> Decision:
        text = self.reply(state)
        parsed = parse_dispatch_reply(text, self.agent_names, self.registry, busy=state.busy_agents(),
                                      allowed=DISPATCH_COMMANDS)
        problems = [] if not text else parsed.problems  # nothing to do is no mistake for the oracle
        return Decision(step=state.step, commands=parsed.commands, problems=problems, reply=text)
