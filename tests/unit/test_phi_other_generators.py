"""PHI shapes other generators produce that ours did not (bench/phi_other_generators.py, docs/phi.md).

The bench found them leaking: ages over 89 written "93F" or in words, national identifiers of other countries with
or without their name, phone numbers dictated digit by digit or written with a bare "+" prefix, record numbers
after "unit no.", and licence plates. The sentences here are written fresh (none is one of the bench's templates),
with the clinical text each rule must leave alone.
"""

from __future__ import annotations

import pytest

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.settings import PhiMode


@pytest.fixture(scope="session")
def strict() -> PresidioPhiDetector:
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    return detector


@pytest.fixture(scope="session")
def lenient() -> PresidioPhiDetector:
    return PresidioPhiDetector(mode=PhiMode.LENIENT)


# (text, the value that must not survive redaction)
LEAKED = [
    # ages over 89: with the sex letter, after "age:", in words
    ("94M admitted with urosepsis overnight, gentamicin dose?", "94M"),
    ("new referral, 97F, recurrent falls - stop the doxazosin?", "97F"),
    ("age: 102, delirium on the ward, haloperidol or lorazepam?", "102"),
    ("she is ninety-six years old and declines the PEG, what now?", "ninety-six"),
    ("a ninety-one-year-old man in retention, catheter size?", "ninety-one"),
    ("aged ninety-eight, eGFR 25: apixaban 2.5 or 5 mg?", "ninety-eight"),
    # national identifiers after their name
    ("NHI QKD4821 admitted with cellulitis, flucloxacillin dose?", "QKD4821"),
    ("DNI 52871346K, alergia a penicilina: can she have cefalexin?", "52871346K"),
    ("CURP GOMA850312HDFRRN05 - new diabetes, start metformin?", "GOMA850312HDFRRN05"),
    ("PPSN 8273645WA on lithium, level due", "8273645WA"),
    ("IHI 8003 6087 1234 5566 - falls clinic referral", "1234"),
    ("NI no QQ 12 34 56 C, on methotrexate: folic acid weekly?", "QQ"),
    ("Emirates ID 784-1975-4432187-2, HbA1c 9.1 %, add a GLP-1?", "4432187"),
    ("BSN 111222333 heeft een penicilline-allergie, cefuroxim?", "111222333"),
    # national identifiers by their own checked shape, without their name
    ("RSSMRA85T10A562S: warfarin and the new clarithromycin?", "RSSMRA85T10A562S"),
    ("re S1234567D - sodium 119 this morning, fluid restrict?", "S1234567D"),
    ("please review 12345678Z, INR 5.2 on acenocoumarol", "12345678Z"),
    # phone numbers: dictated, a bare "+" prefix, a bracketed five-digit area code
    ("please ring his wife on oh seven nine double one one two three four five six", "nine"),
    ("she can be called back on zero two nine eight seven six five four three two tonight", "eight"),
    ("the son's number is +447911123456, he wants an update on the sepsis", "+447911123456"),
    ("GP surgery on +64-9-367-2345 asks about the INR plan", "367"),
    ("community team on (01632) 960001 for the syringe driver", "960001"),
    # record numbers after "unit no." / "visit no."
    ("unit no. 483920 for the echo, EF 30 %: start sacubitril?", "483920"),
    ("visit no. 2231K8890 - chest pain, troponin 54", "2231K8890"),
    # names: an initial and a surname, a given name and a surname in capitals, lower case after a clinician's verb
    ("pharmacy asks about R. Castillo on the ward, vancomycin trough 22", "Castillo"),
    ("Dear Dr, I reviewed JT Kowalczyk today with worsening ascites", "Kowalczyk"),
    ("handover from nights: Megan OSULLIVAN in bay 4, lactate 3.1", "OSULLIVAN"),
    ("thanks for seeing carla mendez, her INR is 4.8 on warfarin", "mendez"),
    ("I discussed wanda peterson with the palliative team", "peterson"),
    # an address typed in lower case: number, street, town, code
    ("district nurses to visit 17 orchard close, little hadham, sg11 2ed for the dressing", "orchard"),
    ("he lives at 4410 pine hollow drive, westfield, nj 07090 with his wife", "4410"),
    # licence plates after what names a car
    ("the car (reg LK19 XYZ) is blocking the ambulance bay, he had a seizure at the wheel", "LK19"),
    ("his car BN68KTD is still in the car park, GCS now 12", "BN68KTD"),
    ("number plate 7ABC123 reported by the police, driver intoxicated, head injury", "7ABC123"),
]

CLEAN = [
    "T 101F overnight, cultures sent: start tazocin?",
    "spiking to 102F after the transfusion, stop it?",
    "temp 99F and HR 110 post-op day 2",
    "89F with COPD exacerbation, prednisolone dose?",
    "ninety minutes after the dose the rash appeared",
    "CAR T-cell therapy for DLBCL: cytokine release grading?",
    "car accident 3 days ago, C-spine cleared, now neck pain",
    "one or two tablets four times a day, up to eight in 24 hours",
    "CF with F508del homozygous: is ivacaftor licensed?",
    "CNS involvement in 25 % of cases: intrathecal methotrexate?",
    "NICE NG136 and SIGN 158: which target for over 80s?",
    "he was the driver of the car and not wearing a seatbelt",
    "sin 30 degrees is 0.5, unrelated: what is the Q-angle normal range?",
    "S. Aureus bacteraemia: how long of IV flucloxacillin?",
    "CT Head was normal, is an MRI needed for the vertigo?",
    "IV Fluids at 125 mL/h, when to stop?",
    "I discussed warfarin bridging with the haematology team",
    "thanks for seeing her so quickly, the rash is better",
    "Grace PERIOD for the appointment is 15 minutes",
    "She took 2 puffs the wrong way, no relief, 20 minutes later still wheezy",
    "Given 4 units by the same route, no change, 120 minutes on: glucose 19",
    "3 days on the ward, afebrile, 2 cultures negative: stop the antibiotics?",
    "FIN 10 % of patients, what is the NNT?",
]


@pytest.mark.parametrize(("text", "value"), LEAKED)
def test_shapes_other_generators_write_route_inside_and_redact(strict: PresidioPhiDetector, text: str,
                                                               value: str) -> None:
    result = strict.detect(text)
    assert result.contains_phi, text
    assert value not in result.redacted_text, result.redacted_text


@pytest.mark.parametrize(("text", "value"), LEAKED)
def test_the_shapes_are_strong_enough_for_lenient(lenient: PresidioPhiDetector, text: str, value: str) -> None:
    assert lenient.detect(text).contains_phi, text


@pytest.mark.parametrize("text", CLEAN)
def test_clinical_text_with_those_shapes_stays_clean(strict: PresidioPhiDetector, text: str) -> None:
    result = strict.detect(text)
    assert not result.contains_phi, (text, result.entities)
