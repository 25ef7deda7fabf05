"""The reranker's pseudo-relevance feedback features: a passage that reads like the index's first candidates
(in the corpus's words, not the question's) is credited, on both index kinds."""

from __future__ import annotations

import numpy as np

from voiceassist.models import Chunk, DocumentMetadata, SearchHit
from voiceassist.query.rerank_features import INDEX, features

QUESTION = "why are eggs bad for the heart"


def hit(key: str, text: str, score: float) -> SearchHit:
    chunk = Chunk(chunk_id=key, doc_id=f"{key}_v1", doc_key=key, version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=DocumentMetadata(doc_key=key, title=key))
    return SearchHit(chunk=chunk, score=score)


def candidates() -> list[SearchHit]:
    # the first candidates speak of dietary cholesterol and atherosclerosis; further down, one abstract in the
    # same words that never says "egg" nor "heart", and one about an unrelated subject
    top = [hit(f"top{i}", f"Egg consumption raises dietary cholesterol intake and plasma LDL; atherosclerosis "
                          f"progression in cohort {i}.", 1.0 - i / 20) for i in range(10)]
    same_topic = hit("lipids", "Dietary cholesterol and plasma LDL predict carotid atherosclerosis progression.",
                     0.3)
    other = hit("knee", "Arthroscopic surgery for degenerative meniscal tears of the knee.", 0.3)
    return [*top, same_topic, other]


def test_prf_features_credit_a_passage_in_the_first_candidates_words_over_an_unrelated_one() -> None:
    rows = features(QUESTION, candidates())
    lipids, knee = rows[10], rows[11]
    assert lipids[INDEX["prf_share"]] > knee[INDEX["prf_share"]]
    assert lipids[INDEX["prf_cosine"]] > knee[INDEX["prf_cosine"]]
    assert knee[INDEX["prf_share"]] == 0.0
    # the question's own words do not tell the two apart: only the feedback does
    assert lipids[INDEX["coverage"]] == knee[INDEX["coverage"]] == 0.0


def test_prf_features_are_the_same_without_sub_scores_and_are_bounded() -> None:
    hits = candidates()
    with_scores = [h.model_copy(update={"bm25_score": 5.0, "vector_score": 0.8}) for h in hits]
    plain, scored = features(QUESTION, hits), features(QUESTION, with_scores)
    for name in ("prf_share", "prf_cosine"):
        np.testing.assert_array_equal(plain[:, INDEX[name]], scored[:, INDEX[name]])
        assert np.all((plain[:, INDEX[name]] >= 0) & (plain[:, INDEX[name]] <= 1 + 1e-12))


def test_prf_features_of_passages_without_content_words_are_zero() -> None:
    rows = features(QUESTION, [hit("a", "the of and", 1.0), hit("b", "", 0.5)])
    assert rows[:, INDEX["prf_share"]].tolist() == [0.0, 0.0]
    assert rows[:, INDEX["prf_cosine"]].tolist() == [0.0, 0.0]
