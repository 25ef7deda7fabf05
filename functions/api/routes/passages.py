"""Passages: the indexed text behind a citation, so a client can show the source with the cited sentences."""

from __future__ import annotations

from urllib.parse import unquote

from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel

from routes.identity import caller_id
from voiceassist.composition import dependencies
from voiceassist.errors import NotFound, quoted_id
from voiceassist.models import SourceType

router = Router()


class Passage(BaseModel):
    doc_id: str
    chunk_id: str
    title: str
    source_type: SourceType
    page: int | None = None
    section: str | None = None
    text: str
    url: str | None = None


@router.get("/documents/<doc_id>/chunks/<chunk_id>", summary="Get the passage (chunk) a citation points to")
def get_passage(doc_id: str, chunk_id: str) -> Passage:
    caller_id(router)  # signed-in callers only, like every route; the function reads the index, never writes
    # Chunk ids hold a ":" (<doc_id>:<ordinal>), which clients may send percent-encoded in the path.
    doc_id, chunk_id = unquote(doc_id), unquote(chunk_id)
    chunk = dependencies().index.chunk(chunk_id)
    if chunk.doc_id != doc_id:
        raise NotFound(f"chunk {quoted_id(chunk_id)} is not part of document {quoted_id(doc_id)}")
    return Passage(doc_id=chunk.doc_id, chunk_id=chunk.chunk_id, title=chunk.metadata.title,
                   source_type=chunk.metadata.source_type, page=chunk.page, section=chunk.section,
                   text=chunk.text, url=chunk.metadata.url)
