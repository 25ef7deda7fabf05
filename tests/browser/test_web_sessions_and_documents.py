"""The web client's sessions (history kept redacted, nothing but ids in the browser) and the admin panel
(upload with job progress, the document list, delete), in headless Chromium against the real local server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.server import make_server

from tests.browser.chromium import Tab
from voiceassist.composition import Dependencies

PHI_QUESTION = "Patient John Smith, born 03/04/1961: what is the maximum daily dose of metformin?"
LAST = "article.turn.assistant:last-of-type"


def test_a_session_keeps_its_history_redacted_and_the_browser_keeps_only_ids(tab: Tab, base_url: str) -> None:
    tab.open(base_url)
    tab.wait_for("document.activeElement?.id === 'question'")
    tab.evaluate("document.getElementById('clinical-context').value = 'Adult outpatient diabetes clinic'")
    tab.click("#new-session")
    tab.wait_for("!!document.querySelector('#session-list button[aria-current]')")
    tab.evaluate(f"document.getElementById('question').value = {PHI_QUESTION!r}")
    tab.click("#ask")
    tab.wait_for(f"document.querySelector('{LAST}')?.dataset.status === 'answered'")

    stored = tab.evaluate("JSON.stringify({...localStorage, ...sessionStorage})")
    assert "John" not in stored and "metformin" not in stored and "ses_" in stored

    tab.open(base_url)  # a new visit: the session is listed; its history comes from the server
    tab.click("#session-list li:first-child button")
    tab.wait_for("document.querySelectorAll('#conversation article').length === 2")
    history = tab.text("#conversation")
    assert "maximum daily dose of metformin" in history
    assert "John Smith" not in history and "1961" not in history
    assert tab.evaluate("document.getElementById('clinical-context').value") == "Adult outpatient diabetes clinic"
    assert tab.errors() == []


def test_an_admin_uploads_a_document_follows_its_job_and_deletes_it(tab: Tab, base_url: str, tmp_path: Path) -> None:
    guide = tmp_path / "zorbafen.md"
    guide.write_text("# Zorbafen prescribing notes\n\n## Dosing\n\nThe recommended adult dose of zorbafen for "
                     "quartan fever is 37 mg twice daily for 9 days.\n", encoding="utf-8")
    tab.open(base_url)
    tab.wait_for("document.querySelectorAll('#documents tbody tr').length === 4")

    tab.set_files("#upload-file", guide)
    # (the fictional drug does not lead the title: "Notes on zorbafen" reads as a surname to the metadata's PHI screen)
    tab.evaluate("document.getElementById('upload-title').value = 'Notes on zorbafen'")
    tab.evaluate("document.getElementById('upload-type').value = 'drug_reference'")
    tab.click("#upload-form button[type=submit]")
    tab.wait_for("/COMPLETED|FAILED/.test(document.getElementById('upload-status').textContent)")

    assert "zorbafen.md: COMPLETED" in tab.text("#upload-status")
    assert tab.evaluate("document.querySelector('#upload-status progress').value") > 0
    row = ("[...document.querySelectorAll('#documents tbody tr')]"
           ".find(r => r.cells[0].textContent === 'Notes on zorbafen')")
    tab.wait_for(f"!!{row}")
    assert tab.evaluate(f"{row}.cells[2].textContent") == "ACTIVE"

    tab.evaluate(f"{row}.querySelector('button.delete').click()")
    tab.wait_for("document.getElementById('confirm').open")
    assert "Notes on zorbafen" in tab.text("#confirm-text")
    tab.click("#confirm button[value=yes]")
    tab.wait_for(f"!{row}")

    assert "Deleted Notes on zorbafen" in tab.text("#upload-status")
    assert tab.errors() == []


@pytest.fixture
def clinician_url(server_deps: Dependencies) -> Iterator[str]:
    """The same data, served to a user in the clinician group only (VOICEASSIST_LOCAL_GROUPS=clinician)."""
    server = make_server("127.0.0.1", 0, groups="clinician")
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_clinician_gets_no_document_panel_but_can_ask(tab: Tab, clinician_url: str,
                                                        server_deps: Dependencies) -> None:
    tab.open(f"{clinician_url}/?q=What%20is%20the%20maximum%20daily%20dose%20of%20metformin%3F")
    tab.wait_for(f"document.querySelector('{LAST}')?.dataset.status === 'answered'")

    assert tab.evaluate("document.getElementById('admin').hidden") is True
    doc_id = server_deps.documents.list(limit=1)[0].doc_id
    status = tab.evaluate(f"fetch('/v1/documents/{doc_id}', {{method: 'DELETE'}}).then(r => r.status)")
    assert status == 403  # and the API refuses what the page hides


def test_an_admin_edits_the_configuration_and_a_refused_change_names_its_field(tab: Tab, base_url: str,
                                                                               server_deps: Dependencies) -> None:
    tab.open(base_url)
    tab.wait_for("document.getElementById('config-version').textContent === 'Version 0'")

    tab.evaluate("document.getElementById('config-routing').value = 'local-only'")
    tab.evaluate("document.getElementById('config-user-limit').value = '2.5'")
    tab.click("#config-form button[type=submit]")
    tab.wait_for("/Saved version 1/.test(document.getElementById('config-status').textContent)")

    assert "cost.per_user_monthly_limit_usd, routing_mode" in tab.text("#config-status")
    assert server_deps.admin_config.routing_mode.value == "local-only"
    assert server_deps.admin_config.cost.per_user_monthly_limit_usd == 2.5
    tab.wait_for("document.querySelectorAll('#config-history li').length === 2")
    assert "model calls" in tab.text("#billing-summary")

    tab.evaluate("document.getElementById('config-routing').value = 'hybrid'")
    tab.evaluate("document.getElementById('config-phi').value = 'off'")
    tab.click("#config-form button[type=submit]")
    tab.wait_for("/Not saved/.test(document.getElementById('config-status').textContent)")

    assert "phi_mode: off detects no PHI" in tab.text("#config-status")  # the field, and why
    assert server_deps.admin_config.phi_mode.value == "strict"
    assert [e for e in tab.errors() if "status of 422" not in e] == []  # the refused PUT is the only failed load
