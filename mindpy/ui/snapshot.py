"""What a dashboard card shows of one agent, and the map: taken by mindpy.agent.cards (a worker process of a
multi-process run takes its agents' cards with the same functions), re-exported here."""

from ..agent.cards import (
                           CARD_EVENTS,
                           EVENT_TEXT_LIMIT,
                           EVENTS_SHOWN,
                           agent_snapshot,
                           map_around,
                           map_snapshot,
                           model_name,
                           partners,
                           recent_events,
                           spend,
                           world_snapshot,
)

__all__ = ["CARD_EVENTS", "EVENTS_SHOWN", "EVENT_TEXT_LIMIT", "agent_snapshot", "map_around", "map_snapshot",
           "model_name", "partners", "recent_events", "spend", "world_snapshot"]
