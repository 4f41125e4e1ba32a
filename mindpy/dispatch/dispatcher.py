"""The dispatcher: one chat model commanding several cooks, a step at a time (MindAgent's centralised planner).

    dispatcher = Dispatcher(model, DispatcherOptions(), ["andy", "jill"], dishes=["bread", "cookie"])
    decision = dispatcher.decide(state)     # state: mindpy.dispatch.state.DispatchState of this step
    decision.commands                       # {"andy": '!collectBlocks("wheat", 3)'}: run these, one per cook
    decision.problems                       # shown to the model in the next step's feedback section

Each call builds the prompt (mindpy.dispatch.prompt) from the state, the problems of the previous reply and the
last `history_steps` steps, asks the model once, and keeps the commands the reply parser accepts (a line for a
person cooking beside the cooks is one of its problems, never run). A failed model call gives a decision without
commands whose problem says so; the episode goes on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from ..commands import CommandRegistry, default_registry
from ..models.base import ChatModel, ModelError
from .decision import Decision, HistoryEntry
from .prompt import DISPATCH_COMMANDS, DispatcherOptions, DispatchPrompt, build_prompt, dispatch_command_docs
from .reply import parse_dispatch_reply
from .state import DispatchState

KEPT_HISTORY = 50  # steps kept; the prompt shows the last history_steps of them


class Dispatcher:
    """Asks `model` for every free cook's next command and checks the answer."""

    def __init__(self, model: ChatModel, options: DispatcherOptions, agent_names: Sequence[str],
                 command_docs: str | None = None, *, dishes: Sequence[str],
                 commands: Sequence[str] = DISPATCH_COMMANDS, registry: CommandRegistry | None = None):
        if not agent_names or len(set(agent_names)) != len(agent_names):
            raise ValueError(f"the dispatcher needs unique agent names, got {list(agent_names)}")
        self.model = model
        self.options = options
        self.agent_names = tuple(agent_names)
        self.dishes = tuple(dishes)
        self.commands = tuple(commands)
        self.registry = registry or default_registry()
        self.command_docs = command_docs if command_docs is not None else dispatch_command_docs(self.registry,
                                                                                                 self.commands)
        self.history: deque[HistoryEntry] = deque(maxlen=max(KEPT_HISTORY, options.history_steps))
        self.pending_problems: list[str] = []  # found in the last reply, shown in the next prompt

    def decide(self, state: DispatchState) -> Decision:
        """The commands for this step's free cooks."""
        prompt = self.prompt(state)
        try:
            reply = self.model.send([{"role": "user", "content": prompt.user}], system=prompt.system).text
        except ModelError as exc:
            return self._keep(Decision(state.step, {}, [f"the dispatcher's model call failed: {exc}"], "",
                                       prompt.system, prompt.user))
        return self.answer(state, prompt, reply)

    def prompt(self, state: DispatchState) -> DispatchPrompt:
        """The prompt for `state`: what the model is asked (and what an environment shows its learner)."""
        unknown = [a.name for a in state.agents if a.name not in self.agent_names]
        if unknown:
            raise ValueError(f"state names agents the dispatcher does not command: {', '.join(unknown)}; "
                             f"its agents are {', '.join(self.agent_names)}")
        return build_prompt(self.dishes, state, self.options, self.command_docs, list(self.history),
                            self.pending_problems)

    def answer(self, state: DispatchState, prompt: DispatchPrompt, reply: str) -> Decision:
        """The decision of `reply` to `prompt` (the commands the parser accepts, the problems found), kept in the
        history and the next prompt's feedback; a learner's reply comes in here as a model's does."""
        parsed = parse_dispatch_reply(reply, self.agent_names, self.registry, busy=state.busy_agents(),
                                      allowed=self.commands, people=[p.name for p in state.people])
        return self._keep(Decision(state.step, parsed.commands, parsed.problems, reply, prompt.system, prompt.user))

    def _keep(self, decision: Decision) -> Decision:
        self.history.append(decision.history_entry())
        self.pending_problems = list(decision.problems)
        return decision
