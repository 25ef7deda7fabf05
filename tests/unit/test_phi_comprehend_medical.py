"""Amazon Comprehend Medical DetectPHI behind the detector port: contract (botocore Stubber with recorded-shape
responses), Safe Harbor filtering, chunking, the union with Presidio, and fail-closed on every error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from voiceassist.adapters.aws.comprehend_medical_phi import ComprehendMedicalPhiDetector, chunks, counts_as_phi
from voiceassist.composition.phi_detectors import build_detector
from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi import FailClosedDetector
from voiceassist.phi.detection import WITHHELD, UnionPhiDetector
from voiceassist.settings import PhiDetectorKind, PhiMode, Settings

QUESTION = "Patient Zebulon Quartermaine, 64, DOB 03/14/1961, seen in 2016: target BP?"


def entity(kind: str, text: str, score: float = 0.99, source: str = QUESTION) -> dict[str, Any]:
    """One DetectPHI entity as the service returns it (shape of a recorded response)."""
    start = source.index(text)
    return {"Id": 0, "BeginOffset": start, "EndOffset": start + len(text), "Score": score, "Text": text,
            "Category": "PROTECTED_HEALTH_INFORMATION", "Type": kind, "Traits": []}


RECORDED = {
    "Entities": [entity("NAME", "Zebulon Quartermaine"), entity("AGE", "64"), entity("DATE", "03/14/1961"),
                 entity("DATE", "2016")],
    "ModelVersion": "0.1.0",
}


@pytest.fixture()
def client() -> Iterator[tuple[Any, Stubber]]:
    real = boto3.client("comprehendmedical", region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")
    with Stubber(real) as stubber:
        yield real, stubber
        stubber.assert_no_pending_responses()


def test_detect_phi_maps_types_and_keeps_only_safe_harbor_identifiers(client: tuple[Any, Stubber]) -> None:
    real, stubber = client
    stubber.add_response("detect_phi", RECORDED, {"Text": QUESTION})
    result = ComprehendMedicalPhiDetector(real).detect(QUESTION)
    found = {(e.entity_type, QUESTION[e.start:e.end]) for e in result.entities}
    assert found == {("PERSON", "Zebulon Quartermaine"), ("DATE", "03/14/1961")}  # age 64, year 2016 dropped
    assert result.contains_phi and result.error is None
    assert "Quartermaine" not in result.redacted_text and "2016" in result.redacted_text


def test_low_scores_are_ignored(client: tuple[Any, Stubber]) -> None:
    real, stubber = client
    low = {"Entities": [entity("NAME", "Zebulon Quartermaine", 0.2)], "ModelVersion": "0.1.0"}
    stubber.add_response("detect_phi", low, {"Text": QUESTION})
    assert not ComprehendMedicalPhiDetector(real).detect(QUESTION).contains_phi


@pytest.mark.parametrize(("kind", "text", "counts"), [
    ("AGE", "92", True), ("AGE", "64", False), ("DATE", "March 3, 1950", True), ("DATE", "2016", False),
    ("DATE", "14 Mar 1997", True), ("PROFESSION", "nurse", False), ("ID", "84736251", True),
])
def test_safe_harbor_filter(kind: str, text: str, counts: bool) -> None:
    assert counts_as_phi(kind, text) is counts


def test_long_text_is_sent_in_pieces_with_offsets_kept(client: tuple[Any, Stubber]) -> None:
    real, stubber = client
    text = ("word " * 1000) + "call Zebulon Quartermaine today " + ("word " * 1000)
    pieces = chunks(text)
    assert "".join(p for _, p in pieces) == text and all(len(p) <= 4500 for _, p in pieces)
    for _, piece in pieces:
        found = [entity("NAME", "Zebulon Quartermaine", source=piece)] if "Quartermaine" in piece else []
        stubber.add_response("detect_phi", {"Entities": found, "ModelVersion": "0.1.0"}, {"Text": piece})
    result = ComprehendMedicalPhiDetector(real).detect(text)
    (name,) = result.entities
    assert text[name.start:name.end] == "Zebulon Quartermaine"


@pytest.mark.parametrize("error", ["ThrottlingException", "AccessDeniedException", "InternalServerException",
                                   "TextSizeLimitExceededException"])
def test_service_errors_fail_closed(client: tuple[Any, Stubber], error: str) -> None:
    real, stubber = client
    stubber.add_client_error("detect_phi", service_error_code=error, http_status_code=400)
    result = FailClosedDetector(ComprehendMedicalPhiDetector(real), timeout_s=5).detect(QUESTION)
    assert result.contains_phi and result.redacted_text == WITHHELD
    assert result.error in {"PHI detector failed (ClientError)", f"PHI detector failed ({error})"}
    assert "Quartermaine" not in result.error


class Fixed:
    def __init__(self, *entities: PhiEntity, error: str | None = None) -> None:
        self.entities, self.error = list(entities), error

    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=bool(self.entities) or self.error is not None, entities=self.entities,
                         redacted_text=text, error=self.error)


class Crashing:
    def detect(self, text: str) -> PhiResult:
        raise RuntimeError(text)


def test_union_takes_every_detectors_entities() -> None:
    text = "Quartermaine MRN 84736251"
    union = UnionPhiDetector(Fixed(PhiEntity(entity_type="PERSON", start=0, end=12, score=0.6)),
                             Fixed(PhiEntity(entity_type="MEDICAL_RECORD_NUMBER", start=17, end=25, score=0.9)))
    result = union.detect(text)
    assert result.contains_phi and result.redacted_text == "<PERSON> MRN <MEDICAL_RECORD_NUMBER>"
    assert not UnionPhiDetector(Fixed(), Fixed()).detect("what is the dose of metformin?").contains_phi


@pytest.mark.parametrize("failing", [Fixed(error="PHI detector timed out after 2 s"), Crashing()])
def test_union_fails_closed_when_one_detector_fails(failing: Any) -> None:
    result = UnionPhiDetector(Fixed(), failing).detect("Zebulon's question")
    assert result.contains_phi and result.redacted_text == WITHHELD and "Zebulon" not in (result.error or "")


def test_settings_select_the_detectors(client: tuple[Any, Stubber]) -> None:
    real, stubber = client
    only_aws = build_detector(Settings(phi_detector=PhiDetectorKind.COMPREHEND_MEDICAL), comprehend_client=real)
    assert isinstance(only_aws, FailClosedDetector)
    assert isinstance(only_aws.inner, ComprehendMedicalPhiDetector)
    both = build_detector(Settings(phi_detector=PhiDetectorKind.BOTH), comprehend_client=real)
    assert isinstance(both, UnionPhiDetector) and len(both.detectors) == 2
    default = build_detector(Settings())
    assert isinstance(default, FailClosedDetector) and not isinstance(default.inner, ComprehendMedicalPhiDetector)
    assert not isinstance(build_detector(Settings(phi_mode=PhiMode.OFF, phi_detector=PhiDetectorKind.BOTH)),
                          UnionPhiDetector)


def test_both_flags_what_only_the_local_engine_finds_and_fails_closed_when_aws_is_down(
        client: tuple[Any, Stubber]) -> None:
    real, stubber = client
    text = "patient 84736251 with anaphylaxis: adrenaline dose?"
    stubber.add_response("detect_phi", {"Entities": [], "ModelVersion": "0.1.0"}, {"Text": text})
    both = build_detector(Settings(phi_detector=PhiDetectorKind.BOTH), comprehend_client=real, timeout_s=30)
    result = both.detect(text)
    assert result.contains_phi and "84736251" not in result.redacted_text
    stubber.add_client_error("detect_phi", service_error_code="ServiceUnavailableException", http_status_code=503)
    down = both.detect("What is the dose of metformin?")
    assert down.contains_phi and down.redacted_text == WITHHELD
