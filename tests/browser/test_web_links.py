"""A citation's source link in the web client: a document's url is what its uploader typed, so only an http(s)
address becomes a link; a javascript: url is shown as no link at all (the page's CSP would also block it)."""

from __future__ import annotations

import time
from urllib.parse import quote

import pytest

from tests.browser.chromium import Tab
from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import DocumentMetadata, DocumentStatus

LAST = "article.turn.assistant:last-of-type"


@pytest.fixture(scope="module")
def linked_documents(server_deps: Dependencies) -> Dependencies:
    """Two documents beside the sample corpus, one with a javascript: url and one with an https url, indexed. The
    upload path now refuses a javascript: url (ingest/document_metadata.web_address); a document stored before
    that, or indexed by another writer, can still carry one, so the client's own defence is tested with the
    metadata built directly."""
    doc_ids = []
    for name, text, url in (
            ("allopurinol.md", "# Allopurinol\n\nAllopurinol is started at 100 mg daily to prevent gout attacks.\n",
             "javascript:alert(document.domain)"),
            ("febuxostat.md", "# Febuxostat\n\nFebuxostat is started at 40 mg daily to lower serum urate in gout.\n",
             "https://example.org/febuxostat")):
        registration = service.accept_upload(server_deps, filename=name, data=text.encode(),
                                             metadata=DocumentMetadata(doc_key=name[:-3], title=name[:-3], url=url))
        doc_ids.append(registration.document.doc_id)
    deadline = time.monotonic() + 600  # ingestion starts on its own thread: wait for the documents, not the runner
    while any(server_deps.documents.get(d).status is not DocumentStatus.ACTIVE for d in doc_ids):
        assert time.monotonic() < deadline, [server_deps.documents.get(d).status for d in doc_ids]
        time.sleep(0.5)
    return server_deps


def opened_link(tab: Tab, base_url: str, question: str) -> str | None:
    """Ask, open the first citation's passage, and return its source link's href (None without a link)."""
    tab.open(f"{base_url}/?q={quote(question)}")
    assert tab.wait_for(f"document.querySelector('{LAST}')?.dataset.status") == "answered"
    tab.click(f"{LAST} .answer-text button.cite")
    tab.wait_for("document.getElementById('passage').open")
    return tab.evaluate("document.querySelector('#passage-link a')?.getAttribute('href') ?? null")


@pytest.mark.usefixtures("linked_documents")
def test_a_javascript_url_is_not_made_a_link(tab: Tab, base_url: str) -> None:
    assert opened_link(tab, base_url, "What is the starting dose of allopurinol for gout?") is None
    assert tab.errors() == []


@pytest.mark.usefixtures("linked_documents")
def test_an_https_url_is_the_source_link(tab: Tab, base_url: str) -> None:
    assert opened_link(tab, base_url, "What is the starting dose of febuxostat for gout?") == \
        "https://example.org/febuxostat"
