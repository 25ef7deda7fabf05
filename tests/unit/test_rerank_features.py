"""The learned reranker's features: what they read from a search's candidates, on both index kinds."""

from __future__ import annotations

import math
import re

import numpy as np

from voiceassist.models import Chunk, DocumentMetadata, SearchHit
from voiceassist.query.rerank_features import FEATURES, INDEX, features, passage_terms


def hit(doc_key: str, text: str, score: float, *, title: str = "", section: str | None = None, ordinal: int = 0,
        bm25: float | None = None, vector: float | None = None) -> SearchHit:
    chunk = Chunk(chunk_id=f"{doc_key}_{ordinal}", doc_id=f"{doc_key}_v1", doc_key=doc_key, version=1,
                  ordinal=ordinal, text=text, token_count=len(text.split()), section=section,
                  metadata=DocumentMetadata(doc_key=doc_key, title=title or doc_key))
    return SearchHit(chunk=chunk, score=score, bm25_score=bm25, vector_score=vector)


QUESTION = "first-line treatment of community acquired pneumonia"
HITS = [
    hit("cap", "Amoxicillin is the first-line treatment of community acquired pneumonia in adults.", 0.9,
        title="Pneumonia guideline", section="Treatment", bm25=12.0, vector=0.8),
    hit("cap", "Severity is assessed with the CURB-65 score.", 0.5, title="Pneumonia guideline", ordinal=1,
        bm25=None, vector=0.7),
    hit("gout", "Colchicine treats acute gout flares.", 0.2, title="Gout", bm25=3.0, vector=0.6),
]


def column(rows: np.ndarray, name: str) -> list[float]:
    return [float(v) for v in rows[:, INDEX[name]]]


def test_features_credit_the_passage_that_holds_the_question_words_in_order() -> None:
    rows = features(QUESTION, HITS)
    assert rows.shape == (3, len(FEATURES))
    coverage, bigrams = column(rows, "coverage"), column(rows, "bigram_share")
    assert coverage[0] == 1.0 and coverage[0] > coverage[2] > 0.0  # "treatment" vs "treats": one stem
    assert bigrams[0] == 1.0 and bigrams[2] == 0.0
    assert column(rows, "title_coverage")[0] > 0.0 and column(rows, "title_coverage")[2] == 0.0
    assert column(rows, "section_coverage")[0] > 0.0
    assert column(rows, "rarest_term") == [1.0, 0.0, 0.0]  # "acquired": one candidate holds it
    assert column(rows, "first_match")[0] < column(rows, "first_match")[2]


def test_features_keep_the_index_order_as_ranks() -> None:
    rows = features(QUESTION, HITS)
    assert column(rows, "fused_rank") == [0.0, 1.0, 2.0]
    assert column(rows, "fused_share")[0] == 1.0


def test_features_of_a_candidate_found_by_one_sub_query_score_the_other_as_no_match() -> None:
    rows = features(QUESTION, HITS)
    assert column(rows, "bm25_share") == [1.0, 0.0, 0.25]
    assert column(rows, "bm25_rank") == [0.0, 2.0, 1.0]
    assert column(rows, "cosine")[0] == 2 * 0.8 - 1  # the index's (1 + cos) / 2, back to a cosine
    assert column(rows, "cosine_gap")[0] == 0.0 and column(rows, "cosine_gap")[2] < 0.0


def test_features_of_opensearch_hybrid_hits_leave_the_missing_sub_scores_unknown() -> None:
    bare = [h.model_copy(update={"bm25_score": None, "vector_score": None}) for h in HITS]
    rows, full = features(QUESTION, bare), features(QUESTION, HITS)
    for name in ("bm25_share", "bm25_rank", "cosine", "cosine_gap", "dense_rank"):
        assert all(math.isnan(v) for v in column(rows, name)), name
    for name in ("coverage", "bigram_share", "fused_share", "sentence_coverage"):
        assert column(rows, name) == column(full, name), name


def test_features_read_each_hits_opening_cosine_and_leave_a_missing_one_unknown() -> None:
    hits = [h.model_copy(update={"opening_cosine": value}) for h, value in zip(HITS, (0.62, 0.62, None), strict=True)]
    rows, without = features(QUESTION, hits), features(QUESTION, HITS)
    assert column(rows, "opening_cosine")[:2] == [0.62, 0.62] and math.isnan(column(rows, "opening_cosine")[2])
    assert all(math.isnan(v) for v in column(without, "opening_cosine"))  # documents ingested before openings
    others = [i for i, name in enumerate(FEATURES) if name != "opening_cosine"]
    assert np.array_equal(rows[:, others], without[:, others], equal_nan=True)


def test_features_credit_the_passage_whose_one_sentence_answers_over_one_scattering_the_words() -> None:
    # the sample drug reference: the dose question's words meet in one sentence of the dosing passage (with
    # the section heading and title), while the renal passage names the drug and "dose" sentences apart
    question = "What is the maximum daily dose of metformin?"
    hits = [
        hit("metformin", "Check eGFR yearly for the maximum benefit. Metformin is contraindicated when eGFR is "
            "below 30. If eGFR falls below 45, consider a reduced dose. Check it daily in sepsis.", 0.9,
            title="Metformin reference",
            section="Renal function", ordinal=3),
        hit("metformin", "Start with 500 mg daily. The usual maximum is 2,000 mg per day in divided doses.", 0.8,
            title="Metformin reference", section="Dosing", ordinal=2),
    ]
    rows = features(question, hits)
    assert column(rows, "coverage") == [1.0, 1.0]  # every word somewhere in both passages
    assert column(rows, "sentence_coverage") == [0.5, 0.75]  # "metformin" + "dose" against + "maximum", "dose"
    assert column(rows, "sentence_idf_coverage")[1] > column(rows, "sentence_idf_coverage")[0]


