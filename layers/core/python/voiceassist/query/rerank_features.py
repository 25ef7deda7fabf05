"""The learned reranker's features: numbers about one search's candidates, computed from what every index
returns (the hit's text, title, section, position and scores), so the same code ranks the embedded index's
hits and OpenSearch's.

One row per candidate, in FEATURES order. Sub-query scores (BM25, cosine) are only known where the index
returns them (the embedded index, for every hybrid candidate; an OpenSearch hybrid query returns the fused
score alone): without them their features are NaN, which the model was trained to read (half its training
queries come without them: voiceassist_local/evaluation/rerank_training.py).

Lexical features read words with the tokenizer the model was trained with, frozen here (the word pattern,
stop words and light stemmer of query/terms.py as of 2026-11-28): query/terms.py serves the evidence score
and changes with it, and a model's inputs must not move unless it is retrained. A term's rarity is measured
among the candidates themselves (their document frequency), since no index statistics travel with the hits.
Everything here is arithmetic on text already inside the boundary.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from voiceassist.models import SearchHit

FEATURES = (
    "fused_score",  # the index's (fused) score
    "fused_rank",  # 0-based position in the index's order
    "fused_share",  # score / best score of the candidates
    "bm25_share",  # BM25 / best BM25 of the candidates (0: no BM25 match; NaN: not returned)
    "bm25_rank",  # position by BM25 among the candidates (NaN: not returned)
    "cosine",  # the question-passage cosine (NaN: not returned)
    "cosine_gap",  # cosine - best cosine of the candidates
    "dense_rank",  # position by cosine among the candidates
    "coverage",  # share of the question's terms in the passage, its title and section
    "idf_coverage",  # the same, each term weighted by its rarity among the candidates
    "title_coverage",  # share of the question's terms in the title
    "section_coverage",  # share of the question's terms in the section heading
    "bigram_share",  # share of the question's adjacent term pairs found adjacent in the passage
    "rarest_term",  # 1 when the passage holds the question's rarest term (among the candidates)
    "first_match",  # position of the first question term / passage length (1: none)
    "term_density",  # question-term occurrences / passage length
    "log_length",  # log(1 + passage terms)
    "ordinal",  # the chunk's position in its document
    "doc_chunks",  # candidates from the same document
    "doc_best_share",  # the best fused share of the passage's document
    "rank_in_doc",  # the passage's position among its document's candidates
    "query_terms",  # the question's term count
)
INDEX = {name: i for i, name in enumerate(FEATURES)}

# The model's tokenizer (see the module docstring): change it only with a retrained model (make rerank-model).
WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset((  # noqa: SIM905 - a word list reads better as text
    "a about above after again against all am an and any are as at be because been before being below "
    "between both but by can could did do does doing down during each few for from further had has "
    "have having he her here hers him his how i if in into is it its itself just me more most my no "
    "nor not now of off on once only or other our out over own same she should so some such than that "
    "the their them then there these they this those through to too under until up very was we were "
    "what when where which while who whom why will with would you your patient patients use used "
    "using give given recommend recommended someone somebody anyone anybody").split())
SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ness", "ments", "ment", "ers", "er", "ed", "es",
            "ly", "s")


@lru_cache(maxsize=8192)  # a passage reached by several questions in one process is read once
def passage_terms(text: str) -> tuple[str, ...]:
    """The content terms of a text in order (stemmed, stop words dropped)."""
    return tuple(filter(None, map(_term, WORD.findall(text.lower()))))


@lru_cache(maxsize=65536)
def _term(word: str) -> str:
    """A word's stem, or "" for a stop word or a single character."""
    if word in STOPWORDS or len(word) < 2:
        return ""
    for suffix in SUFFIXES:  # light suffix stripping: "dosing" ~ "dose", "titration" ~ "titrated"
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            word = word[: -len(suffix)] + ("at" if suffix.startswith("ation") else "")
            break
    return word.rstrip("e") if len(word) > 3 else word


