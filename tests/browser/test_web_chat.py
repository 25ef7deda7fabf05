"""The web client in headless Chromium against the real local server: ask, cite, open the source, PHI badge,
no evidence, clarification buttons, errors, keyboard and phone width."""

from __future__ import annotations

from urllib.parse import quote

from tests.browser.chromium import Tab

METFORMIN_TITLE = "Metformin (sample drug reference)"
LAST = "article.turn.assistant:last-of-type"
ANSWER = f"document.querySelector('{LAST}')"


def ask_on_load(tab: Tab, base_url: str, question: str) -> str:
    """Open the deep link /?q=... and wait for the reply; its status (answered, no_evidence, clarify)."""
    tab.open(f"{base_url}/?q={quote(question)}")
    return str(tab.wait_for(f"{ANSWER}?.dataset.status"))


def test_deep_link_shows_the_cited_answer_with_the_metformin_reference(tab: Tab, base_url: str) -> None:
    status = ask_on_load(tab, base_url, "What is the maximum daily dose of metformin?")

    assert status == "answered"
    answer = tab.text(f"{LAST} .answer-text")
    assert "mg" in answer and "[1]" in answer
    sources = tab.evaluate("[...document.querySelectorAll('ol.citations button.source')].map(b => b.textContent)")
    assert METFORMIN_TITLE in sources
    first = tab.evaluate("document.querySelector('.answer-text button.cite').getAttribute('aria-label')")
    assert first.startswith("Source 1: ")
    assert "No PHI detected" in tab.text(".badge")
    assert tab.errors() == []
