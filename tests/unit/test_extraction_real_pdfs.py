"""Extraction over the 31 real-world PDFs in ../shared/eval/pdf (py-pdf/sample-files).

Every file either yields text or fails with one of the operator-readable reasons; none may raise anything
else. Skipped only when the shared evaluation folder is not beside the repository.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from voiceassist.errors import ExtractionError
from voiceassist.ingest.cleaning import clean_pages
from voiceassist.ingest.extraction import detect_content_type, extract
from voiceassist.ingest.ocr import pages_needing_ocr

PDF_DIR = Path(__file__).parents[2].parent / "shared" / "eval" / "pdf"
PDFS = sorted(PDF_DIR.glob("*/*.pdf")) if PDF_DIR.is_dir() else []
KNOWN_REASONS = ("encrypted:", "broken PDF:", "too many pages:", "too large:", "too slow:")
EXPECTED_FAILURES = {
    "005-libreoffice-writer-password/libreoffice-writer-password.pdf": "encrypted:",
    "017-unreadable-meta-data/unreadablemetadata.pdf": "broken PDF:",
}
# Image-only: no text layer, so extraction names their pages for OCR (the pipeline reads them).
SCANNED = {
    "007-imagemagick-images/imagemagick-ASCII85Decode.pdf",
    "007-imagemagick-images/imagemagick-CCITTFaxDecode.pdf",
    "007-imagemagick-images/imagemagick-lzw.pdf",
    "019-grayscale-image/grayscale-image.pdf",
    "023-cmyk-image/cmyk-image.pdf",
}
SLOW = {"009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"}  # 117 pages, several seconds in pypdf

pytestmark = pytest.mark.skipif(not PDFS, reason=f"{PDF_DIR} is not present")


def _cases() -> list[object]:
    return [
        pytest.param(path, id=_key(path), marks=[pytest.mark.slow] if _key(path) in SLOW else [])
        for path in PDFS
    ]


def _key(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_real_pdfs_are_all_present() -> None:
    assert len(PDFS) == 31


@pytest.mark.parametrize("path", _cases())
def test_real_pdf_extracts_text_or_fails_with_a_known_reason(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)  # pypdf warns loudly about the damaged samples
    data = path.read_bytes()
    expected_failure = EXPECTED_FAILURES.get(_key(path))

    try:
        document = extract(data, detect_content_type(path.name, data), max_bytes=50 * 1024 * 1024)
    except ExtractionError as failure:
        assert failure.reason.startswith(KNOWN_REASONS), failure.reason
        assert expected_failure is not None and failure.reason.startswith(expected_failure), failure.reason
        return

    assert expected_failure is None, f"expected {expected_failure!r}, got {document.char_count} characters"
    assert [page.number for page in document.pages] == list(range(1, len(document.pages) + 1))
    if _key(path) in SCANNED:
        assert pages_needing_ocr(document.pages) == [page.number for page in document.pages]
        return
    assert document.char_count > 0
    assert sum(len(page.text) for page in clean_pages(document.pages)) > 0


def test_real_pdf_with_four_pages_keeps_each_page_apart() -> None:
    data = (PDF_DIR / "004-pdflatex-4-pages" / "pdflatex-4-pages.pdf").read_bytes()

    document = extract(data, "application/pdf", max_bytes=50 * 1024 * 1024)

    assert len(document.pages) == 4
    assert all(page.text.strip() for page in document.pages)
