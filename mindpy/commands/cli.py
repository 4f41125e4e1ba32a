"""`mindpy commands`: print the command table, or the docs the model gets. The main CLI calls `register`."""

from __future__ import annotations


def _cmd_commands(args) -> int:
    from .blocking import blocked_commands
    from .catalog import default_registry
    from .docs import command_docs, command_table

    registry = default_registry(args.version)
    if args.docs:
        blocked, warnings = blocked_commands(registry, args.block)
        for warning in warnings:
            print(f"warning: {warning}")
        print(command_docs(registry, blocked, args.docs))
    else:
        print(command_table(registry))
        print(f"\n{len(registry)} commands")
    return 0


def register(subparsers) -> None:
    """Add the `commands` subcommand (list the commands, or print their docs) to `subparsers`."""
    from .. import DEFAULT_MINECRAFT_VERSION

    parser = subparsers.add_parser("commands", help="list the commands the model can use")
    parser.add_argument("--docs", choices=("full", "short"), default=None,
                        help="print the command docs as the model sees them, in full or short form")
    parser.add_argument("--block", action="append", default=[], metavar="NAME",
                        help="leave a command out of the docs (repeatable)")
    parser.add_argument("--mc-version", dest="version", default=DEFAULT_MINECRAFT_VERSION,
                        help=f"Minecraft version for the item and block names (default {DEFAULT_MINECRAFT_VERSION})")
    parser.set_defaults(func=_cmd_commands)
