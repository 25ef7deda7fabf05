"""Equal scores rank by document, never by the order chunks entered an index (docs/decisions/0025, session 18).

Two data folders of the same documents ingested in different orders (bulk ingestion writes 16 at once) once
gave the reranker different training candidates: duplicate abstracts tie exactly in BM25, cosine and the fused
score, and each cut (a sub-query's `candidates`, the fused top_k) kept whichever tied chunk the index had
inserted first."""

from __future__ import annotations

import numpy as np
import pytest

from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.models import Chunk, DocumentMetadata, FusionMethod, SearchHit, SearchMode, SearchQuery
from voiceassist.query.rerank import LearnedReranker
from voiceassist.query.search import in_stable_order

DIMENSION = 8
TOPICS = ["warfarin bleeding risk in older adults", "metformin dose in renal impairment",
          "aspirin after stroke trial", "insulin glucose targets in sepsis"]


def corpus() -> list[tuple[Chunk, np.ndarray]]:
    """Twelve documents, three copies of each topic (the same text and vector: a tie in every score), keys whose
    alphabetical order is not their order in the list, each with a second chunk."""
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((len(TOPICS), 2, DIMENSION)).astype(np.float32)
    documents = []
    for copy in range(3):
        for topic, text in enumerate(TOPICS):
            key = f"d{(7 * (copy * len(TOPICS) + topic)) % 12:02d}"
            metadata = DocumentMetadata(doc_key=key, title=f"review {topic}")
            for ordinal, body in enumerate((text, f"{text} methods cohort")):
                chunk = Chunk(chunk_id=f"{key}-{ordinal}", doc_id=f"{key}_v1", doc_key=key, version=1,
                              ordinal=ordinal, text=body, token_count=len(body.split()), metadata=metadata)
                documents.append((chunk, vectors[topic, ordinal]))
    return documents


def ingested(order: list[tuple[Chunk, np.ndarray]]) -> LocalHybridIndex:
    """An in-memory index holding the documents, written one document at a time in the order given."""
    index = LocalHybridIndex(dimension=DIMENSION)
    keys = list(dict.fromkeys(chunk.doc_key for chunk, _ in order))
    for key in keys:
        chunks = [(chunk, vector) for chunk, vector in order if chunk.doc_key == key]
        index.index([chunk for chunk, _ in chunks], np.stack([vector for _, vector in chunks]))
        index.activate(key, 1)
    return index


QUERIES = [
    SearchQuery(text="warfarin bleeding risk", mode=SearchMode.BM25, top_k=4),
    SearchQuery(text="metformin renal dose", mode=SearchMode.DENSE, top_k=5),
    SearchQuery(text="aspirin stroke", top_k=7, candidates=5),
    SearchQuery(text="insulin sepsis cohort", top_k=10, candidates=4, bm25_weight=0.3),
    SearchQuery(text="warfarin metformin", top_k=6, candidates=5, fusion=FusionMethod.RRF),
]


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: f"{q.mode.value}-{q.fusion.value}-{q.candidates}")
def test_the_same_documents_ingested_in_two_orders_rank_alike(query: SearchQuery) -> None:
    documents = corpus()
    vector = documents[2 * TOPICS.index(next(t for t in TOPICS if query.text.split()[0] in t))][1] + 0.1
    asked = query.model_copy(update={"vector": vector.tolist()})
    forward, backward = ingested(documents), ingested(documents[::-1])
    try:
        first, second = forward.search(asked), backward.search(asked)
    finally:
        forward.close()
        backward.close()
    # Then the cut keeps the same chunks and ranks them alike, equal scores by document key, version, ordinal
    assert len({hit.score for hit in first}) < len(first)  # the cuts fall inside ties
    assert [(h.chunk.chunk_id, h.score, h.bm25_score, h.vector_score) for h in first] == \
        [(h.chunk.chunk_id, h.score, h.bm25_score, h.vector_score) for h in second]
    assert [h.chunk.chunk_id for h in first] == [h.chunk.chunk_id for h in in_stable_order(first)]


def test_opensearch_hits_are_put_in_stable_order_whatever_order_the_cluster_broke_ties_in() -> None:
    hits = [SearchHit(chunk=chunk, score=score) for (chunk, _), score in zip(corpus()[:8], [1, 1, 1, 2, 1, 2, 2, 1],
                                                                             strict=True)]
    ordered = in_stable_order(hits)
    assert [h.score for h in ordered] == [2, 2, 2, 1, 1, 1, 1, 1]
    assert ordered == in_stable_order(hits[::-1])
    assert [h.chunk.doc_key for h in ordered[:3]] == sorted(h.chunk.doc_key for h in ordered[:3])


def test_the_reranker_orders_equal_scores_by_document_whatever_order_the_hits_came_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Given candidates the model scores alike in threes (its scores read each hit's place, so they are set here)
    hits = [SearchHit(chunk=chunk, score=0.5) for chunk, _ in corpus() if chunk.ordinal == 0]
    model_score = {hit.chunk.chunk_id: float(TOPICS.index(hit.chunk.text)) for hit in hits}
    reranker = LearnedReranker()
    monkeypatch.setattr(reranker, "scores", lambda query, given: np.array([model_score[h.chunk.chunk_id]
                                                                           for h in given]))
    # Then the order is the model's, equal scores by document key, whichever order the hits came in
    first = reranker.rerank("warfarin", hits, top_k=7)
    second = reranker.rerank("warfarin", hits[::-1], top_k=7)
    assert [h.chunk.chunk_id for h in first] == [h.chunk.chunk_id for h in second]
    assert [h.chunk.text for h in first] == [TOPICS[3]] * 3 + [TOPICS[2]] * 3 + [TOPICS[1]]
    assert [h.chunk.doc_key for h in first[:3]] == sorted(h.chunk.doc_key for h in first[:3])
