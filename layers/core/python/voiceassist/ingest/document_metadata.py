"""Document metadata from what an upload's caller supplied, with doc_key and title defaulting to the file name
(the API, the CLI, bulk ingestion and the S3 trigger share it)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from pydantic import ValidationError

from voiceassist.errors import InvalidInput
from voiceassist.models import DocumentMetadata


def metadata_for(filename: str, values: dict[str, Any]) -> DocumentMetadata:
    """Document metadata from caller-supplied values, defaulting doc_key and title to the file name."""
    stem = PurePosixPath(filename).stem or "document"
    merged = {k: v for k, v in values.items() if v not in (None, "", [])}
    merged.setdefault("doc_key", stem)
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
