"""Two extra model calls around a choice, from LLM-Coordination (seed 002): a theory-of-mind step before it and a
self-verification after it. Both are profile options, off by default:

    tom_step: true       before choosing, the model writes what each partner is likely doing and needs; the notes
                         go into the prompt of the choice (not into the history)
    verification: true   after choosing a command, the model checks it against the state ("Verification: Okay" or
                         "Verification: Not Okay: <reason>") and, when not okay, chooses again with the reason
                         shown, at most MAX_VERIFY_RETRIES times

Each is one plain call to the agent's own model with the same system prompt and history, plus one instruction.
A failed or unreadable answer never blocks the agent: no notes, or the choice stands.
"""

from __future__ import annotations

import re
from typing import Any

MAX_VERIFY_RETRIES = 2
MAX_NOTES_CHARS = 600

TOM_INSTRUCTION = ("Before you choose your next reply, think about your partners. For each of {partners}, write "
                   "one line: what they are most likely doing now and what they need (from you or from the "
                   "world). Write no command.")
TOM_NOTES = "Your thoughts on your partners (not said aloud):\n{notes}"
VERIFY_INSTRUCTION = ("You are about to send this reply:\n{reply}\nCheck its command against the state above (your "
                      "inventory, who is where, the task, what was said). Answer with 'Verification: Okay' or "
                      "'Verification: Not Okay: <the reason>'.")
RETRY_NOTE = ("(Your reply {reply!r} did not pass your own check: {reason}. Choose again, with a command that "
              "works in this state.)")

_VERDICT = re.compile(r"verification\s*[:\-]?\s*\**\s*(not\s+ok(?:ay)?|ok(?:ay)?)\b\W*(.*)", re.I | re.S)
_COMMAND = re.compile(r"(?<!\S)![A-Za-z]\w*")


def _ask(model: Any, system: str, messages: list[dict], instruction: str) -> str | None:
    try:
        reply = model.send([*messages, {"role": "system", "content": instruction}], system)
    except Exception:  # a failed extra call: carry on without it
        return None
    return str(getattr(reply, "text", reply) or "").strip()


def partner_notes(model: Any, system: str, messages: list[dict], partners: list[str]) -> str:
    """The model's lines on what each partner is doing and needs ("" when there is no partner or no answer)."""
    if not partners:
        return ""
    text = _ask(model, system, messages, TOM_INSTRUCTION.format(partners=", ".join(partners)))
    if not text:
        return ""
    lines = [line for line in text.splitlines() if line.strip() and not _COMMAND.search(line)]
    return "\n".join(lines)[:MAX_NOTES_CHARS]


def with_notes(messages: list[dict], notes: str) -> list[dict]:
    """The messages with the partner notes as a last system message (nothing added without notes)."""
    return [*messages, {"role": "system", "content": TOM_NOTES.format(notes=notes)}] if notes else messages


def verdict(text: str | None) -> tuple[bool, str]:
    """(okay, reason) read from a verification answer; an unreadable one is okay (it must not block)."""
    found = _VERDICT.search(text or "")
    if not found or not found.group(1).lower().startswith("not"):
        return True, ""
    reason = found.group(2).strip().splitlines()[0] if found.group(2).strip() else "no reason given"
    return False, reason[:200]


def has_command(text: str) -> bool:
    """Whether a reply holds a command (only those are verified)."""
    return bool(_COMMAND.search(text))


def verify(model: Any, system: str, messages: list[dict], reply: str) -> tuple[bool, str]:
    """Ask the model to check `reply` against the state; (okay, reason)."""
    return verdict(_ask(model, system, messages, VERIFY_INSTRUCTION.format(reply=reply)))


def retry_messages(messages: list[dict], reply: str, reason: str) -> list[dict]:
    """The messages of the next try after a reply that failed verification."""
    return [*messages, {"role": "assistant", "content": reply},
            {"role": "system", "content": RETRY_NOTE.format(reply=reply[:200], reason=reason)}]
