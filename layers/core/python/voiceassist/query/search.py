"""Search maths shared by every index: query terms, score fusion and de-duplication.

The fusion functions reproduce OpenSearch's search-pipeline processors, so the embedded index ranks exactly
as the cluster does (neural-search plugin, `MinMaxScoreNormalizationTechnique`,
`ArithmeticMeanScoreCombinationTechnique`, `RRFNormalizationTechnique`):

- min-max: each sub-query's scores are rescaled over that sub-query's own candidates only,
  ``(s - min) / (max - min)``; a score equal to the minimum becomes 0.001 (so it still counts as found), and a
  sub-query whose candidates all share one score gives them 1.0.
- weighted arithmetic mean: ``sum(w_i * n_i) / sum(w_i)`` over every sub-query, where a document that a
  sub-query did not return has ``n_i = 0`` and its weight still counts.
- reciprocal rank fusion: ``sum(1 / (rank_constant + rank_i))`` with 1-based ranks, unweighted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from voiceassist.models import Chunk, SearchHit

Key = TypeVar("Key", bound=Hashable)

# Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): the terms OpenSearch's `english`
# analyzer drops, dropped here too so both engines match on the same query terms.
ENGLISH_STOP_WORDS: frozenset[str] = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no",
    "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to",
    "was", "will", "with",
})
MAX_QUERY_TERMS = 64  # a pasted paragraph must not turn into a thousand-term OR query
MIN_MAX_FLOOR = 0.001  # OpenSearch's MIN_SCORE: the lowest candidate is still a candidate
SINGLE_SCORE = 1.0  # OpenSearch's SINGLE_RESULT_SCORE: all candidates tie

_WORD = re.compile(r"\w+", re.UNICODE)
_SHINGLE_WORD = re.compile(r"[a-z0-9]+")


def query_terms(text: str, *, max_terms: int = MAX_QUERY_TERMS) -> list[str]:
    """Lower-cased word tokens of `text`, stop words and repeats removed, in their original order."""
    terms: list[str] = []
    seen: set[str] = set()
    for match in _WORD.finditer(text.lower()):
        term = match.group().strip("_")
        if term and term not in ENGLISH_STOP_WORDS and term not in seen:
            seen.add(term)
            terms.append(term)
            if len(terms) == max_terms:
                break
    return terms


def fts5_match_expression(text: str) -> str | None:
    """An FTS5 MATCH expression that can never be a syntax error: every term quoted, joined with OR.

    User text never reaches FTS5 as syntax (no NEAR, no column filters, no prefix stars): only word
    characters survive tokenisation, and each term becomes a quoted string. None when nothing is left.
    """
    terms = query_terms(text)
    if not terms:
        return None
    return " OR ".join(f'"{term}"' for term in terms)


def min_max_normalize(scores: Mapping[Key, float]) -> dict[Key, float]:
    """Rescale one sub-query's candidate scores to [0.001, 1] as OpenSearch's min_max technique does."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, SINGLE_SCORE)
    span = high - low
    return {key: ((score - low) / span) or MIN_MAX_FLOOR for key, score in scores.items()}


def fuse_min_max(sub_query_scores: Sequence[Mapping[Key, float]], weights: Sequence[float]
                 ) -> dict[Key, float]:
    """Min-max normalise each sub-query's raw scores, then combine them by weighted arithmetic mean."""
    if len(sub_query_scores) != len(weights):
        raise ValueError(f"{len(sub_query_scores)} sub-queries but {len(weights)} weights")
    total_weight = sum(weights)
    if total_weight <= 0:
        raise ValueError("the weights must not all be zero")
    # Each key's weighted sum accumulated sub-query by sub-query, in the weights' order, a missing score adding
    # nothing: the same floats as summing weight x (score or 0) per key, without a generator per key (two
    # sub-queries of 100 candidates: 0.21 -> 0.07 CPU ms p50, docs/decisions/0032, session 15).
    fused: dict[Key, float] = {}
    for weight, scores in zip(weights, sub_query_scores, strict=True):
        for key, score in min_max_normalize(scores).items():
            fused[key] = fused.get(key, 0.0) + weight * score
    return {key: total / total_weight for key, total in fused.items()}


def fuse_rrf(sub_query_rankings: Sequence[Sequence[Key]], *, rank_constant: int = 60) -> dict[Key, float]:
    """Reciprocal rank fusion (Cormack et al. 2009) over rankings given best first."""
    if rank_constant < 1:
        raise ValueError("rank_constant must be at least 1")
    fused: dict[Key, float] = {}
    for ranking in sub_query_rankings:
        for position, key in enumerate(ranking):
            fused[key] = fused.get(key, 0.0) + 1.0 / (rank_constant + position + 1)
    return fused


