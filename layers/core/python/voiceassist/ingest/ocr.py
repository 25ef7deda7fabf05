"""OCR in the ingestion pipeline: which pages need it, the OCR stage (start, then poll), and merging its text.

Extract Text reads the PDF's text layer and names the pages without one; the state machine sends those (and
only those) to OCR: Textract on AWS, started by one task and polled by the next after a Wait (a bounded loop,
never a Lambda sleeping); Tesseract locally, finished when it starts. Each OCR page keeps its confidence;
pages below the low-confidence bar are flagged on the job and on their chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from voiceassist.errors import ExtractionError
from voiceassist.ingest.artifacts import ArtifactRef, hand_off, is_stored, received
from voiceassist.ingest.cleaning import is_readable
from voiceassist.models import Chunk, ExtractedDocument, OcrPage, OcrPageQuality, OcrRun, Page, utc_now
from voiceassist.ports import BlobStore, DocumentStore, JobStore, PageOcr

# Fewer letters and digits than this over an image is a stamp or a page number on a scan, not the page's text.
SPARSE_TEXT = 30


class OcrContext(Protocol):
    @property
    def blobs(self) -> BlobStore: ...
    @property
    def documents(self) -> DocumentStore: ...
    @property
    def jobs(self) -> JobStore: ...
    @property
    def ocr(self) -> PageOcr: ...
    @property
    def ocr_low_confidence(self) -> float: ...
    @property
    def ocr_poll_seconds(self) -> int: ...
    @property
    def ocr_max_wait_seconds(self) -> int: ...


def pages_needing_ocr(pages: Sequence[Page]) -> list[int]:
    """The numbers of the PDF pages without a usable text layer: no letter or digit on the page, or an image
    under a sparse text layer (a scan with a stamped page number), or, when the whole document's text is
    unreadable (fonts without a character map), every page."""
    numbered = [page for page in pages if page.number is not None]
    if numbered and not is_readable("".join(page.text for page in numbered)):
        return [page.number for page in numbered if page.number is not None]
    return [page.number for page in numbered if page.number is not None and _looks_scanned(page)]


def start_ocr(ctx: OcrContext, doc_id: str, job_id: str, extracted: ArtifactRef, pages: list[int]
              ) -> dict[str, Any]:
    """Start reading `pages`; a finished run (Tesseract) merges at once, a running one (Textract) is polled."""
    document = ctx.documents.get(doc_id)
    job = ctx.jobs.get(job_id)
    run = ctx.ocr.start(document.blob_key, pages, attempt_key=f"{job_id}/{job.attempts}")
    return _progress(ctx, doc_id, job_id, extracted, pages, run, polls=0)


def check_ocr(ctx: OcrContext, doc_id: str, job_id: str, handoff: dict[str, Any]) -> dict[str, Any]:
    """One poll of a running OCR job; past the wait limit the job fails instead of looping for ever."""
    pages = [int(n) for n in handoff["ocr_pages"]]
    polls = int(handoff.get("polls", 0)) + 1
    run = ctx.ocr.poll(str(handoff["ticket"]), pages)
    if not run.done and polls * max(ctx.ocr_poll_seconds, 1) >= ctx.ocr_max_wait_seconds:
        raise ExtractionError(f"OCR timed out: {ctx.ocr.name} had not finished {len(pages)} page(s) after "
                              f"{ctx.ocr_max_wait_seconds} s")
    return _progress(ctx, doc_id, job_id, handoff["extracted"], pages, run, polls=polls)


def _progress(ctx: OcrContext, doc_id: str, job_id: str, extracted: ArtifactRef, pages: list[int], run: OcrRun,
              *, polls: int) -> dict[str, Any]:
    if not run.done:
        return {"done": False, "ticket": run.ticket, "polls": polls, "ocr_pages": pages, "extracted": extracted,
                "wait_seconds": ctx.ocr_poll_seconds}
    raw = ExtractedDocument.model_validate_json(received(ctx.blobs, extracted))
    merged = merge_ocr(raw, run.pages, expected=pages)
    quality = [OcrPageQuality(number=p.number, confidence=p.confidence,
                              low_confidence=p.confidence < ctx.ocr_low_confidence) for p in run.pages]
    job = ctx.jobs.get(job_id)
    ctx.jobs.save(job.model_copy(update={"ocr_pages": quality, "updated_at": utc_now()}), expected_state=job.state)
    ref = hand_off(ctx.blobs, doc_id, "extracted.json", merged.model_dump_json().encode("utf-8"),
                   by_reference=is_stored(extracted))
    low = [q.number for q in quality if q.low_confidence]
    return {"done": True, "extracted": ref, "ocr_pages": pages, "low_confidence_pages": low,
            "chars": merged.char_count}


def merge_ocr(document: ExtractedDocument, read: Sequence[OcrPage], *, expected: Sequence[int]
              ) -> ExtractedDocument:
    """The document with each OCR page's text in place of its (empty or unreadable) text layer."""
    by_number = {page.number: page for page in read}
    missing = [n for n in expected if n not in by_number]
    if missing:
        raise ExtractionError(f"OCR failed on page {missing[0]}: the OCR engine returned no result for it")
    # OCR reads the whole rendered page (its text layer included); where it finds no words, the layer stays.
    pages = [
        page.model_copy(update={"text": by_number[page.number].text,
                                "ocr_confidence": by_number[page.number].confidence})
        if page.number in by_number and _has_text(by_number[page.number].text) else page
        for page in document.pages
    ]
    if not any(_has_text(page.text) for page in pages):
        if any(page.text.strip() for page in document.pages):
            raise ExtractionError("unreadable text: the PDF's characters have no Unicode meaning (its fonts lack "
                                  "a character map) and OCR found no words on its pages")
        raise ExtractionError(f"no text: the PDF has no text layer and OCR found no words on its "
                              f"{len(expected)} scanned page(s) (images without text?)")
    return document.model_copy(update={"pages": pages})


def flag_chunks(chunks: Sequence[Chunk], pages: Sequence[Page], *, low_confidence: float) -> list[Chunk]:
    """Chunks from OCR pages carry their page's confidence, and a flag when it is below the bar."""
    confidence = {page.number: page.ocr_confidence for page in pages if page.ocr_confidence is not None}
    if not confidence:
        return list(chunks)
    flagged = []
    for chunk in chunks:
        value = confidence.get(chunk.page)
        if value is None:
            flagged.append(chunk)
        else:
            flagged.append(chunk.model_copy(update={"ocr_confidence": value,
                                                    "low_confidence": value < low_confidence}))
    return flagged


def _has_text(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _looks_scanned(page: Page) -> bool:
    characters = sum(ch.isalnum() for ch in page.text)
    return characters == 0 or (page.draws_images and characters < SPARSE_TEXT)
