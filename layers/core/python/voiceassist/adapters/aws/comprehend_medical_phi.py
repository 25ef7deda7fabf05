"""PhiDetector on Amazon Comprehend Medical DetectPHI: an AWS-native, HIPAA-eligible second opinion.

The text never leaves the account's trust boundary (Comprehend Medical is covered by the AWS BAA). Its entity
types are mapped to ours; what Safe Harbor does not count as an identifier is dropped so that it does not
route clean questions inside: ages under 90, professions, and dates less precise than a day ("in 2016").
Any error (throttling, access denied, a malformed answer) propagates: the fail-closed wrapper turns it into
"contains PHI".
"""

from __future__ import annotations

from typing import Any

import regex as re

from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi.detection import redact

# DetectPHI takes fewer than 20,000 UTF-8 bytes; 4,500 characters is at most 18,000 bytes.
CHUNK_CHARS = 4500
TYPES = {
    "NAME": "PERSON", "ADDRESS": "STREET_ADDRESS", "EMAIL": "EMAIL_ADDRESS", "PHONE_OR_FAX": "PHONE_NUMBER",
    "ID": "MEDICAL_RECORD_NUMBER", "URL": "URL", "IP_ADDRESS": "IP_ADDRESS", "DATE": "DATE", "AGE": "AGE_OVER_89",
    "LICENSE_PLATE": "DEVICE_ID", "VEHICLE_IDENTIFIER": "DEVICE_ID",
}
_DAY_PRECISE = re.compile(
    r"\d{1,2}\s*[/.-]\s*\d{1,2}|\d{4}-\d\d-\d\d|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\.?\s+\d{1,2}\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
)
_AGE = re.compile(r"\d+")


def counts_as_phi(entity_type: str, text: str) -> bool:
    """Safe Harbor's view of one DetectPHI entity: ages of 90 and over, dates precise to the day."""
    if entity_type == "AGE":
        numbers = [int(n) for n in _AGE.findall(text)]
        return bool(numbers) and max(numbers) >= 90
    if entity_type == "DATE":
        return bool(_DAY_PRECISE.search(text))
    return entity_type in TYPES


def chunks(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, str]]:
    """(offset, piece) pieces of at most `size` characters, cut at whitespace where possible."""
    pieces: list[tuple[int, str]] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > start else end
        pieces.append((start, text[start:end]))
        start = end
    return pieces


class ComprehendMedicalPhiDetector:
    """Detects PHI with the DetectPHI API (a boto3 `comprehendmedical` client is injected)."""

    def __init__(self, client: Any, *, min_score: float = 0.5) -> None:
        self.client = client
        self.min_score = min_score

    def detect(self, text: str) -> PhiResult:
        entities: list[PhiEntity] = []
        for offset, piece in chunks(text):
            if not piece.strip():
                continue
            response = self.client.detect_phi(Text=piece)
            for found in response["Entities"]:
                kind, score = found["Type"], float(found["Score"])
                start, end = offset + int(found["BeginOffset"]), offset + int(found["EndOffset"])
                if score >= self.min_score and counts_as_phi(kind, text[start:end]):
                    entities.append(PhiEntity(entity_type=TYPES[kind], start=start, end=end,
                                              score=round(score, 3)))
        return PhiResult(contains_phi=bool(entities), entities=entities, redacted_text=redact(text, entities))
