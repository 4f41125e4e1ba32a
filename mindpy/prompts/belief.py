"""A written belief that stands for an agent's raw history (a profile's `belief_state`; the defuse rounds' too):
the request that has the model rewrite it after an observation, and the prompt that shows it in the history's place.

    request = belief_request("", "jill: I have 3 planks", TEAM_HEADINGS)   # ask the model; its answer is the belief
    belief_prompt(belief, "Latest messages:\\njill: I have 3 planks")       # the turn's one user message

The headings say what a belief keeps. For the defuse family: the paper's (role, round, bomb intel...). For the
MINDcraft families: what each partner holds and is doing, and what the team still needs.
"""

from __future__ import annotations

from collections.abc import Sequence

BELIEF_REQUEST = "Update your belief state."  # how the request starts (the oracle model recognises it)
TEAM_HEADINGS = ("Role and goal", "Partners' inventories", "Partners' progress and plans", "What I hold",
                 "What the team still needs", "Open requests and promises")


def belief_request(previous: str, observation: str, headings: Sequence[str]) -> str:
    """The question that asks an agent to rewrite its written belief after an observation."""
    return (f"{BELIEF_REQUEST} Rewrite it whole, under these headings: {'; '.join(headings)}. Keep what is still "
            f"true, correct what the observation changed, and answer with the belief only, no command.\n\n"
            f"Your belief so far:\n{previous.strip() or '(none yet)'}\n\nNew observation:\n{observation}")


def belief_prompt(belief: str, turn: str) -> str:
    """A turn's prompt with the agent's belief in place of its history."""
    return f"Your belief state:\n{belief.strip()}\n\n{turn}"
