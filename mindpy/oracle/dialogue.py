"""What partners' messages ask or tell, and the sentences the oracle says.

Understood (from oracles and, roughly, from LLM players):
    requests:   "Can you give me 2 oak_planks?", "I need 1 bowl and 8 gold_nugget", "please give me everything
                you have for the wooden_pickaxe"
    refusals:   "Sorry, I don't have any bowl."
    done:       "I have the wooden_pickaxe now: the task is done!"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

_REQUEST = re.compile(r"\b(need(?!s? to\b)|give me|can you give|could you give|can you send|send me|bring me|hand me|"
                      r"do you have|please give|pass me|lend me|i lack|i'm missing|i am missing)\b", re.I)
_NOT_REQUEST = re.compile(r"\b(gave you|here you go|here are|here is|here's|giving you|i'm giving|"
                          r"i gave|handing you)\b", re.I)
_REFUSAL = re.compile(r"\b(don't have|do not have|haven't got|have no|none left|can't give|cannot give)\b", re.I)
_EVERYTHING = re.compile(r"\b(everything|all (?:the |of )?(?:items|your items|you have|that you have))\b", re.I)
_DONE = re.compile(r"\b(task is done|task is complete|all done|we're done|we are done|goal is done|"
                   r"house is finished|blueprint is complete)\b", re.I)
_COUNTED = re.compile(r"(?:(\d+)\s+|\b(?:a|an|one|some|any)\s+)?\b([a-z][a-z0-9_]*[a-z0-9])\b")


@lru_cache(maxsize=1)
def _item_names() -> frozenset[str]:
    from ..mcdata import minecraft_data

    return frozenset(minecraft_data().items_by_name)


def items_in(text: str) -> dict[str, int]:
    """Item names the text mentions, with the count written before each (1 when none)."""
    names = _item_names()
    out: dict[str, int] = {}
    for count, word in _COUNTED.findall(text.lower()):
        word = word.strip("_")
        if word not in names:
            if word.endswith("s") and word[:-1] in names:
                word = word[:-1]
            else:
                continue
        out[word] = out.get(word, 0) + int(count or 1)
    return out


@dataclass
class Reading:
    """What one message means for me."""

    wants: dict[str, int] = field(default_factory=dict)  # items asked from me
    wants_everything: bool = False
    refused: set[str] = field(default_factory=set)       # items the sender says it does not have
    done: bool = False
    giving: bool = False   # the sender is handing items over ("Here's 2 stick")


def read_message(text: str) -> Reading:
    """What a partner's message says: done, giving, refusing, or asking for items."""
    reading = Reading()
    if _DONE.search(text):
        reading.done = True
    if _NOT_REQUEST.search(text):
        reading.giving = True
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if _REFUSAL.search(sentence) and not _REQUEST.search(sentence.split("don't")[0] if "don't" in sentence
                                                             else ""):
            reading.refused |= set(items_in(sentence))
            continue
        if _REQUEST.search(sentence) and not _NOT_REQUEST.search(sentence):
            if _EVERYTHING.search(sentence):
                reading.wants_everything = True
            else:
                # "for the golden_carrot" names what the items are for, not an item asked for
                asked = re.sub(r"\bfor (?:the |a |an |my |your |our )?[a-z0-9_]+", "", sentence, flags=re.I)
                for name, n in items_in(asked).items():
                    reading.wants[name] = reading.wants.get(name, 0) + n
    return reading


def item_list(items: dict[str, int]) -> str:
    """The items as prose: "2 stick, 1 oak_planks and 3 coal"."""
    parts = [f"{n} {name}" for name, n in items.items()]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def quote(text: str) -> str:
    """A command's string argument: double quotes inside become single ones."""
    return '"' + text.replace('"', "'").replace("\n", " ") + '"'
