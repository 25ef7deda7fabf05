"""PHI routing evaluation: how often PHI would leave the boundary, and how often clean questions stay in.

Positives are texts with labelled spans; a positive is a text with at least one span of a POSITIVE_TYPES
type, and it leaks when the detector does not flag it. Negatives are clinical questions without PHI; one
that is flagged is over-routed (answered by the local model for no reason). Span recall is counted by gold
type (a gold span is found when any detected entity overlaps it), precision by detected type (a detection
is right when it overlaps any gold span; every detection in a negative is wrong).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from voiceassist.errors import InvalidInput
from voiceassist.models import PhiEntity
from voiceassist.ports import PhiDetector

POSITIVE_TYPES = frozenset({
    "PERSON", "STREET_ADDRESS", "ADDRESS", "PHONE_NUMBER", "EMAIL_ADDRESS", "US_SSN", "CREDIT_CARD",
    "IBAN_CODE", "US_DRIVER_LICENSE", "IP_ADDRESS", "ZIP_CODE",
    # the generated sets' identifier types (phi_sets.py); presidio-research labels none of them
    "MEDICAL_RECORD_NUMBER", "ACCOUNT_NUMBER", "HEALTH_PLAN_ID", "DEVICE_ID", "DATE_OF_BIRTH", "AGE_OVER_89",
    "URL",
})
LEAK_RATE_TARGET = 0.015  # on held-out sets (issue 18); the development set's was 2 %
OVER_ROUTING_TARGET = 0.05
P50_TARGET_MS = 15.0


@dataclass(frozen=True)
class GoldSpan:
    entity_type: str
    start: int
    end: int


@dataclass(frozen=True)
class LabelledText:
    text: str
    spans: tuple[GoldSpan, ...] = ()
    group: str = ""  # texts of one group (a template) always fall on the same side of a split

    @property
    def is_positive(self) -> bool:
        return any(s.entity_type in POSITIVE_TYPES for s in self.spans)


Scored = tuple[LabelledText, bool]  # a text and whether it comes from the negatives


class TypeScore(BaseModel):
    total: int = 0
    correct: int = 0

    @property
    def rate(self) -> float | None:
        return self.correct / self.total if self.total else None


class PhiEvalReport(BaseModel):
    positives: int
    negatives: int
    leaked: int
    over_routed: int
    detector_errors: int
    leak_rate: float
    over_routing_rate: float
    recall_by_type: dict[str, TypeScore]
    precision_by_type: dict[str, TypeScore]
    latency_ms_p50: float
    latency_ms_p95: float
    leaked_examples: list[str]
    over_routed_examples: list[str]
    latencies_ms: list[float] = Field(default_factory=list, exclude=True, repr=False)

    @property
    def meets_targets(self) -> bool:
        return (self.leak_rate <= LEAK_RATE_TARGET and self.over_routing_rate <= OVER_ROUTING_TARGET
                and self.latency_ms_p50 <= P50_TARGET_MS)

    def summary(self) -> dict[str, object]:
        """The report as plain JSON values, rates included."""
        def rates(scores: dict[str, TypeScore]) -> dict[str, dict[str, float | int | None]]:
            return {t: {"total": s.total, "correct": s.correct, "rate": s.rate}
                    for t, s in sorted(scores.items())}

        data = self.model_dump(exclude={"recall_by_type", "precision_by_type"})
        data["recall_by_type"] = rates(self.recall_by_type)
        data["precision_by_type"] = rates(self.precision_by_type)
        data["meets_targets"] = self.meets_targets
        return data


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc


def load_positives(path: Path) -> list[LabelledText]:
    """A JSON list of {full_text, spans: [{entity_type, start_position, end_position}], template_id?}."""
    try:
        rows = json.loads(_read(path))
        return [
            LabelledText(
                text=row["full_text"],
                spans=tuple(GoldSpan(s["entity_type"], s["start_position"], s["end_position"])
                            for s in row.get("spans", [])),
                group=str(row.get("template_id", row["full_text"])),
            )
            for row in rows
        ]
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"{path} is not a list of {{full_text, spans}} objects: {exc}") from exc


def load_negatives(path: Path) -> list[LabelledText]:
    """JSON Lines with a `text` field (and an optional `id`); blank lines are skipped."""
    items: list[LabelledText] = []
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            items.append(LabelledText(text=row["text"], group=str(row.get("id", row["text"]))))
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path} line {number} is not a JSON object with a text field") from exc
    return items


def split(items: Sequence[LabelledText], *, holdout_fraction: float = 0.3, salt: str = "phi-holdout"
          ) -> tuple[list[LabelledText], list[LabelledText]]:
    """(development, held-out) by a stable hash of each item's group, so a template never straddles both."""
    def held_out(item: LabelledText) -> bool:
        digest = hashlib.sha256(f"{salt}:{item.group}".encode()).digest()
        return int.from_bytes(digest[:4], "big") / 2**32 < holdout_fraction

    return [i for i in items if not held_out(i)], [i for i in items if held_out(i)]


