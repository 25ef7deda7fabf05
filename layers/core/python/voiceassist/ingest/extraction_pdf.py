"""PDF extraction with pypdf: the text of each page, and the section headings that start on it; a page with a
ruled table gets it as rows (voiceassist.ingest.pdf_tables, pdfplumber).

A page without a text layer comes back empty: voiceassist.ingest.ocr names it, and the pipeline reads it by OCR.

Every way a PDF can be unusable ends in an ExtractionError whose reason an operator can act on.
"""

from __future__ import annotations

import io
import time

from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError as PdfDependencyError

from voiceassist.errors import ExtractionError
from voiceassist.ingest.pdf_headings import Line, LineCollector, detect_headings
from voiceassist.ingest.pdf_tables import with_tables
from voiceassist.models import Page


def pdf_pages(data: bytes, *, max_pages: int, max_seconds: float, tables: bool = True) -> list[Page]:
    """The pages of a PDF; a page's heading lists the section headings that start on it, one per line.
    `tables=False` keeps every page as its text layer reads (the OCR benchmark's reference)."""
    started = time.perf_counter()
    try:
        reader = PdfReader(io.BytesIO(data))
        encrypted = reader.is_encrypted
    except Exception as exc:
        raise ExtractionError(f"broken PDF: its structure cannot be parsed ({_describe(exc)})") from exc
    if encrypted:
        _unlock(reader)
    try:
        page_count = len(reader.pages)
    except Exception as exc:
        raise ExtractionError(f"broken PDF: its page tree cannot be read ({_describe(exc)})") from exc
    if page_count == 0:
        raise ExtractionError("broken PDF: the file has no pages")
    if page_count > max_pages:
        raise ExtractionError(f"too many pages: the PDF has {page_count} pages, the limit is {max_pages}")
    texts: list[str] = []
    layouts: list[list[Line]] = []
    images: list[bool] = []
    for number in range(1, page_count + 1):
        collector = LineCollector()
        try:
            texts.append(reader.pages[number - 1].extract_text(visitor_text=collector.visit) or "")
            images.append(_draws_images(reader.pages[number - 1]))
        except Exception as exc:
            raise ExtractionError(f"broken PDF: page {number} cannot be read ({_describe(exc)})") from exc
        layouts.append(collector.finish())
        if number < page_count and time.perf_counter() - started > max_seconds:
            raise ExtractionError(
                f"too slow: reading stopped after page {number} of {page_count} at the {max_seconds:g} s "
                "limit; the PDF is unusually complex"
            )
    headings = detect_headings(layouts)
    pages = [
        Page(number=number, text=text, heading="\n".join(found) or None, draws_images=image)
        for number, (text, found, image) in enumerate(zip(texts, headings, images, strict=True), start=1)
    ]
    if not tables:
        return pages
    return with_tables(data, pages, max_seconds=max(max_seconds - (time.perf_counter() - started), 0.0))


def _draws_images(page: PageObject) -> bool:
    """Whether the page's resources hold an image XObject (a scanned page is one big image)."""
    try:
        resources = page.get("/Resources")
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        if xobjects is None:
            return False
        return any(xobject.get_object().get("/Subtype") == "/Image" for xobject in xobjects.get_object().values())
    except Exception:  # damaged resources: the text layer decides alone
        return False


def _unlock(reader: PdfReader) -> None:
    """Open a PDF encrypted with an empty user password (common: 'no copying' files); refuse the rest."""
    try:
        result = reader.decrypt("")
    except PdfDependencyError as exc:
        raise ExtractionError(
            "encrypted: this PDF uses AES encryption, which needs the 'cryptography' package deployed"
        ) from exc
    except Exception as exc:
        raise ExtractionError(f"encrypted: the PDF's encryption is not supported ({_describe(exc)})") from exc
    if result == PasswordType.NOT_DECRYPTED:
        raise ExtractionError("encrypted: password-protected PDFs are not supported")


def _describe(exc: BaseException) -> str:
    message = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
