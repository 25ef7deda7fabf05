"""A simple rescue rule over the hand-set evidence score and one feature, measured leaving one writer out (issue 24:
does sentence-level meaning let the gate answer a paraphrase it refuses today?).

A candidate under the hand-set threshold (0.55) but at or above `lo` answers when the feature reaches `t`. For each
writer, (lo, t) is chosen on every other writer's questions (both corpora): the pair answering the most answerable
questions whose uncovered questions, on each corpus, abstain no less than with the hand-set gate (no rescue is
always a candidate). The held-out writer's figures are then read with that pair: the writer never chooses its own
parameters. `t` runs over the feature's 50th-97.5th percentiles on the candidates.

    python -m voiceassist_local.evaluation.gate_rule D.pkl N.pkl --feature sent_minus_passage \\
        --vector-cache /tmp/voiceassist-gate/vectors.npz
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist_local.evaluation import gate_training as gt
from voiceassist_local.evaluation.gate_data import load
from voiceassist_local.evaluation.gate_sentences import SENTENCE_FEATURES, VectorCache

LOWS = (0.3, 0.35, 0.4, 0.45, 0.5)
NONE = (1.0, float("inf"))  # no rescue: the hand-set gate


def rescued(example: gt.Example, column: int, lo: float, t: float) -> np.ndarray:
    """The hand-set scores with the rescued candidates raised to the threshold."""
    if not len(example.rows):
        return np.zeros(0)
    scores = example.rows[:, 0].copy()
    feature = np.nan_to_num(example.rows[:, column], nan=-np.inf)
    scores[(scores < gt.HAND_THRESHOLD) & (scores >= lo) & (feature >= t)] = gt.HAND_THRESHOLD
    return scores


def cross_validate(examples: Sequence[gt.Example], column: int) -> dict[str, Any]:
    full = [e for e in examples if e.view == "full"]
    values = np.concatenate([e.rows[:, column] for e in full if len(e.rows)])
    values = values[~np.isnan(values)]
    grid = [NONE, *((lo, float(t)) for lo in LOWS
                    for t in np.unique(np.round(np.percentile(values, np.arange(50, 100, 2.5)), 3)))]
    right = {p: np.array([gt.outcome(e, rescued(e, column, *p), gt.HAND_THRESHOLD) for e in full]) for p in grid}
    kinds = np.array([gt.kind(e.record) for e in full])
    writers = np.array([gt.writer(e) for e in full])
    corpora = np.array([e.corpus for e in full])

    def chosen(training: np.ndarray) -> tuple[float, float]:
        best, most = NONE, -1.0
        for p in grid:
            if all(right[p][m].mean() >= right[NONE][m].mean() - 1e-9
                   for c in set(corpora) if (m := training & (kinds == "uncovered") & (corpora == c)).any()):
                answered = float(right[p][training & (kinds == "answerable")].mean())
                if answered > most + 1e-9:
                    best, most = p, answered
        return best

    picks = {w: chosen(writers != w) for w in sorted(set(writers))}
    final = np.array([right[picks[w]][i] for i, w in enumerate(writers)])
    sets = np.array([e.record.set for e in full])
    report: dict[str, Any] = {"chosen": {w: None if p == NONE else list(p) for w, p in picks.items()}, "sets": {}}
    for corpus in sorted(set(corpora)):
        for name in [*sorted(set(sets)), "all"]:
            m = (corpora == corpus) & ((sets == name) | (name == "all"))
            report["sets"][f"{corpus}/{name}"] = {
                f"{kind}_pct": [None if not (k := m & (kinds == kind)).any() else round(100.0 * float(r[k].mean()), 1)
                                for r in (right[NONE], final)]
                for kind in ("answerable", "uncovered", "population")}
    return report


def hard_case_auc(examples: Sequence[gt.Example], column: int, floor: float = 0.3) -> dict[str, Any]:
    """How well the feature separates the hard cases: a covered question the hand-set gate gets wrong whose right
    passage (the best-scoring one holding the phrase) scores `floor` or more, against an uncovered question whose
    best candidate does (the feature of that passage). AUC: the chance that a random covered one reads higher."""
    covered: list[float] = []
    uncovered: list[float] = []
    for e in examples:
        if e.view != "full" or not len(e.rows) or gt.kind(e.record) == "population":
            continue
        answerable = gt.kind(e.record) == "answerable"
        if answerable and gt.hand_right(e):
            continue
        picked = np.where(e.labels == 1)[0] if answerable else np.arange(len(e.rows))
        if not len(picked) or (best := picked[np.argmax(e.rows[picked, 0])]) is None or e.rows[best, 0] < floor:
            continue
        value = e.rows[best, column]
        if not np.isnan(value):
            (covered if answerable else uncovered).append(float(value))
    pairs = np.subtract.outer(np.array(covered), np.array(uncovered))
    auc = float(((pairs > 0).sum() + 0.5 * (pairs == 0).sum()) / pairs.size) if pairs.size else float("nan")
    return {"covered": len(covered), "uncovered": len(uncovered), "auc": round(auc, 3),
            "covered_median": round(float(np.median(covered)), 3) if covered else None,
            "uncovered_median": round(float(np.median(uncovered)), 3) if uncovered else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path)
    parser.add_argument("nfcorpus", type=Path, nargs="?")
    parser.add_argument("--feature", required=True, choices=SENTENCE_FEATURES)
    parser.add_argument("--vector-cache", type=Path)
    args = parser.parse_args(argv)
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    cache = VectorCache(OnnxEmbedder(), args.vector_cache)
    gt.COLUMNS[:] = [*gt.FEATURES, args.feature]
    examples = gt.examples_of(load(args.samples), "samples", cache, [args.feature])
    if args.nfcorpus:
        examples += gt.examples_of(load(args.nfcorpus), "nfcorpus", cache, [args.feature])
    cache.save()
    column = len(gt.FEATURES)
    separation = {c: hard_case_auc([e for e in examples if e.corpus == c], column) for c in ("samples", "nfcorpus")}
    print(json.dumps({"feature": args.feature, "hard_cases": separation, **cross_validate(examples, column)},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
