"""A written belief in place of the raw history (a profile's `belief_state: true`), for the MINDcraft families:
after new turns arrive the model rewrites its belief about its partners (what they hold and do) and the team's
progress, and the turn's prompt shows that belief and the newest turns instead of the whole conversation.

    belief = Belief("andy")
    turns = belief.stand_in(model, system, agent.history)   # [{"role": "user", "content": "Your belief..."}]
    system, messages = prompter.conversing(agent, turns=turns)   # the prompt's state part still follows
    belief.text                                                 # saved with the agent's state, restored on start

A failed rewrite keeps the old belief (the model being down must not stop the agent). With no new turn since the
last rewrite the belief stands as it is, without a call.
"""

from __future__ import annotations

import logging
from typing import Any

from ..prompts import format_turns
from ..prompts.belief import TEAM_HEADINGS, belief_prompt, belief_request

log = logging.getLogger(__name__)

LATEST_SHOWN = 3  # newest turns shown word for word beside the belief (a request's exact wording matters)


class Belief:
    """One agent's written belief and how far into its history it has read."""

    def __init__(self, name: str, text: str = ""):
        self.name = name
        self.text = text
        self.read = 0  # History.added when the belief was last rewritten

    def stand_in(self, model: Any, system: Any, history: Any) -> list[dict]:
        """The turns that stand for the history: the belief, rewritten from the turns added since the last call,
        and the newest turns (also when read before: a retried turn must still see the request it answers)."""
        new, added = history.since(self.read)
        if new:
            request = belief_request(self.text, format_turns(new, self.name), TEAM_HEADINGS)
            try:
                reply = model.send([{"role": "user", "content": request}], system)
                self.text = str(getattr(reply, "text", reply) or "").strip() or self.text
            except Exception as exc:  # keep the old belief: the turn goes on with it
                log.warning("%s: the belief was not rewritten: %s", self.name, exc)
            self.read = added
        latest = format_turns(history.get()[-LATEST_SHOWN:], self.name) or "(nothing yet)"
        return [{"role": "user", "content": belief_prompt(self.text or "(none yet)", f"Latest:\n{latest}")}]
