"""Cross-validate the input screen's fit on training data only: the view used to choose features and benign data.

    python bench/input_screen_cv.py [--eval ../shared/eval] [--folds 5] [--seeds 1] [--with-pyrit] [--meaning]

The train split of the attack set, its benign rows and the train half of the clinical questions are cut into
--folds folds by a hash of the text; each fold is screened (patterns and model, as served) by a model fitted
as bench/input_screen_train.py fits it on the other folds, with the threshold from those folds' benign rows.
Reported: the share of each fold's attacks flagged (per category), and the false positives on its clinical
questions and benign chat. PyRIT's train split (a second source) is screened by every fold's model, its figures
summed over the folds; with `--with-pyrit` it is folded like the rest instead (each fold's PyRIT rows screened by
a model fitted on the others). `--meaning` cross-validates the meaning model (sentence vectors beside the words),
each fold's thresholds tuned out of fold on its own fitting rows as bench/input_screen_train.py tunes them
(folds within the fold). Held-out splits are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import input_screen_train as training  # noqa: E402
from input_screen_data import EVAL, PYRIT, attacks, clinician_statements, fold_of, sentence_vectors  # noqa: E402

from voiceassist.safety import screen_model  # noqa: E402
from voiceassist.safety.input_screen import screen_text  # noqa: E402
from voiceassist.safety.screen_model import content_words  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=1, help="row orders averaged per fit (the shipped fit: 5)")
    parser.add_argument("--with-pyrit", action="store_true", help="fit on PyRIT's train split too")
    parser.add_argument("--show", type=int, default=0, help="print up to N train-split misses and false positives")
    parser.add_argument("--quantile", type=float, default=training.QUANTILE,
                        help="the benign training scores' quantile that sets each threshold (default: %(default)s)")
    parser.add_argument("--features", default=",".join(screen_model.FEATURE_KINDS),
                        help="feature kinds, comma-separated (words, pairs, chars; default: %(default)s)")
    parser.add_argument("--meaning", action="store_true", help="the meaning model (words beside sentence vectors)")
    parser.add_argument("--min-words", type=int, default=screen_model.MEANING_MIN_WORDS,
                        help="content words a text needs for the meaning model to read it (default: %(default)s)")
    args = parser.parse_args(argv)
    training.MEANING_MIN_WORDS = args.min_words  # the thresholds' clinical questions
    screen_model.FEATURE_KINDS = tuple(args.features.split(","))
    training.SEEDS = training.SEEDS[: args.seeds]
    training.QUANTILE = args.quantile
    rows = [(r["text"], r["category"]) for r in attacks("train")]
    rows += [(text, "clinical") for text in training.benign_clinical("train", args.eval)]
    pyrit = [(r["text"], r["category"]) for r in attacks("train", PYRIT) if r["category"] != "benign"]
    if args.with_pyrit:  # folded with the rest: each fold's PyRIT rows are screened by a model fitted without them
        rows += [(text, f"pyrit:{category}") for text, category in pyrit]
        pyrit = []
    if args.meaning:  # as bench/input_screen_train.py --meaning fits it
        rows += [(text, "statement") for text in dict.fromkeys(clinician_statements("dev"))]
    vectors = sentence_vectors([t for t, _ in rows + pyrit]) if args.meaning else None
    counts: dict[str, list[int]] = {}  # name -> [flagged, n]
    wrong: list[str] = []  # train-split misses and false positives (--show)

    def tally(name: str, flagged: bool) -> None:
        entry = counts.setdefault(name, [0, 0])
        entry[0] += flagged
        entry[1] += 1

    for fold in range(args.folds):
        fitting = [(t, c.removeprefix("pyrit:")) for t, c in rows if fold_of(t, args.folds) != fold]
        words_model = training.fit_model(fitting)
        meaning_model = None
        if vectors is not None:  # and the words-only model reads the texts it does not (as served)
            meaning_model = training.fit_model(fitting, vectors, training.out_of_fold_thresholds(fitting, vectors))
        held = [(t, c) for t, c in rows if fold_of(t, args.folds) == fold]
        for text, category in held + [(t, f"pyrit:{c}") for t, c in pyrit]:
            if meaning_model is not None and vectors is not None and len(content_words(text)) >= args.min_words:
                flagged = screen_text(text, meaning_model, vectors[text], with_classifier=False).flagged
            else:
                flagged = screen_text(text, words_model).flagged
            if flagged == (category in training.BENIGN) and not category.startswith("pyrit:"):
                wrong.append(f"{'FP' if flagged else 'MISS'} {category} | {text[:150]}".replace("\n", " "))
            if category in training.BENIGN:
                tally(f"false_positives_{category}", flagged)
            elif category.startswith("pyrit:"):
                tally("pyrit_train", flagged)
                tally(f"pyrit_train_{category.removeprefix('pyrit:')}", flagged)
            else:
                tally("attacks", flagged)
                tally(f"attacks_{category}", flagged)
    report = {name: {"n": n, "rate": round(hit / n, 4)} for name, (hit, n) in sorted(counts.items())}
    print(json.dumps({"folds": args.folds, "seeds": args.seeds, "features": screen_model.FEATURE_KINDS,
                      "meaning": args.meaning, "min_words": args.min_words,
                      "quantile": args.quantile, "with_pyrit": args.with_pyrit,
                      **report}, indent=1))
    for line in wrong[: args.show]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
