"""PDF tables: ruled tables found by pdfplumber, kept in their page's text as rows the chunker keeps whole.

Only tables drawn with lines are looked for (pdfplumber's `lines_strict`: drawn lines, not the edges of
filled rectangles, which box paragraphs and form fields), and a grid counts as a table only when it holds
values: at least 2 rows with 2 or more filled cells and at least half its cells filled, a cell being filled
when it holds a letter or a digit (a figure's frame, a lattice of points or an empty form grid is not a
table). On the 31 sample PDFs, every page, that finds the one real table and nothing else
(docs/decisions/0004-documents-ocr.md; bench/pdf_tables.py).

A page with a table gets its text from pdfplumber: the text above the table, the table as rows (one block
each, voiceassist.ingest.tables), any text beside it, then the text below. Pages without one keep pypdf's
text. Tables are an improvement, not a requirement: a page pdfplumber cannot read, or the time limit, leaves
the pypdf text as it is.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Sequence
from typing import Any

from voiceassist.ingest.tables import table_text
from voiceassist.models import Page

logger = logging.getLogger(__name__)

TABLE_SETTINGS: dict[str, Any] = {"vertical_strategy": "lines_strict", "horizontal_strategy": "lines_strict"}
# A change of font size starts a new word, so a number and its superscript footnote mark stay apart
# ("273.879.750 1", not "273.879.7501").
TEXT_OPTIONS: dict[str, Any] = {"extra_attrs": ["size"]}


def is_table(rows: Sequence[Sequence[str | None]]) -> bool:
    """At least 2 rows holding 2 or more values, and at least half the cells holding one (a letter or digit)."""
    filled = [[any(ch.isalnum() for ch in cell or "") for cell in row] for row in rows]
    total = sum(len(row) for row in filled)
    return (total > 0 and sum(map(sum, filled)) / total >= 0.5
            and sum(sum(row) >= 2 for row in filled) >= 2)


def with_tables(data: bytes, pages: list[Page], *, max_seconds: float) -> list[Page]:
    """The pages, those holding ruled tables rewritten with the tables as rows; stops looking at max_seconds."""
    try:
        import pdfplumber  # the documents layer (ingest_extract); a function without it keeps pypdf's text
    except ImportError:
        logger.warning("pdf tables: not looked for (pdfplumber is not installed here)")
        return list(pages)
    logging.getLogger("pdfminer").setLevel(logging.ERROR)  # its font warnings repeat what pypdf already said
    started = time.perf_counter()
    result = list(pages)
    try:
        with pdfplumber.open(io.BytesIO(data), password="") as pdf:
            for index, page in enumerate(pages):
                if time.perf_counter() - started > max_seconds:
                    logger.warning("pdf tables: stopped looking at page %s (%.0f s limit)", page.number, max_seconds)
                    break
                if page.number is None or not page.text.strip():
                    continue
                try:
                    text = _page_text_with_tables(pdf.pages[page.number - 1])
                except Exception as exc:  # a page pdfplumber cannot lay out keeps pypdf's text
                    logger.warning("pdf tables: page %s left as text (%s)", page.number, _describe(exc))
                    continue
                if text is not None:
                    result[index] = page.model_copy(update={"text": text})
    except Exception as exc:  # an untrusted file pypdf could read: its text stays as pypdf read it
        logger.warning("pdf tables: not looked for (%s)", _describe(exc))
    return result


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def _page_text_with_tables(page: Any) -> str | None:
    tables = sorted((table for table in page.find_tables(TABLE_SETTINGS) if is_table(table.extract())),
                    key=lambda table: table.bbox[1])
    if not tables:
        return None
    left, top, right, bottom = page.bbox
    parts: list[str] = []
    position = top
    for table in tables:
        _x0, table_top, _x1, table_bottom = table.bbox
        if table_top > position:
            parts.append(_text(page.crop((left, position, right, table_top))))
        rows = [[_text(page.crop(cell)) if cell else "" for cell in row.cells] for row in table.rows]
        parts.append(table_text(rows))
        band = page.crop((left, max(position, table_top), right, min(table_bottom, bottom)))
        parts.append(_text(band.outside_bbox(table.bbox)))  # text beside the table
        position = max(position, table_bottom)
    if position < bottom:
        parts.append(_text(page.crop((left, position, right, bottom))))
    return "\n\n".join(part for part in parts if part.strip())


def _text(region: Any) -> str:
    return str(region.extract_text(**TEXT_OPTIONS) or "").strip()
