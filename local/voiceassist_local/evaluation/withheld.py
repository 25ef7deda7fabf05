"""Withheld evidence on BEIR data: does the evidence score tell a query whose supporting documents are gone?

`voiceassist eval retrieval --withhold 0.5 --seed N` picks that share of the judged queries at random and
removes their judged documents from the results (filtered from the ranked hits rather than re-indexed: the
other documents keep their places). A query keeps its evidence when none of its documents was withheld. The
AUROC says how well a score separates the two halves (0.5 = chance); answer and abstain rates are read at the
configured threshold. Top-1 cosine, the signal before the evidence score, is reported beside it.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from voiceassist.models import SearchHit
from voiceassist.query import evidence

PASSAGES = 10  # the hits the generator would see


def withheld_queries(query_ids: Sequence[str], fraction: float, seed: int) -> set[str]:
    count = round(len(query_ids) * fraction)
    return set(random.Random(seed).sample(sorted(query_ids), count))


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counted half (the Mann-Whitney U statistic)."""
    if not positives or not negatives:
        return float("nan")
    ordered = sorted(negatives)
    wins = 0.0
    for score in positives:
        below = _count_below(ordered, score)
        ties = _count_below(ordered, score, inclusive=True) - below
        wins += below + ties / 2
    return wins / (len(positives) * len(negatives))


def _count_below(ordered: Sequence[float], value: float, *, inclusive: bool = False) -> int:
    low, high = 0, len(ordered)
    while low < high:
        middle = (low + high) // 2
        if ordered[middle] < value or (inclusive and ordered[middle] == value):
            low = middle + 1
        else:
            high = middle
    return low


@dataclass
class WithheldReport:
    threshold: float
    kept: dict[str, list[float]] = field(default_factory=lambda: {"evidence": [], "top1_cosine": []})
    withheld: dict[str, list[float]] = field(default_factory=lambda: {"evidence": [], "top1_cosine": []})
    evidence_ms: list[float] = field(default_factory=list)

    def add(self, question: str, hits: Sequence[SearchHit], *, is_withheld: bool) -> None:
        started = time.perf_counter()
        score = evidence.assess(question, hits[:PASSAGES]).score
        self.evidence_ms.append((time.perf_counter() - started) * 1000)
        cosines = [h.vector_score for h in hits if h.vector_score is not None]
        side = self.withheld if is_withheld else self.kept
        side["evidence"].append(score)
        side["top1_cosine"].append(max(cosines, default=0.0))

    def as_dict(self) -> dict[str, object]:
        kept, gone = self.kept["evidence"], self.withheld["evidence"]
        ordered = sorted(self.evidence_ms)
        return {
            "queries_kept": len(kept), "queries_withheld": len(gone), "threshold": self.threshold,
            "auroc_evidence": round(auroc(kept, gone), 4),
            "auroc_top1_cosine": round(auroc(self.kept["top1_cosine"], self.withheld["top1_cosine"]), 4),
            "answered_pct_kept": round(100 * sum(s >= self.threshold for s in kept) / max(len(kept), 1), 1),
            "abstained_pct_withheld": round(100 * sum(s < self.threshold for s in gone) / max(len(gone), 1), 1),
            "evidence_ms_p50": round(statistics.median(ordered), 3) if ordered else 0.0,
            "evidence_ms_p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3) if ordered else 0.0,
        }
