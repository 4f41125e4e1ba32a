"""The bridge between Python and the Mineflayer bots in Node (one Node process per Python process)."""

from .bot import Bot, _supported_versions, create_bot, create_bots
from .runtime import js_function, js_module, runtime, shutdown

__all__ = ["Bot", "create_bot", "create_bots", "js_function", "js_module", "runtime", "shutdown", "supported_versions"]


def supported_versions() -> list[str]:
    """Minecraft versions mineflayer is tested with."""
    return list(_supported_versions(runtime()))
