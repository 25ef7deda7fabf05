"""Document metadata from what an upload's caller supplied, with doc_key and title defaulting to the file name
(the API, the CLI, bulk ingestion and the S3 trigger share it)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from pydantic import ValidationError

from voiceassist.errors import InvalidInput
from voiceassist.models import DocumentMetadata

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_HEADING_SCAN_BYTES = 64 * 1024
MAX_TITLE_CHARS = 1000  # DocumentMetadata.title's max_length


def markdown_title(filename: str, data: bytes) -> str | None:
    """The first heading of a Markdown file ("# Acute gout flare"), outside code fences; None for another type
    or a file without one. Like any title, it passes the metadata PHI screen before anything indexes it."""
    if PurePosixPath(filename).suffix.lower() not in MARKDOWN_SUFFIXES:
        return None
    in_fence = False
    for line in data[:_HEADING_SCAN_BYTES].decode("utf-8", errors="replace").splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _ATX_HEADING.match(line)
        if match:
            title = match.group(1).strip().strip("*_`").strip()
            if title:
                return title[:MAX_TITLE_CHARS]
    return None


def metadata_for(filename: str, values: dict[str, Any], data: bytes | None = None) -> DocumentMetadata:
    """Document metadata from caller-supplied values, defaulting doc_key to the file name and the title to a
    Markdown file's first heading (given `data`), else the file name."""
    stem = PurePosixPath(filename).stem or "document"
    merged = {k: v for k, v in values.items() if v not in (None, "", [])}
    merged.setdefault("doc_key", stem)
    heading = markdown_title(filename, data) if data is not None and "title" not in merged else None
    if heading:
        merged["title"] = heading
    # The name's own case is kept ("KDIGO 2024 CKD", not "Kdigo 2024 ckd"; "reportlab overlay", not "Reportlab
    # overlay"): a capital the file name did not have reads as a name to the PHI screen (ingest/screening.py)
    words = stem.replace("_", " ").replace("-", " ").strip()
    merged.setdefault("title", words or stem)
    if isinstance(merged.get("authors"), str):
        merged["authors"] = [a.strip() for a in merged["authors"].split(";") if a.strip()]
    try:
        return DocumentMetadata.model_validate(merged)
    except ValidationError as exc:  # field and rule only: pydantic's own message quotes the value (PHI, maybe)
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid document metadata ({problems})") from exc
