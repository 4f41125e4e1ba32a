"""Exceptions shared across mindpy's layers."""


class MindpyError(Exception):
    """Base class of every error mindpy raises on purpose."""


class SetupError(MindpyError):
    """Something the project needs is not installed; the message says how to fix it."""


class BridgeError(MindpyError):
    """A JavaScript call failed; the message carries the JavaScript error message."""


class BridgeTimeout(BridgeError):
    """A JavaScript call or event did not complete in time."""


class NodeStopped(BridgeTimeout):
    """The bots' Node process has exited: no JavaScript call can be answered any more. A kind of BridgeTimeout (the
    answer never comes), so that what outlives a stalled Node outlives this too; the bots' owner reports the loss."""


class ServerError(MindpyError):
    """The Minecraft server could not be started or reached."""


class UnsupportedVersion(MindpyError):
    """A Minecraft version that mindpy cannot use was asked for."""


class UserFileError(MindpyError):
    """A file a user gave (task file, profile, settings) cannot be read or parsed; the message is one line that
    names the file."""


class ConfigError(MindpyError):
    """A model or option that mindpy cannot use, found before anything starts; the message names it."""
