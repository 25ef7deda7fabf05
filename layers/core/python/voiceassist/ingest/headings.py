"""Section headings in page text: what a heading line looks like, and which text each heading covers.

Markdown and HTML extraction give one page per section, its heading on the page. A PDF page instead lists
the headings that start on it (extraction_pdf finds them by their typography), one per line of
Page.heading; the lines stay in the page's text, and a section runs from its heading line to the next
one, across page breaks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from voiceassist.models import Page

HEADING_MAX_WORDS = 8
_CLOSING_PUNCTUATION = ".,;:!?-–"


def has_heading_shape(line: str, *, max_words: int = HEADING_MAX_WORDS) -> bool:
    """Short, opening with a capital or a section number, and no closing punctuation."""
    words = line.split()
    if not words or len(words) > max_words or line.rstrip()[-1] in _CLOSING_PUNCTUATION:
        return False
    return words[0][0].isupper() or words[0][0].isdigit()


def heading_line_breaks(text: str, heading_ends: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """Line breaks after a heading-like line of a PDF: between the end of a paragraph, a known heading
    (heading_ends) or the start, and a capitalised line. It then stays out of the next sentence ("Dosing
    The recommended dose ..."), which keeps excerpts and extractive answers clean."""
    breaks: list[tuple[int, int]] = []
    lines = text.split("\n")
    offset = 0
    previous_end = "."
    for line, following in zip(lines, lines[1:], strict=False):
        end = offset + len(line)
        if has_heading_shape(line) and previous_end in ".!?:" and following.lstrip()[:1].isupper():
            breaks.append((end, end + 1))
        if line.strip():
            previous_end = "." if (end, end + 1) in breaks[-1:] or end in heading_ends else line.rstrip()[-1]
        offset = end + 1
    return breaks


@dataclass(frozen=True, slots=True)
class Section:
    """Text under one heading: whole pages, or the parts of pages between two headings."""

    heading: str | None
    pages: list[Page]
    # (start, end) of the heading lines in the section's text (its pages joined by "\n"): each is a block
    # of its own, and a heading set on two lines stays one.
    heading_spans: tuple[tuple[int, int], ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(page.text for page in self.pages)


def sections(pages: list[Page]) -> Iterator[Section]:
    """Runs of page text under one heading, in reading order. A heading directly followed by another
    ("2 Methods" then "2.1 Participants") opens the next section instead of making a section of its own."""
    current = Section(None, [])
    for page in pages:
        if page.number is None:  # Markdown, HTML: the page is the section
            if current.pages:
                yield current
            current = Section(page.heading, [page])
            continue
        for heading, text, heading_length in _page_parts(page):
            if heading is None:
                current.pages.append(Page(number=page.number, text=text))
                continue
            part = Page(number=page.number, text=text)
            if current.pages and not _only_headings(current):
                yield current
                current = Section(None, [])
            offset = len(current.text) + 1 if current.pages else 0
            spans = (*current.heading_spans, (offset, offset + heading_length))
            current = Section(heading, [*current.pages, part], spans)
    if current.pages:
        yield current


def _only_headings(section: Section) -> bool:
    return bool(section.heading_spans) and not section.text[section.heading_spans[-1][1]:].strip()


def _page_parts(page: Page) -> list[tuple[str | None, str, int]]:
    """(heading starting the part or None, text, end of its heading lines) for a paged page's text.

    A listed heading whose line is no longer in the text (cleaning removed it as a running header) is
    ignored.
    """
    starts: list[tuple[int, int, str]] = []
    position = 0
    for heading in (page.heading or "").split("\n"):
        match = _heading_line(heading).search(page.text, position) if heading.strip() else None
        if match:
            starts.append((match.start(), match.end(), heading))
            position = match.end()
    if not starts:
        return [(None, page.text, 0)]
    parts: list[tuple[str | None, str, int]] = []
    if page.text[: starts[0][0]].strip():
        parts.append((None, page.text[: starts[0][0]].rstrip("\n"), 0))
    for index, (start, end, heading) in enumerate(starts):
        stop = starts[index + 1][0] if index + 1 < len(starts) else len(page.text)
        parts.append((heading, page.text[start:stop].rstrip("\n"), end - start))
    return parts


def _heading_line(heading: str) -> re.Pattern[str]:
    """The heading as whole lines of text; a heading set on two lines may break between any words."""
    words = r"\s+".join(re.escape(word) for word in heading.split())
    return re.compile(rf"^[ \t]*{words}[ \t]*$", re.MULTILINE)
