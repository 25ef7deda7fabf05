"""HTML extraction: visible text split into sections at h1-h6, tables kept as rows, captions kept.

Navigation, scripts, styles and footers are skipped. A table becomes a section of its own under the heading
it appears in (voiceassist.ingest.tables), its <caption> on top, so the chunker keeps its rows together and
whole. Figure captions (<figcaption>) stay in the text where they stand.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from voiceassist.ingest.tables import table_text
from voiceassist.models import Page


class _HtmlText(HTMLParser):
    _SKIPPED = frozenset({"script", "style", "nav", "noscript", "template", "svg", "head", "footer"})
    _HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
    _BLOCKS = frozenset(
        {"p", "div", "section", "article", "main", "header", "aside", "ul", "ol", "li"}
        | {"blockquote", "pre", "dl", "dt", "dd", "figure", "figcaption", "br", "hr"}
        | {"address", "details", "summary"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str | None, list[str]]] = [(None, [])]
        self._skip_depth = 0
        self._pre_depth = 0
        self._heading: list[str] | None = None
        self._table_depth = 0
        self._rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._captions: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIPPED:
            self._skip_depth += 1
        elif self._skip_depth:
            return
        elif tag == "table":
            self._table_depth += 1
            if self._table_depth == 1:
                self._rows, self._captions = [], []
        elif self._table_depth:
            self._table_start(tag)
        elif tag in self._HEADINGS:
            self._heading = []
        elif tag == "li":
            self._write("\n- ")
        elif tag in self._BLOCKS:
            if tag == "pre":
                self._pre_depth += 1
            self._write("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIPPED:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif self._skip_depth:
            return
        elif tag == "table" and self._table_depth:
            self._table_depth -= 1
            if self._table_depth == 0:
                self._close_table()
        elif self._table_depth:
            self._table_end(tag)
        elif tag in self._HEADINGS and self._heading is not None:
            heading = " ".join("".join(self._heading).split())
            self._heading = None
            if heading:
                self.sections.append((heading, []))
        elif tag in self._BLOCKS:
            if tag == "pre":
                self._pre_depth = max(0, self._pre_depth - 1)
            self._write("\n")

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._table_depth:
            target = self._caption if self._caption is not None else self._cell
            if target is not None:
                target.append(data)
        elif self._heading is not None:
            self._heading.append(data)
        else:
            self._write(data if self._pre_depth else re.sub(r"\s+", " ", data))

    # ---- tables: rows of cells; a table nested in a cell reads as that cell's text
    def _table_start(self, tag: str) -> None:
        if self._table_depth > 1:
            if tag in ("td", "th") and self._cell is not None:
                self._cell.append(" ")
        elif tag == "tr":
            self._rows.append([])
        elif tag in ("td", "th"):
            if not self._rows:
                self._rows.append([])
            self._cell = []
        elif tag == "caption":
            self._caption = []

    def _table_end(self, tag: str) -> None:
        if self._table_depth > 1:
            return
        if tag in ("td", "th") and self._cell is not None:
            self._rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "caption" and self._caption is not None:
            self._captions.append(" ".join("".join(self._caption).split()))
            self._caption = None

    def _close_table(self) -> None:
        heading = self.sections[-1][0]
        caption = " ".join(c for c in self._captions if c) or None
        text = table_text(self._rows, caption=caption)
        if text:
            self.sections.append((heading, [text]))
            self.sections.append((heading, []))  # the text after the table, under the same heading
        self._rows, self._cell, self._caption = [], None, None

    def _write(self, text: str) -> None:
        self.sections[-1][1].append(text)


def html_pages(text: str) -> list[Page]:
    parser = _HtmlText()
    parser.feed(text)
    parser.close()
    pages = []
    for heading, parts in parser.sections:
        lines = [line.strip() for line in "".join(parts).split("\n")]
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        if body:
            pages.append(Page(number=None, text=body, heading=heading))
    return pages
