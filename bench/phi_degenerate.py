"""The PHI detector on texts made of one cue repeated (a title, "bed 12 mrs"): the time of one detection at
1,000, 2,000 and 4,000 characters (the question's limit), and the ratio 4,000 / 1,000, which is about 4 when the
work grows with the text and about 16 when it grows with its square. Each title or cue once scanned the doc from
its start (and spaCy's Doc.text joined every token again), so 4,000 characters of "Mr " took about 10 s: past
the detection time limit (2 s), the detector failed closed, and every question queued behind it too.

    .venv/bin/python bench/phi_degenerate.py [--runs 3]

Prints JSON; the machine is shared, so `load_average` says how busy it was and the ratios are the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.settings import PhiMode

CUES = {"titles": "Mr ", "bed and title": "bed 12 mrs ", "title and name": "Mrs Smith ", "digits and dashes": "1-"}
LENGTHS = (1000, 2000, 4000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    detector.detect("warm up: Mrs Smith, 71")
    report: dict[str, object] = {"load_average": round(os.getloadavg()[0], 1)}
    for name, cue in CUES.items():
        seconds = {}
        for length in LENGTHS:
            text = (cue * (length // len(cue) + 1))[:length]
            runs = []
            for _ in range(args.runs):
                started = time.perf_counter()
                detector.detect(text)
                runs.append(time.perf_counter() - started)
            seconds[length] = round(statistics.median(runs), 3)
        report[name] = {"seconds": seconds, "ratio_4000_to_1000": round(seconds[4000] / seconds[1000], 1)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
