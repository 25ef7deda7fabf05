"""What keeps its weight in the description of a case, leaving one writer out (decision 0024, session 11).

The evidence score weighs a topic named only where a question describes the case (query/wording.asked_clauses) at
question_concepts.SCENARIO_WEIGHT of its weight when a passage lacks it, except what is kept at full weight. This
re-scores the gate's first judgement of every recorded question (evaluation/gate_data.py records) under each variant
(what is kept: drugs and classes, MeSH diseases, the word before a disease, every abbreviation; whether a clause
naming the asked value asks; the weight) and prints, per group of writers, the questions gained and lost against the
gate with no case reading: a variant is chosen on one group and checked on the other.

    .venv/bin/python -m voiceassist_local.evaluation.gate_data --data-dir D --output D.pkl
    .venv/bin/python -m voiceassist_local.evaluation.gate_scenario D.pkl
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from voiceassist.query import evidence, wording
from voiceassist.query import question_concepts as qc
from voiceassist.query.expansion import abbreviation_meanings
from voiceassist_local.evaluation.gate_data import GateRecord, load
from voiceassist_local.evaluation.gate_training import Example, kind, outcome

GROUPS = {"blind5-8": ("blind5", "blind6", "blind7", "blind7_spoken", "blind8", "blind8_spoken"),
          "blind10": ("blind10", "blind10_spoken")}
WEIGHTS = (0.0, 0.25, 0.5)
KEPT = ("drugs", "drugs+diseases", "+abbreviations")
_NEVER = re.compile(r"(?!x)x")


@contextmanager
def variant(*, reading: bool, kept: str = "drugs+diseases", modifier: bool = True, value_clause: bool = True,
            weight: float = qc.GENERIC_WEIGHT) -> Iterator[None]:
    """The evidence score with the case read as named (reading=False: no case reading at all)."""
    saved = (wording.asked_clauses, wording.ATTRIBUTE, qc._KEPT_IN_SCENARIO, qc._kept_in_scenario,
             qc._disease_modifiers, qc.SCENARIO_WEIGHT)
    kept_by_mark = qc._kept_in_scenario
    try:
        if not reading:
            wording.asked_clauses = lambda text: None  # type: ignore[assignment]
        if not value_clause:
            wording.ATTRIBUTE = _NEVER
        if kept == "drugs":
            qc._KEPT_IN_SCENARIO = tuple(m for m in saved[2] if not m.endswith("disease:"))
        if kept == "+abbreviations":
            qc._kept_in_scenario = lambda c: kept_by_mark(c) or bool(abbreviation_meanings(c.label))  # type: ignore[assignment]
        if not modifier:
            qc._disease_modifiers = lambda question: set()  # type: ignore[assignment]
        qc.SCENARIO_WEIGHT = weight
        yield
    finally:
        (wording.asked_clauses, wording.ATTRIBUTE, qc._KEPT_IN_SCENARIO, qc._kept_in_scenario,  # type: ignore[misc]
         qc._disease_modifiers, qc.SCENARIO_WEIGHT) = saved


def right(records: Sequence[GateRecord], threshold: float = 0.55) -> list[bool]:
    """Whether the gate's first judgement, re-scored now, gets each question right (gate_training.outcome)."""
    out = []
    for record in records:
        if not record.judged:
            out.append(record.correct)
            continue
        scores = np.array([p.score for p in evidence.assess(record.judged_text, record.hits).passages])
        out.append(outcome(Example(record, "", "full", np.zeros((0, 0)), np.zeros(0)), scores, threshold))
    return out


def changes(records: Sequence[GateRecord], before: Sequence[bool], after: Sequence[bool], sets: Sequence[str]) -> str:
    """gained / answerable lost / uncovered lost / population lost, over the records of `sets`."""
    counted: Counter[str] = Counter()
    for record, was, now in zip(records, before, after, strict=True):
        if record.set in sets and was != now:
            counted[kind(record) + ("+" if now else "-")] += 1
    gained = sum(v for k, v in counted.items() if k.endswith("+"))
    return f"{gained} / {counted['answerable-']} / {counted['uncovered-']} / {counted['population-']}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    records = load(Path(args[0]))
    with variant(reading=False):
        before = right(records)
    others = tuple(sorted({r.set for r in records} - {s for sets in GROUPS.values() for s in sets}))
    print("variant | " + " | ".join(f"{g} gained / ans lost / unc lost / pop lost" for g in (*GROUPS, "other files")))
    for kept, modifier, value_clause, weight in itertools.product(KEPT, (False, True), (False, True), WEIGHTS):
        if kept == "drugs" and modifier:
            continue  # the word before a disease is kept only with the disease
        with variant(reading=True, kept=kept, modifier=modifier, value_clause=value_clause, weight=weight):
            after = right(records)
        name = f"{kept}{' +word before' if modifier else ''}{' +value clause' if value_clause else ''} w={weight}"
        cells = [changes(records, before, after, sets) for sets in (*GROUPS.values(), others)]
        print(f"{name:48} | " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
