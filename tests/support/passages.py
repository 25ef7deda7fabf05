"""A search hit made of one passage, for the answer gate's unit tests: the text under a guideline's title."""

from __future__ import annotations

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType


def passage_hit(text: str, title: str = "Reference", vector_score: float | None = None) -> SearchHit:
    """`text` as the one chunk of a guideline called `title` (its doc_key the title lower-cased), ranked first."""
    meta = DocumentMetadata(doc_key=title.lower(), title=title, source_type=SourceType.GUIDELINE)
    chunk = Chunk(chunk_id=f"c-{title}", doc_id="d", doc_key=title.lower(), version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=meta)
    return SearchHit(chunk=chunk, score=1.0, vector_score=vector_score)
