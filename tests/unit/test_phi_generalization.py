"""Recall on text the recognizers were not developed on: the issue's probe queries, typed names, bare record
numbers, card numbers, postcodes, short addresses; and clinical text that looks like PHI and is not."""

from __future__ import annotations

import pytest

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.models import PhiEntity
from voiceassist.phi import redact
from voiceassist.phi.detection import whole_word_span
from voiceassist.phi.identifiers import luhn_valid
from voiceassist.settings import PhiMode


@pytest.fixture(scope="module")
def strict() -> PresidioPhiDetector:
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    return detector


PROBES = [  # issue 18: these went verbatim to the cloud stub
    ("patient 84736251 with anaphylaxis: adrenaline dose?", "84736251"),
    ("Quartermaine has pneumonia, CURB-65 is 2, treat where?", "Quartermaine"),
    ("zebulon quartermaine is 64 and has hypertension, target BP?", "zebulon quartermaine"),
]


@pytest.mark.parametrize(("text", "value"), PROBES)
def test_issue_probe_queries_are_flagged_and_fully_redacted(strict: PresidioPhiDetector, text: str, value: str
                                                            ) -> None:
    result = strict.detect(text)
    assert result.contains_phi
    assert value not in result.redacted_text
    assert not any(part in result.redacted_text for part in value.split())


@pytest.mark.parametrize(("text", "entity_type", "value"), [
    ("pt 0047897238 on vanco, trough 22", "MEDICAL_RECORD_NUMBER", "0047897238"),
    ("patient number HZ981001: troponin rising", "MEDICAL_RECORD_NUMBER", "HZ981001"),
    ("084018381 - sodium 118 and seizing", "MEDICAL_RECORD_NUMBER", "084018381"),
    ("transfer MR36532900 to ICU for NIV", "MEDICAL_RECORD_NUMBER", "MR36532900"),
    ("the result for 73920154 came back positive", "MEDICAL_RECORD_NUMBER", "73920154"),
    ("card 2416-1570-1388-3808 was declined", "CREDIT_CARD", "2416-1570-1388-3808"),
    ("paid with 4111 1111 1111 1111 yesterday", "CREDIT_CARD", "4111 1111 1111 1111"),
    ("paid with 4539578763621486 yesterday", "CREDIT_CARD", "4539578763621486"),
    ("post code 1737RR, GP nearby", "ZIP_CODE", "1737RR"),
    ("lives in Leeds, LS6 2QT with her son", "ZIP_CODE", "LS6 2QT"),
    ("Address: 1044 Columbus Estate, Walker, 48853.", "ZIP_CODE", "48853"),
    ("Address: 1044 Columbus Estate, Walker, 48853.", "STREET_ADDRESS", "1044 Columbus Estate"),
    ("picked up at 36 Amber Artery; GCS 13", "STREET_ADDRESS", "36 Amber Artery"),
    ("DOB 25-Dec-1997, NPO since midnight", "DATE", "25-Dec-1997"),
    ("LOLITA MORA needs a repeat script for levothyroxine", "PERSON", "LOLITA MORA"),
    ("seen edda everhart today with cellulitis", "PERSON", "edda everhart"),
    ("Blumstein, 58, chest pain, HEART score 5, admit?", "PERSON", "Blumstein"),
    ("O'brien post op day 2, Hb 7.8, transfuse?", "PERSON", "O'brien"),
    ("Vega's potassium is 6.3, ECG shows peaked T waves", "PERSON", "Vega"),
])
def test_unseen_identifier_shapes_are_found(strict: PresidioPhiDetector, text: str, entity_type: str,
                                            value: str) -> None:
    result = strict.detect(text)
    start = text.index(value)
    assert any(e.entity_type == entity_type and e.start <= start and start + len(value) <= e.end
               or (e.entity_type == entity_type and e.start < start + len(value) and start < e.end)
               for e in result.entities), result.entities
    assert value not in result.redacted_text


@pytest.mark.parametrize("text", [
    "Results of trial NCT05455752 on apixaban in heart failure?",
    "Summarise PMID 31234567 on metformin dosing in the elderly.",
    "Platelets 132000/uL after Xarelto: heparin-induced thrombocytopenia?",
    "Keppra 250 mg: maximum daily dose in adults over 34?",
    "Paediatric dose of Seroquel for a 14 kg child aged 11?",
    "The Nephrology department asks about Eliquis before surgery: hold for how many days?",
    "HLA-B*5801 testing before allopurinol in a 54-year-old?",
    "ICD-10 code E11.21 for type 2 diabetes with nephropathy?",
    "What did the 2019 ESC guideline change about blood pressure targets?",
    "A 64-year-old man with Kawasaki disease: first-line treatment?",
    "Which enzyme needs magnesium as a cofactor for its activity?",
    "A patient presented with headache and fever since 2 days.",
    "Penicillin 1200000 units IM for syphilis?",
    "Wells score 4 and D-dimer 1133 ng/mL: CT pulmonary angiogram?",
    "Video based question - AIIMS NICU - neonate on O2 with nasal prongs",
])
def test_clinical_text_that_looks_like_phi_is_not_flagged(strict: PresidioPhiDetector, text: str) -> None:
    result = strict.detect(text)
    assert not result.contains_phi, result.entities


def test_redaction_covers_the_whole_word() -> None:
    text = "Patient Maria Garcia-Reyes 84736251 has sepsis; Vega's potassium"
    entities = [PhiEntity(entity_type="PERSON", start=8, end=20, score=0.8),
                PhiEntity(entity_type="MEDICAL_RECORD_NUMBER", start=27, end=31, score=0.9),
                PhiEntity(entity_type="PERSON", start=48, end=52, score=0.6)]
    assert redact(text, entities) == "Patient <PERSON> <MEDICAL_RECORD_NUMBER> has sepsis; <PERSON>'s potassium"
    assert whole_word_span("O'Brien-Smith, 72", 2, 7) == (0, 13)


def test_detected_hyphenated_names_leave_no_fragment(strict: PresidioPhiDetector) -> None:
    for text in ("Patient Maria Garcia-Reyes 84736251 has sepsis", "Mrs Garcia-Reyes, MRN 84736251"):
        redacted = strict.detect(text).redacted_text
        assert "Reyes" not in redacted and "Garcia" not in redacted and "8473" not in redacted, redacted


def test_luhn() -> None:
    assert luhn_valid("4539578763621486") and not luhn_valid("4539578763621487")
