"""Reranking (the `ports.Reranker` protocol): a second, slower opinion on the fused candidates, and its
evaluated default.

A Reranker reorders the hits one search returned (the fused `candidates`, best first) using the question
text, and keeps the `top_k` best. It runs after fusion and before de-duplication and generation.
It sees the question, so the PHI boundary applies: a reranker whose model runs outside our infrastructure
(a hosted rerank API) must say `in_boundary = False`, and the caller may only give it PHI-free text.

Default: IdentityReranker. The candidates for a real one are cross-encoders (ms-marco MiniLM and
successors) served in-boundary (a SageMaker endpoint, or ONNX in the Lambda); no pinned PyPI package ships
such weights, and the runtime never downloads a model, so none is wired yet. A cheap feature reranker
(the share of query terms a chunk holds, added to the fused score with weight 0.05-0.2) moved nDCG@10 by
-0.002 to +0.001 on SciFact and +0.003 to +0.004 on NFCorpus: within the noise of one weight step, so the
default leaves the fused order as it is (docs/benchmarks.md, "Retrieval quality").
"""

from __future__ import annotations

from collections.abc import Sequence

from voiceassist.models import SearchHit
from voiceassist.ports import Reranker

__all__ = ["IdentityReranker", "Reranker"]


class IdentityReranker:
    """Keeps the fused order: the evaluated default while no in-boundary cross-encoder is available."""

    name = "identity"
    in_boundary = True

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        return list(hits[:top_k])
