"""The egress policy (phi/policy.py): the one rule every path out of the boundary asks."""

from __future__ import annotations

import pytest

from voiceassist.errors import PhiBoundaryViolation
from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi import FailClosedDetector, egress_decision, ensure_may_leave, failed_result, redact

CLEAN = "What is the first-line treatment of hypertension?"
RAW = "Patient Anna Kowalczyk asks about metformin"
NAME = PhiEntity(entity_type="PERSON", start=8, end=22)


class CountingDetector:
    def __init__(self, *entities: PhiEntity) -> None:
        self.entities, self.calls = list(entities), 0

    def detect(self, text: str) -> PhiResult:
        self.calls += 1
        return PhiResult(contains_phi=bool(self.entities), entities=self.entities,
                         redacted_text=redact(text, self.entities))


class BrokenDetector:
    def detect(self, text: str) -> PhiResult:
        raise RuntimeError(f"choked on {text}")


def test_clean_text_leaves_after_a_fresh_detection() -> None:
    detector = CountingDetector()
    assert egress_decision(CLEAN, detector=detector).allowed and detector.calls == 1


def test_phi_stays_and_the_reason_names_types_not_text() -> None:
    decision = egress_decision(RAW, detector=CountingDetector(NAME))
    assert not decision.allowed and "PERSON" in decision.reason and "Kowalczyk" not in decision.reason


def test_local_only_keeps_even_clean_text_inside() -> None:
    detector = CountingDetector()
    decision = egress_decision(CLEAN, detector=detector, local_only=True)
    assert not decision.allowed and "local-only" in decision.reason and detector.calls == 0


def test_unchecked_text_with_no_detector_stays() -> None:
    assert not egress_decision(CLEAN).allowed


def test_an_earlier_clean_check_of_this_exact_text_is_reused() -> None:
    detector = CountingDetector(NAME)  # would flag, so a call would show
    checked = PhiResult(contains_phi=False, redacted_text=CLEAN)
    assert egress_decision(CLEAN, detector=detector, checked=checked).allowed and detector.calls == 0


def test_a_clean_check_of_other_text_does_not_count() -> None:
    checked = PhiResult(contains_phi=False, redacted_text=CLEAN)
    assert not egress_decision(RAW, checked=checked).allowed  # no detector: unchecked
    detector = CountingDetector(NAME)
    assert not egress_decision(RAW, detector=detector, checked=checked).allowed and detector.calls == 1


def test_an_earlier_check_that_found_phi_or_failed_keeps_the_text_inside() -> None:
    found = PhiResult(contains_phi=True, entities=[NAME], redacted_text=redact(RAW, [NAME]))
    assert not egress_decision(RAW, checked=found).allowed
    decision = egress_decision(RAW, checked=failed_result("timed out"))
    assert not decision.allowed and "failed" in decision.reason


def test_a_detector_that_breaks_fails_closed_through_the_guard() -> None:
    with pytest.raises(PhiBoundaryViolation, match="RuntimeError") as raised:
        ensure_may_leave(RAW, detector=FailClosedDetector(BrokenDetector(), timeout_s=5))
    assert "Kowalczyk" not in str(raised.value)
