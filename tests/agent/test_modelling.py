"""Partner and self modelling sections split from a reply (mindpy.agent.modelling), in the wordings models write,
and the notes kept for the next prompt."""

from __future__ import annotations

import pytest

from mindpy.agent.modelling import MAX_NOTES_CHARS, ModellingNotes, split_modelling

PAPER = """# Partner Modelling
# Long-term goal: Build the fence on the deck
# Short-term goal: Wait until the fence is built
# Partner inventory: [red: unknown, green: unknown, black: unknown]
# Explanation: I have extracted the partner information from the partner's response.
# Self Modelling
# Long-term goal: creating the target structure
# Short-term goal: Build the green pillars. Ask for the partner's help with the pillars
# My inventory: [green: 20, red: 20, purple: 20]
# Explanation: The first part I can build is the pillars.
Could you build the pillar at (8, -60, 0)? !placeBlock("yellow_wool", 4, -60, 0)"""


def test_the_papers_format():
    sections, rest = split_modelling(PAPER)
    assert rest == 'Could you build the pillar at (8, -60, 0)? !placeBlock("yellow_wool", 4, -60, 0)'
    lines = sections.splitlines()
    assert len(lines) == 10 and all(line.startswith("# ") for line in lines)
    assert lines[0] == "# Partner Modelling" and lines[5] == "# Self Modelling"


def test_no_sections_leaves_the_reply():
    for reply in ("Sure! !placeBlock(\"red_wool\", 1, -60, 2)", "Hello partner!", ""):
        assert split_modelling(reply) == ("", reply)


@pytest.mark.parametrize("reply, sections, rest", [
    # markdown headings, blank lines, and a message of two lines after them
    ("## Partner Modelling\n# Long-term goal: Unknown\n\n## Self Modelling\n# Short-term goal: ask\n\n"
     "Hi! I need blue_wool at (1, -60, 2), can you place it?\nI will do the red ones.",
     "## Partner Modelling\n# Long-term goal: Unknown\n## Self Modelling\n# Short-term goal: ask",
     "Hi! I need blue_wool at (1, -60, 2), can you place it?\nI will do the red ones."),
    # everything on one line: the command at its end is kept
    ("# Partner Modelling # Long-term goal: Unknown # Explanation: nothing known yet "
     "!startConversation(\"bob\", \"Hi, what do you build?\")",
     "# Partner Modelling # Long-term goal: Unknown # Explanation: nothing known yet",
     "!startConversation(\"bob\", \"Hi, what do you build?\")"),
    # an exclamation mark in the text is not a command
    ("# Explanation: they are done!\nGreat!", "# Explanation: they are done!", "Great!"),
    # a header block without hashes ends at a blank line
    ("Partner modelling:\nLong-term goal: the red base\nPartner inventory: [red_wool: 5]\n\n"
     "**Self Modeling**\nShort-term goal: wait for the base\n\nTell me when your base is done.",
     "Partner modelling:\nLong-term goal: the red base\nPartner inventory: [red_wool: 5]\n**Self Modeling**\n"
     "Short-term goal: wait for the base",
     "Tell me when your base is done."),
])
def test_sections_in_other_wordings(reply, sections, rest):
    assert split_modelling(reply) == (sections, rest)
    # a command closing the block ends it too
    sections, rest = split_modelling("Self modelling: my goal is the tower !placeBlock(\"red_wool\", 1, -60, 2)")
    assert (sections, rest) == ("Self modelling: my goal is the tower", "!placeBlock(\"red_wool\", 1, -60, 2)")


def test_sentences_that_only_mention_partners_are_kept():
    for reply in ("Partner, can you place the red_wool?", "Self-check done, placing now.",
                  "My partner's model of the bridge is different."):
        assert split_modelling(reply) == ("", reply)


def test_comments_in_code_are_not_sections():
    reply = "# Self Modelling\n# Short-term goal: code\n!newAction(\"build\")\n```python\n# place the base\nx = 1\n```"
    sections, rest = split_modelling(reply)
    assert sections == "# Self Modelling\n# Short-term goal: code"
    assert rest == "!newAction(\"build\")\n```python\n# place the base\nx = 1\n```"


def test_notes_keep_the_latest_sections_and_stay_bounded():
    notes = ModellingNotes()
    assert notes.observe(PAPER).startswith("Could you build") and notes.text.startswith("# Partner Modelling")
    first = notes.text
    assert notes.observe("Okay, placing it. !placeBlock(\"red_wool\", 1, -60, 2)").startswith("Okay")
    assert notes.text == first  # a reply without sections keeps them
    notes.observe("# Partner Modelling\n# Short-term goal: building the pillar\nThanks!")
    assert notes.text == "# Partner Modelling\n# Short-term goal: building the pillar"
    long_reply = "\n".join(f"# Explanation {i}: " + "x" * 80 for i in range(100)) + "\nok"
    assert notes.observe(long_reply) == "ok"
    assert len(notes.text) <= MAX_NOTES_CHARS + 10 and notes.text.endswith("\n# ...")
    assert notes.text.startswith("# Explanation 0: ")
    notes.clear()
    assert str(notes) == ""
