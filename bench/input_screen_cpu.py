"""CPU of the input screen per question, with and without its attack classifier, alternated in one process.

    .venv/bin/python bench/input_screen_cpu.py [--questions 2000] [--rounds 2]

`screen_text` on MedMCQA/MMLU questions (../shared/eval, read by path) with their sentence vectors computed ahead
(as the query pipeline computes the question's once and the search reuses it), `time.process_time` per round;
prints the mean CPU per question of each variant in each round, in milliseconds, and the ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import clinical_questions, sentence_vectors  # noqa: E402

from voiceassist.safety.input_screen import attack_classifier, screen_text  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    texts = clinical_questions(None)[: args.questions]
    vectors = sentence_vectors(texts)
    attack_classifier()  # loaded once per process, as a warm function has it
    rounds: list[dict[str, float]] = []
    for _ in range(args.rounds):
        cpu: dict[str, float] = {}
        for name, with_classifier in (("without_classifier", False), ("with_classifier", True)):
            start = time.process_time()
            for text in texts:
                screen_text(text, vector=vectors[text], with_classifier=with_classifier)
            cpu[name] = round((time.process_time() - start) / len(texts) * 1000, 3)
        cpu["ratio"] = round(cpu["with_classifier"] / cpu["without_classifier"], 3)
        rounds.append(cpu)
    print(json.dumps({"questions": len(texts), "ms_per_question": rounds}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
