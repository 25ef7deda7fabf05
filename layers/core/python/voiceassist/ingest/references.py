"""The references section (bibliography) of a document: taken out of the text to index, kept as entries.

Citations lists match almost any clinical question ("hypertension ... 2018; 71: e13") and answer none, so
they are not chunked; the document keeps them (KnowledgeDocument.references) for display and audit.

Markdown, HTML and DOCX give one page per section, so the section under a "References" heading is dropped
whole. A PDF page lists the headings that start on it; the references run from their heading line to the
next heading (an appendix) or the end. A standalone "References" line in the second half of a PDF counts
even when its typography did not make it a detected heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceassist.models import Page

_TITLE = re.compile(
    r"^\s*(?:[\dIVX]+(?:\.\d+)*\.?\s+)?(?:references?(?: list)?|bibliography|works cited|literature cited|"
    r"cited literature|literatur|références|referencias)\s*:?\s*$", re.IGNORECASE)
_ENTRY_START = re.compile(r"^\s*(?:\[\d+\]|\d{1,3}[.)]\s|\d{1,3}\s+[A-Z])")
MAX_ENTRIES = 500
MAX_ENTRY_CHARS = 1000


def is_references_heading(line: str) -> bool:
    return bool(_TITLE.match(line))


def split_references(pages: Sequence[Page]) -> tuple[list[Page], list[str]]:
    """The pages without their references section, and the section's entries (empty when there is none)."""
    if all(page.number is None for page in pages):
        dropped = [bool(page.heading and is_references_heading(page.heading)) for page in pages]
        kept = [page for page, drop in zip(pages, dropped, strict=True) if not drop]
        lines = [line for page, drop in zip(pages, dropped, strict=True) if drop for line in page.text.split("\n")]
    else:
        kept, lines = _split_paged(pages)
    if not any(page.text.strip() for page in kept):
        return list(pages), []  # a document that is only a reference list is indexed as it is
    return kept, _entries(lines)


def _split_paged(pages: Sequence[Page]) -> tuple[list[Page], list[str]]:
    kept: list[Page] = []
    taken: list[str] = []
    in_references = False
    for index, page in enumerate(pages):
        headings = [h for h in (page.heading or "").split("\n") if h.strip()]
        late = index >= len(pages) // 2
        text_lines: list[str] = []
        for line in page.text.split("\n"):
            stripped = line.strip()
            if is_references_heading(stripped) and (late or stripped in headings):
                in_references = True
            elif in_references and stripped and stripped in headings:
                in_references = False  # the next section (an appendix) after the references
                text_lines.append(line)
            elif in_references:
                taken.append(line)
            else:
                text_lines.append(line)
        remaining = "\n".join(h for h in headings if not is_references_heading(h)) or None
        kept.append(page.model_copy(update={"text": "\n".join(text_lines).rstrip(), "heading": remaining}))
    return kept, taken


def _entries(lines: Sequence[str]) -> list[str]:
    """Reference entries: a numbered line starts one; otherwise an entry ends at a line ending in '.'."""
    entries: list[str] = []
    current: list[str] = []
    for raw in lines:
        line = " ".join(raw.split()).removeprefix("- ")  # HTML and DOCX list items
        if not line:
            continue
        if current and (_ENTRY_START.match(line) or current[-1].endswith(".")):
            entries.append(" ".join(current))
            current = []
        current.append(line)
    if current:
        entries.append(" ".join(current))
    return [entry[:MAX_ENTRY_CHARS] for entry in entries[:MAX_ENTRIES]]
