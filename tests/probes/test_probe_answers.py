"""Reading the chosen option out of a model's reply: marked letters, lone letters, option text, ambiguity."""

from __future__ import annotations

import pytest

from mindpy.probes.answers import parse_answer

OPTIONS = ["Give Andy 3 gold nuggets", "Harvest a carrot", "Cook the beef", "Wait for Andy"]


@pytest.mark.parametrize("reply, expected", [
    ("Answer: C.", 2),
    ("answer: (b)", 1),
    ("**Answer:** D", 3),
    ("Final answer: A", 0),
    ("The final answer is B", 1),
    ("Action: [C]", 2),
    ("Andy is short on nuggets, so I give them.\nAnswer: A", 0),
    ("First I thought Answer: B, but no. Answer: D", 3),   # the last marker wins
    ("C", 2),
    ("(d)", 3),
    ("B) Harvest a carrot", 1),
    ("Answer: `C`", 2),                                     # other wrappings of the letter
    ('Answer: "B"', 1),
    ("Answer: {B}", 1),
    ("<answer>C</answer>", 2),
    ("answer is: B", 1),
    ("answers: B", 1),
    ("Answer\uff1aC", 2),                                   # a full-width colon
    ("answer is c because andy waits", 2),
    ("Answer: B, and a carrot is not enough", 1),
    ("I choose C.", 2),                                     # weaker markers, read when no answer marker names one
    ("I'd go with option C", 2),
    ("Correct option: B", 1),
    ("Choice: D", 3),
    ("Option A fails. Answer: C, since option B is slow", 2),  # an answer marker beats the weaker ones
    ("Answer: I think C", 2),                               # hedging words before the letter
    ("Answer: probably (b)", 1),
    ("Final answer: I'd say, D.", 3),
    ("Answer: it's A", 0),
    ("2", 1),                                               # an option's number, when no option holds it
    ("Answer: 4", 3),
    ("option 2", 1),
])
def test_letters_are_read(reply, expected):
    assert parse_answer(reply, OPTIONS) == expected


@pytest.mark.parametrize("reply, expected", [
    ("I would cook the beef now.", 2),
    ("Jill should give andy 3 gold nuggets so he can craft.", 0),
    ("Answer: wait for andy", 3),                          # text after the marker
    ("harvest carrot", 1),                                 # most words of one option
    ("Answer: Cook", 2),                                   # every word from one option
    ("answer - wait", 3),
])
def test_option_text_is_matched(reply, expected):
    assert parse_answer(reply, OPTIONS) == expected


@pytest.mark.parametrize("reply", [
    "",
    "I am not sure.",
    "Either cook the beef or wait for Andy.",             # two options named
    "Answer: E",                                          # no option E
    "Answer: Q",
    "Answer: B or C",                                     # hedges between two letters
    "Answer: B and C",
    "Answer: b/c",
    "Action: B & C",
    "Answer: andy",                                       # words of two options
    "Answer: 3",                                          # a number an option holds ("3 gold nuggets")
    "Answer: 5",                                          # no fifth option
    "Answer: I think",
    "The reaction: B",                                    # not a marker inside another word
])
def test_unreadable_or_ambiguous_replies_give_none(reply):
    assert parse_answer(reply, OPTIONS) is None


def test_a_number_inside_a_longer_option_is_not_read_as_the_short_one():
    options = ["0 wheat", "3", "3 wheat"]
    assert parse_answer("they need 3 wheat", options) == 2
    assert parse_answer("3", options) == 1


def test_article_a_is_not_a_letter():
    # read as the letter, "a" would be option 0; the words name option 1
    assert parse_answer("Answer: a carrot from the field", OPTIONS) == 1


def test_no_options_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one option"):
        parse_answer("A", [])
