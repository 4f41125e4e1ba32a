"""Hostile task files and profiles: whatever a file holds or is (a FIFO, a folder, a device, a symlink loop,
binary, UTF-16, duplicate keys, huge numbers), `mindpy tasks validate`, `tasks show` and `run --profile` answer
with one line and no traceback, and nothing a file holds reaches the terminal as an escape sequence."""

from __future__ import annotations

from mindpy.userfiles import visible_text


def test_visible_text_escapes_what_a_terminal_would_act_on_or_hide():
    text = "id\x1b[2J\x1b]0;owned\x07\u202etxt.exe\u200b\t\r\n\x7f\x9b\ud800\u2028\U000e0041"
    assert visible_text(text) == ("id\\x1b[2J\\x1b]0;owned\\x07\\u202etxt.exe\\u200b\\x09\\x0d\\x0a\\x7f\\x9b"
                                  "\\ud800\\u2028\\U000e0041")
    kept = "plain ascii, é, 中文, emoji 😀, Ελληνικά, back\\slash"
    assert visible_text(kept) == kept
    assert visible_text("") == ""
