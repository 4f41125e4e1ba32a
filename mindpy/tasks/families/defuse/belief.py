"""A defuse agent's first written belief, as the paper starts it (Li et al., 2023, section 4.2 and appendix A.2): the
belief's headings filled in with what the agent knows at the start, so the model sees the format it is to keep.

    initial_belief(game, agent=0)   # "Role: you are Player Alpha. ..." with the map and everyone's cutters filled in

Under the headings of mindpy.commands.defuse.BELIEF_HEADINGS: the role, round and team score, the first
observation (the agent's room, its bomb, who is there), the teammates' rooms, the room connectivity, bomb intel
(the bombs in sight with unknown sequences, every other bomb unknown), everyone's cutters, and the commands that
stand for the paper's actions. The model rewrites it after every observation (the update is left to it, zero-shot,
as in the paper).
"""

from __future__ import annotations

from ...generators.common import join_words
from .game import DefuseGame


def initial_belief(game: DefuseGame, agent: int) -> str:
    """The belief `agent` starts with (see the module doc)."""
    obs = game.observation(agent)
    layout = game.layout
    here = [b.id for b in obs.bombs]
    company = [name for name, room in obs.teammates.items() if room == obs.room]
    with_whom = f" with Player {join_words(company)}" if company else ", no teammate with you"
    seen = (f" Bomb {join_words([str(b) for b in here])} is here, sequence unknown; no other bomb is here."
            if here else " There is no bomb here.")
    rooms = [f"- Room {r} connects to room {join_words([str(n) for n in layout.neighbours(r)])}"
             for r in layout.room_ids]
    bombs = [f"- Bomb {b.id}: in Room {obs.room}, sequence unknown." if b.id in here else
             f"- Bomb {b.id}: nothing known yet." for b in layout.bombs]
    tools = [f"- {game.name(a)}: {join_words(list(layout.cutters[a]))} cutters."
             for a in range(game.agent_count)]
    where = "; ".join(f"Player {game.name(a)} is in Room {game.rooms[a]}" for a in range(game.agent_count))
    return "\n".join([
        f"Role: you are Player {obs.name}.",
        f"Round: {obs.round_no}. Team score: {obs.score}.",
        f"Observation: you are in Room {obs.room}{with_whom}.{seen}",
        f"Teammates' locations: {where}.",
        "Room connectivity:", *rooms,
        "Bomb intel:", *bombs,
        "Tool inventory:", *tools,
        "Available actions:",
        "- Move to an adjacent room: !goToRoom(X)",
        "- Inspect the bomb in your room: !inspectBomb",
        '- Apply one of your cutters to the bomb in your room: !applyTool("X")',
        '- Tell your teammates something: !broadcast("...")',
    ])
