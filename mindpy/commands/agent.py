"""Commands about the agent itself: stopping, its modes, its goal, its conversations, its memory, writing code.

They act on the agent's parts in the context, not on the world; most of them leave the running action alone
(`interrupts=False`). On a bot without an agent they answer that they are not available.
"""

from __future__ import annotations

from ..agent.modes import MODE_NAMES
from .common import about_agent, action, player, query
from .context import AgentContext
from .params import BOOL, STRING, Choice, Param


def stop(ctx: AgentContext) -> str:
    """Stop the running action and any resume after it; the goal stays."""
    actions = ctx.need("actions", "Stopping an agent's actions")
    actions.stop()
    actions.cancel_resume()
    message = "Agent stopped."
    if ctx.self_prompter is not None and ctx.self_prompter.active:
        message += " Self-prompting is still active: use !endGoal to end it."
    return message


def stfu(ctx: AgentContext) -> str:
    """Stop chatting and self-prompting; the running action goes on."""
    ctx.need("controls", "!stfu").shut_up_now()
    return "Stopped chatting and self-prompting; the current action goes on."


def restart(ctx: AgentContext) -> str:
    """Ask whoever runs the agent to start it again."""
    ctx.need("controls", "!restart").request_restart()
    return "Restarting."


def clear_chat(ctx: AgentContext) -> str:
    """Forget the conversation so far."""
    ctx.need("history", "Chat history").clear()
    return "Cleared the chat history."


def set_mode(ctx: AgentContext, mode: str, on: bool) -> str:
    """Turn one mode on or off."""
    ctx.need("modes", "Modes").set_on(mode, on)
    return f"Mode {mode} is now {'on' if on else 'off'}."


def new_action(ctx: AgentContext, prompt: str) -> str:
    """Have the model write code for `prompt` and run it."""
    return ctx.need("controls", "Writing code (!newAction)").new_action(prompt)


def set_goal(ctx: AgentContext, goal: str) -> str:
    """Start self-prompting towards `goal`; the agent remembers who asked for it (a goal gains no trust)."""
    ctx.need("self_prompter", "Self-prompting")
    return ctx.need("controls", "Self-prompting").set_goal(goal)


COMMANDS = (
    action("newAction", "Write and run code for a behaviour that no command covers. Use it only when no command "
                        "fits; describe the behaviour as a clear step-by-step plan.",
           Param("prompt", STRING, "What the code should do, step by step.", example="build a 3x3 dirt platform"),
           run=about_agent(new_action)),
    action("stop", "Stop at once every action and command you are running.", run=about_agent(stop),
           interrupts=False),
    action("stfu", "Stop chatting and stop working towards your goal, but let the running action finish.",
           run=about_agent(stfu), interrupts=False),
    action("restart", "Restart yourself (the agent process).", run=about_agent(restart), interrupts=False),
    action("clearChat", "Forget the conversation so far.", run=about_agent(clear_chat), interrupts=False),
    query("modes", "Show your automatic behaviours (modes): what each one does and whether it is on.",
          run=about_agent(lambda ctx: ctx.need("modes", "Modes").describe())),
    action("setMode", "Turn one of your automatic behaviours (modes) on or off; !modes lists them.",
           Param("mode_name", Choice(MODE_NAMES), "The mode.", example="hunting"),
           Param("on", BOOL, "true to turn it on, false to turn it off.", example=False),
           run=about_agent(set_mode), interrupts=False),
    action("goal", "Give yourself a goal and keep working on it, prompting yourself, until it is done or you end "
                   "it.",
           Param("selfPrompt", STRING, "The goal, with the details you need to pursue it.",
                 example="collect 10 oak logs"),
           run=about_agent(set_goal),
           interrupts=False),
    action("endGoal", "Stop working on your goal.",
           run=about_agent(lambda ctx: ctx.need("self_prompter", "Self-prompting").stop()), interrupts=False),
    action("startConversation", "Start talking with another bot (not with human players).",
           player("The bot to talk with."),
           Param("message", STRING, "The first message.", example="Hello!"),
           run=about_agent(lambda ctx, name, message: ctx.need("conversations", "Talking with other bots")
                           .start_conversation(name, message)),
           interrupts=False),
    action("endConversation", "End your conversation with a bot.", player("The bot."),
           run=about_agent(lambda ctx, name: ctx.need("conversations", "Talking with other bots")
                           .end_conversation(name, notify=True)),
           interrupts=False),
)
