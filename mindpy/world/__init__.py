"""World queries: stats, inventory, nearby blocks and entities, craftable items."""

from . import queries

__all__ = ["queries"]
