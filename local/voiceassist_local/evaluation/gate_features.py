"""The answer gate's features for a learned answerability decision (evaluation/gate_training.py): numbers the gate
and the reranker already compute, one row per candidate passage in FEATURES order.

The evidence score's parts (query/evidence.py: weighted concept coverage with and without the document's other
passages, the topics missing, the other-drug, keyword-form, unstated-quantity and missing-owner flags), the
hand-set score itself, the learned reranker's score (query/rerank.py, which reads BM25 and the cosine where the
index returns them and NaN where it does not) and the question's size. Nothing names a document or its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from voiceassist.models import SearchHit
from voiceassist.query import evidence
from voiceassist.query.rerank import LearnedReranker

FEATURES = (
    "hand_score",  # the hand-set evidence score (query/evidence.py); the first column: gate_training reads it
    "hand_score_gap",  # hand_score - the best hand_score of the candidates
    "coverage",  # weighted concept coverage, the document's other passages at half credit
    "own_coverage",  # the same, the passage alone
    "missing_topics",  # the question's topic concepts the passage lacks
    "missing_share",  # missing_topics / topics
    "topics",  # the question's topic concepts
    "concepts",  # all its concepts (topic, generic and ordinary words)
    "ordinary_missing",  # missing concepts that are ordinary English words
    "other_drug",  # 1: the question names a drug the passage does not
    "keyword_form",  # 1: the passage is index terms, not statements
    "unstated_quantity",  # 1: a quantity is asked and no sentence of the document's candidates states one
    "owner_missing",  # 1: what the asked attribute belongs to is missing
    "rerank_score",  # the learned reranker's raw score
    "rerank_gap",  # rerank_score - the best of the candidates
    "position",  # the candidate's place in the search's order
    "question_words",  # the question's words
)


def features(question: str, hits: Sequence[SearchHit]) -> np.ndarray:
    """The candidates' rows (len(hits) x len(FEATURES))."""
    if not hits:
        return np.zeros((0, len(FEATURES)))
    found = evidence.assess(question, hits)
    concepts = evidence.question_concepts(question)
    topics = sum(c.topic for c in concepts)
    reranked = _reranker().scores(question, hits)
    best_hand = max(p.score for p in found.passages)
    words = len(question.split())
    rows = np.empty((len(hits), len(FEATURES)))
    for i, p in enumerate(found.passages):
        rows[i] = (p.score, p.score - best_hand, p.coverage, p.own_coverage, len(p.missing),
                   len(p.missing) / topics if topics else 0.0, topics, len(concepts), p.ordinary_missing,
                   p.other_drug, p.keyword_form, p.unstated_quantity, p.owner_missing,
                   reranked[i], reranked[i] - reranked.max(), i, words)
    return rows


@lru_cache(maxsize=1)
def _reranker() -> LearnedReranker:
    return LearnedReranker()
