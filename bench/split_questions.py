"""Split a questions file (JSONL, `voiceassist eval answers`) into a tune half and a held-out half, once,
before anything is tuned: a fixed seed, stratified by kind (answerable, uncovered, each population), so
both halves hold every kind. Run:

    .venv/bin/python bench/split_questions.py tests/fixtures/answers/concepts.jsonl

writes concepts.tune.jsonl and concepts.heldout.jsonl beside it. Tune on the first; report the second once.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

SEED = 24  # the number: fixed, so the split is the same on every machine


def kind(record: dict[str, object]) -> str:
    if record.get("answerable"):
        return "answerable"
    return f"population:{record['population']}" if record.get("population") else "uncovered"


Record = dict[str, object]


def split(records: list[Record], seed: int = SEED) -> tuple[list[Record], list[Record]]:
    rng = random.Random(seed)
    tune: list[dict[str, object]] = []
    held: list[dict[str, object]] = []
    by_kind: dict[str, list[dict[str, object]]] = {}
    for record in records:
        by_kind.setdefault(kind(record), []).append(record)
    odd_to_tune = True
    for name in sorted(by_kind):
        group = list(by_kind[name])
        rng.shuffle(group)
        half = len(group) // 2 + (len(group) % 2 if odd_to_tune else 0)
        odd_to_tune ^= len(group) % 2 == 1
        tune += group[:half]
        held += group[half:]
    return tune, held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("questions", type=Path)
    args = parser.parse_args()
    records = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    tune, held = split(records)
    for suffix, part in (("tune", tune), ("heldout", held)):
        path = args.questions.with_suffix(f".{suffix}.jsonl")
        path.write_text("".join(json.dumps(r) + "\n" for r in part), encoding="utf-8")
        print(f"{path}: {len(part)} questions")


if __name__ == "__main__":
    main()
