"""Tables as text the chunker keeps whole: one row per block, cells joined by " | ".

A row is a block of its own (a blank line between rows), so a chunk ends between two rows, never inside
one; the table is a section of its own, so its rows are not packed with the paragraphs around it; and the
header row is repeated on every row as "column: value" when the table is wider than two columns, so a chunk
that starts mid-table still says what each number means.
"""

from __future__ import annotations

from collections.abc import Sequence

from voiceassist.models import Page

CELL_SEPARATOR = " | "


def table_text(rows: Sequence[Sequence[str]], *, caption: str | None = None) -> str:
    """The table as text: the caption, the header row, then each row (labelled by the header when wide)."""
    cleaned = [[" ".join(cell.split()) for cell in row] for row in rows if any(cell.strip() for cell in row)]
    if not cleaned:
        return caption or ""
    header, body = cleaned[0], cleaned[1:]
    lines = [caption] if caption else []
    lines.append(CELL_SEPARATOR.join(header))
    labelled = len(header) > 2 and all(header)
    for row in body:
        if labelled and len(row) == len(header):
            lines.append(CELL_SEPARATOR.join(
                f"{name}: {value}" if value and index else value
                for index, (name, value) in enumerate(zip(header, row, strict=True))))
        else:
            lines.append(CELL_SEPARATOR.join(row))
    return "\n\n".join(lines)


def table_page(rows: Sequence[Sequence[str]], *, heading: str | None, caption: str | None = None) -> Page:
    """A table as a section (a Page without a number) under the heading it appears in."""
    return Page(number=None, text=table_text(rows, caption=caption), heading=heading)
