"""Document metadata from what an upload's caller supplied, with doc_key and title defaulting to the file name
(the API, the CLI, bulk ingestion and the S3 trigger share it)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from voiceassist.errors import InvalidInput
from voiceassist.models import DocumentMetadata, SourceType

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_HEADING_SCAN_BYTES = 64 * 1024
MAX_TITLE_CHARS = 1000  # DocumentMetadata.title's max_length
MAX_URL_CHARS = 2048  # what browsers and CloudFront handle everywhere
_JOINED = re.compile(r"[^\W_]+(?:[-/][^\W_]+)+")  # words joined by "-" or "/": "Activin-Nodal", "labs-1961-04-17"
_LOOSE_JOINER = re.compile(r"(?<![^\W_])[-/]|[-/](?![^\W_])")  # one that joins nothing: " - ", "-labs"


def base_name(filename: str) -> str:
    """A file name without its folders, cut at "/" and at "\\": browsers and Windows clients may send the whole
    path ("C:\\Users\\me\\guide.md"), whose drive and folders would otherwise become the doc_key and title."""
    return filename.replace("\\", "/").rsplit("/", 1)[-1]


def file_stem(filename: str) -> str:
    """The base name before its last extension ("guide.v2.md" -> "guide.v2"); InvalidInput when nothing that
    names the document is left (".md", "-.txt", "C:\\docs\\"). The message quotes the rule, not the name
    (a file name may hold PHI; it is screened only after registration)."""
    name = base_name(filename)
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if not any(ch.isalnum() for ch in stem):
        raise InvalidInput("the file name needs a name before its extension, with a letter or digit (guide.md, "
                           "not .md): rename the file")
    return stem


def markdown_title(filename: str, data: bytes) -> str | None:
    """The first heading of a Markdown file ("# Acute gout flare"), outside code fences; None for another type
    or a file without one. Like any title, it passes the metadata PHI screen before anything indexes it."""
    if PurePosixPath(base_name(filename)).suffix.lower() not in MARKDOWN_SUFFIXES:
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


def words_apart(text: str, separators: str) -> str:
    """`text` with each of `separators`, and each "-" and "/" that joins words, as a space, of the same length;
    a "-" or "/" between two groups of digits only is a number's own and stays ("1961-04-17", "2007-2008",
    "12/03/1956"; but "HLA-DRB1-01" is three words): read as spaces, a date or a range became a phone number."""
    spaced = re.sub(f"[{re.escape(separators)}]", " ", text) if separators else text

    def numbers_kept(joined: re.Match[str]) -> str:
        pieces = re.split(r"([-/])", joined.group(0))
        kept = [pieces[0]]
        for i in range(1, len(pieces), 2):
            own = pieces[i - 1].isdigit() and pieces[i + 1].isdigit()
            kept += [pieces[i] if own else " ", pieces[i + 1]]
        return "".join(kept)

    return _LOOSE_JOINER.sub(" ", _JOINED.sub(numbers_kept, spaced))


def metadata_for(filename: str, values: dict[str, Any], data: bytes | None = None) -> DocumentMetadata:
    """Document metadata from caller-supplied values, defaulting doc_key to the file name and the title to a
    Markdown file's first heading (given `data`), else the file name (its base name: folders are cut)."""
    stem = file_stem(filename)
    merged = {k: v for k, v in values.items() if v not in (None, "", [])}
    merged.setdefault("doc_key", stem)
    heading = markdown_title(filename, data) if data is not None and "title" not in merged else None
    if heading:
        merged["title"] = heading
    stated = set(merged)  # what a new version does not take from the active one (inherited_metadata)
    # The name's own case is kept ("KDIGO 2024 CKD", not "Kdigo 2024 ckd"; "reportlab overlay", not "Reportlab
    # overlay"): a capital the file name did not have reads as a name to the PHI screen (ingest/screening.py)
    # A number's own hyphen is kept: "labs-1961-04-17" is titled "labs 1961-04-17", a date, not "1961 04 17"
    words = words_apart(stem, "_").strip()
    merged.setdefault("title", words or stem)
    if "url" in merged:
        merged["url"] = web_address(merged["url"])
    if isinstance(merged.get("authors"), str):
        merged["authors"] = [a.strip() for a in merged["authors"].split(";") if a.strip()]
    try:
        validated = DocumentMetadata.model_validate(merged)
    except ValidationError as exc:  # field and rule only: pydantic's own message quotes the value (PHI, maybe)
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid document metadata ({problems})") from exc
    # the values validated; model_fields_set names only what the caller (or the Markdown heading) stated, so a
    # title made from the file name, like a field left out, is one a new version may inherit
    return DocumentMetadata.model_construct(_fields_set=stated, **dict(validated))


INHERITABLE_FIELDS = ("title", "source_type", "specialty", "authors", "year", "doi", "pmid", "url")


def inherited_metadata(metadata: DocumentMetadata, active: DocumentMetadata | None
                       ) -> tuple[DocumentMetadata, tuple[str, ...]]:
    """A new version's metadata: each field its upload did not state (not in `model_fields_set`; a title made
    from the file name counts as not stated) is the active version's, when that one has another value; with
    the names of the fields taken. Re-uploading a guideline without `--specialty` kept it out of a specialty filter.
    The active version's values were screened for PHI; the new version's are screened again, all together."""
    if active is None:
        return metadata, ()
    taken = {name: getattr(active, name) for name in INHERITABLE_FIELDS
             if name not in metadata.model_fields_set and getattr(active, name) != getattr(metadata, name)
             and getattr(active, name) not in (None, "", [], SourceType.OTHER)}
    if not taken:
        return metadata, ()
    merged = DocumentMetadata.model_validate({**metadata.model_dump(), **taken})
    return merged, tuple(taken)


def web_address(value: Any) -> str:
    """A document's `url` as given, when it is an absolute http(s) address a client can link to; else InvalidInput
    naming the rule, not the value (it could carry anything). A `javascript:` or `data:` address, a bare host
    ("www.example.org") or text with spaces was stored as given and offered to clients as the source's link."""
    text = value.strip() if isinstance(value, str) else ""
    try:
        parts = urlsplit(text)
    except ValueError:  # an unbalanced "[" of an IPv6 host
        parts = urlsplit("")
    if (len(text) > MAX_URL_CHARS or parts.scheme.lower() not in ("http", "https") or not parts.hostname
            or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in text)):
        raise InvalidInput(f"invalid document metadata (url: an absolute http:// or https:// address of at most "
                           f"{MAX_URL_CHARS} characters, without spaces)")
    return text