def top_n(scores: Mapping[Key, float], n: int,
          tie_keys: Callable[[list[Key]], Mapping[Key, Any]] | None = None) -> list[tuple[Key, float]]:
    """The n best (key, score) pairs, best first; equal scores in the keys' own order, or, with `tie_keys`
    (called only when two of the n best scores, or the n-th and the next, are equal, with those keys), in the
    order of what it maps each key to: an index whose keys are its insertion order (rowids) breaks ties by a
    key of the chunk instead, so the same documents ingested in any order rank alike (docs/decisions/0025,
    session 18). Only the tied keys reaching the first n are looked up: a hybrid search's fused scores tie
    (a candidate at each leg's minimum scores 0), and looking up all ~200 keys cost ~0.3 CPU ms a search."""
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    if tie_keys is None or n <= 0 or not ordered:
        return ordered[:n]
    end = min(n, len(ordered))
    while end < len(ordered) and ordered[end][1] == ordered[end - 1][1]:
        end += 1  # every key scored as the n-th is in the running
    head = ordered[:end]
    tied = [key for i, (key, score) in enumerate(head)
            if (i > 0 and head[i - 1][1] == score) or (i + 1 < end and head[i + 1][1] == score)]
    if not tied:
        return head[:n]
    stable = tie_keys(tied)
    # A key not tied is never compared by its second element: its score differs from every other's.
    return sorted(head, key=lambda item: (-item[1], stable.get(item[0])))[:n]


def chunk_order_key(chunk: Chunk) -> tuple[str, int, int]:
    """What breaks a tie between equal scores on every index and in the reranker: the document's key, its
    version, the chunk's place in it. Never the order chunks entered an index, which differs from one data
    folder to the next (concurrent ingestion) and once moved the reranker's training candidates."""
    return chunk.doc_key, chunk.version, chunk.ordinal


def in_stable_order(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """The hits best first by score, equal scores by chunk_order_key (a stable re-sort of what an index
    returned, whose ties it broke by its own internal order)."""
    return sorted(hits, key=lambda hit: (-hit.score, chunk_order_key(hit.chunk)))


def cosine_to_score(cosine: float) -> float:
    """OpenSearch's score for the cosinesimil space, (2 - (1 - cos)) / 2, always in [0, 1]."""
    return (1.0 + cosine) / 2.0


def opening_cosine(opening: Sequence[float] | np.ndarray | None, vector: Sequence[float] | np.ndarray
                   ) -> float | None:
    """The cosine of a stored opening vector (SearchHit.opening_cosine) with the query's vector, to 6 decimals,
    computed alike from either index's stored floats (float32); None without an opening or of another size."""
    if opening is None:
        return None
    left, right = np.asarray(opening, dtype=np.float32), np.asarray(vector, dtype=np.float32)
    if left.shape != right.shape or left.ndim != 1:
        return None
    norms = float(np.linalg.norm(left)) * float(np.linalg.norm(right))
    return round(float(left @ right) / norms, 6) if norms > 0 else None


def keep_latest_versions(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Drop hits from any version of a document older than the newest version among the hits.

    OpenSearch cannot switch a document's searchable version atomically, so for a moment both versions
    may match; the older one must never be cited next to (or instead of) the newer one.
    """
    newest: dict[str, int] = {}
    for hit in hits:
        newest[hit.chunk.doc_key] = max(newest.get(hit.chunk.doc_key, 0), hit.chunk.version)
    return [hit for hit in hits if hit.chunk.version == newest[hit.chunk.doc_key]]


def shingles(text: str, *, size: int = 3) -> frozenset[tuple[str, ...]]:
    """Word n-grams of `text` (lower-cased, punctuation ignored); short texts give their whole word tuple."""
    words = _SHINGLE_WORD.findall(text.lower())
    if len(words) <= size:
        return frozenset({tuple(words)}) if words else frozenset()
    return frozenset(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


def jaccard(left: frozenset[tuple[str, ...]], right: frozenset[tuple[str, ...]]) -> float:
    if not left and not right:
        return 1.0
    return len(left & right) / len(left | right)


def drop_near_duplicates(hits: Sequence[SearchHit], *, threshold: float = 0.8) -> list[SearchHit]:
    """Keep the best-ranked of any hits whose texts share at least `threshold` of their word 3-shingles.

    The same paragraph often appears in several documents (a guideline quoted in a textbook) or in two
    overlapping chunks; citing it twice wastes the answer's context. Hits are assumed best first.
    """
    kept: list[SearchHit] = []
    kept_shingles: list[frozenset[tuple[str, ...]]] = []
    for hit in hits:
        current = shingles(hit.chunk.text)
        if all(jaccard(current, other) < threshold for other in kept_shingles):
            kept.append(hit)
            kept_shingles.append(current)
    return kept


def limit_chunks_per_document(hits: Sequence[SearchHit], *, limit: int = 1) -> list[SearchHit]:
    """Keep each document's `limit` best-ranked chunks (hits assumed best first).

    Several chunks of one document crowd the few hits a generator sees; on SciFact split into 128-token
    chunks, one chunk per document raised the judged documents among the first ten hits from 81% to 85%
    (docs/benchmarks.md, "Retrieval quality"). Different versions count as one document.
    """
    kept: list[SearchHit] = []
    per_document: dict[str, int] = {}
    for hit in hits:
        seen = per_document.get(hit.chunk.doc_key, 0)
        if seen < limit:
            per_document[hit.chunk.doc_key] = seen + 1
            kept.append(hit)
    return kept
