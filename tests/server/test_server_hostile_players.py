"""One player's packets cannot drop the others: oversized chat and commands, and chat with characters vanilla does
not allow, are refused as vanilla refuses them, and a second player cannot join under the name of a player who is
online."""

from __future__ import annotations

import pytest

from agent_helpers import listen
from conftest import TESTS_DIR, unique_name, wait_until
from mindpy.bridge import create_bot, js_module
from mindpy.errors import BridgeError

HUGE = 100_000


def kicks(bot) -> list[str]:
    """The reasons `bot` is kicked with, as text."""
    reasons: list[str] = []
    bot.on("kicked", lambda reason, *rest: reasons.append(str(reason)))
    return reasons


def still_chatting(witness, listener, text: str) -> None:
    """`witness` says `text` and `listener` hears it: both are still on the server and their chat goes through."""
    heard = listen(listener)
    witness.chat(text)
    wait_until(lambda: (witness.name, text) in heard, timeout=15,
               message=lambda: f"{listener.name} to hear {witness.name} say {text!r}; heard {heard[-3:]}")


@pytest.mark.parametrize("packet", ["chat", "command"])
def test_an_oversized_chat_or_command_drops_only_its_sender(make_bot, packet):
    witness, listener, offender = make_bot("witness"), make_bot("listener"), make_bot("offender")
    heard = listen(witness)
    kicked = kicks(offender)
    huge = "x" * HUGE
    # mineflayer's bot.chat cuts text into 256-character pieces: the raw client sends it whole, as a hostile
    # client would (a command goes as chat_command)
    offender.js._client.chat(huge if packet == "chat" else f"/say {huge}")
    still_chatting(witness, listener, f"still here after the {packet}")
    still_chatting(listener, witness, "me too")
    assert witness.connected and listener.connected
    wait_until(lambda: kicked, timeout=15, message="the offender to be disconnected")
    assert "too long" in kicked[0] and "at most 256" in kicked[0], kicked
    wait_until(lambda: not offender.connected, timeout=15, message="the offender's connection to end")
    assert not any("x" * 300 in message for _, message in heard), "the oversized text reached another player"


def test_chat_with_characters_vanilla_refuses_disconnects_its_sender(make_bot):
    listener, offender = make_bot("listener"), make_bot("offender")
    heard = listen(listener)
    kicked = kicks(offender)
    offender.js._client.chat("hi \u00a7kall\x1b[2J")  # a formatting code and a terminal escape
    wait_until(lambda: kicked, timeout=15, message="the offender to be disconnected")
    assert kicked[0] == "Illegal characters in chat"
    still_chatting(listener, listener, "nothing odd here")
    assert not any(who == offender.name for who, _ in heard), heard


@pytest.mark.parametrize("x", ["nan", "infinity", 1e308, -3.1e7])
def test_a_move_to_no_real_place_disconnects_its_sender(make_bot, x):
    watcher, offender = make_bot("watcher"), make_bot("mover")
    kicked = kicks(offender)
    js_module(TESTS_DIR / "server" / "js" / "hostile_moves.js").sendPosition(offender.js, x)
    wait_until(lambda: kicked, timeout=15, message="the offender to be disconnected")
    assert kicked[0] == "Invalid move player packet received"
    still_chatting(watcher, watcher, f"no one at x={x}")


def test_chat_at_the_limit_still_goes_through(make_bot):
    speaker, listener = make_bot("speaker"), make_bot("hearer")
    heard = listen(listener)
    text = "y" * 256  # vanilla's longest chat message
    speaker.js._client.chat(text)
    wait_until(lambda: (speaker.name, text) in heard, timeout=15, message="the 256-character message")
    assert speaker.connected


def test_a_second_player_with_an_online_players_name_is_refused(make_bot, server):
    holder = make_bot("holder")
    for name in (holder.name, holder.name.upper()):  # the name in any letter case
        with pytest.raises(BridgeError, match=f"A player named {holder.name} is already on this server"):
            create_bot(name, server.host, server.port, timeout=15)
    assert holder.connected
    still_chatting(holder, holder, "I am still the only one")
    holder.close()  # once it has left, the name is free again
    again = make_bot(exact_name=holder.name)
    assert again.connected


def test_two_players_joining_at_once_under_one_name_let_one_in(server):
    from mindpy.bridge import create_bots

    name = unique_name("twin")
    with pytest.raises(BridgeError, match="already on this server"):
        create_bots([name, name], server.host, server.port, at_once=2, timeout=15)
    alone = create_bot(name, server.host, server.port)  # the group left: the name is free
    try:
        assert alone.connected
    finally:
        alone.close()
