"""Leave one blind writer out of the attack classifier's fit, with the writers the shipped fit never read fitted on too:
does the classifier's training data or threshold refuse the hard negatives of a writer it never saw, and would more
writers in the fit refuse fewer?

    .venv/bin/python bench/input_screen_lowo.py --dump /tmp/lowo_shipped.json             # the shipped sources
    .venv/bin/python bench/input_screen_lowo.py --with-writers --dump /tmp/lowo_writers.json
    .venv/bin/python bench/input_screen_classifier.py --from-dump /tmp/lowo_writers.json --rescreen --show 40

Two fits of the classifier, each read leaving one blind writer (blind5-8, blind10-14) out:
- "shipped": the sources bench/input_screen_classifier.py fits (garak, PyRIT, spikee/AgentDojo train splits,
  blind5-7, the clinical groups); a writer outside them (blind8, blind10-14) is held out by the full fit itself;
- `--with-writers`: every blind writer fitted on, the held-out one left out of the fit and of the threshold.

The threshold is calibrated on the others: THRESHOLD_QUANTILE of the out-of-fold scores of the clinical training
texts (FOLDS folds over every source of the fit, by a hash of the text), less the held-out writer's own benign texts.
The out-of-fold fits are shared by the held-out writers (the writer's attacks are in them, its benign texts are not
counted): FOLDS fits and one per writer, where `input_screen_classifier.py --cv` fits FOLDS + 1 per held-out source.
A writer outside the shipped fit is read with the shipped classifier itself. Each fit starts from the shipped
classifier's weights (the L2-regularised loss is strictly convex, so the optimum is the same; L-BFGS only gets there
sooner). The dump has `--cv --dump`'s form, read by
`input_screen_classifier.py --from-dump F --rescreen` (the screen as served now beside each fold's scores) and by
bench/input_screen_loo.py; beside it, F with the suffix `.questions_threshold.json` holds the same scores with the
threshold calibrated on the clinical texts less every blind writer's hard negatives (are they what raises it?).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fit_once import same_fit_every_time  # noqa: E402

same_fit_every_time(__name__)  # before numpy: the same file every time (bench/fit_once.py)

import input_screen_classifier as fitting  # noqa: E402
import numpy as np  # noqa: E402
from input_screen_data import EVAL, sentence_vectors  # noqa: E402

from voiceassist.safety.attack_classifier import BUCKETS, AttackClassifier, load_classifier  # noqa: E402
from voiceassist.safety.screen_model import MEANING_MIN_WORDS, content_words  # noqa: E402

WRITERS = ("blind5", "blind6", "blind7", "blind8", "blind10", "blind11", "blind12", "blind13", "blind14", "blind15",
           "blind16", "blind17", "blind18", "blind19", "blind20")


def _start() -> np.ndarray:
    shipped = load_classifier()
    return np.concatenate([shipped.weights.astype(np.float64), shipped.dense.astype(np.float64), [shipped.bias]])


def _fit(rows: list[fitting.Row], vectors: dict[str, np.ndarray], start: np.ndarray) -> AttackClassifier:
    from scipy import optimize

    x = fitting.design([t for t, _, _ in rows])
    v = np.array([vectors[t] for t, _, _ in rows], dtype=np.float64) * fitting.VECTOR_SCALE
    y = np.array([label == "attack" for _, _, label in rows], dtype=np.float64)
    s = fitting.row_weights(rows)
    dims = v.shape[1]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, d, b = theta[:BUCKETS], theta[BUCKETS:BUCKETS + dims], theta[-1]
        z = x @ w + v @ d + b
        p = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
        value = float(np.sum(s * (np.logaddexp(0, z) - y * z))) + fitting.L2 / 2 * float(w @ w + d @ d)
        r = s * (p - y)
        return value, np.concatenate([x.T @ r + fitting.L2 * w, v.T @ r + fitting.L2 * d, [r.sum()]])

    result = optimize.minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    print(f"  fit on {len(rows)} rows: {result.nit} iterations, {result.message}", file=sys.stderr)
    theta = result.x
    weights = theta[:BUCKETS].astype(np.float16).astype(np.float32)
    weights[np.abs(weights) < 1e-4] = 0.0
    return AttackClassifier(weights=weights, dense=theta[BUCKETS:BUCKETS + dims].astype(np.float32),
                            bias=float(theta[-1]), threshold=0.5, embedding="", vector_scale=fitting.VECTOR_SCALE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--with-writers", action="store_true", help="fit on every blind writer but the held-out one")
    parser.add_argument("--dump", type=Path, required=True)
    parser.add_argument("--writers", default=",".join(WRITERS), help="writers held out in turn (default: every one)")
    args = parser.parse_args(argv)
    from voiceassist.safety.input_screen import screen_text

    writers_fitted = WRITERS if args.with_writers else fitting.BLIND
    sources = ("garak", "pyrit", "extra", *writers_fitted)
    everything = fitting.training_rows(sources, args.eval)
    sets = fitting.measured_sets(args.eval)
    held = {w: fitting.source_rows(w, "measure") for w in WRITERS}
    texts = [t for t, _, _ in everything] + [t for ts in sets.values() for t in ts]
    texts += [r["text"] for rows in held.values() for r in rows]
    vectors = sentence_vectors(list(dict.fromkeys(texts)))
    start = _start()
    hard = {r["text"] for w in WRITERS for r in held[w] if r["category"] == "hard_negative"}
    out_of_fold: list[tuple[str, str, float]] = []  # (group, text, score) of each clinical training text read
    for fold in range(fitting.FOLDS):
        model = _fit([r for r in everything if fitting.fold_of(r[0]) != fold], vectors, start)
        out_of_fold += [(g, t, model.probability(t, vectors[t])) for t, g, label in everything
                        if label == "clinical" and fitting.fold_of(t) == fold
                        and len(content_words(t)) >= MEANING_MIN_WORDS]
    served: dict[str, bool] = {}

    def screen(text: str) -> bool:  # the screen as served, the classifier left out (each fold's scores are dumped)
        if text not in served:
            served[text] = screen_text(text, vector=vectors[text], with_classifier=False).flagged
        return served[text]

    dumped: dict[str, dict[str, object]] = {}
    on_questions = args.dump.with_suffix(".questions_threshold.json")  # the threshold on clinical questions alone
    for writer in args.writers.split(","):
        if writer in writers_fitted:
            model = _fit([r for r in everything if r[1] not in (writer, f"{writer}:benign")], vectors, start)
        else:  # a writer the shipped fit never read: the shipped classifier is its fold
            model = load_classifier()
        dumped[writer] = {
            "out_of_fold_clinical": [p for g, _, p in out_of_fold if g != f"{writer}:benign"],
            "held": [(r["label"], r["category"], model.probability(r["text"], vectors[r["text"]]),
                      screen(r["text"]),
                      len(content_words(r["text"])) >= MEANING_MIN_WORDS) for r in held[writer]],
            "sets": {name: [(model.probability(t, vectors[t]), screen(t), len(content_words(t)) >= MEANING_MIN_WORDS)
                            for t in ts] for name, ts in sets.items()}}
        args.dump.write_text(json.dumps(dumped))
        on_questions.write_text(json.dumps({w: {**entry, "out_of_fold_clinical": [
            p for g, t, p in out_of_fold if g != f"{w}:benign" and t not in hard]} for w, entry in dumped.items()}))
        print(f"{writer} done", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
