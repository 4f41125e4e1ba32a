"""Chat that never becomes a server command, checked at every split boundary without a server.

Texts of many kinds of characters (ASCII, emoji, combining marks, lone surrogates, "§", control characters, Unicode
spaces, line breaks) with a "/give" at every offset from 0 to 600 are cut by mindpy.bridge.plain_chat, and each piece
is then sent through mineflayer's splitting: once as a reproduction of its rule here, once through mineflayer's own
chat plugin in Node (tests/js/chat_split.js). No piece may reach the client as a command, be cut again, start
with "/" after what a server may trim, hold a character a server kicks for, or exceed the limit in UTF-16 units.
"""

from __future__ import annotations

import functools
import json
import subprocess
import unicodedata

import pytest

from conftest import TESTS_DIR
from mindpy.agent.agent import MOST_CHAT_PIECES, chat_pieces
from mindpy.bridge.plain_chat import (
    CHAT_LIMIT,
    OLD_CHAT_LIMIT,
    check_player_name,
    plain_chat_pieces,
    tell_commands,
    utf16_units,
    whisper_header,
)
from mindpy.nodejs import node_binary, node_environment

GIVE = "/give mallory diamond 7"
OFFSETS = range(0, 601)
FILLERS = {
    "ascii": "x",
    "emoji": "\U0001F600",
    "emoji and ascii": "\U0001F600ab",
    "combining marks": "e\u0301\u0308",
    "lone surrogates": "\ud83d\udc00a\ude00",
    "section sign": "\u00a7c",
    "control characters": "\x00\x07\x1b\t\x7f\x9b",
    "unicode spaces": "\u00a0\u2003\u3000\u200b\ufeff\u202e",
    "line breaks": "\n\r\u2028\u2029\x85\x0b",
    "mixed": "a\U0001F600\u00a0\n\u0301\u00a7\ud800 \x01",
}
# What a server may skip before looking for "/": what Java's trim and strip, Apache's normalizeSpace and
# JavaScript's trimStart drop, and format characters
SERVER_TRIMS = ("Zs", "Zl", "Zp", "Cc", "Cf")
PLAYER = "mallory_1"


