"""Read which option a model chose from its free-text reply to a multiple-choice probe.

    parse_answer("I would wait. **Answer:** (c)", ["go", "craft", "wait"])   # 2
    parse_answer("B", ["go", "craft", "wait"])                               # 1
    parse_answer("Let's craft the planks first.", ["go", "craft planks", "wait"])   # 1 (option text)
    parse_answer("go or wait, hard to say", ["go", "craft", "wait"])          # None (two options fit)

In order: a letter after "Answer:", "Action:" or "Final answer" (the last such marker wins, since models often
reason before answering; hedging words may come between: "Answer: I think C"), else after "I choose", "I pick", "I'd
go with", "option"; a reply that is a lone letter; a reply that is an option's number ("2", "Answer: 2"), unless an
option holds that number; then the option text: an option whose words appear in the reply, else the closest option
by word overlap or character similarity above THRESHOLD. Two options that fit equally well give None, as does a
hedge between letters ("Answer: B or C") and a reply nothing can be read from.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

THRESHOLD = 0.6  # below this an option is not considered named
TIE_MARGIN = 0.05  # best and runner-up closer than this: ambiguous

# "Answer: C.", "answer: (b)", "**Answer:** D", "Final answer is C", "Action: [A]", "answer is: `B`", "<answer>C"
_DECOR = "\\s*_`\"'“‘"  # what may wrap a letter or a marker: spaces, markdown, quotes
# hedging words between a marker and its letter: "Answer: I think C", "Answer: probably (b)"
_FILLER = (r"(?:(?:i\s+think|i\s+believe|i\s+guess|i'?d\s+say|i\s+would\s+say|probably|likely|most\s+likely|"
           r"clearly|definitely|it'?s|it\s+is|that'?s|that\s+is|the\s+best\s+(?:one|choice)\s+is)[\s,]+)*")
_SEPARATOR = rf"(?:[{_DECOR}]*(?:\bis\b|[:=\-：>]))*[{_DECOR}]*{_FILLER}(?:option\s+)?"
_MARKER = re.compile(rf"\b(?:final\s+answer|answers?|action){_SEPARATOR}", re.I)
# weaker, read only when none of the markers above names a letter ("I'd pick B", "Correct option: C")
_CHOICE = re.compile(rf"\b(?:choose|chose|chosen|pick|picked|select|selected|go(?:ing)?\s+with|option|choice)"
                     rf"{_SEPARATOR}", re.I)
# a bracketed letter, a capital standing alone, or a small one before punctuation, the end, or (not the words
# "a" and "i") a space
_MARKED_LETTER = re.compile(r"[(\[{<]([A-Za-z])[)\]}>]|([A-Z])(?![A-Za-z'])"
                            rf"|([a-z])(?=[{_DECOR}]*(?:[.)\]}}:;,!/&]|$))|([b-hj-z])(?=\s)")
# "B or C", "b/c", "B and C": the reply hedges between two options
_HEDGE = re.compile(rf"[{_DECOR})\]}}]*(?:\bor\b|\band\b|/|&)[{_DECOR}]*[(\[]?(?:option\s+)?([A-Za-z])(?![A-Za-z'])",
                    re.I)
_LONE_LETTER = re.compile(r"^\W*(?:option\s+)?([A-Za-z])\W*$", re.I)
_LETTER_THEN_TEXT = re.compile(r"^\W*([A-Z])[.):]\s")
# "2", "Answer: 2", "option 2": the option's number, read only when no option holds that number as a word
_NUMBER = re.compile(rf"^\W*(?:(?:final\s+answer|answer|action|option){_SEPARATOR})?([1-9])\W*$", re.I)
_WORD = re.compile(r"[a-z0-9]+")


def letter(index: int) -> str:
    """The letter that labels option `index` (0 -> 'A')."""
    return chr(ord("A") + index)


def letter_index(char: str, count: int) -> int | None:
    """The index of the option lettered `char` ('b' -> 1), None when there is no such option."""
    index = ord(char.upper()) - ord("A")
    return index if 0 <= index < count else None


AMBIGUOUS = -1  # a marker followed by a hedge between two letters


def _letter_after(marker: re.Pattern[str], text: str, count: int) -> tuple[int | None, str | None]:
    """(index, text after the last marker): the letter right after the last marker that names an option
    (AMBIGUOUS when it hedges between two)."""
    found, tail = None, None
    for match in marker.finditer(text):
        tail = text[match.end():]
        got = _MARKED_LETTER.match(tail)
        if not got:
            continue
        char = next(g for g in got.groups() if g)
        index = letter_index(char, count)
        if index is None:
            continue
        other = _HEDGE.match(tail, got.end())
        if other and other.group(1).isupper() == char.isupper() \
                and letter_index(other.group(1), count) not in (None, index):
            index = AMBIGUOUS
        found = index
    return found, tail


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def _by_text(reply: str, options: list[str]) -> int | None:
    words = _words(reply)
    option_words = [_words(o) for o in options]
    named = [i for i, ow in enumerate(option_words) if _contains(words, ow)]
    # an option named inside a longer named option ("3" inside "3 wheat") does not count on its own
    named = [i for i in named if not any(j != i and len(option_words[j]) > len(option_words[i])
                                         and _contains(option_words[j], option_words[i]) for j in named)]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        return None
    scores = []
    distinct = set(words)
    for ow in option_words:
        shared = distinct & set(ow)
        recall = len(shared) / len(set(ow)) if ow else 0.0
        # "Answer: cook": every word from one option (a lone number is no such sign: "Answer: 3")
        precision = len(shared) / len(distinct) if any(not w.isdigit() for w in shared) else 0.0
        similar = SequenceMatcher(None, " ".join(words), " ".join(ow)).ratio()
        scores.append(max(recall, precision, similar))
    ranked = sorted(range(len(options)), key=lambda i: scores[i], reverse=True)
    best = ranked[0]
    if scores[best] < THRESHOLD or (len(ranked) > 1 and scores[best] - scores[ranked[1]] < TIE_MARGIN):
        return None
    return best


def parse_answer(reply: str, options: list[str]) -> int | None:
    """The index of the option `reply` chose, or None when it cannot be read or is ambiguous."""
    if not options:
        raise ValueError("parse_answer needs at least one option")
    text = (reply or "").strip()
    if not text:
        return None
    index, tail = _letter_after(_MARKER, text, len(options))
    if index is None:
        index = _letter_after(_CHOICE, text, len(options))[0]
    if index is not None:
        return None if index == AMBIGUOUS else index
    for pattern in (_LONE_LETTER, _LETTER_THEN_TEXT):
        got = pattern.match(text)
        index = letter_index(got.group(1), len(options)) if got else None
        if index is not None:
            return index
    got = _NUMBER.match(text)
    if got and not any(got.group(1) in _words(option) for option in options) and int(got.group(1)) <= len(options):
        return int(got.group(1)) - 1
    # "Answer: craft the planks": the words after the marker say more than the reasoning before it
    if tail and tail.strip():
        found = _by_text(tail, options)
        if found is not None:
            return found
    return _by_text(text, options)


# ---- LLM-Coordination's CoordQA rule -------------------------------------------------------------------------
# Their evaluation reads a reply thus: the rest of the line after the first "Action:" (else the first "Answer:",
# case as written; else the whole reply); in it, the first capital letter followed by "." or ")" is the option's
# letter. With no such letter, the option whose text is closest to that answer text is taken, whatever the
# distance: the rule always names an option. They rank options with a fuzzy-matching package's weighted ratio;
# ours is `closeness` below (difflib), which agrees on plain cases and may pick otherwise on far-fetched ones.
_PAPER_MARKERS = (re.compile(r"Action:\s*(.*)"), re.compile(r"Answer:\s*(.*)"))
_PAPER_LETTER = re.compile(r"([A-Z])[.)]")
_PAPER_PREFIX = re.compile(r"^[a-z]\.\s*")  # "b. move away": a small letter before the option's text
_NON_WORD = re.compile(r"[^a-z0-9]+")


def closeness(a: str, b: str) -> float:
    """How alike two option-like texts are, 0..1: the best of whole-text, sorted-word, shared-word and best-window
    similarity (the last two discounted, as they favour short texts)."""
    a, b = _NON_WORD.sub(" ", a.lower()).strip(), _NON_WORD.sub(" ", b.lower()).strip()
    if not a or not b:
        return 0.0
    whole = SequenceMatcher(None, a, b).ratio()
    words_a, words_b = a.split(), b.split()
    by_sorted = SequenceMatcher(None, " ".join(sorted(words_a)), " ".join(sorted(words_b))).ratio()
    shared = len(set(words_a) & set(words_b)) / min(len(set(words_a)), len(set(words_b)))
    short, long = sorted((a, b), key=len)
    window = 0.0
    if len(long) >= 1.5 * len(short):  # the short text inside a longer one: its best-aligned stretch
        for block in SequenceMatcher(None, short, long).get_matching_blocks():
            start = max(0, block.b - block.a)
            window = max(window, SequenceMatcher(None, short, long[start:start + len(short)]).ratio())
    return max(whole, 0.95 * by_sorted, 0.9 * shared, 0.9 * window)


def closest_option(text: str, options: list[str]) -> int:
    """The option whose text is closest to `text` (the first of equals; the first when nothing is alike)."""
    scores = [closeness(text, option) for option in options]
    return scores.index(max(scores))


def parse_answer_coordqa(reply: str, options: list[str]) -> int | None:
    """The option `reply` chose by LLM-Coordination's CoordQA rule; None only for a letter beyond the options.

    parse_answer_coordqa("Explanation: ...\\nAction: B. wait", ["go", "wait"])    # 1
    parse_answer_coordqa("Answer: wait", ["go", "wait"])                        # 1 (closest option text)
    parse_answer_coordqa("Answer: B", ["go", "wait"])                           # 0: no "." or ")" after B, so
                                                                                # "B" is matched as text
    """
    if not options:
        raise ValueError("parse_answer_coordqa needs at least one option")
    text = reply or ""
    for marker in _PAPER_MARKERS:
        found = marker.search(text)
        if found:
            text = found.group(1)
            break
    got = _PAPER_LETTER.search(text)
    if got:
        return letter_index(got.group(1), len(options))
    return closest_option(_PAPER_PREFIX.sub("", text.strip()).strip(), options)
