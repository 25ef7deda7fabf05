"""Fit the input screen's attack classifier (voiceassist/_data/safety/attack_classifier.npz), or measure it with
leave-one-source-out cross-validation.

    .venv/bin/python bench/input_screen_classifier.py    # fit on every source, write the model (make screen-classifier)
    .venv/bin/python bench/input_screen_classifier.py --cv [--show N] [--sources blind7,garak] [--dump scores.json]
    .venv/bin/python bench/input_screen_classifier.py --from-dump scores.json --rescreen [--show N]

Attack sources (each one writer or one red-team collection): garak's set, PyRIT's, spikee's and AgentDojo's
(`extra`), each its train split (the held-out split is measured only, as bench/input_screen.py reads it), and the
three blind-written sets blind5, blind6, blind7 (every row; their licence is the project's own; the fourth, blind8, is
only held out by `--cv --sources blind8`: see MEASURED_ONLY). Benign rows: each
source's own (garak's and spikee's benign chat, the blind sets' clinical questions and hard negatives), the train
half of the MedMCQA/MMLU questions (MIT, MIRAGE), the train half of the project's answer-set questions with writer A's
workspace-tool requests (benign_tool_requests.jsonl; writer B is measured only) and the dev part of the generated PHI
sets (clinician phrasing with patient details). SciFact and NFCorpus queries (non-commercial
and academic-only licences) are never fitted on, only measured. Self-harm requests are left out (the screen's
self-harm pattern answers them with crisis support; the classifier is not asked to).

The fit: L2-regularised logistic regression (L-BFGS, scipy), each attack source weighing the same in total, as do
the benign groups, attacks and benign rows weighing half each; deterministic (no sampling). The threshold is the
THRESHOLD_QUANTILE of the out-of-fold scores (FOLDS folds by a hash of the text) of the clinical training texts
(MedMCQA/MMLU, answer-set questions, writer A's tool requests, PHI-set statements, the blind sets' clinical questions
and hard negatives) that
it reads (MEANING_MIN_WORDS content words or more).

`--cv` holds each source out in turn: the classifier (and its threshold, out of fold within the other sources) is
fitted without it, and the source's attacks (its held-out split for garak, pyrit, extra; every row of a blind set)
are screened by the screen as served (patterns and the shipped meaning model) alone and with the classifier
beside it; and with each fold's classifier the clinical sets (MedMCQA/MMLU held-out half, SciFact, NFCorpus,
answer-set questions' held-out half, the PHI sets' holdout part) and the held-out source's benign rows.
The shipped meaning model was fitted on garak's and spikee's train splits, so "screen alone" is not held out for
those two sources; it is for pyrit (its held-out split) and for the blind sets.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fit_once import same_fit_every_time  # noqa: E402

same_fit_every_time(__name__)  # before numpy: the same file every time (bench/fit_once.py)

import numpy as np  # noqa: E402
from input_screen_data import (  # noqa: E402
    ATTACKS,
    EVAL,
    EXTRA,
    PYRIT,
    beir_queries,
    clinical_questions,
    clinician_statements,
    clinician_typed,
    sentence_vectors,
    tool_requests,
)
from scipy import optimize, sparse  # noqa: E402

from voiceassist.constants.models import model_id  # noqa: E402
from voiceassist.safety.attack_classifier import (  # noqa: E402
    BUCKETS,
    CLASSIFIER_PATH,
    AttackClassifier,
    gram_buckets,
    save_classifier,
)
from voiceassist.safety.screen_model import MEANING_MIN_WORDS, content_words  # noqa: E402

DATA = Path(__file__).parent / "data" / "input_screen"
BLIND = ("blind5", "blind6", "blind7")
# A blind writer --cv can hold out that the shipped fit does not read: blind8 (session 9: a fit with it raised the
# threshold 0.8233 -> 0.8502 and lost held-out recall on blind7, garak, PyRIT and spikee; decision 0027)
# and blind10 to blind20 (sessions 10-20: committed after their one reading; the shipped fit predates them)
MEASURED_ONLY = ("blind8", "blind10", "blind11", "blind12", "blind13", "blind14", "blind15", "blind16",
                 "blind17", "blind18", "blind19", "blind20")
SOURCES = ("garak", "pyrit", "extra", *BLIND)
# `--all-writers` (session 16, measured, not shipped: decision 0027): every blind writer fitted on, and the writers'
# hard negatives fitted on as benign but left out of the texts whose out-of-fold scores set the threshold
ALL_WRITERS = ("blind5", "blind6", "blind7", "blind8", "blind10", "blind11", "blind12", "blind13", "blind14", "blind15",
               "blind16", "blind17", "blind18", "blind19", "blind20")
HARD_NEGATIVES_APART = False
L2 = 1.0  # on the weighted mean loss times the number of rows (the weights sum to the rows)
VECTOR_SCALE = 1.0
FOLDS, THRESHOLD_QUANTILE = 5, 0.998
ATTACK_KINDS = ("injection", "jailbreak", "harmful", "extraction", "tool_abuse", "obfuscated")

Row = tuple[str, str, str]  # text, source or benign group, label ("attack", "benign" or "clinical")


def _gz(path: Path) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as rows:
        return [json.loads(row) for row in rows]


def _jsonl(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def source_rows(source: str, split: str) -> list[dict[str, str]]:
    """A source's rows (text, category or kind, label): `split` "train" the rows fitted on, "measure" the rows a
    held-out source is measured on (garak's, pyrit's and extra's held-out splits; a blind set's every row)."""
    if source in BLIND + MEASURED_ONLY:
        attacks = [{**r, "label": "attack"} for r in _jsonl(DATA / f"{source}_attacks.jsonl")]
        benign = [{**r, "category": r["kind"], "label": "hard_negative" if HARD_NEGATIVES_APART
                   and r["kind"] == "hard_negative" else "clinical"} for r in _jsonl(DATA / f"{source}_benign.jsonl")]
        return attacks + benign
    path = {"garak": ATTACKS, "pyrit": PYRIT, "extra": EXTRA}[source]
    wanted = "train" if split == "train" else "held_out"
    return [{**r, "label": "benign" if r["category"] == "benign" else "attack"} for r in _gz(path)
            if r["split"] == wanted and r["category"] != "self_harm"]


def clinical_rows(eval_dir: Path) -> list[Row]:
    """The benign clinical texts fitted on whatever source is held out."""
    rows = [(t, "medmcqa", "clinical") for t in clinical_questions("train", eval_dir)]
    rows += [(t, "typed", "clinical") for t in clinician_typed("train")]
    rows += [(t, "typed", "clinical") for t in tool_requests("A")]  # clinicians typing to the tools, one group
    return rows + [(t, "statements", "clinical") for t in dict.fromkeys(clinician_statements("dev"))]


def training_rows(sources: Sequence[str], eval_dir: Path) -> list[Row]:
    rows: list[Row] = []
    for source in sources:
        for r in source_rows(source, "train"):
            group = source if r["label"] == "attack" else f"{source}:benign"
            rows.append((r["text"], group, r["label"]))
    return rows + clinical_rows(eval_dir)


def fold_of(text: str) -> int:
    return int(hashlib.sha256(f"classifier\n{text}".encode()).hexdigest(), 16) % FOLDS


def row_weights(rows: Sequence[Row]) -> np.ndarray:
    """Attacks and benign rows half the total each; within each, every group (attack source, benign group) the same."""
    weights = np.zeros(len(rows))
    for attack in (True, False):
        groups = sorted({g for _, g, label in rows if (label == "attack") == attack})
        for group in groups:
            members = [i for i, (_, g, label) in enumerate(rows) if g == group and (label == "attack") == attack]
            weights[members] = 0.5 / len(groups) / len(members)
    return weights * len(rows)


def design(texts: Sequence[str]) -> sparse.csr_matrix:
    indptr, indices, values = [0], [], []
    for text in texts:
        buckets = gram_buckets(text)
        indices.append(buckets)
        values.append(np.full(len(buckets), 1 / math.sqrt(max(len(buckets), 1))))
        indptr.append(indptr[-1] + len(buckets))
    return sparse.csr_matrix((np.concatenate(values), np.concatenate(indices), np.array(indptr)),
                             shape=(len(texts), BUCKETS))


def fit(rows: Sequence[Row], vectors: dict[str, np.ndarray]) -> AttackClassifier:
    """The L2-regularised weighted logistic regression (threshold 0.5 until `with_threshold` sets it)."""
    x = design([t for t, _, _ in rows])
    v = np.array([vectors[t] for t, _, _ in rows], dtype=np.float64) * VECTOR_SCALE
    y = np.array([label == "attack" for _, _, label in rows], dtype=np.float64)
    s = row_weights(rows)
    dims = v.shape[1]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, d, b = theta[:BUCKETS], theta[BUCKETS:BUCKETS + dims], theta[-1]
        z = x @ w + v @ d + b
        p = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
        value = float(np.sum(s * (np.logaddexp(0, z) - y * z))) + L2 / 2 * float(w @ w + d @ d)
        r = s * (p - y)
        grad = np.concatenate([x.T @ r + L2 * w, v.T @ r + L2 * d, [r.sum()]])
        return value, grad

    result = optimize.minimize(loss, np.zeros(BUCKETS + dims + 1), jac=True, method="L-BFGS-B",
                               options={"maxiter": 500})
    theta = result.x
    weights = theta[:BUCKETS].astype(np.float16).astype(np.float32)  # as the file keeps them
    weights[np.abs(weights) < 1e-4] = 0.0
    return AttackClassifier(weights=weights, dense=theta[BUCKETS:BUCKETS + dims].astype(np.float32),
                            bias=float(theta[-1]), threshold=0.5, embedding=model_id("int8"),
                            vector_scale=VECTOR_SCALE)


def with_threshold(rows: Sequence[Row], vectors: dict[str, np.ndarray],
                   scores: list[float] | None = None) -> AttackClassifier:
    """The classifier fitted on `rows`, its threshold the THRESHOLD_QUANTILE of the clinical rows' out-of-fold
    scores (appended to `scores` if given)."""
    scores = [] if scores is None else scores
    for fold in range(FOLDS):
        model = fit([r for r in rows if fold_of(r[0]) != fold], vectors)
        scores += [model.probability(t, vectors[t]) for t, _, label in rows
                   if label == "clinical" and fold_of(t) == fold and len(content_words(t)) >= MEANING_MIN_WORDS]
    ordered = sorted(scores)
    threshold = max(0.5, ordered[min(len(ordered) - 1, int(THRESHOLD_QUANTILE * len(ordered)))])
    model = fit(rows, vectors)
    print(f"fitted on {len(rows)} rows: threshold {threshold:.4f}, {np.count_nonzero(model.weights)} weights",
          file=sys.stderr)
    return AttackClassifier(weights=model.weights, dense=model.dense, bias=model.bias, threshold=threshold,
                            embedding=model.embedding, vector_scale=model.vector_scale)


def measured_sets(eval_dir: Path) -> dict[str, list[str]]:
    return {"clinical_questions_held_out": clinical_questions("held_out", eval_dir),
            "scifact_queries": beir_queries("scifact", eval_dir),
            "nfcorpus_queries": beir_queries("nfcorpus", eval_dir),
            "clinician_typed_held_out_half": clinician_typed("held_out"),
            "clinician_phi_statements_holdout": clinician_statements("holdout")}


def cross_validate(sources: Sequence[str], eval_dir: Path, show: int, dump: Path | None) -> dict[str, object]:
    from voiceassist.safety.input_screen import screen_text

    sets = measured_sets(eval_dir)
    held = {source: source_rows(source, "measure") for source in sources}
    texts = [t for t, _, _ in training_rows(SOURCES, eval_dir)] + [t for ts in sets.values() for t in ts]
    texts += [r["text"] for rows in held.values() for r in rows]
    vectors = sentence_vectors(list(dict.fromkeys(texts)))
    served: dict[str, bool] = {}

    def screen(text: str) -> bool:
        if text not in served:
            served[text] = screen_text(text, vector=vectors[text], with_classifier=False).flagged
        return served[text]

    report: dict[str, object] = {"l2": L2, "vector_scale": VECTOR_SCALE, "quantile": THRESHOLD_QUANTILE}
    shown: list[str] = []
    dumped: dict[str, object] = {}
    fitted: dict[tuple[str, ...], tuple[AttackClassifier, list[float]]] = {}  # a measured-only source's fold is
    # the same fit for each (every fitted source): fitted once
    for source in sources:
        kept = tuple(s for s in SOURCES if s != source)
        if kept not in fitted:
            out_of_fold: list[float] = []
            fitted[kept] = (with_threshold(training_rows(kept, eval_dir), vectors, out_of_fold), out_of_fold)
        model, out_of_fold = fitted[kept]
        entry: dict[str, object] = {"threshold": round(model.threshold, 4)}
        if dump is not None:  # every score, to read other thresholds without refitting
            dumped[source] = {
                "out_of_fold_clinical": out_of_fold,
                "held": [(r["label"], r["category"], model.probability(r["text"], vectors[r["text"]]),
                          bool(screen(r["text"])), len(content_words(r["text"])) >= MEANING_MIN_WORDS)
                         for r in held[source]],
                "sets": {name: [(model.probability(t, vectors[t]), bool(screen(t)),
                                 len(content_words(t)) >= MEANING_MIN_WORDS) for t in ts]
                         for name, ts in sets.items()}}
            dump.write_text(json.dumps(dumped))
        for label in ("attack", "benign"):
            rows = [r for r in held[source] if (r["label"] == "attack") == (label == "attack")]
            for group in [None, *sorted({r["category"] for r in rows})]:
                of = [r for r in rows if group is None or r["category"] == group]
                alone = sum(screen(r["text"]) for r in of)
                both = sum(screen(r["text"]) or model.flagged(r["text"], vectors[r["text"]]) for r in of)
                entry[f"{'attacks' if label == 'attack' else 'benign'}_{group or 'all'}"] = {
                    "n": len(of), "screen": round(alone / max(len(of), 1), 4),
                    "screen+classifier": round(both / max(len(of), 1), 4)}
                if group is None:
                    shown += [f"{source} {'MISS' if label == 'attack' else 'FP'} {r['category']} | {r['text'][:140]}"
                              for r in of if (screen(r["text"]) or model.flagged(r["text"], vectors[r["text"]]))
                              != (label == "attack")]
        for name, ts in sets.items():
            alone = sum(screen(t) for t in ts)
            by_model = [t for t in ts if model.flagged(t, vectors[t])]
            both = sum(screen(t) or t in set(by_model) for t in ts)
            entry[f"fp_{name}"] = {"n": len(ts), "screen": round(alone / len(ts), 4),
                                   "screen+classifier": round(both / len(ts), 4),
                                   "classifier_alone": round(len(by_model) / len(ts), 4)}
            shown += [f"{source} FP {name} | {t[:140]}" for t in by_model if not screen(t)]
        report[source] = entry
        print(json.dumps({source: entry}), file=sys.stderr)
    print(json.dumps(report, indent=1))
    print("\n".join(shown[:show]))
    return report


def quantile_report(dump: Path, quantiles: Sequence[float]) -> dict[str, object]:
    """From a --cv --dump file: each held-out source's figures at other quantiles of its out-of-fold clinical scores
    (no refit; the threshold never falls below 0.5, and a text under MEANING_MIN_WORDS content words is not read)."""
    report: dict[str, object] = {}
    for source, scores in json.loads(dump.read_text()).items():
        ordered = sorted(scores["out_of_fold_clinical"])
        for share in quantiles:
            threshold = max(0.5, ordered[min(len(ordered) - 1, int(share * len(ordered)))])
            entry: dict[str, object] = {"threshold": round(threshold, 4)}
            for label, category, p, served, readable in [*scores["held"], *(
                    ("set", name, p, served, readable) for name, rows in scores["sets"].items()
                    for p, served, readable in rows)]:
                for key in (f"{label}_all", f"{label}_{category}"):
                    counts = entry.setdefault(key, [0, 0, 0])
                    assert isinstance(counts, list)
                    counts[0] += served
                    counts[1] += served or (readable and p >= threshold)
                    counts[2] += 1
            report[f"{source}@{share}"] = {key: value if key == "threshold" else {
                "n": value[2], "screen": round(value[0] / value[2], 4),
                "screen+classifier": round(value[1] / value[2], 4)} for key, value in entry.items()
                if key != "set_all"}
    return report


def rescreen_report(dump: Path, eval_dir: Path, show: int) -> dict[str, object]:
    """From a --cv --dump file: each held-out source's figures with the screen as this tree serves it now, beside the
    same fold's classifier (its dumped scores and threshold: a change to the patterns or frames changes no fit, so
    its leave-one-source-out figures need no refit). As served, the classifier is asked only when the screen asks
    it (nothing flagged, no mention lifted: input_screen.screen_text), which a probe classifier that always says yes
    reveals ("model:classifier" among the reasons)."""
    from voiceassist.safety import input_screen

    class _Asked:  # says yes whenever asked, so the verdict shows whether the screen asked it
        def flagged(self, text: str, vector: np.ndarray) -> bool:
            return len(content_words(text)) >= MEANING_MIN_WORDS

    input_screen.attack_classifier = lambda: _Asked()  # type: ignore[assignment,return-value]
    dumped = json.loads(dump.read_text())
    sets = measured_sets(eval_dir)
    texts = [r["text"] for source in dumped for r in source_rows(source, "measure")]
    vectors = sentence_vectors(list(dict.fromkeys(texts + [t for ts in sets.values() for t in ts])))
    verdicts: dict[str, tuple[bool, bool]] = {}

    def served(text: str) -> tuple[bool, bool]:  # (flagged by the screen alone, the classifier asked)
        if text not in verdicts:
            reasons = input_screen.screen_text(text, vector=vectors[text]).reasons
            verdicts[text] = (any(r != "model:classifier" for r in reasons), "model:classifier" in reasons)
        return verdicts[text]

    report: dict[str, object] = {}
    shown: list[str] = []
    for source, scores in dumped.items():
        ordered = sorted(scores["out_of_fold_clinical"])
        threshold = max(0.5, ordered[min(len(ordered) - 1, int(THRESHOLD_QUANTILE * len(ordered)))])
        counted: dict[str, list[int]] = {}
        rows = source_rows(source, "measure")
        assert len(rows) == len(scores["held"]), source
        items = [(r["label"], r["category"], r["text"], p) for r, (_, _, p, _, _) in zip(rows, scores["held"],
                                                                                          strict=True)]
        items += [("set", name, t, p) for name, ts in sets.items() for t, (p, _, _) in zip(ts, scores["sets"][name],
                                                                                        strict=True)]
        for label, category, text, p in items:
            alone, asked = served(text)
            both = alone or (asked and p >= threshold)
            for key in (f"{label}_all", f"{label}_{category}"):
                counts = counted.setdefault(key, [0, 0, 0])
                counts[0] += alone
                counts[1] += both
                counts[2] += 1
            if label != "set" and both != (label == "attack"):
                shown.append(f"{source} {'MISS' if label == 'attack' else 'FP'} {category} | {text[:140]}")
            elif label == "set" and both:
                shown.append(f"{source} FP {category} | {text[:140]}")
        report[source] = {"threshold": round(threshold, 4), **{key: {
            "n": value[2], "screen": round(value[0] / value[2], 4), "screen+classifier": round(value[1] / value[2], 4)}
            for key, value in counted.items() if key != "set_all"}}
    print(json.dumps(report, indent=1))
    print("\n".join(shown[:show]))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--cv", action="store_true", help="leave-one-source-out cross-validation (writes nothing)")
    parser.add_argument("--sources", default=",".join(SOURCES), help="the sources --cv holds out, comma-separated")
    parser.add_argument("--show", type=int, default=0, help="print up to N misses and false positives (--cv)")
    parser.add_argument("--dump", type=Path, help="write every held-out and out-of-fold score here (--cv)")
    parser.add_argument("--quantile", type=float, default=THRESHOLD_QUANTILE,
                        help="of the clinical texts' out-of-fold scores, the threshold (default: %(default)s)")
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--vector-scale", type=float, default=VECTOR_SCALE)
    parser.add_argument("--from-dump", type=Path, help="read a --dump file at --quantiles instead of fitting")
    parser.add_argument("--all-writers", action="store_true",
                        help="fit every blind writer, the threshold on clinical texts less their hard negatives")
    parser.add_argument("--out", type=Path, default=CLASSIFIER_PATH, help="write the fit here (default: shipped file)")
    parser.add_argument("--quantiles", default="0.995,0.997,0.998,0.999")
    parser.add_argument("--rescreen", action="store_true",
                        help="with --from-dump: the screen as this tree serves it, beside each fold's dumped scores")
    args = parser.parse_args(argv)
    if args.from_dump and args.rescreen:
        rescreen_report(args.from_dump, args.eval, args.show)
        return 0
    if args.from_dump:
        print(json.dumps(quantile_report(args.from_dump, [float(q) for q in args.quantiles.split(",")]), indent=1))
        return 0
    module = sys.modules[__name__]
    module.L2, module.VECTOR_SCALE = args.l2, args.vector_scale  # type: ignore[attr-defined]
    module.THRESHOLD_QUANTILE = args.quantile  # type: ignore[attr-defined]
    if args.all_writers:
        module.BLIND, module.MEASURED_ONLY = ALL_WRITERS, ()  # type: ignore[attr-defined]
        module.SOURCES = ("garak", "pyrit", "extra", *ALL_WRITERS)  # type: ignore[attr-defined]
        module.HARD_NEGATIVES_APART = True  # type: ignore[attr-defined]
    if args.cv:
        cross_validate(args.sources.split(","), args.eval, args.show, args.dump)
        return 0
    rows = training_rows(module.SOURCES, args.eval)  # type: ignore[attr-defined]
    save_classifier(with_threshold(rows, sentence_vectors(list(dict.fromkeys(t for t, _, _ in rows)))), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
