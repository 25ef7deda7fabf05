"""Each way a document can be unusable, through the real pipeline: a FAILED job whose reason names the
problem, a FAILED document and nothing of it searchable. Uploads that cannot
even be registered are refused at the door instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.pdfgen import build_pdf
from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType
from voiceassist.models import DocumentStatus, JobState

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"


def fixture(name: str) -> bytes:
    return (DOCUMENTS / name).read_bytes()


@pytest.mark.parametrize(
    ("filename", "data", "reason"),
    [
        ("password_protected.pdf", fixture("password_protected.pdf"),
         "encrypted: password-protected PDFs are not supported"),
        ("truncated.pdf", fixture("truncated.pdf"), "broken PDF:"),
        ("image_only.pdf", fixture("image_only.pdf"),
         "no text: the PDF has no text layer and OCR found no words on its 1 scanned page(s)"),
        ("unreadable_font.pdf", fixture("unreadable_font.pdf"), "unreadable text:"),
        ("binary.txt", fixture("binary.txt"), "unreadable encoding:"),
        ("blank.txt", b" \n\t\n", "no text:"),
    ],
    ids=["encrypted", "broken-structure", "no-text-found-by-ocr", "unreadable-font", "unreadable-encoding", "no-text"],
)
def test_ingest_unreadable_document_fails_with_its_reason_and_leaves_nothing_behind(
        ingest_deps: Dependencies, ingest: Callable[..., Any], filename: str, data: bytes, reason: str) -> None:
    job = ingest(filename, data)

    assert job.state is JobState.FAILED
    assert job.reason is not None and job.reason.startswith(reason)
    assert ingest_deps.documents.get(job.doc_id).status is DocumentStatus.FAILED
    assert ingest_deps.index.count(job.doc_key, searchable_only=False) == 0


def test_ingest_document_over_the_size_limit_that_arrives_in_storage_fails_as_too_large(
        ingest_deps: Dependencies, ingest: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # The API refuses such an upload; a file dropped into the bucket is only measured by Extract.
    monkeypatch.setattr(type(ingest_deps), "max_upload_bytes", property(lambda _self: 500))
    paragraphs = ["Amoxicillin 500 mg three times daily for seven days."] * 3
    pages: list[tuple[str | None, list[str]]] = [(f"Section {n}", paragraphs) for n in range(4)]

    job = ingest("large.pdf", build_pdf(pages))

    assert job.state is JobState.FAILED
    assert job.reason is not None and job.reason.startswith("too large: the file has")
    assert ingest_deps.index.count(job.doc_key, searchable_only=False) == 0


@pytest.mark.parametrize(
    ("filename", "data", "error", "message"),
    [
        ("empty.pdf", b"", InvalidInput, "empty.pdf is empty"),
        ("scan.png", b"\x89PNG\r\n\x1a\n" + bytes(64), UnsupportedMediaType, "a PNG image"),
        ("huge.txt", b"x" * 2048, PayloadTooLarge, "the limit is 1024 bytes"),
    ],
    ids=["empty", "unsupported-type", "oversized"],
)
def test_ingest_upload_that_cannot_be_read_at_all_is_refused_before_any_job(
        ingest_deps: Dependencies, filename: str, data: bytes, error: type[Exception], message: str) -> None:
    ingest_deps.settings = ingest_deps.settings.model_copy(update={"max_upload_bytes": 1024})

    with pytest.raises(error, match=message):
        service.accept_upload(ingest_deps, filename=filename, data=data,
                              metadata=service.metadata_for(filename, {}))

    assert ingest_deps.jobs.list() == []
    assert ingest_deps.documents.list() == []
