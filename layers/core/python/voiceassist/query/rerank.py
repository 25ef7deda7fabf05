"""Reranking (the `ports.Reranker` protocol): a second, slower opinion on the fused candidates, and its
evaluated default.

A Reranker reorders the hits one search returned (the fused `candidates`, best first) using the question
text, and keeps the `top_k` best. It runs after fusion and before de-duplication and generation.
It sees the question, so the PHI boundary applies: a reranker whose model runs outside our infrastructure
(a hosted rerank API) must say `in_boundary = False`, and the caller may only give it PHI-free text.

LearnedReranker: a LambdaMART tree ensemble (trained offline with LightGBM on the public SciFact and NFCorpus
judgements by voiceassist_local/evaluation/rerank_training.py, `make rerank-model`) over cheap features of
the candidates (query/rerank_features.py), scored by numpy from the shipped model file
(voiceassist/_data/rerank/lambdamart.json, query/trees.py): the same file and code on every runtime, no
model download, no extra dependency. Its cross-validated figures and whether it is the default: docs/search.md,
"Learned reranking". No PyPI package ships cross-encoder weights for offline use (flashrank and the like
download them at run time), so none is offered.

IdentityReranker keeps the fused order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from voiceassist.models import SearchHit
from voiceassist.ports import Reranker
from voiceassist.query.rerank_features import FEATURES, features
from voiceassist.query.search import MIN_MAX_FLOOR, chunk_order_key
from voiceassist.query.trees import TreeEnsemble, load
from voiceassist.settings import PACKAGE_DIR

__all__ = ["MODEL_PATH", "IdentityReranker", "LearnedReranker", "Reranker"]

MODEL_PATH = PACKAGE_DIR / "_data" / "rerank" / "lambdamart.json"


class IdentityReranker:
    """Keeps the fused order."""

    name = "identity"
    in_boundary = True
    depth = 0  # reads only the hits the caller asked for

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        return list(hits[:top_k])


class LearnedReranker:
    """Reorders the candidates by the shipped LambdaMART model. Each hit's score becomes the model's score
    min-max scaled over the candidates (best 1.0, worst MIN_MAX_FLOOR), the scale of the fused scores it
    replaces, so the thresholds read on hit scores (query.retrieval.MIN_GOOD_SCORE, abstention's share of the
    best) keep their meaning. Equal scores (duplicate passages read alike) are ordered by
    query.search.chunk_order_key, whatever order the hits came in."""

    name = "lambdamart"
    in_boundary = True  # numpy in this process
    depth = 100  # the candidates it reads: retrieval asks the index for this many, then keeps top_k

    def __init__(self, model_path: Path = MODEL_PATH) -> None:
        self._trees = _model(model_path)
        if self._trees.feature_names != FEATURES:
            raise ValueError(f"{model_path} was trained on other features: retrain it (make rerank-model)")

    def scores(self, query: str, hits: Sequence[SearchHit]) -> np.ndarray:
        """The model's raw score of each hit (higher ranks first)."""
        return self._trees.predict(features(query, hits))

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        if not hits:
            return []
        raw = self.scores(query, hits)
        order = np.argsort(-raw, kind="stable")[:top_k] if np.unique(raw).size == raw.size else \
            sorted(range(len(hits)), key=lambda i: (-raw[i], chunk_order_key(hits[i].chunk)))[:top_k]
        low, high = float(raw.min()), float(raw.max())
        scaled = (raw - low) / (high - low) * (1.0 - MIN_MAX_FLOOR) + MIN_MAX_FLOOR if high > low \
            else np.ones_like(raw)
        return [hits[i].model_copy(update={"score": round(float(scaled[i]), 6)}) for i in order]


@lru_cache(maxsize=4)
def _model(path: Path) -> TreeEnsemble:
    return load(path)[0]
