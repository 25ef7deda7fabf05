"""Scanned PDFs through the real ingest.asl.json: the Choice sends pages without a text layer to OCR (Tesseract
here), only those pages are read, and each page's confidence reaches the job and the chunks."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from voiceassist.adapters.local.tesseract_ocr import TesseractOcr
from voiceassist.composition import Dependencies
from voiceassist.models import DocumentStatus, JobState, SearchMode, SearchQuery

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"


@pytest.fixture(scope="module", autouse=True)
def tesseract_installed() -> None:
    assert shutil.which("tesseract"), "tesseract-ocr is not installed: run tests/setup.sh (make test does)"


def _chunks(deps: Dependencies, text: str) -> list[Any]:
    return [hit.chunk for hit in deps.index.search(SearchQuery(text=text, mode=SearchMode.BM25, top_k=10))]


def test_ingest_scanned_pdf_reads_every_page_by_ocr_and_becomes_searchable(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    assert (job.state, job.reason) == (JobState.COMPLETED, None)
    assert [page.number for page in job.ocr_pages] == [1, 2]
    assert all(page.confidence > 85 and not page.low_confidence for page in job.ocr_pages)
    hits = _chunks(ingest_deps, "epinephrine IM")
    assert hits and hits[0].doc_key == "scanned" and "Epinephrine 1:1000, 0.5 mg IM." in hits[0].text
    assert hits[0].ocr_confidence is not None and hits[0].ocr_confidence > 85 and not hits[0].low_confidence


def test_ingest_mixed_pdf_reads_only_the_scanned_page_by_ocr(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    job = ingest("mixed.pdf", (DOCUMENTS / "mixed_text_and_scan.pdf").read_bytes())

    assert job.state is JobState.COMPLETED
    assert [page.number for page in job.ocr_pages] == [2]
    chunks = {chunk.page: chunk for chunk in _chunks(ingest_deps, "amoxicillin epinephrine")}
    assert chunks[1].ocr_confidence is None  # the text layer of page 1, untouched
    assert chunks[2].ocr_confidence is not None


def test_ingest_scan_with_a_stamped_page_number_is_read_by_ocr(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    job = ingest("stamped.pdf", (DOCUMENTS / "stamped_scan.pdf").read_bytes())

    assert job.state is JobState.COMPLETED
    assert [page.number for page in job.ocr_pages] == [1]
    assert any("Amoxicillin 500 mg PO q8h" in chunk.text for chunk in _chunks(ingest_deps, "amoxicillin"))


def test_ingest_scanned_pdf_flags_pages_below_the_confidence_bar(
        ingest_deps: Dependencies, ingest: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(ingest_deps), "ocr_low_confidence", property(lambda _self: 99.5))

    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    assert job.state is JobState.COMPLETED
    assert [page.low_confidence for page in job.ocr_pages] == [True, True]
    assert all(chunk.low_confidence for chunk in _chunks(ingest_deps, "epinephrine amoxicillin"))


def test_ingest_scanned_pdf_without_tesseract_fails_saying_how_to_install_it(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    ingest_deps.ocr = TesseractOcr(ingest_deps.blobs.get, binary="tesseract-not-installed-here")

    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    assert job.state is JobState.FAILED
    assert job.reason == "OCR unavailable here: install tesseract-ocr (Debian/Ubuntu: apt-get install tesseract-ocr)"
    assert ingest_deps.documents.get(job.doc_id).status is DocumentStatus.FAILED
    assert ingest_deps.index.count(job.doc_key, searchable_only=False) == 0


def test_ingest_text_pdf_never_calls_ocr(ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    ingest_deps.ocr = TesseractOcr(ingest_deps.blobs.get, binary="tesseract-not-installed-here")

    job = ingest("text.pdf", (DOCUMENTS / "two_pages.pdf").read_bytes())

    assert (job.state, job.ocr_pages) == (JobState.COMPLETED, [])


def test_ingest_pdf_over_the_configured_page_limit_fails_as_too_many_pages(
        ingest_deps: Dependencies, ingest: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(ingest_deps), "max_pages", property(lambda _self: 1))

    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    assert (job.state, job.reason) == (JobState.FAILED, "too many pages: the PDF has 2 pages, the limit is 1")


def test_ingest_scan_whose_page_takes_too_long_fails_naming_the_page(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    ingest_deps.ocr = TesseractOcr(ingest_deps.blobs.get, page_seconds=0.001)

    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    assert (job.state, job.reason) == (
        JobState.FAILED, "OCR failed on page 1: Tesseract took longer than the 0.001 s limit per page")


def test_ocr_text_of_a_scan_never_reaches_the_logs_even_when_the_job_fails(
        ingest_deps: Dependencies, ingest: Callable[..., Any], caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A scan may be a clinical letter: its words stay in the document's artefacts, never in logs or reasons.
    caplog.set_level("DEBUG")
    ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())
    monkeypatch.setattr(type(ingest_deps), "max_pages", property(lambda _self: 1))
    failed = ingest("scanned-again.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    logged = " ".join(f"{record.getMessage()} {record.__dict__}" for record in caplog.records)
    assert failed.state is JobState.FAILED
    assert "ingest failed" in logged and "ingest registered" in logged  # the logs were captured
    for words in ("Amoxicillin", "Epinephrine", "eGFR", "Repeat after 5 min"):
        assert words not in logged
        assert words not in (failed.reason or "")
