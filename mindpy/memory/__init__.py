"""Conversation history with summarized memory, and per-bot state files written atomically."""

from .history import History, summarize_span
from .state import BotState, atomic_write_json, atomic_write_text, read_json

__all__ = ["History", "summarize_span", "BotState", "atomic_write_json", "atomic_write_text", "read_json"]
