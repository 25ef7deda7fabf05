"""The reranking port: the fused order, and the learned reranker the search hands its candidates to."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from voiceassist.composition import Dependencies
from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SearchQuery
from voiceassist.query.rerank import MODEL_PATH, IdentityReranker, LearnedReranker, Reranker
from voiceassist.query.retrieval import run_knowledge_base_query
from voiceassist.settings import Settings


def hit(doc_key: str, score: float) -> SearchHit:
    chunk = Chunk(chunk_id=doc_key, doc_id=doc_key, doc_key=doc_key, version=1, ordinal=0, text=doc_key,
                  token_count=1, metadata=DocumentMetadata(doc_key=doc_key, title=doc_key))
    return SearchHit(chunk=chunk, score=score)


def test_identity_reranker_keeps_the_fused_order_and_cuts_to_top_k() -> None:
    reranker: Reranker = IdentityReranker()
    hits = [hit("b", 0.9), hit("a", 0.7), hit("c", 0.2)]
    assert [h.chunk.doc_key for h in reranker.rerank("question", hits, top_k=2)] == ["b", "a"]
    assert reranker.in_boundary


def passage(doc_key: str, text: str, score: float, *, bm25: float | None, cosine: float | None) -> SearchHit:
    chunk = Chunk(chunk_id=doc_key, doc_id=f"{doc_key}_v1", doc_key=doc_key, version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=DocumentMetadata(doc_key=doc_key, title=doc_key))
    return SearchHit(chunk=chunk, score=score, bm25_score=bm25,
                     vector_score=None if cosine is None else (1 + cosine) / 2)


QUESTION = "Does vitamin D supplementation reduce fracture risk in older women?"
ANSWER = ("In a randomised trial of 2,686 older women, vitamin D supplementation reduced the risk of hip "
          "fracture by 22 percent; fracture risk fell most in women over 75.")
FILLERS = ["Statins lower LDL cholesterol in adults with diabetes.", "Asthma control improves with inhaled steroids.",
           "Sepsis bundles shorten time to antibiotics in the emergency department.",
           "Warfarin dosing is guided by the INR.", "Hand hygiene reduces hospital infections."]


def candidates(*, sub_scores: bool) -> list[SearchHit]:
    hits = [passage(f"filler{i}", FILLERS[i % len(FILLERS)], 0.9 - i * 0.02, bm25=2.0 if sub_scores else None,
                    cosine=0.3 if sub_scores else None) for i in range(30)]
    hits.insert(12, passage("answer", ANSWER, 0.6, bm25=14.0 if sub_scores else None,
                            cosine=0.75 if sub_scores else None))
    return hits


def test_learned_reranker_lifts_the_passage_that_answers_to_the_top() -> None:
    reranker: Reranker = LearnedReranker()
    for sub_scores in (True, False):  # the embedded index's hits, then an OpenSearch hybrid query's
        ranked = reranker.rerank(QUESTION, candidates(sub_scores=sub_scores), top_k=10)
        assert ranked[0].chunk.doc_key == "answer", sub_scores
        assert len(ranked) == 10
        assert ranked[0].score == 1.0 and all(0.0 < h.score <= 1.0 for h in ranked)
        assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    assert reranker.in_boundary and reranker.depth >= 100
    assert reranker.rerank(QUESTION, [], top_k=10) == []


@pytest.mark.parametrize("openings", ["stored", "none", "some"])
def test_learned_reranker_ranks_hits_with_without_and_with_some_openings(openings: str) -> None:
    # "none": an index whose documents were all ingested before openings were stored (opening_cosine None, the
    # features' NaN, which one training query in four is given: rerank_training.OPENING_MISSING_ONE_IN);
    # "some": an index partly ingested again since
    reranker = LearnedReranker()
    for sub_scores in (True, False):
        hits = candidates(sub_scores=sub_scores)
        for n, h in enumerate(hits):
            stored = openings == "stored" or (openings == "some" and n % 3 != 0)
            h.opening_cosine = (0.7 if h.chunk.doc_key == "answer" else 0.2) if stored else None
        raw = reranker.scores(QUESTION, hits)
        ranked = reranker.rerank(QUESTION, hits, top_k=10)
        assert np.isfinite(raw).all()
        assert ranked[0].chunk.doc_key == "answer", (openings, sub_scores)


def test_learned_reranker_refuses_a_model_trained_on_other_features(tmp_path: Path) -> None:
    data = json.loads(MODEL_PATH.read_text())
    data["trees"]["feature_names"] = [*data["trees"]["feature_names"][:-1], "something_else"]
    (tmp_path / "model.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="rerank-model"):
        LearnedReranker(tmp_path / "model.json")


class CountingIndex:
    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits, self.asked = hits, 0

    def search(self, query: SearchQuery) -> list[SearchHit]:
        self.asked = query.top_k
        return self.hits[: query.top_k]


def test_search_gives_the_learned_reranker_its_candidates_and_keeps_top_k() -> None:
    index = CountingIndex(candidates(sub_scores=True))
    ctx = SimpleNamespace(index=index, reranker=LearnedReranker())
    hits = run_knowledge_base_query(ctx, SearchQuery(text=QUESTION, top_k=5, candidates=100),  # type: ignore[arg-type]
                                    phi_detected=True)
    assert index.asked == 100  # the reranker reads them all; the caller keeps five
    assert len(hits) == 5 and hits[0].chunk.doc_key == "answer"
    ctx.reranker = IdentityReranker()
    assert [h.chunk.doc_key for h in run_knowledge_base_query(  # type: ignore[arg-type]
        ctx, SearchQuery(text=QUESTION, top_k=5), phi_detected=True)] == [f"filler{i}" for i in range(5)]
    assert index.asked == 5


def test_reranker_setting_chooses_the_learned_reranker() -> None:
    assert isinstance(Dependencies(Settings(reranker="lambdamart")).reranker, LearnedReranker)
    assert isinstance(Dependencies(Settings(reranker="identity")).reranker, IdentityReranker)


SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "corpus" / "metformin-drug-reference.md"


def sample_sections() -> dict[str, str]:
    parts = SAMPLE.read_text(encoding="utf-8").split("\n## ")[1:]
    return {part.split("\n", 1)[0]: " ".join(part.split("\n", 1)[1].split()) for part in parts}


def test_learned_reranker_keeps_the_sample_dose_passage_above_the_renal_one() -> None:
    # the sample drug reference as the index returns it for the dose question (fused order and scores of the
    # embedded index, 2026-11-29): the retrained 22-feature model put "Renal function" first (decision 0025)
    sections = sample_sections()
    order = [("Dosing", 1.0, 9.1, 0.84), ("Renal function", 0.55, 3.2, 0.78), ("Indication", 0.42, 2.0, 0.75),
             ("Adverse effects", 0.3, 1.1, 0.7)]
    for sub_scores in (True, False):
        hits = []
        for ordinal, (section, score, bm25, vector) in enumerate(order):
            chunk = Chunk(chunk_id=f"m{ordinal}", doc_id="metformin_v1", doc_key="metformin", version=1,
                          ordinal=ordinal, text=sections[section], token_count=len(sections[section].split()),
                          section=section, metadata=DocumentMetadata(doc_key="metformin",
                                                                     title="Metformin (sample drug reference)"))
            hits.append(SearchHit(chunk=chunk, score=score, bm25_score=bm25 if sub_scores else None,
                                  vector_score=vector if sub_scores else None))
        ranked = LearnedReranker().rerank("What is the maximum daily dose of metformin?", hits, top_k=4)
        assert ranked[0].chunk.section == "Dosing", sub_scores