def test_features_of_no_candidates_are_an_empty_matrix() -> None:
    assert features(QUESTION, []).shape == (0, len(FEATURES))


def test_features_read_words_with_the_tokenizer_the_model_was_trained_with() -> None:
    # frozen with the shipped model: the evidence score's terms.py may change ("hello" became a stop word
    # there, "máxima" one word); the reranker's inputs change only with a retrained model
    text = "Hello, the dosing of metformin titration in community acquired pneumonia: máxima dose"
    assert passage_terms(text) == ("hello", "dos", "metformin", "titrat", "community", "acquir", "pneumonia",
                                   "xima", "dos")


def _one_by_one(query: str, hits: list[SearchHit]) -> np.ndarray:
    """The lexical features read passage by passage with Python sets, as the model was trained (2026-11-28)."""
    q_terms = list(dict.fromkeys(passage_terms(query)))
    q_set = frozenset(q_terms)
    q_pairs = {(a, b) for a, b in zip(passage_terms(query), passage_terms(query)[1:], strict=False) if a != b}
    bodies = [passage_terms(h.chunk.text) for h in hits]
    fields = [frozenset(b) | frozenset(passage_terms(f"{h.chunk.metadata.title} {h.chunk.section or ''}"))
              for b, h in zip(bodies, hits, strict=True)]
    df = {t: sum(t in f for f in fields) for t in q_terms}
    idf = {t: math.log((len(hits) + 1) / (df[t] + 0.5)) for t in q_terms}
    rarest = min(q_terms, key=lambda t: (df[t], t)) if q_terms else None
    out = np.full((len(hits), 11), np.nan)
    for i, (h, body, field) in enumerate(zip(hits, bodies, fields, strict=True)):
        if q_terms:
            out[i, 0] = len(q_set & field) / len(q_terms)
            out[i, 1] = sum(idf[t] for t in q_terms if t in field) / (sum(idf.values()) or 1.0)
            out[i, 2] = len(q_set & frozenset(passage_terms(h.chunk.metadata.title))) / len(q_terms)
            out[i, 3] = float(rarest in field)
        positions = [p for p, t in enumerate(body) if t in q_set]
        pairs = {(body[p], body[p + 1]) for p in positions if p + 1 < len(body)}
        out[i, 4] = len(q_pairs & pairs) / len(q_pairs) if q_pairs else 0.0
        out[i, 5] = positions[0] / len(body) if positions else 1.0
        out[i, 6] = len(positions) / len(body) if body else 0.0
        out[i, 7] = math.log1p(len(body))
        out[i, 8] = len(q_set & frozenset(passage_terms(h.chunk.section or ""))) / len(q_terms) if q_terms else np.nan
        heading = q_set & frozenset(passage_terms(f"{h.chunk.metadata.title} {h.chunk.section or ''}"))
        sentences = [q_set & frozenset(passage_terms(s)) | heading
                     for s in re.split(r"(?<=[.!?;])\s+|\n", h.chunk.text)]
        if q_terms:
            out[i, 9] = max(len(s) for s in sentences) / len(q_terms)
            out[i, 10] = max(sum(idf[t] for t in s) for s in sentences) / (sum(idf.values()) or 1.0)
    return out


def test_features_read_all_candidates_at_once_as_one_by_one() -> None:
    # the vectorised reading must give the model exactly the inputs it was trained on, to the last bit
    generator = np.random.default_rng(5)
    words = ["dose", "dosing", "the", "of", "day.", "mg;", "?", "end.\n", "\n",
             "metformin", "renal", "acute", "kidney", "injury", "a", "x",
             "non-pulsatile", "o'brien", "máxima", "eGFR", "45", "--", "stopped", "titration", "in", "adults"]

    def text(size: int) -> str:
        return " ".join(generator.choice(words, size=size))

    def title(size: int) -> str:  # a document's title has a visible character (DocumentMetadata, since e0249f5)
        drawn = text(size)
        return drawn if drawn.strip() else "x"

    for _ in range(40):
        query = text(int(generator.integers(0, 9)))
        hits = [hit(f"d{generator.integers(0, 6)}", text(int(generator.integers(0, 40))), float(s),
                    title=title(int(generator.integers(1, 5))),
                    section=text(int(generator.integers(1, 3))) if generator.random() < 0.5 else None)
                for s in np.sort(generator.random(int(generator.integers(1, 25))))[::-1]]
        rows = features(query, hits)
        names = ("coverage", "idf_coverage", "title_coverage", "rarest_term", "bigram_share", "first_match",
                 "term_density", "log_length", "section_coverage")
        expected = _one_by_one(query, hits)
        np.testing.assert_array_equal(rows[:, [INDEX[n] for n in names]], expected[:, :9], err_msg=query)
        # the best sentence's idf weights are added in another order here (a set's): equal to rounding
        sentence = ("sentence_coverage", "sentence_idf_coverage")
        np.testing.assert_allclose(rows[:, [INDEX[n] for n in sentence]], expected[:, 9:], rtol=1e-12,
                                   err_msg=query)
