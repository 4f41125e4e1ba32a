"""What the dashboard's page tests share: a card of the page, and the time a text first shows on it."""

from __future__ import annotations


def card(page, name: str):
    """The agent card of `name` on the page (a Playwright locator)."""
    return page.locator(f'.card[data-agent="{name}"]')


def note_when_shown(page, name: str, text: str, key: str) -> None:
    """From now on, the page notes in `window[key]` (its own clock, in seconds) when `text` first shows in the
    events of `name`'s card: the latency of the page, measured where it is seen."""
    page.evaluate("""([name, text, key]) => {
        const events = document.querySelector(`.card[data-agent="${name}"] .events`)
        new MutationObserver((_, observer) => {
            if (events.textContent.includes(text)) { window[key] = Date.now() / 1000; observer.disconnect() }
        }).observe(events, { childList: true, subtree: true, characterData: true }) }""", [name, text, key])
