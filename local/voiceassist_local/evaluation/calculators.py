"""`voiceassist eval calculators --cases F --json`: accuracy within limits on MedCalc-Bench-form cases.

Reads JSONL (`calculator_name` or `calculator_id`, `relevant_entities`, `ground_truth`, `lower_limit`,
`upper_limit`) or the benchmark's CSV (`Calculator ID`, `Calculator Name`, `Relevant Entities`,
`Ground Truth Answer`, `Lower Limit`, `Upper Limit`). A case whose calculator raises is a failure carrying the
error message.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceassist.errors import VoiceAssistError
from voiceassist.tools.calculators.medcalc import answer_medcalc, answer_within_limits, resolve_calculator


@dataclass(frozen=True)
class CalculatorCase:
    calculator: int | str
    relevant_entities: Any
    ground_truth: Any
    lower_limit: Any
    upper_limit: Any


def _from_jsonl_record(record: dict[str, Any]) -> CalculatorCase:
    calculator = record.get("calculator_id", record.get("calculator_name"))
    if calculator is None:
        raise ValueError("a case needs calculator_id or calculator_name")
    ground_truth = record.get("ground_truth")
    return CalculatorCase(calculator, record["relevant_entities"], ground_truth,
                          record.get("lower_limit", ground_truth), record.get("upper_limit", ground_truth))


def _from_csv_row(row: dict[str, str]) -> CalculatorCase:
    calculator: int | str = row.get("Calculator ID") or row["Calculator Name"]
    return CalculatorCase(calculator, row["Relevant Entities"], row["Ground Truth Answer"], row["Lower Limit"],
                          row["Upper Limit"])


def load_calculator_cases(path: Path) -> list[CalculatorCase]:
    if path.suffix.lower() == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            return [_from_csv_row(row) for row in csv.DictReader(handle)]
    with path.open(encoding="utf-8") as handle:
        return [_from_jsonl_record(json.loads(line)) for line in handle if line.strip()]


def _calculator_label(calculator: int | str) -> str:
    try:
        return resolve_calculator(calculator).name
    except VoiceAssistError:
        return str(calculator)


def evaluate_calculator_cases(path: Path) -> dict[str, Any]:
    """Overall and per-calculator accuracy within [lower, upper], with every failing case."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    failures: list[dict[str, Any]] = []
    for case in load_calculator_cases(path):
        label = _calculator_label(case.calculator)
        answer: Any = None
        error: str | None = None
        try:
            answer = answer_medcalc(case.calculator, case.relevant_entities)
            passed = answer_within_limits(answer, case.lower_limit, case.upper_limit)
        except (VoiceAssistError, ValueError, TypeError, KeyError, ZeroDivisionError, OverflowError) as exc:
            error, passed = f"{type(exc).__name__}: {exc}", False
        totals[label][1] += 1
        if passed:
            totals[label][0] += 1
        else:
            failures.append({"calculator": label, "expected": [case.lower_limit, case.upper_limit],
                             "ground_truth": case.ground_truth, "got": answer, "error": error})
    cases = sum(total for _, total in totals.values())
    passed_cases = sum(passed for passed, _ in totals.values())
    return {
        "accuracy": passed_cases / cases if cases else 0.0,
        "calculators_covered": len(totals),
        "cases": cases,
        "passed": passed_cases,
        "per_calculator": {
            name: {"accuracy": passed / total, "cases": total} for name, (passed, total) in sorted(totals.items())
        },
        "failures": failures,
    }
