"""Per-writer leave-one-out of the screen with the attack classifier, from a `bench/input_screen_classifier.py --cv
--dump` file: each held-out source's classifier (fitted without it, its threshold out of fold) beside the screen as
dumped (the code at dump time) and as served by the code on PYTHONPATH now (recomputed, the classifier left out),
so a change to the patterns and shapes is read against the same held-out classifiers without refitting them.

    .venv/bin/python bench/input_screen_classifier.py --cv --sources blind8,blind7,blind6,blind5 --dump /tmp/cv.json
    .venv/bin/python bench/input_screen_loo.py /tmp/cv.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_classifier import THRESHOLD_QUANTILE, source_rows  # noqa: E402
from input_screen_data import sentence_vectors  # noqa: E402


def main(argv: list[str]) -> int:
    from voiceassist.safety.input_screen import screen_text

    report: dict[str, dict[str, object]] = {}
    for source, scores in json.loads(Path(argv[0]).read_text()).items():
        rows, held = source_rows(source, "measure"), scores["held"]
        if len(rows) != len(held):
            raise SystemExit(f"{source}: the dump has {len(held)} rows, the source {len(rows)}")
        ordered = sorted(scores["out_of_fold_clinical"])
        threshold = max(0.5, ordered[min(len(ordered) - 1, int(THRESHOLD_QUANTILE * len(ordered)))])
        vectors = sentence_vectors([r["text"] for r in rows])
        counts: dict[str, list[int]] = {}
        for row, (label, category, p, dumped, readable) in zip(rows, held, strict=True):
            now = screen_text(row["text"], vector=vectors[row["text"]], with_classifier=False).flagged
            by_classifier = readable and p >= threshold
            for key in (f"{label}_all", f"{label}_{category}"):
                c = counts.setdefault(key, [0, 0, 0, 0, 0])
                c[0] += dumped
                c[1] += dumped or by_classifier
                c[2] += now
                c[3] += now or by_classifier
                c[4] += 1
        report[source] = {"threshold": round(threshold, 4), **{
            key: {"n": c[4], "dumped_screen": c[0], "dumped_screen+classifier": c[1], "screen_now": c[2],
                  "screen_now+classifier": c[3]} for key, c in sorted(counts.items())}}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
