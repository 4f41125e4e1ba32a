"""The orders family's oracle as a dispatcher: the scripted earliest-deadline-first reply, asked for through the
same prompt, parser and history as a model's, so its calls are training data like any model's.

    dispatcher = OracleDispatcher(DispatcherOptions(), ["andy", "jill"], dishes=["bread"])
    decision = dispatcher.decide(state)     # decision.user: the prompt a model would get; decision.reply: the
                                            # scripted reply (mindpy.dispatch.scripted) for this state

A step with nothing to do (no free cook with work) gives an empty reply, which is no mistake here: it leaves no
problem for the next prompt. Each new order goes to the free cook holding the most of the supplies its dish needs
from the world's lack (gold, apples, eggs, bowls...): work goes where the supplies are, and an order no free cook
has supplies for waits rather than fails. A free cook holding a finished dish that an open order asks for (its own
order expired before it was served) serves it. A free cook left without work hands over what it cannot use itself:
for a dish of two supplies or more (a golden apple: gold and an apple), its surplus of one to a teammate whose
other supplies it completes (`!givePlayer`), one handover a step.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from ..models.base import ChatModel, Usage
from ..models.tokens import count_messages, count_tokens
from ..tasks.families.orders.book import DISHES
from .decision import Decision
from .dispatcher import Dispatcher
from .prompt import DispatcherOptions
from .scripted import ScriptedDispatcher, feasible
from .state import AgentState, DispatchState
from .steps import serve_command

ENDLESS = 2**31  # servings of a dish that needs no supplies


def _count(inventory: Mapping[str, int], given: Mapping[str, int], skip: str = "") -> int:
    """Servings of one dish's supplies (all but `skip`); a dish without supplies counts as endless."""
    return min((inventory.get(item, 0) // n for item, n in given.items() if item != skip), default=ENDLESS)


def handover(giver: AgentState, teammates: Sequence[AgentState], dishes: Sequence[str]) -> str | None:
    """A `giver: !givePlayer(...)` line that gives a teammate at least one more serving of a dish of several
    supplies: the giver's surplus of one supply (beyond what its other supplies can use) to the first teammate
    whose other supplies are waiting for it; None when no handover helps."""
    for dish in dishes:
        given = DISHES[dish].given
        if len(given) < 2:
            continue
        for item, need in given.items():
            surplus = giver.inventory.get(item, 0) - _count(giver.inventory, given) * need
            for mate in teammates:
                held = mate.inventory.get(item, 0)
                wanted = _count(mate.inventory, given, skip=item) * need - held
                amount = min(surplus, wanted)
                if amount > 0 and (held + amount) // need > held // need:
                    return f'{giver.name}: !givePlayer("{mate.name}", "{item}", {amount})'
    return None


def serve_held(state: DispatchState, busy_with_orders: Collection[str]) -> dict[str, str]:
    """{cook: its !putInChest command} for the free cooks outside `busy_with_orders` that hold a finished dish an
    open order asks for (an order whose cook lost it to its deadline leaves the dish in hand: it serves the next
    order of that dish), one dish per open order."""
    wanted: dict[str, int] = {}
    for order in state.orders:
        wanted[order.dish] = wanted.get(order.dish, 0) + 1
    serving = {}
    for cook in state.agents:
        if cook.busy or cook.name in busy_with_orders:
            continue
        dish = next((d for d in wanted if wanted[d] > 0 and cook.inventory.get(d, 0) > 0), None)
        if dish is not None:
            wanted[dish] -= 1
            serving[cook.name] = serve_command(dish)
    return serving


def matched(state: DispatchState, scripted: ScriptedDispatcher, serving: Collection[str] = ()) -> DispatchState:
    """The state the scripted dispatcher is shown, so that each new order goes to the free cook holding the most
    supplies for its dish: the cooks in the middle of an order first, then, order by order in the scripted
    dispatcher's own order (what it would take next), the best-supplied free cook; from the first order no free
    cook has supplies for, the other free cooks are shown busy (they wait, or hand over what they hold). Cooks
    `serving` a dish they hold are shown busy."""
    open_ids = {o.id for o in state.orders}
    claims = {name: c.order_id for name, c in scripted.claims.items() if c.order_id in open_ids}
    taken = set(claims.values()) | scripted.served
    waiting = sorted((o for o in state.orders if o.id not in taken),
                     key=lambda o: (not feasible(o, state.step), o.deadline, o.id))
    free = [a for a in state.agents if not a.busy and a.name not in claims and a.name not in serving]
    chosen = []
    for order in waiting:
        given = DISHES[order.dish].given
        best = max(free, key=lambda a: _count(a.inventory, given), default=None)
        if best is None or _count(best.inventory, given) == 0:
            break
        chosen.append(best)
        free.remove(best)
    working = [a for a in state.agents if a.busy or a.name in claims]
    aside = [replace(a, busy=True, doing="serving") for a in state.agents if a.name in serving and a.name not in claims]
    return replace(state, agents=(*working, *chosen, *aside,
                                  *(replace(a, busy=True, doing="waiting") for a in free)))


class ScriptedReplies(ChatModel):
    """A chat model that answers with the scripted dispatcher's reply for the state it is told about."""

    api = "oracle"

    def __init__(self, agent_names: Sequence[str], dishes: Sequence[str]):
        super().__init__("scripted-dispatcher")
        self.scripted = ScriptedDispatcher(list(agent_names))
        self.dishes = tuple(dishes)
        self.state: DispatchState | None = None  # set before each call

    def _complete(self, messages: list, system: str) -> tuple[str, Usage]:
        if self.state is None:
            raise ValueError("the scripted dispatcher answers only for a state: call OracleDispatcher.decide")
        state = self.state
        open_ids = {o.id for o in state.orders}
        serving = serve_held(state, {n for n, c in self.scripted.claims.items() if c.order_id in open_ids})
        reply = "\n".join([self.scripted.reply(matched(state, self.scripted, serving)),
                            *(f"{cook}: {command}" for cook, command in serving.items())]).strip()
        working = {line.split(":", 1)[0].strip() for line in reply.splitlines()}
        for cook in (a for a in state.agents if not a.busy and a.name not in working):
            line = handover(cook, [a for a in state.agents if a.name != cook.name], self.dishes)
            if line:  # one a step: two cooks giving each other their surplus at once would only swap it
                reply = f"{reply}\n{line}" if reply else line
                break
        return reply, Usage(prompt_tokens=count_messages(messages, system), completion_tokens=count_tokens(reply),
                            estimated=True)


class OracleDispatcher(Dispatcher):
    """A Dispatcher whose model is the scripted dispatcher."""

    def __init__(self, options: DispatcherOptions, agent_names: Sequence[str], *, dishes: Sequence[str]):
        self.replies = ScriptedReplies(agent_names, dishes)
        super().__init__(self.replies, options, agent_names, dishes=dishes)

    def decide(self, state: DispatchState) -> Decision:
        self.replies.state = state
        decision = super().decide(state)
        if not decision.reply.strip():  # nothing to do this step: not a malformed reply
            decision.problems = []
            self.pending_problems = []
            self.history[-1] = decision.history_entry()
        return decision
