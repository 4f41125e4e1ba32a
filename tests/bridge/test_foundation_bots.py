"""Two real bots on the embedded server: chat and operator commands, seen from Python."""

from conftest import wait_until


def test_chat_reaches_the_other_bot_exactly(make_bot):
    alice, bob = make_bot("alice"), make_bot("bob")
    heard = []
    bob.on("chat", lambda username, message, *rest: heard.append((username, message)))
    text = "hello bob, this is alice 123"
    alice.chat(text)
    wait_until(lambda: (alice.name, text) in heard, message="bob to hear alice")
    assert [m for u, m in heard if u == alice.name] == [text]


def test_operator_give_changes_inventory(make_bot):
    bot = make_bot("giver")
    assert bot.inventory().get("oak_log", 0) == 0
    bot.command(f"/give {bot.name} oak_log 7")
    assert wait_until(lambda: bot.inventory().get("oak_log") == 7, message="7 oak_log in the inventory")
