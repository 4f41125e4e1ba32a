"""Text cut into chat messages that no client or server takes for a command.

mineflayer sends a message that starts with "/" whole, as a command; it cuts any other message at each "\\n" and
then every 256 UTF-16 code units (100 before Minecraft 1.11), and minecraft-protocol sends each of those pieces
that starts with "/" as a command. Older servers trim spaces before they look for the "/". Vanilla and Paper
servers kick a player whose chat holds "§", a control character or DEL. So a text is made sayable first (line
breaks and controls become spaces, "§" and lone surrogates become U+FFFD), then cut here into pieces of at most
the limit in UTF-16 code units, and a piece that would start with "/" (after anything a server might trim) starts
with "./" instead: players still read every word, quoted the way players quote commands in chat. mineflayer then
sends each piece as it is, as one chat message. `js/plain_chat.js` checks every piece again before it is sent.
"""

from __future__ import annotations

import re
import unicodedata

CHAT_LIMIT = 256  # UTF-16 code units per chat message (mineflayer's and the server's limit)
OLD_CHAT_LIMIT = 100  # before Minecraft 1.11
SMALLEST_LIMIT = 4  # room for an escaped "./" and one character of two units
UNSAYABLE = "\ufffd"  # what a character servers refuse, or half a surrogate pair, is said as
# Line breaks and control characters: mineflayer would cut at "\n", servers kick for the rest
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def utf16_units(text: str) -> int:
    """Length as the client library counts it: characters beyond U+FFFF (emoji) count two."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def sayable(text: str) -> str:
    """`text` with what chat cannot carry replaced: line breaks and control characters by spaces, "§" (which
    servers refuse) and lone surrogates (which UTF-8 cannot encode) by U+FFFD. A surrogate pair held as two
    characters becomes the one character it encodes."""
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return _BREAKS.sub(" ", text).replace("\u00a7", UNSAYABLE)


def _trimmable(c: str) -> bool:
    """Whether a server might skip `c` before looking for a "/": spaces, controls, format characters and
    (to be safe) marks."""
    return c.isspace() or unicodedata.category(c)[0] in "ZCM"


def _blank(c: str) -> bool:
    return c.isspace() or unicodedata.category(c)[0] in "ZC"


def escaped(piece: str) -> str:
    """`piece`, starting with "./" instead of "/" when it starts with a "/" after characters a server might
    trim (which are dropped then)."""
    start = 0
    while start < len(piece) and _trimmable(piece[start]):
        start += 1
    return "." + piece[start:] if piece.startswith("/", start) else piece


def _piece_end(text: str, start: int, limit: int) -> int:
    """The end of the longest piece from `start` that holds at most `limit` UTF-16 code units: a character holds
    one or two, so at least half the excess in characters must go each time."""
    end = min(len(text), start + limit)
    while (excess := utf16_units(text[start:end]) - limit) > 0:
        end -= (excess + 1) // 2
    return end


def plain_chat_pieces(text: str, limit: int = CHAT_LIMIT) -> list[str]:
    """`text` as chat messages of at most `limit` UTF-16 code units each, none of which any client or server
    takes for a command (see the module's docstring); pieces holding only spaces are left out."""
    if limit < SMALLEST_LIMIT:
        raise ValueError(f"a chat piece needs room for at least {SMALLEST_LIMIT} UTF-16 code units, got {limit}")
    text = sayable(text)
    pieces = []
    start = 0
    while start < len(text):
        end = _piece_end(text, start, limit)
        piece = escaped(text[start:end])
        while utf16_units(piece) > limit:  # the escape's "." did not fit: one character less
            end -= 1
            piece = escaped(text[start:end])
        if not all(_blank(c) for c in piece):
            pieces.append(piece)
        start = end
    return pieces


def whisper_header(player: str) -> str:
    """What mineflayer puts before each whispered piece."""
    return f"/tell {player} "


def tell_commands(player: str, text: str, limit: int = CHAT_LIMIT) -> list[str]:
    """`text` whispered to `player` as server command lines ("/tell NAME piece"), each one message long, for
    whoever issues commands itself (an operator bot's Bot.command, the server console)."""
    check_player_name(player)
    header = whisper_header(player)
    return [header + piece for piece in plain_chat_pieces(text, limit - utf16_units(header))]


def check_player_name(player: str) -> None:
    """Raises ValueError for a name no player can have (it would go into a /tell command)."""
    if not (isinstance(player, str) and 1 <= len(player) <= 16 and all(c.isalnum() or c == "_" for c in player)):
        raise ValueError(f"cannot whisper to {str(player)[:40]!r}: a player's name is 1-16 letters, digits or _")
