"""What a newcomer meets first in the web client: a message for an empty question, and a PHI badge that says
each thing once."""

from __future__ import annotations

from urllib.parse import quote

from tests.browser.chromium import Tab

LAST = "article.turn.assistant:last-of-type"


def open_page(tab: Tab, base_url: str) -> None:
    tab.open(base_url)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")


def test_an_empty_question_is_answered_with_a_message_not_silence(tab: Tab, base_url: str) -> None:
    open_page(tab, base_url)
    tab.evaluate("document.getElementById('question').value = '   '")
    tab.click("#ask")
    tab.wait_for("!document.getElementById('error').hidden")

    assert "Type a question first" in tab.text("#error")
    assert "Something went wrong" not in tab.text("#error")
    assert tab.evaluate("document.querySelectorAll('article.turn').length") == 0  # nothing was sent
    assert tab.errors() == []


def test_a_question_over_the_limit_is_refused_with_its_length(tab: Tab, base_url: str) -> None:
    open_page(tab, base_url)
    tab.evaluate("document.getElementById('question').value = 'a'.repeat(4001)")  # pasted past maxlength
    tab.click("#ask")
    tab.wait_for("!document.getElementById('error').hidden")

    assert "4001 characters long; the limit is 4000" in tab.text("#error")
    assert tab.evaluate("document.querySelectorAll('article.turn').length") == 0


def test_the_phi_badge_says_no_phi_once(tab: Tab, base_url: str) -> None:
    tab.open(f"{base_url}/?q={quote('What is the maximum daily dose of metformin?')}")
    tab.wait_for(f"document.querySelector('{LAST}')?.dataset.status")

    badge = tab.text(f"{LAST} .badge")
    assert badge.lower().count("no phi detected") == 1, badge
    assert "answered by extractive" in badge and "no language model is configured" in badge
