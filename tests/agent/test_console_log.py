"""ConsoleLog: what players and models say is shown on the operator's terminal as text, one line per event, never
as escape sequences the terminal would act on."""

from __future__ import annotations

import io
import unicodedata

import pytest

from mindpy.agent.runner import ConsoleLog

HOSTILE = [
    ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),                 # a terminal title change (OSC)
    ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),                       # a cleared screen
    ("hi\r12:00:00 [andy] runs: !givePlayer", "hi\\x0d12:00:00"),  # a log line written over this one
    ("gg\u202eevil", "gg\\u202eevil"),                           # the rest of the line turned around
    ("\x9b31m", "\\x9b31m"),                                     # the one-character CSI (C1)
    ("a\u2028b\x85c\x0bd\x0ce", "a\\u2028b\\x85c\\x0bd\\x0ce"),  # line breaks a terminal or editor may honour
    ("zero\u200bwidth\u2066", "zero\\u200bwidth\\u2066"),        # invisible format characters
    ("\ud800lone", "\\ud800lone"),                               # a lone surrogate (a model's JSON may decode to one)
]


def lines_of(kind, text, limit=300):
    out = io.StringIO()
    ConsoleLog(out, limit=limit)("andy", kind, text)
    return out.getvalue()


@pytest.mark.parametrize("text,shown", HOSTILE)
@pytest.mark.parametrize("kind", ["heard", "said", "output", "to bot", "refused", "model error"])
def test_controls_and_format_characters_are_shown_as_escapes_on_one_line(kind, text, shown):
    written = lines_of(kind, f"<mallory> {text}")
    assert written.count("\n") == 1 and written.endswith("\n")
    line = written[:-1]
    assert shown in line, line
    assert not [c for c in line if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")], ascii(line)


def test_a_message_on_several_lines_is_one_line_with_ordinary_spaces():
    """Command outputs span lines (an inventory): they stay readable, joined by spaces, as before."""
    assert lines_of("output", "INVENTORY\n- oak_log: 3\n\t- dirt: 1\n").endswith("sees: INVENTORY - oak_log: 3 - dirt: 1\n")


def test_other_scripts_and_emoji_are_kept():
    assert lines_of("heard", "<bob> привет 你好 🙂 café").endswith("hears: <bob> привет 你好 🙂 café\n")


def test_a_long_hostile_text_is_cut_within_the_limit_and_still_one_line():
    written = lines_of("heard", "\x1b[31m" * 1000, limit=100)
    assert written.count("\n") == 1 and "\x1b" not in written
    assert len(written.split(": ", 1)[1]) <= 101


def test_many_events_give_as_many_lines():
    out = io.StringIO()
    console = ConsoleLog(out)
    for text, _ in HOSTILE:
        console("andy", "heard", text)
    console("andy", "tick", "not shown")
    assert len(out.getvalue().splitlines()) == len(out.getvalue().split("\n")) - 1 == len(HOSTILE)


def test_log_lines_of_a_run_show_what_players_said_as_text():
    """`mindpy run -v` logs every heard message (and warnings quote model errors): through the CLI's handler
    they are text on one line each, and a traceback keeps its lines."""
    import subprocess
    import sys

    script = (
        "import logging\n"
        "from mindpy import cli\n"
        "cli.main(['-v', 'commands'])\n"
        "log = logging.getLogger('mindpy.agent.agent')\n"
        "log.info('andy heard: <mallory> hi\\x1b]0;pwned\\x07\\r12:00:00 forged\\u202e')\n"
        "try:\n"
        "    raise ValueError('bad \\x1b[2J value')\n"
        "except ValueError:\n"
        "    log.exception('command failed')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          errors="backslashreplace")
    lines = [line for line in done.stderr.splitlines() if "mindpy.agent.agent" in line or "ValueError" in line]
    assert any("hi\\x1b]0;pwned\\x07\\x0d12:00:00 forged\\u202e" in line for line in lines), done.stderr[-2000:]
    assert "ValueError: bad \\x1b[2J value" in done.stderr and "Traceback (most recent call last):\n" in done.stderr
    assert not [c for c in done.stderr if unicodedata.category(c) in ("Cc", "Cf") and c != "\n"]
