"""The shared search maths: OpenSearch's fusion formulas, safe FTS5 queries, version and duplicate dedup."""

from __future__ import annotations

import sqlite3

import pytest

from voiceassist.models import Chunk, DocumentMetadata, SearchHit
from voiceassist.query.search import (
    MAX_QUERY_TERMS,
    cosine_to_score,
    drop_near_duplicates,
    fts5_match_expression,
    fuse_min_max,
    fuse_rrf,
    keep_latest_versions,
    limit_chunks_per_document,
    min_max_normalize,
    query_terms,
    top_n,
)


def hit(doc_key: str, version: int, text: str = "text", score: float = 1.0) -> SearchHit:
    chunk = Chunk(chunk_id=f"{doc_key}-{version}-{text[:8]}", doc_id=f"{doc_key}#{version}", doc_key=doc_key,
                  version=version, ordinal=0, text=text, token_count=1,
                  metadata=DocumentMetadata(doc_key=doc_key, title=doc_key))
    return SearchHit(chunk=chunk, score=score)


def test_min_max_normalize_rescales_like_opensearch() -> None:
    # (s - min) / (max - min); the minimum becomes 0.001 so it is still a found document.
    assert min_max_normalize({"a": 10.0, "b": 5.0, "c": 0.0}) == {"a": 1.0, "b": 0.5, "c": 0.001}


def test_min_max_normalize_gives_tied_candidates_one() -> None:
    assert min_max_normalize({"only": 3.2}) == {"only": 1.0}
    assert min_max_normalize({"a": 0.4, "b": 0.4}) == {"a": 1.0, "b": 1.0}
    assert min_max_normalize({}) == {}


def test_fuse_min_max_weighted_mean_counts_a_missing_sub_query_as_zero() -> None:
    bm25 = {"a": 12.0, "b": 6.0, "c": 3.0}
    dense = {"b": 0.9, "d": 0.8, "a": 0.5}
    fused = fuse_min_max([bm25, dense], [0.3, 0.7])

    assert fused["a"] == pytest.approx(0.3 * 1.0 + 0.7 * 0.001)
    assert fused["b"] == pytest.approx(0.3 * (3 / 9) + 0.7 * 1.0)
    assert fused["c"] == pytest.approx(0.3 * 0.001)  # only BM25 found it: the dense weight still counts
    assert fused["d"] == pytest.approx(0.7 * 0.75)
    assert [key for key, _ in top_n(fused, 4)] == ["b", "d", "a", "c"]


def test_fuse_min_max_is_bit_for_bit_the_weighted_mean_of_each_keys_scores() -> None:
    # Given three sub-queries of random scores that overlap in part, and uneven weights
    import random

    rng = random.Random(7)
    subs = [{f"k{rng.randrange(300)}": rng.uniform(-5, 30) for _ in range(150)} for _ in range(3)]
    weights = [0.2, 0.5, 0.3]

    # Then each fused score is exactly sum(weight x normalised score, 0 when missing) / total weight
    normalized = [min_max_normalize(scores) for scores in subs]
    keys = {key for scores in subs for key in scores}
    expected = {key: sum(w * n.get(key, 0.0) for w, n in zip(weights, normalized, strict=True)) / sum(weights)
                for key in keys}
    fused = fuse_min_max(subs, weights)
    assert fused == expected  # equal floats, not approximately
    assert top_n(fused, 100) == top_n(expected, 100)


def test_fuse_min_max_refuses_mismatched_weights() -> None:
    with pytest.raises(ValueError, match="weights"):
        fuse_min_max([{"a": 1.0}, {"a": 1.0}], [1.0])


def test_fuse_rrf_sums_reciprocal_ranks() -> None:
    fused = fuse_rrf([["a", "b"], ["b", "c"]], rank_constant=60)
    assert fused == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61, "c": 1 / 62})
    assert top_n(fused, 1) == [("b", fused["b"])]


def test_top_n_breaks_ties_by_key_for_stable_results() -> None:
    assert top_n({"b": 1.0, "a": 1.0, "c": 2.0}, 3) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]


def test_cosine_to_score_matches_the_cosinesimil_space() -> None:
    assert [cosine_to_score(c) for c in (1.0, 0.0, -1.0)] == [1.0, 0.5, 0.0]


