"""Names after a title or a bed number, typed as clinicians type them (phi/name_titles.py): lower case,
hyphenated, with an apostrophe, from many naming traditions; eponyms, drugs and verbs after a title are not
names."""

from __future__ import annotations

import pytest

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.settings import PhiMode


@pytest.fixture(scope="module")
def strict() -> PresidioPhiDetector:
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    return detector


@pytest.mark.parametrize(("text", "name"), [
    ("Mrs o'brien-kelly, 71, new AF: anticoagulate?", "o'brien-kelly"),
    ("Mrs smith-jones, 71, new AF: anticoagulate?", "smith-jones"),
    ("mr nguyen 64 with CAP, CURB-65?", "nguyen"),
    ("Dr adeyemi-okafor asked about apixaban dosing in CKD", "adeyemi-okafor"),
    ("Ms van der berg, 58, on warfarin: INR 4.2, what next?", "van der berg"),
    ("bed 12 mrs kowalczyk, 82, delirium: haloperidol dose?", "kowalczyk"),
    ("room 4 mr al-rashid, 55, chest pain, HEART score?", "al-rashid"),
    ("Mr. García-López, 67, started on metformin: eGFR 38, continue?", "García-López"),
    ("Mrs nakamura-tanaka 79 with falls, stop amlodipine?", "nakamura-tanaka"),
    ("Mr o'connor, 45, AKI after ibuprofen", "o'connor"),
    ("Mrs. de la cruz, 90, hip fracture: VTE prophylaxis?", "de la cruz"),
    ("Ms okonkwo 33 pregnant with DVT: LMWH dose?", "okonkwo"),
    ("bed 7 papadopoulos, febrile neutropenia: which antibiotic?", "papadopoulos"),
])
def test_a_titled_name_typed_any_way_is_redacted(strict: PresidioPhiDetector, text: str, name: str) -> None:
    result = strict.detect(text)

    assert result.contains_phi and name not in result.redacted_text


@pytest.mark.parametrize("text", [
    "Mr. Hyde syndrome?",
    "Dr recommended apixaban 5 mg twice daily: is that right in AF?",
    "bed 3 needs warfarin reversal: vitamin K dose?",
    "Room 4 has a patient with Parkinson's disease: levodopa timing?",
    "Dr on call says start heparin: what dose?",
])
def test_a_verb_eponym_or_drug_after_a_title_is_not_a_name(strict: PresidioPhiDetector, text: str) -> None:
    assert not strict.detect(text).contains_phi
