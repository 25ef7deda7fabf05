"""A minimal PDF writer for test fixtures and the sample corpus: text pages in Helvetica, real xref table.

pypdf can read PDFs but not lay out text, and reportlab is not a dependency; this writes the few objects a
text PDF needs so tests can make documents whose content they control.
"""

from __future__ import annotations

import textwrap

LINE_HEIGHT = 14
TOP = 760
LEFT = 60
WIDTH_CHARS = 90


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _page_stream(title: str | None, paragraphs: list[str], footer: str | None) -> bytes:
    ops = ["BT", "/F1 11 Tf", f"{LEFT} {TOP} Td", f"{LINE_HEIGHT} TL"]
    if title:
        ops += ["/F2 14 Tf", f"({_escape(title)}) Tj", "T*", "/F1 11 Tf", "T*"]
    for paragraph in paragraphs:
        for line in textwrap.wrap(paragraph, WIDTH_CHARS) or [""]:
            ops += [f"({_escape(line)}) Tj", "T*"]
        ops.append("T*")
    ops.append("ET")
    if footer:
        ops += ["BT", "/F1 9 Tf", f"{LEFT} 40 Td", f"({_escape(footer)}) Tj", "ET"]
    return "\n".join(ops).encode("latin-1")


def build_pdf(pages: list[tuple[str | None, list[str]]], *, footer: str | None = None, title: str = "") -> bytes:
    """pages: (heading or None, paragraphs) per page. Text must be Latin-1 (the standard Helvetica encoding)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # placeholders filled below once the page ids are known
    pages_id = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    bold = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    info = add(b"<< /Title (" + _escape(title).encode("latin-1") + b") /Producer (voiceassist tests) >>")
    page_ids = []
    for number, (heading, paragraphs) in enumerate(pages, start=1):
        page_footer = f"{footer}  -  Page {number} of {len(pages)}" if footer else None
        stream = _page_stream(heading, paragraphs, page_footer)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        page_ids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>" % (pages_id, content, font, bold)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, info, xref)
    return bytes(out)