def test_query_terms_lowercase_drop_stop_words_and_repeats() -> None:
    assert query_terms("What is THE dose of Aspirin, aspirin and warfarin?") == ["what", "dose", "aspirin",
                                                                                  "warfarin"]


@pytest.mark.parametrize("text", [
    'aspirin" OR', "NEAR(aspirin warfarin, 2)", "title:aspirin*", "- ^ * ( ) { } : \" '", "AND OR NOT",
    "covid-19 AND/OR sars-cov-2", "x" * 5000, "β-blocker naïve patients", "\"unterminated",
])
def test_fts5_match_expression_is_never_an_fts5_syntax_error(text: str) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
    db.execute("INSERT INTO t (body) VALUES ('aspirin and warfarin for covid-19 patients')")
    expression = fts5_match_expression(text)
    if expression is not None:
        db.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)).fetchall()


def test_fts5_match_expression_ors_quoted_terms() -> None:
    assert fts5_match_expression("Aspirin AND warfarin") == '"aspirin" OR "warfarin"'
    assert fts5_match_expression("the and of") is None
    assert len(query_terms(" ".join(f"term{i}" for i in range(500)))) == MAX_QUERY_TERMS


def test_keep_latest_versions_drops_older_versions_of_a_document() -> None:
    hits = [hit("aspirin", 1, "old"), hit("metformin", 3), hit("aspirin", 2, "new"),
            hit("aspirin", 2, "more")]
    kept = keep_latest_versions(hits)
    assert [(h.chunk.doc_key, h.chunk.version, h.chunk.text) for h in kept] == [
        ("metformin", 3, "text"), ("aspirin", 2, "new"), ("aspirin", 2, "more")]


def test_drop_near_duplicates_keeps_the_best_ranked_copy() -> None:
    paragraph = "Low-dose aspirin 75 mg daily is recommended after myocardial infarction in adults."
    hits = [hit("guideline", 1, paragraph), hit("textbook", 1, paragraph.replace("adults.", "adults!")),
            hit("other", 1, "Metformin is the first-line drug for type 2 diabetes.")]
    assert [h.chunk.doc_key for h in drop_near_duplicates(hits)] == ["guideline", "other"]


def test_limit_chunks_per_document_keeps_each_documents_best_chunks() -> None:
    hits = [hit("guideline", 1, "first"), hit("guideline", 1, "second"), hit("textbook", 1, "only"),
            hit("guideline", 2, "third")]
    assert [h.chunk.text for h in limit_chunks_per_document(hits)] == ["first", "only"]
    assert [h.chunk.text for h in limit_chunks_per_document(hits, limit=2)] == ["first", "second", "only"]


def test_top_n_orders_ties_by_the_given_keys_and_looks_up_only_those_reaching_the_first_n() -> None:
    # Given scores with ties above, at and below the n-th best, and tie keys that reverse the keys' own order
    scores = {1: 0.9, 2: 0.5, 3: 0.9, 4: 0.7, 5: 0.5, 6: 0.5, 7: 0.2, 8: 0.2, 9: 0.1}
    asked: list[list[int]] = []

    def reversed_keys(keys: list[int]) -> dict[int, int]:
        asked.append(sorted(keys))
        return {key: -key for key in keys}

    # When the 4 best are asked for
    best = top_n(scores, 4, reversed_keys)

    # Then equal scores follow the tie keys, every key scored as the 4th is in the running
    assert best == [(3, 0.9), (1, 0.9), (4, 0.7), (6, 0.5)]
    # And only the keys tied within that reach are looked up, once (not 7 and 8, tied below it)
    assert asked == [[1, 2, 3, 5, 6]]
    # And the order is the one a sort of every key by (score, tie key) gives, for every n
    for n in range(len(scores) + 2):
        assert top_n(scores, n, reversed_keys) == sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[:n]
    # And without ties among the first n, nothing is looked up
    asked.clear()
    assert top_n(scores, 3, reversed_keys)[:2] == [(3, 0.9), (1, 0.9)] and asked == [[1, 3]]
    asked.clear()
    assert top_n({1: 0.3, 2: 0.2, 3: 0.2}, 1, reversed_keys) == [(1, 0.3)] and asked == []
