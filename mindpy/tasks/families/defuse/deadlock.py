"""The paper's end on a deadlock (Li et al., 2023, section 3.1: a trial ends when the team "entered a deadlock by
repeating outputs").

    watch = RepeatWatch(agents=3)
    for agent, reply in enumerate(replies_of_the_round):
        watch.see(agent, reply)
    watch.end_round()          # True once every agent has said the same thing DEADLOCK_ROUNDS rounds running

The team is deadlocked when every agent's reply of a round is the same, word for word (spacing aside), as its reply
of the round before, DEADLOCK_ROUNDS rounds in a row. The paper gives no count; three rounds (the same replies
said a second and a third time) is ours. A team that keeps saying the same things learns nothing new: the game
would only run on to its round limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEADLOCK_ROUNDS = 3
DEADLOCK = "deadlock"   # the end reason


@dataclass
class RepeatWatch:
    """Counts the rounds in a row whose replies all repeat the round before's (`rounds` 0: never a deadlock)."""

    agents: int
    rounds: int = DEADLOCK_ROUNDS
    streak: int = 0                     # rounds in a row with the same replies (1: the first of them)
    current: dict[int, str] = field(default_factory=dict)
    previous: dict[int, str] | None = None

    def __post_init__(self) -> None:
        if self.rounds < 0 or self.rounds == 1:
            raise ValueError(f"deadlock rounds must be 0 (off) or at least 2, got {self.rounds}")

    def see(self, agent: int, reply: str) -> None:
        """An agent's reply this round."""
        self.current[agent] = " ".join(reply.split())

    def end_round(self) -> bool:
        """The round is over: whether the team is now deadlocked."""
        complete = len(self.current) == self.agents
        same = complete and self.previous is not None and self.current == self.previous
        self.streak = self.streak + 1 if same else 1
        self.previous, self.current = (self.current if complete else None), {}
        return self.deadlocked

    @property
    def deadlocked(self) -> bool:
        return self.rounds > 0 and self.streak >= self.rounds
