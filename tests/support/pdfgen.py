"""A minimal PDF writer for test fixtures and the sample corpus: text pages in Helvetica, real xref table.

pypdf can read PDFs but not lay out text, and reportlab is not a dependency; this writes the few objects a
text PDF needs so tests can make documents whose content they control. A page's heading is set in 14 pt
Helvetica-Bold; a Line among the paragraphs is one line in a font and size of its own.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

LINE_HEIGHT = 14
TOP = 760
LEFT = 60
WIDTH_CHARS = 90


def escape(text: str) -> str:
    """A PDF string literal's body: backslashes and parentheses escaped."""
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


@dataclass(frozen=True)
class Line:
    """One line of text in its own style: bold=True is Helvetica-Bold."""

    text: str
    size: float = 11
    bold: bool = False


def _page_stream(title: str | None, paragraphs: Sequence[str | Line], footer: str | None, header: Line | None) -> bytes:
    ops = []
    if header:
        ops += ["BT", f"/{'F2' if header.bold else 'F1'} {header.size:g} Tf", f"{LEFT} {TOP + 2 * LINE_HEIGHT} Td",
                f"({escape(header.text)}) Tj", "ET"]
    ops += ["BT", "/F1 11 Tf", f"{LEFT} {TOP} Td", f"{LINE_HEIGHT} TL"]
    if title:
        ops += ["/F2 14 Tf", f"({escape(title)}) Tj", "T*", "/F1 11 Tf", "T*"]
    for paragraph in paragraphs:
        if isinstance(paragraph, Line):
            font = "F2" if paragraph.bold else "F1"
            ops += [f"/{font} {paragraph.size:g} Tf", f"({escape(paragraph.text)}) Tj", "T*", "/F1 11 Tf"]
            continue
        for line in textwrap.wrap(paragraph, WIDTH_CHARS) or [""]:
            ops += [f"({escape(line)}) Tj", "T*"]
        ops.append("T*")
    ops.append("ET")
    if footer:
        ops += ["BT", "/F1 9 Tf", f"{LEFT} 40 Td", f"({escape(footer)}) Tj", "ET"]
    return "\n".join(ops).encode("latin-1")


def build_pdf(pages: Sequence[tuple[str | None, Sequence[str | Line]]], *, footer: str | None = None, title: str = "",
              header: Line | None = None) -> bytes:
    """pages: (heading or None, paragraphs) per page; header: a running head above every page's text.
    Text must be Latin-1 (the standard Helvetica encoding)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # placeholders filled below once the page ids are known
    pages_id = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    bold = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    info = add(b"<< /Title (" + escape(title).encode("latin-1") + b") /Producer (voiceassist tests) >>")
    page_ids = []
    for number, (heading, paragraphs) in enumerate(pages, start=1):
        page_footer = f"{footer}  -  Page {number} of {len(pages)}" if footer else None
        stream = _page_stream(heading, paragraphs, page_footer, header)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        page_ids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>" % (pages_id, content, font, bold)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))

    return serialize(objects, root=catalog, info=info)


def serialize(objects: Sequence[bytes], *, root: int, info: int | None = None) -> bytes:
    """A PDF file of these objects (numbered from 1), with its xref table and trailer."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    info_ref = b" /Info %d 0 R" % info if info is not None else b""
    out += b"trailer\n<< /Size %d /Root %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, root, info_ref, xref)
    return bytes(out)
