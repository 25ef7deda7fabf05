"""Ruled tables in PDFs (pdfplumber, lines_strict): kept in their page as whole rows, labelled by the header,
and only when the grid holds values; boxes, empty grids and figure lattices stay text or nothing."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest

from tests.support.pdfgen import escape, serialize
from voiceassist.ingest.chunking import chunk_document
from voiceassist.ingest.cleaning import clean_pages
from voiceassist.ingest.extraction import PDF, extract
from voiceassist.ingest.pdf_tables import is_table, with_tables
from voiceassist.models import DocumentMetadata, Page

ROWS = [("Drug", "Dose", "Route"), ("Amoxicillin", "500 mg", "PO"), ("Ceftriaxone", "1 g", "IV")]
ABOVE = "Give the first dose as listed below."
BELOW = "Check renal function before the second dose."


def _pdf(texts: Sequence[tuple[float, float, str]], lines: Sequence[tuple[float, float, float, float]],
         marks: Sequence[tuple[float, float, str]] = ()) -> bytes:
    """One 400x300 pt page: Helvetica 10 pt text at (x, y), stroked lines (x1, y1, x2, y2), 6 pt marks."""
    ops = [f"BT /F1 10 Tf 1 0 0 1 {x:g} {y:g} Tm ({escape(text)}) Tj ET" for x, y, text in texts]
    ops += [f"BT /F1 6 Tf 1 0 0 1 {x:g} {y:g} Tm ({escape(text)}) Tj ET" for x, y, text in marks]
    ops += [f"{x1:g} {y1:g} m {x2:g} {y2:g} l S" for x1, y1, x2, y2 in lines]
    stream = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 300] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    return serialize(objects, root=1)


def _grid(cells: Sequence[Sequence[str]], *, left: float = 40, top: float = 220, width: float = 100,
          height: float = 20) -> tuple[list[tuple[float, float, str]], list[tuple[float, float, float, float]]]:
    """A ruled grid with a line around every cell, and each cell's text inside it."""
    rows, columns = len(cells), len(cells[0])
    right, bottom = left + columns * width, top - rows * height
    lines = [(left, top - r * height, right, top - r * height) for r in range(rows + 1)]
    lines += [(left + c * width, top, left + c * width, bottom) for c in range(columns + 1)]
    texts = [(left + c * width + 4, top - (r + 1) * height + 6, text)
             for r, row in enumerate(cells) for c, text in enumerate(row) if text]
    return texts, lines


def _page(data: bytes) -> Page:
    pages = extract(data, PDF, max_bytes=1024 * 1024).pages
    assert len(pages) == 1
    return pages[0]


def test_a_ruled_table_becomes_rows_between_the_text_above_and_below_it() -> None:
    texts, lines = _grid(ROWS)
    page = _page(_pdf([(40, 260, ABOVE), *texts, (40, 120, BELOW)], lines))

    assert page.text.split("\n\n") == [
        ABOVE,
        "Drug | Dose | Route",
        "Amoxicillin | Dose: 500 mg | Route: PO",
        "Ceftriaxone | Dose: 1 g | Route: IV",
        BELOW,
    ]
    assert page.number == 1


def test_table_rows_stay_whole_in_chunks_that_cite_the_page() -> None:
    texts, lines = _grid(ROWS)
    pages = clean_pages(extract(_pdf([(40, 260, ABOVE), *texts, (40, 120, BELOW)], lines), PDF,
                                max_bytes=1024 * 1024).pages)

    metadata = DocumentMetadata(title="t", doc_key="k")
    # Room for one row, not two: each row is cut from its neighbours, never inside.
    chunks = chunk_document(pages, doc_id="doc", doc_key="k", version=1, metadata=metadata, max_tokens=20,
                            overlap_tokens=0)

    texts_of = [chunk.text for chunk in chunks]
    assert "Amoxicillin | Dose: 500 mg | Route: PO" in texts_of
    assert "Ceftriaxone | Dose: 1 g | Route: IV" in texts_of
    assert {chunk.page for chunk in chunks} == {1}


def test_a_superscript_footnote_mark_stays_apart_from_the_number_in_its_cell() -> None:
    texts, lines = _grid([("Country", "Population"), ("Austria", "8,935,112")], width=120)
    number_end = 40 + 120 + 4 + 7 * 5.56 + 2 * 2.78  # Helvetica 10 pt: digits 5.56 pt wide, commas 2.78: no gap
    page = _page(_pdf(texts, lines, marks=[(number_end, 190, "3")]))

    assert "Austria | 8,935,112 3" in page.text.split("\n\n")


@pytest.mark.parametrize(("what", "cells"), [
    ("a boxed paragraph (one cell)", [["A note on dosing in renal failure."]]),
    ("a one-column box of lines", [["First line of a note"], ["Second line of the note"]]),
    ("an empty grid (a figure frame or a form)", [["", "", ""], ["", "", ""], ["", "", ""]]),
    ("a lattice of points (a figure)", [["*", "*", "*"], ["*", "*", "*"]]),
    ("a grid with one filled row", [["x", "y", ""], ["", "", ""], ["", "", ""]]),
])
def test_grids_that_hold_no_values_are_not_tables(what: str, cells: list[list[str]]) -> None:
    texts, lines = _grid(cells, width=180 if len(cells[0]) == 1 else 60)
    page = _page(_pdf([(40, 260, ABOVE), *texts], lines))

    assert " | " not in page.text, what
    assert page.text.startswith(ABOVE)


def test_is_table_needs_two_rows_of_values_and_half_the_cells_filled() -> None:
    assert is_table([["Drug", "Dose"], ["Amoxicillin", "500 mg"]])
    assert not is_table([["Drug", "Dose"]])
    assert not is_table([["Drug", None, None, None], ["Amoxicillin", "500 mg", None, None]])
    assert not is_table([["-", "*"], ["–", "•"]])
    assert not is_table([])


def test_a_pdf_pdfplumber_cannot_read_keeps_its_text(caplog: pytest.LogCaptureFixture) -> None:
    pages = [Page(number=1, text="Amoxicillin 500 mg PO")]

    with caplog.at_level(logging.WARNING):
        kept = with_tables(b"%PDF-1.4 not really a PDF", pages, max_seconds=30)

    assert kept == pages
    assert "pdf tables: not looked for" in caplog.text


def test_past_its_time_limit_no_page_is_looked_at(caplog: pytest.LogCaptureFixture) -> None:
    texts, lines = _grid(ROWS)
    data = _pdf(texts, lines)
    pages = [Page(number=1, text="Drug Dose Route Amoxicillin 500 mg PO")]

    with caplog.at_level(logging.WARNING):
        kept = with_tables(data, pages, max_seconds=0)

    assert kept == pages
    assert "pdf tables: stopped looking at page 1" in caplog.text


def test_a_page_pdfplumber_cannot_lay_out_keeps_its_text_and_the_others_are_still_read(
        caplog: pytest.LogCaptureFixture) -> None:
    texts, lines = _grid(ROWS)
    data = _pdf(texts, lines)
    pages = [Page(number=2, text="a page the PDF does not have"), Page(number=1, text="Drug Dose Route")]

    with caplog.at_level(logging.WARNING):
        read = with_tables(data, pages, max_seconds=30)

    assert read[0] == pages[0]
    assert "pdf tables: page 2 left as text (IndexError" in caplog.text
    assert "Amoxicillin | Dose: 500 mg | Route: PO" in read[1].text
