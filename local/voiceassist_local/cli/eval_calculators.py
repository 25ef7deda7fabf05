"""`voiceassist eval calculators`: accuracy within limits of the medical calculators on MedCalc-Bench cases."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from voiceassist_local.evaluation.calculators import evaluate_calculator_cases


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `calculators` under the `eval` group."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "calculators", help="calculator accuracy on MedCalc-Bench-style cases",
        description="Runs every case (JSONL with calculator_name or calculator_id, relevant_entities, "
                    "ground_truth, lower_limit, upper_limit; or the benchmark's CSV) through the calculators "
                    "and reports the share within limits, overall and per calculator.",
    )
    parser.add_argument("--cases", required=True, type=Path, help="JSONL or the benchmark's CSV")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    report = evaluate_calculator_cases(args.cases)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return 0
    print(f"accuracy {report['accuracy']:.4f} over {report['cases']} cases, "
          f"{report['calculators_covered']} calculators")
    for failure in report.get("failures", [])[:20]:
        print(f"  miss: {json.dumps(failure, default=str)}")
    return 0
