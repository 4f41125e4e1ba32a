"""The world as bots see it: queries for the model (stats, inventory, nearby blocks and entities, craftable
items), what the modes observe each tick, and bulk reads for tasks."""

from . import bulk, observe, queries

__all__ = ["bulk", "observe", "queries"]
