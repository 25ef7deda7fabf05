"""DOCX extraction with python-docx: headings become sections, tables are kept as rows, captions as text.

A Word document has no pages in its file (Word lays them out when it opens it), so each section is a Page
without a number, as for Markdown and HTML. A table is a section of its own (voiceassist.ingest.tables), so
its rows stay together in chunks instead of running into the paragraphs around it.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from voiceassist.errors import ExtractionError
from voiceassist.ingest.tables import table_page
from voiceassist.models import Page

_HEADING_STYLE = re.compile(r"^(?:Heading\s*\d|Title|Subtitle)$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^List", re.IGNORECASE)


def docx_pages(data: bytes) -> list[Page]:
    """The sections of a DOCX file, in reading order; raises ExtractionError for a broken or locked file."""
    document = _open(data)
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    pages: list[Page] = []

    def close_section() -> None:
        heading, lines = sections[-1]
        body = "\n\n".join(line for line in lines if line.strip())
        if body:
            pages.append(Page(number=None, text=body, heading=heading))
        sections[-1] = (heading, [])

    for block in document.iter_inner_content():
        if _is_table(block):
            close_section()
            rows = _table_rows(block)
            if rows:
                pages.append(table_page(rows, heading=sections[-1][0]))
            continue
        text = " ".join(block.text.split())
        style = _style_name(block)
        if not text:
            continue
        if _HEADING_STYLE.match(style):
            close_section()
            sections.append((text, []))
        elif _LIST_STYLE.match(style):
            sections[-1][1].append(f"- {text}")
        else:
            sections[-1][1].append(text)  # body text and captions ("Figure 2. ...") alike
    close_section()
    return pages


def _open(data: bytes) -> Any:
    from docx import Document  # python-docx: only the stage that reads DOCX files imports it
    from docx.opc.exceptions import PackageNotFoundError

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except zipfile.BadZipFile as exc:
        raise ExtractionError(f"broken DOCX: the file is not a readable ZIP container ({exc})") from exc
    if "word/document.xml" not in names:
        raise ExtractionError("broken DOCX: the ZIP container has no word/document.xml")
    try:
        return Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise ExtractionError(f"broken DOCX: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from exc
    except Exception as exc:  # lxml raises XMLSyntaxError for damaged parts; an upload is untrusted input
        raise ExtractionError(f"broken DOCX: its XML cannot be parsed ({type(exc).__name__})") from exc


def _is_table(block: Any) -> bool:
    return hasattr(block, "rows")


def _style_name(paragraph: Any) -> str:
    try:
        return str(paragraph.style.name or "") if paragraph.style is not None else ""
    except (KeyError, ValueError):  # a style id the styles part does not define
        return ""


def _table_rows(table: Any) -> list[list[str]]:
    """Cell texts per row; a merged cell (python-docx repeats it for each grid column) counts once."""
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        previous: Any = None
        for cell in row.cells:
            if previous is not None and cell._tc is previous:
                continue
            previous = cell._tc
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(cells)
    return rows
