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


@pytest.mark.parametrize(("text", "name"), [
    ("Frau schwarzenegger-lind, 77, on edoxaban: fall with head strike, CT?", "schwarzenegger-lind"),
    ("Herr Oberhuber 69 with COPD exacerbation, prednisolone dose?", "Oberhuber"),
    ("Mme lefebvre-moreau asks if she can take naproxen with ramipril", "lefebvre-moreau"),
    ("M. Rousseau, 58, new diabetes: start metformin?", "Rousseau"),
    ("Sra. echeverría 83 with delirium: quetiapine dose?", "echeverría"),
    ("Sr quintanilla, 61, gout flare on furosemide", "quintanilla"),
    ("mr baker 70 with CKD 4: is gabapentin ok?", "baker"),
    ("Dr. bright-oyelaran wants a second opinion on the DOAC dose", "oyelaran"),
    ("Mr zwierzchowski 77, new AF: rate or rhythm?", "zwierzchowski"),
    ("Mr young 55 with gout: allopurinol?", "young"),
    ("Ms white-white 50 with a UTI: nitrofurantoin?", "white"),
    ("Mrs ng 70 with AF, apixaban dose?", "ng"),
])
def test_a_name_after_a_european_title_or_in_lower_case_is_redacted(strict: PresidioPhiDetector, text: str,
                                                                   name: str) -> None:
    result = strict.detect(text)

    assert result.contains_phi and name not in result.redacted_text


@pytest.mark.parametrize("text", [
    "M. pneumoniae suspected in a 30 year old: azithromycin or doxycycline?",
    "M. tuberculosis on culture, start rifampicin?",
    "severe MR on echo, on furosemide: add spironolactone?",
    "MS contin 60 mg twice daily, convert to oxycodone?",
    "mr grade 3 on the echo, refer to cardiology?",
    "ms flare, IV methylprednisolone dose?",
    "Dr said to hold metformin before contrast, right?",
    "Dr said 5 mg twice daily is fine?",
    "Dr said 10 days of amoxicillin, ok?",
])
def test_a_genus_or_an_abbreviation_shaped_like_a_title_is_not_a_name(strict: PresidioPhiDetector,
                                                                     text: str) -> None:
    assert not strict.detect(text).contains_phi


def test_the_first_token_from_a_character_is_the_one_a_scan_finds() -> None:
    """first_token_from bisects where each title and cue scanned the doc from its start (quadratic: a text of
    4,000 characters of titles took about 10 s, and the detector failed closed for everyone queued behind it;
    bench/phi_degenerate.py measures it)."""
    import spacy

    from voiceassist.phi.name_titles import first_token_from

    doc = spacy.blank("en")("Mr  Smith, bed 12  mrs o'brien-kelly, 71.  ")
    for char in range(len(doc.text) + 2):
        assert first_token_from(doc, char) == next((t.i for t in doc if t.idx >= char), None)


@pytest.mark.parametrize("spaces", [1, 70])
def test_a_name_far_from_its_title_by_spaces_is_still_found(strict: PresidioPhiDetector, spaces: int) -> None:
    result = strict.detect(f"Mrs{' ' * spaces}kowalczyk, 82, delirium: haloperidol dose?")
    assert result.contains_phi and "kowalczyk" not in result.redacted_text
