"""`voiceassist eval phi`: leak rate, over-routing, span recall/precision and latency of the PHI detector."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from voiceassist.errors import InvalidInput
from voiceassist.ports import PhiDetector
from voiceassist.settings import PhiMode, Settings
from voiceassist_local.evaluation.phi_eval import (
    LEAK_RATE_TARGET,
    OVER_ROUTING_TARGET,
    P50_TARGET_MS,
    LabelledText,
    PhiEvalReport,
    combine,
    evaluate,
    load_negatives,
    load_positives,
    split,
)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `phi` under the `eval` group."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "phi", help="PHI routing evaluation: leak rate and over-routing",
        description="Runs the PHI detector over labelled PHI texts (positives) and PHI-free clinical "
                    "questions (negatives) and reports how much PHI would leave the boundary, per file and "
                    "over all files.",
    )
    parser.add_argument("--positives", nargs="+", default=[], type=Path, metavar="FILE",
                        help="JSON lists of {full_text, spans[{entity_type, start_position, end_position}]}")
    parser.add_argument("--negatives", nargs="+", default=[], type=Path, metavar="FILE",
                        help="JSON Lines files with a text field")
    parser.add_argument("--mode", choices=[PhiMode.STRICT.value, PhiMode.LENIENT.value],
                        default=PhiMode.STRICT.value, help="detector mode (default: strict)")
    parser.add_argument("--split", choices=["all", "dev", "holdout"], default="all",
                        help="score every text, or only the development or held-out part (by template)")
    parser.add_argument("--show-examples", "--show-misses", type=int, default=0, metavar="N",
                        dest="show_examples",
                        help="print up to N leaked and N over-routed texts per file (they may contain PHI)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(run=run)
    return parser


def _select(items: list[LabelledText], part: str) -> list[LabelledText]:
    if part == "all":
        return items
    development, held_out = split(items)
    return development if part == "dev" else held_out


def _detector(mode: str) -> PhiDetector:
    from voiceassist.composition.phi_detectors import build_detector

    # A generous time-out: the evaluation measures detection, not the machine's load.
    detector = build_detector(Settings(phi_mode=PhiMode(mode)), timeout_s=30.0)
    load = getattr(detector, "load", None)
    if callable(load):
        load()  # build the engine before the clock starts: latency is per question, not per cold start
    return detector


def _progress(items: list[Any]) -> Any:
    if not sys.stderr.isatty():
        return items
    from tqdm import tqdm

    return tqdm(items, desc="phi eval", unit="text", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if not args.positives and not args.negatives:
        raise InvalidInput("eval phi needs at least one --positives or --negatives file")
    examples = max(args.show_examples, 0)
    detector = _detector(args.mode)
    sets: list[tuple[str, PhiEvalReport]] = []
    for path in args.positives:
        items = _select(load_positives(path), args.split)
        sets.append((path.name, evaluate(detector, items, [], progress=_progress, examples=examples)))
    for path in args.negatives:
        items = _select(load_negatives(path), args.split)
        sets.append((path.name, evaluate(detector, [], items, progress=_progress, examples=examples)))
    total = combine([report for _, report in sets], examples=examples)
    if args.json:
        summary = total.summary()
        summary.update(mode=args.mode, split=args.split,
                       sets={name: report.summary() for name, report in sets})
        print(json.dumps(summary, indent=2))
        return 0
    print(f"PHI evaluation (mode {args.mode}, split {args.split})")
    for name, report in sets:
        _print_set(name, report)
    if len(sets) > 1:
        _print_set("all files", total)
    return 0


def _rate(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:6.1%}"


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def _print_set(name: str, report: PhiEvalReport) -> None:
    print(f"== {name}")
    if report.positives:
        print(f"  leak rate        {report.leak_rate:6.2%}  ({report.leaked}/{report.positives} positives not "
              f"flagged; target <= {LEAK_RATE_TARGET:.1%}: {_verdict(report.leak_rate <= LEAK_RATE_TARGET)})")
    if report.negatives:
        print(f"  over-routing     {report.over_routing_rate:6.2%}  ({report.over_routed}/{report.negatives} "
              f"negatives flagged; target <= {OVER_ROUTING_TARGET:.0%}: "
              f"{_verdict(report.over_routing_rate <= OVER_ROUTING_TARGET)})")
    print(f"  latency          p50 {report.latency_ms_p50:.1f} ms, p95 {report.latency_ms_p95:.1f} ms "
          f"(target p50 <= {P50_TARGET_MS:g} ms: {_verdict(report.latency_ms_p50 <= P50_TARGET_MS)})")
    print(f"  detector errors  {report.detector_errors}")
    if report.recall_by_type:
        print("  span recall by gold type (found/total, misses)")
        for entity_type, score in sorted(report.recall_by_type.items()):
            print(f"    {entity_type:<24} {_rate(score.rate)}  ({score.correct}/{score.total}, "
                  f"{score.total - score.correct} missed)")
    print("  span precision by detected type")
    for entity_type, score in sorted(report.precision_by_type.items()):
        print(f"    {entity_type:<24} {_rate(score.rate)}  ({score.correct}/{score.total})")
    for title, texts in (("leaked", report.leaked_examples), ("over-routed", report.over_routed_examples)):
        if texts:
            print(f"  {title}:")
            for text in texts:
                print(f"    {text!r}")
