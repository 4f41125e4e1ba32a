"""mindpy: LLM agents that play Minecraft together, driving Mineflayer bots from Python."""

__version__ = "0.1.0"

DEFAULT_MINECRAFT_VERSION = "1.21.1"
