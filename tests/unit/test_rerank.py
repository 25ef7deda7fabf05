"""The reranking port and its default."""

from __future__ import annotations

from voiceassist.models import Chunk, DocumentMetadata, SearchHit
from voiceassist.query.rerank import IdentityReranker, Reranker


def hit(doc_key: str, score: float) -> SearchHit:
    chunk = Chunk(chunk_id=doc_key, doc_id=doc_key, doc_key=doc_key, version=1, ordinal=0, text=doc_key,
                  token_count=1, metadata=DocumentMetadata(doc_key=doc_key, title=doc_key))
    return SearchHit(chunk=chunk, score=score)


def test_identity_reranker_keeps_the_fused_order_and_cuts_to_top_k() -> None:
    reranker: Reranker = IdentityReranker()
    hits = [hit("b", 0.9), hit("a", 0.7), hit("c", 0.2)]
    assert [h.chunk.doc_key for h in reranker.rerank("question", hits, top_k=2)] == ["b", "a"]
    assert reranker.in_boundary
