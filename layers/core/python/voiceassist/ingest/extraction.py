"""Text extraction: uploaded bytes -> pages of text (PDF via extraction_pdf, plain text, Markdown, HTML).

Every way a file can be unusable ends in an ExtractionError whose reason an operator can act on; the
parsers' own exceptions never escape, because an upload is untrusted input and pypdf raises many kinds.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from voiceassist.errors import ExtractionError, UnsupportedMediaType
from voiceassist.ingest.cleaning import is_readable
from voiceassist.ingest.extraction_html import html_pages
from voiceassist.ingest.references import split_references
from voiceassist.models import ExtractedDocument, Page

PDF = "application/pdf"
PLAIN_TEXT = "text/plain"
MARKDOWN = "text/markdown"
HTML = "text/html"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
SUPPORTED_CONTENT_TYPES: tuple[str, ...] = (PDF, PLAIN_TEXT, MARKDOWN, HTML, DOCX)

_BY_EXTENSION: dict[str, str] = {
    ".pdf": PDF,
    ".txt": PLAIN_TEXT,
    ".text": PLAIN_TEXT,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".html": HTML,
    ".htm": HTML,
    ".docx": DOCX,
}
_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP container (for example a .xlsx or .pptx file)"),
    (b"\xd0\xcf\x11\xe0", "a legacy Microsoft Office file (.doc, .xls or .ppt)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"{\\rtf", "an RTF document"),
)
_SUPPORTED_HINT = "upload a PDF, Word (.docx), plain text (.txt), Markdown (.md) or HTML (.html) file"
# A password-protected .docx is an OLE compound file holding the ZIP as a stream of this name (MS-OFFCRYPTO).
_ENCRYPTED_OOXML = "EncryptedPackage".encode("utf-16-le")
_PDF_MAGIC = b"%PDF-"
_PDF_MAGIC_WINDOW = 1024  # the PDF spec lets readers accept junk before the header
_HTML_START = (b"<!doctype html", b"<html")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_TEXT_FALLBACKS = ("utf-8-sig", "cp1252", "latin-1")


def detect_content_type(filename: str, data: bytes) -> str:
    """The content type of an upload, from its magic bytes first and its file name second."""
    if _PDF_MAGIC in data[:_PDF_MAGIC_WINDOW]:
        return PDF
    if data.startswith(b"PK\x03\x04") and (_is_docx(data) or filename.lower().endswith(".docx")):
        return DOCX
    if data.startswith(b"\xd0\xcf\x11\xe0") and _ENCRYPTED_OOXML in data:
        raise UnsupportedMediaType(f"{filename!r} is an encrypted (password-protected) Office document; remove "
                                   "the password in Word and upload it again")
    for signature, what in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise UnsupportedMediaType(f"{filename!r} is {what}; {_SUPPORTED_HINT}")
    extension = PurePosixPath(filename.replace("\\", "/").lower()).suffix
    if extension == ".pdf" and data:
        raise UnsupportedMediaType(f"{filename!r} is named .pdf but has no PDF header; {_SUPPORTED_HINT}")
    if extension in _BY_EXTENSION:
        return _BY_EXTENSION[extension]
    if data[:512].lstrip().lower().startswith(_HTML_START):
        return HTML
    if extension == "" and b"\x00" not in data[:4096]:
        return PLAIN_TEXT
    kind = extension or "no extension"
    raise UnsupportedMediaType(f"{filename!r} has an unsupported type ({kind}); {_SUPPORTED_HINT}")


def extract(
    data: bytes, content_type: str, *, max_bytes: int, max_pages: int = 2000, max_seconds: float = 120.0
) -> ExtractedDocument:
    """Extract the text of a document, page by page; raises ExtractionError with the reason it failed.

    max_seconds bounds PDF parsing (checked between pages) so a pathological file fails with a reason
    instead of running into the Lambda time-out.
    """
    kind = content_type.split(";")[0].strip().lower()
    if kind not in SUPPORTED_CONTENT_TYPES:
        raise UnsupportedMediaType(f"content type {content_type!r} is not supported; {_SUPPORTED_HINT}")
    if not data:
        raise ExtractionError("empty file: the upload has 0 bytes")
    if len(data) > max_bytes:
        raise ExtractionError(f"too large: the file has {_size(len(data))}, the limit is {_size(max_bytes)}")
    if kind == PDF:
        from voiceassist.ingest.extraction_pdf import pdf_pages  # pypdf: only the stage that reads PDFs

        pages = pdf_pages(data, max_pages=max_pages, max_seconds=max_seconds)
    elif kind == DOCX:
        from voiceassist.ingest.extraction_docx import docx_pages  # python-docx: only the extract stage

        pages = docx_pages(data)
        if not any(page.text.strip() for page in pages):
            raise ExtractionError("no text: the Word document contains no paragraphs or tables with text")
    else:
        text = _decode_text(data, declared=_declared_charset(data) if kind == HTML else None)
        if kind == MARKDOWN:
            pages = _markdown_pages(text)
        elif kind == HTML:
            pages = html_pages(text)
        else:
            pages = _plain_text_pages(text)
        if not any(page.text.strip() for page in pages):
            raise ExtractionError("no text: the file contains no readable text, only white space or markup")
    pages, references = split_references(pages)
    return ExtractedDocument(pages=pages, content_type=kind, references=references)


# --------------------------------------------------------------------------- text formats


def _decode_text(data: bytes, *, declared: str | None) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        candidates: tuple[str, ...] = ("utf-16",)
    elif b"\x00" in data[:4096]:
        raise ExtractionError("unreadable encoding: the file holds binary data (NUL bytes), not text")
    else:
        candidates = ((declared,) if declared else ()) + _TEXT_FALLBACKS
    for encoding in candidates:
        text = _try_decode(data, encoding)
        if text is not None and is_readable(text):
            return text
    raise ExtractionError(
        "unreadable encoding: the bytes do not decode to readable text as UTF-8, Windows-1252 or Latin-1"
    )


def _try_decode(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _declared_charset(data: bytes) -> str | None:
    match = _META_CHARSET.search(data[:4096])
    return match.group(1).decode("ascii") if match else None


def _plain_text_pages(text: str) -> list[Page]:
    """One page, or numbered pages when the text carries form feeds (pdftotext output does)."""
    if "\f" not in text.strip("\f"):
        return [Page(number=None, text=text.strip("\f"))]
    return [Page(number=n, text=part) for n, part in enumerate(text.strip("\f").split("\f"), start=1)]


_FRONT_MATTER = re.compile(r"\A---\n.*?\n(?:---|\.\.\.)\n", re.DOTALL)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ATX_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$")
_SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
# Inline markup, replaced by its visible text. Single * and _ only count as emphasis between non-word
# characters, so "2*3" and snake_case survive.
_INLINE_MARKUP: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])"), r"\1"),
    (re.compile(r"<(https?://[^>\s]+)>"), r"\1"),
    (re.compile(r"<!--.*?-->"), ""),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])"), r"\2"),
)


def _markdown_pages(text: str) -> list[Page]:
    """One page per section: a heading becomes the heading of the text that follows it."""
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    in_fence = False
    for raw in _FRONT_MATTER.sub("", text.replace("\r\n", "\n")).split("\n"):
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        body = sections[-1][1]
        if in_fence:
            body.append(raw)
            continue
        heading = _ATX_HEADING.match(raw)
        if heading:
            sections.append((_inline_text(heading.group(1) or ""), []))
        elif _SETEXT_UNDERLINE.match(raw) and _ends_with_paragraph_line(body):
            sections.append((_inline_text(body.pop()).strip(), []))
        elif _SETEXT_UNDERLINE.match(raw) or _TABLE_RULE.match(raw):
            continue  # a thematic break or a table's header rule: layout, not text
        else:
            body.append(_inline_text(re.sub(r"^\s{0,3}>\s?", "", raw)))
    return [
        Page(number=None, text="\n".join(lines).strip(), heading=heading or None)
        for heading, lines in sections
        if "".join(lines).strip()
    ]


def _ends_with_paragraph_line(lines: list[str]) -> bool:
    return bool(lines) and bool(lines[-1].strip()) and not _LIST_ITEM.match(lines[-1])


def _inline_text(line: str) -> str:
    for pattern, replacement in _INLINE_MARKUP:
        line = pattern.sub(replacement, line)
    return line


# --------------------------------------------------------------------------- helpers


def _is_docx(data: bytes) -> bool:
    """A ZIP container is a Word document when it holds word/document.xml (the OOXML main part)."""
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except zipfile.BadZipFile:
        return False


def _size(n_bytes: int) -> str:
    if n_bytes < 1024 * 1024:
        return f"{n_bytes:,} bytes"
    return f"{n_bytes / (1024 * 1024):.1f} MB"
