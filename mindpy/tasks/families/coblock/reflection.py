"""CoBlock's reflection during play: the review of the structure (mindpy.tasks.families.coblock.review) for each
agent whose profile has `reflection` on: the paper's (its goal's cells and the blocks it placed, from the team's
public record), or our longer one with `review_detail`."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ....errors import MindpyError
from ...schema import Task
from .review import built_blocks, review, review_text

log = logging.getLogger(__name__)


class Reviewer:
    """The reflection program's review of the structure, for the agents whose profile has `reflection` on: added
    to the agent's history, so its next prompt has it. `review_one(name)` after an agent's own place or break
    (playing without rounds), `review_all()` after each round."""

    def __init__(self, task: Task, names: list[str], agents: Callable[[], dict]):
        self.task = task
        self.names = names
        self.agents = agents  # the runner's agents now (a restarted agent is a new object)

    def _reflecting(self) -> dict:
        """The agents that get a review: those whose profile has `reflection` on."""
        return {name: agent for name, agent in self.agents().items()
                if name in self.names and getattr(agent.prompter, "reflection", False)}

    def review_one(self, name: str) -> None:
        """Review the structure for agent `name` (after its own place or break), if it reflects."""
        reflecting = self._reflecting()
        if name in reflecting:
            self._review({name: reflecting[name]})

    def review_all(self) -> None:
        """Review the structure for every agent that reflects (after a round), reading the site once."""
        self._review(self._reflecting())

    def _review(self, agents: dict) -> None:
        if not agents:
            return
        try:
            blocks = built_blocks(next(iter(agents.values())).bot, self.task)
        except MindpyError as exc:  # the world could not be read: no review this time
            log.warning("reading the structure for the review: %s", exc)
            return
        for name, agent in agents.items():
            detail = bool(getattr(agent.prompter, "review_detail", False))
            record = getattr(agent, "public_record", None)
            own = record.placed_by(name) if record is not None else None
            try:
                lines = review(self.task, self.names.index(name), blocks, own=own, detail=detail)
            except MindpyError as exc:  # no goal to review against (a task built in code)
                log.warning("reviewing the structure for %s: %s", name, exc)
                continue
            agent.history.add("system", review_text(lines, detail=detail))