def length(text: str) -> int:
    """UTF-16 code units, as JavaScript's `length`."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def cut_units(text: str, start: int, end: int) -> str:
    """JavaScript's `text.substring(start, end)`: by UTF-16 code units, a pair's halves may come apart."""
    data = text.encode("utf-16-le", "surrogatepass")[2 * start:2 * end]
    return data.decode("utf-16-le", "surrogatepass")


def mineflayer_sends(message: str, limit: int, header: str = "") -> list[str]:
    """What mineflayer's chatWithHeader hands to client.chat (lib/plugins/chat.js): a message that starts with "/"
    whole; any other cut at each "\\n" and then every `limit - len(header)` UTF-16 units, each with the header."""
    if not header and message.startswith("/"):
        return [message]
    room = limit - len(header)
    sent = []
    for line in message.split("\n"):
        sent += [header + cut_units(line, i, i + room) for i in range(0, length(line), room)]
    return sent


def runs_as_command(message: str) -> bool:
    """minecraft-protocol sends it as a command, or a server that trims first would run it as one."""
    start = 0
    while start < len(message) and (message[start].isspace() or unicodedata.category(message[start]) in SERVER_TRIMS):
        start += 1
    return message.startswith("/") or message.startswith("/", start)


def refused_by_servers(message: str) -> bool:
    """Vanilla and Paper kick a player for these ("illegal characters in chat")."""
    return any(ord(c) < 0x20 or c in "\x7f\u00a7" for c in message)


def texts(offsets=OFFSETS):
    for name, filler in FILLERS.items():
        body = filler * (700 // len(filler) + 1)
        for offset in offsets:
            yield f"{name}, '/' at {offset}", body[:offset] + GIVE + body[offset:offset + 60]
            yield f"{name}, ' /' at {offset}", body[:offset] + " " + GIVE


def check_pieces(what: str, pieces: list[str], limit: int) -> None:
    for piece in pieces:
        assert piece and utf16_units(piece) <= limit, (what, piece)
        assert utf16_units(piece) == length(piece)
        assert not runs_as_command(piece), (what, piece)
        assert not refused_by_servers(piece), (what, piece)
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in piece), (what, "a lone surrogate", piece)


@functools.cache
def cut(limit: int, header: str = "") -> list[tuple[str, list[str]]]:
    """Every text, cut for messages of `limit` units that start with `header` (a whisper's "/tell NAME ")."""
    return [(what, plain_chat_pieces(text, limit - utf16_units(header))) for what, text in texts()]


@pytest.mark.parametrize("limit", [CHAT_LIMIT, OLD_CHAT_LIMIT])
def test_no_chat_piece_is_a_command_or_cut_again_at_any_offset(limit):
    for what, pieces in cut(limit):
        check_pieces(what, pieces, limit)
        for piece in pieces:
            assert mineflayer_sends(piece, limit) == [piece], (what, piece)
        assert "give mallory diamond 7" in "".join(pieces), (what, pieces)  # said, not dropped


def test_no_whispered_piece_carries_a_second_command():
    header = whisper_header(PLAYER)
    for what, pieces in cut(CHAT_LIMIT, header):
        check_pieces(what, pieces, CHAT_LIMIT - len(header))
        for piece in pieces:
            assert mineflayer_sends(piece, CHAT_LIMIT, header) == [header + piece], (what, piece)


def test_whispers_issued_as_commands_are_one_message_each_and_one_command_each():
    """What the server console or an operator bot sends for a whisper (tell_commands): each line is one /tell."""
    for what, text in texts(range(0, 601, 11)):
        for line in tell_commands(PLAYER, text):
            assert line.startswith(whisper_header(PLAYER)) and length(line) <= CHAT_LIMIT, (what, line)
            assert len(line.splitlines()) == 1 and not refused_by_servers(line), (what, line)


@pytest.mark.parametrize("limit", [CHAT_LIMIT, OLD_CHAT_LIMIT])
def test_an_agents_long_chat_is_a_few_plain_pieces_with_the_note(limit):
    for what, text in texts(range(0, 601, 37)):  # the pieces themselves are checked at every offset above
        text = text * 3 + "y" * 1200
        pieces = chat_pieces(text, limit)
        check_pieces(what, pieces, limit)
        assert len(pieces) <= MOST_CHAT_PIECES, what
        assert pieces[-1].endswith("more characters not said]"), (what, pieces[-1])


@pytest.mark.parametrize("extra", [1, 99, 100, 10_000])
def test_the_cut_note_counts_emoji_as_one_character_each(extra):
    text = "\U0001F600" * (CHAT_LIMIT * MOST_CHAT_PIECES // 2 + extra)
    pieces = chat_pieces(text)
    said = "".join(pieces)
    kept, _, note = said.partition(" [")
    assert len(pieces) == MOST_CHAT_PIECES and all(utf16_units(p) <= CHAT_LIMIT for p in pieces)
    assert text.startswith(kept) and note == f"{len(text) - len(kept)} more characters not said]"
    assert utf16_units(said) > CHAT_LIMIT * MOST_CHAT_PIECES - 2 * MOST_CHAT_PIECES - 40, "the pieces are not full"


@pytest.mark.parametrize("name", ["", "a" * 17, "x y", "a\n/give", "@a", "@e[type=player]", "mallory give", "a\u00a7b",
                                  None])
def test_a_whisper_to_a_name_no_player_has_is_refused(name):
    with pytest.raises(ValueError, match="player's name"):
        check_player_name(name)
    with pytest.raises(ValueError, match="player's name"):
        tell_commands(name, "hello")


def run_mineflayer(version: str, calls: list[dict]) -> dict:
    request = json.dumps({"version": version, "calls": calls}, ensure_ascii=False)
    done = subprocess.run([str(node_binary()), str(TESTS_DIR / "js" / "chat_split.js")], input=request,
                          capture_output=True, text=True, encoding="utf-8", errors="surrogatepass",
                          env=node_environment(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("version", ["1.21.1", "1.8.8"])
def test_mineflayers_own_chat_plugin_sends_each_piece_whole_and_never_as_a_command(version):
    """Each piece goes out as one message, exactly (with "/tell NAME " before a whispered one), never a command."""
    limit = CHAT_LIMIT if version != "1.8.8" else OLD_CHAT_LIMIT
    header = whisper_header(PLAYER)
    cases = [("chat", what, pieces) for what, pieces in cut(limit)]
    cases += [("whisper", what, pieces) for what, pieces in cut(limit, header)]
    result = run_mineflayer(version, [{"kind": kind, "player": PLAYER, "pieces": pieces}
                                      for kind, _, pieces in cases])
    assert result["limit"] == limit
    for (kind, what, pieces), outcome in zip(cases, result["calls"], strict=True):
        assert outcome["refused"] is None, (what, outcome["refused"])
        prefix = header if kind == "whisper" else ""
        assert outcome["sent"] == [prefix + piece for piece in pieces], what
        assert kind == "whisper" or not any(m.startswith("/") for m in outcome["sent"]), what


def test_the_last_check_in_node_refuses_a_piece_that_would_run_or_be_cut():
    bad = [["/give mallory diamond 1"], ["\u00a0/give mallory diamond 1"], ["ok", "a\n/give mallory diamond 1"],
           ["x" * 257], ["\u00a7cred"], [""]]
    result = run_mineflayer("1.21.1", [{"kind": "chat", "pieces": pieces} for pieces in bad]
                            + [{"kind": "whisper", "player": "a b", "pieces": ["hi"]}])
    for pieces, outcome in zip([*bad, ["whisper"]], result["calls"], strict=True):
        assert outcome["refused"] and outcome["sent"] == [], (pieces, outcome)