def features(query: str, hits: Sequence[SearchHit]) -> np.ndarray:
    """A (len(hits), len(FEATURES)) float64 matrix; `hits` in the index's order, best first."""
    n = len(hits)
    out = np.full((n, len(FEATURES)), np.nan)
    if n == 0:
        return out
    q_terms = list(dict.fromkeys(passage_terms(query)))
    q_set = frozenset(q_terms)
    q_pairs = {(a, b) for a, b in zip(passage_terms(query), passage_terms(query)[1:], strict=False) if a != b}
    bodies = [passage_terms(h.chunk.text) for h in hits]
    fields = [frozenset(body) | frozenset(passage_terms(f"{h.chunk.metadata.title} {h.chunk.section or ''}"))
              for body, h in zip(bodies, hits, strict=True)]
    df = {t: sum(t in f for f in fields) for t in q_terms}
    idf = {t: math.log((n + 1) / (df[t] + 0.5)) for t in q_terms}
    idf_total = sum(idf.values()) or 1.0
    rarest = min(q_terms, key=lambda t: (df[t], t)) if q_terms else None

    scores = np.array([h.score for h in hits], dtype=np.float64)
    out[:, INDEX["fused_score"]] = scores
    out[:, INDEX["fused_rank"]] = np.arange(n)
    best = scores.max()
    share = scores / best if best > 0 else np.ones(n)
    out[:, INDEX["fused_share"]] = share
    _sub_scores(out, [h.bm25_score for h in hits], "bm25")
    _sub_scores(out, [h.vector_score for h in hits], "dense")

    doc_best: dict[str, float] = {}
    doc_count: dict[str, int] = {}
    rank_in_doc = np.zeros(n)
    for i, h in enumerate(hits):
        key = h.chunk.doc_key
        rank_in_doc[i] = doc_count.get(key, 0)
        doc_count[key] = doc_count.get(key, 0) + 1
        doc_best[key] = max(doc_best.get(key, 0.0), float(share[i]))
    for i, (h, body, field) in enumerate(zip(hits, bodies, fields, strict=True)):
        row = out[i]
        title = frozenset(passage_terms(h.chunk.metadata.title))
        section = frozenset(passage_terms(h.chunk.section or ""))
        if q_terms:
            row[INDEX["coverage"]] = len(q_set & field) / len(q_terms)
            row[INDEX["idf_coverage"]] = sum(idf[t] for t in q_terms if t in field) / idf_total
            row[INDEX["title_coverage"]] = len(q_set & title) / len(q_terms)
            row[INDEX["section_coverage"]] = len(q_set & section) / len(q_terms)
            row[INDEX["rarest_term"]] = float(rarest in field)
        positions = [p for p, t in enumerate(body) if t in q_set]
        pairs = {(body[p], body[p + 1]) for p in positions if p + 1 < len(body)}  # those starting with a term
        row[INDEX["bigram_share"]] = len(q_pairs & pairs) / len(q_pairs) if q_pairs else 0.0
        row[INDEX["first_match"]] = positions[0] / len(body) if positions else 1.0
        row[INDEX["term_density"]] = len(positions) / len(body) if body else 0.0
        row[INDEX["log_length"]] = math.log1p(len(body))
        row[INDEX["ordinal"]] = h.chunk.ordinal
        row[INDEX["doc_chunks"]] = doc_count[h.chunk.doc_key]
        row[INDEX["doc_best_share"]] = doc_best[h.chunk.doc_key]
        row[INDEX["rank_in_doc"]] = rank_in_doc[i]
        row[INDEX["query_terms"]] = len(q_terms)
    return out


def _sub_scores(out: np.ndarray, values: list[float | None], kind: str) -> None:
    """BM25 or cosine features; all NaN when the index returned none of them (an OpenSearch hybrid query).
    A candidate without one (found by the other sub-query alone) scored below the sub-query's depth."""
    if all(v is None for v in values):
        return
    present = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    order = np.argsort(np.where(np.isnan(present), np.inf, -present), kind="stable")  # missing: last
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    if kind == "bm25":
        best = np.nanmax(present)
        out[:, INDEX["bm25_share"]] = np.nan_to_num(present / best if best > 0 else present, nan=0.0)
        out[:, INDEX["bm25_rank"]] = ranks
    else:
        cosine = 2.0 * present - 1.0  # the index's cosine score (1 + cos) / 2, back to a cosine
        floor = np.nanmin(cosine)
        cosine = np.where(np.isnan(cosine), floor, cosine)
        out[:, INDEX["cosine"]] = cosine
        out[:, INDEX["cosine_gap"]] = cosine - cosine.max()
        out[:, INDEX["dense_rank"]] = ranks
