"""CPU of reading a question's concepts (query/question_concepts.py), which the evidence score does for every
question: the first call of a process (it loads the terminology and builds its indexes) and the mean per
question over every whole development answers file's distinct questions, warm (best of --runs).

    .venv/bin/python bench/question_concepts.py [--runs 3]

Prints one JSON line. Compare checkouts in one run, alternating (CPU, not wall: the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from voiceassist.query import concepts, question_concepts

ANSWERS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "answers"


def questions() -> list[str]:
    found: dict[str, None] = {}
    for path in sorted(ANSWERS.glob("*.jsonl")):
        if any(part in path.name for part in (".tune.", ".report.", ".heldout.")):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.setdefault(json.loads(line)["query"], None)
    return list(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    texts = questions()
    start = time.process_time()
    question_concepts.question_concepts("how long obs after anaphylaxis, resp rate?")
    first = time.process_time() - start
    per_question = []
    for _ in range(args.runs):
        concepts.mentions.cache_clear()  # the questions' own caches, not the terminology's
        start = time.process_time()
        for text in texts:
            question_concepts.question_concepts(text)
        per_question.append((time.process_time() - start) / len(texts) * 1000)
    print(json.dumps({"questions": len(texts), "first_call_cpu_ms": round(first * 1000, 1),
                      "cpu_ms_per_question": round(min(per_question), 3),
                      "runs_cpu_ms_per_question": [round(t, 3) for t in per_question]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
