"""The orders family's dispatcher: one model (or the scripted oracle) commanding several cooks each step.

    from mindpy.dispatch import Dispatcher, DispatcherOptions, DispatchState, AgentState, OpenOrder

    dispatcher = Dispatcher(model, DispatcherOptions(demo="few_step"), ["andy", "jill"], dishes=["bread"])
    state = DispatchState(0, (AgentState("andy"), AgentState("jill")), orders=(OpenOrder(0, "bread", 9),))
    decision = dispatcher.decide(state)     # decision.commands: {"andy": '!collectBlocks("wheat", 3)', ...}

Modules: state (what the dispatcher sees, rendered), prompt (the sections and options), reply (reading a reply
into commands and problems), decision (what was decided, history), steps (dish steps as commands),
dispatcher (the model dispatcher), scripted (the earliest-deadline-first oracle), oracle (the scripted one asked
as a model), human (a player dispatching in chat).
"""

from .decision import Decision, HistoryEntry
from .dispatcher import Dispatcher
from .prompt import DISPATCH_COMMANDS, DispatcherOptions, DispatchPrompt, build_prompt, dispatch_command_docs
from .reply import ParsedReply, parse_dispatch_reply
from .scripted import ScriptedDispatcher
from .state import AgentState, ChestState, DispatchState, OpenOrder, StationState, render
from .steps import dish_commands, step_command

__all__ = [
    "AgentState", "ChestState", "DISPATCH_COMMANDS", "Decision", "DispatchPrompt", "DispatchState", "Dispatcher",
    "DispatcherOptions", "HistoryEntry", "OpenOrder", "ParsedReply", "ScriptedDispatcher", "StationState",
    "build_prompt", "dish_commands", "dispatch_command_docs", "parse_dispatch_reply", "render", "step_command",
]
