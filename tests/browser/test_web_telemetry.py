"""The admin page's Telemetry panel, in headless Chromium against the real local server: after a question in a
session, the stage table shows the question's stages, the session's trace shows its turn redacted, and no
PHI appears anywhere in the panel."""

from __future__ import annotations

import re

from tests.browser.chromium import Tab

PHI_QUESTION = "Patient John Smith, MRN 4417823: what is the maximum daily dose of metformin?"
LAST = "article.turn.assistant:last-of-type"


def test_the_telemetry_panel_shows_stages_and_a_redacted_session_trace(tab: Tab, base_url: str) -> None:
    tab.open(base_url)
    tab.wait_for("document.activeElement?.id === 'question'")
    tab.click("#new-session")
    tab.wait_for("!!document.querySelector('#session-list button[aria-current]')")
    tab.evaluate(f"document.getElementById('question').value = {PHI_QUESTION!r}")
    tab.click("#ask")
    tab.wait_for(f"document.querySelector('{LAST}')?.dataset.status === 'answered'")

    tab.click("#telemetry-refresh")
    row = "[...document.querySelectorAll('#telemetry-stages tbody tr')].find(r => r.cells[0].textContent === "
    tab.wait_for(f"!!{row}'detect_phi')")
    assert int(tab.evaluate(f"{row}'detect_phi').cells[1].textContent")) >= 1
    assert "answered" in tab.text("#telemetry-summary")

    (session_id,) = set(re.findall(r"ses_[0-9a-f]+", tab.evaluate("JSON.stringify({...localStorage})")))
    tab.evaluate(f"document.getElementById('trace-session').value = {session_id!r}")
    tab.click("#trace-form button[type=submit]")
    tab.wait_for("document.querySelectorAll('#trace-turns tbody tr').length === 1")
    turn = tab.text("#trace-turns tbody")
    assert "maximum daily dose of metformin" in turn and "detect_phi" in turn
    panel = tab.text("#telemetry")
    assert "John" not in panel and "Smith" not in panel and "4417823" not in panel
    assert tab.errors() == []