def _overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


def _percentile(sorted_values: Sequence[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def evaluate(detector: PhiDetector, positives: Iterable[LabelledText], negatives: Iterable[LabelledText], *,
             progress: Callable[[list[Scored]], Iterable[Scored]] = iter,
             examples: int = 20) -> PhiEvalReport:
    """Run the detector over both sets and score routing, spans and latency."""
    recall: dict[str, TypeScore] = {}
    precision: dict[str, TypeScore] = {}
    latencies: list[float] = []
    counts: Counter[str] = Counter()
    leaked: list[str] = []
    over_routed: list[str] = []
    labelled: list[Scored] = [(item, False) for item in positives] + [(item, True) for item in negatives]
    for item, negative in progress(labelled):
        started = time.perf_counter()
        result = detector.detect(item.text)
        latencies.append((time.perf_counter() - started) * 1000)
        counts["errors"] += result.error is not None
        _score_spans(item, result.entities, recall, precision)
        if item.is_positive and not negative:
            counts["positives"] += 1
            if not result.contains_phi:
                counts["leaked"] += 1
                leaked.append(item.text)
        elif negative:
            counts["negatives"] += 1
            if result.contains_phi:
                counts["over_routed"] += 1
                over_routed.append(item.text)
    latencies.sort()
    return _report(counts, recall, precision, latencies, leaked[:examples], over_routed[:examples])


def combine(reports: Sequence[PhiEvalReport], *, examples: int = 20) -> PhiEvalReport:
    """One report over several sets (each evaluated on its own): counts add up, latencies pool."""
    counts: Counter[str] = Counter()
    recall: dict[str, TypeScore] = {}
    precision: dict[str, TypeScore] = {}
    for report in reports:
        counts.update(positives=report.positives, negatives=report.negatives, leaked=report.leaked,
                      over_routed=report.over_routed, errors=report.detector_errors)
        for mine, theirs in ((recall, report.recall_by_type), (precision, report.precision_by_type)):
            for entity_type, score in theirs.items():
                total = mine.setdefault(entity_type, TypeScore())
                total.total += score.total
                total.correct += score.correct
    latencies = sorted(v for r in reports for v in r.latencies_ms)
    return _report(counts, recall, precision, latencies,
                   [t for r in reports for t in r.leaked_examples][:examples],
                   [t for r in reports for t in r.over_routed_examples][:examples])


def _report(counts: Counter[str], recall: dict[str, TypeScore], precision: dict[str, TypeScore],
            latencies: list[float], leaked: list[str], over_routed: list[str]) -> PhiEvalReport:
    """The report from the counts (positives, negatives, leaked, over_routed, errors) and sorted latencies."""
    return PhiEvalReport(
        positives=counts["positives"], negatives=counts["negatives"], leaked=counts["leaked"],
        over_routed=counts["over_routed"], detector_errors=counts["errors"],
        leak_rate=counts["leaked"] / counts["positives"] if counts["positives"] else 0.0,
        over_routing_rate=counts["over_routed"] / counts["negatives"] if counts["negatives"] else 0.0,
        recall_by_type=recall, precision_by_type=precision,
        latency_ms_p50=round(_percentile(latencies, 0.50), 3),
        latency_ms_p95=round(_percentile(latencies, 0.95), 3),
        leaked_examples=leaked, over_routed_examples=over_routed, latencies_ms=latencies,
    )


def _score_spans(item: LabelledText, detected: Sequence[PhiEntity], recall: dict[str, TypeScore],
                 precision: dict[str, TypeScore]) -> None:
    for gold in item.spans:
        score = recall.setdefault(gold.entity_type, TypeScore())
        score.total += 1
        score.correct += any(_overlaps(gold.start, gold.end, e.start, e.end) for e in detected)
    for entity in detected:
        score = precision.setdefault(entity.entity_type, TypeScore())
        score.total += 1
        score.correct += any(_overlaps(g.start, g.end, entity.start, entity.end) for g in item.spans)
