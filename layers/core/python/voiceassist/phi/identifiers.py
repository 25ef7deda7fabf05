"""Identifiers by shape and by patient context: bare record numbers, card numbers, postcodes, short addresses.

recognizers.py finds identifiers after a cue naming what they are ("MRN", "account"). Clinicians also type
"patient 84736251 with anaphylaxis" or start a question with the record number; cards come with separators
and without; postcodes come in many national shapes. Each pattern here needs a shape no dose, lab value,
score, year or trial/literature identifier has, or a patient context around it (docs/phi.md).
"""

from __future__ import annotations

from typing import Any

import regex as re
from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer, RecognizerResult
from presidio_analyzer.predefined_recognizers import (
    AuMedicareRecognizer,
    CaSinRecognizer,
    EsNieRecognizer,
    EsNifRecognizer,
    InAadhaarRecognizer,
    ItFiscalCodeRecognizer,
    MedicalLicenseRecognizer,
    NhsRecognizer,
    PhUmidRecognizer,
    PlPeselRecognizer,
    SgFinRecognizer,
)

from voiceassist.phi.recognizers import MEDIUM, STRONG, WEAK

# Units and words that make a number a measurement, not an identifier ("1500000 units", "250000/uL").
_UNIT_AFTER = (r"(?!\s*(?:units?|iu|u/|mg|mcg|µg|ug|ng|g\b|kg|ml|mmol|mol|l\b|cells|copies|/|per\b|%|x\b"
               r"|years?|yrs?|months?|weeks?|days?|hours?|min|cases?|patients?|people|deaths|births))")
# Identifiers of literature, trials and sequences: never a patient's.
_NOT_PATIENT_PREFIX = r"(?!(?:NCT|ISRCTN|PMC|PMID|DOI|ISBN|ISSN|RS|GSE|SRR|CHEMBL|DB|CAS|ATCC|EC|CD|HLA)\d)"
_LITERATURE_CUE = (r"(?<!\b(?:pmid|pmcid|pubmed|nct|isbn|issn|doi|trial|study|accession|ref|reference|cas|atcc"
                   r"|platelets?|count|counts|code|icd|cpt|loinc|snomed|ndc|version|v)\W{0,3})")
_PATIENT_CUE = (r"(?:patient|pt|client|resident|inpatient|outpatient)(?:'?s)?(?:\s+(?:number|no\.?|num|nbr|#"
                r"|id|identifier|ref))?")


def patient_number_recognizer() -> PatternRecognizer:
    """Record numbers by context: after "patient"/"pt", as a question's first word, or shaped like one."""
    digits5 = r"(?=(?:[A-Z-]*\d){5})"
    return PatternRecognizer("MEDICAL_RECORD_NUMBER", name="patient_number", patterns=[
        Pattern("after patient", rf"(?<=\b{_PATIENT_CUE}\s*[:#]?\s*){digits5}[A-Z0-9][A-Z0-9-]{{3,18}}[A-Z0-9]\b"
                rf"{_UNIT_AFTER}", STRONG),
        # "084018381 - sodium 118", "ZN638870: seizing": an identifier that opens a question or a line.
        Pattern("leading id", rf"(?:^|(?<=[\n.!?]\s*)){digits5}(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{{4,18}}[A-Z0-9]"
                r"(?=\s*[-–—:,(])", MEDIUM),
        # "MR36532900", "D6476382": letters then six or more digits, as record systems print them.
        Pattern("prefixed id", rf"\b{_NOT_PATIENT_PREFIX}(?-i:[A-Z]{{1,3}})\d{{6,10}}\b(?![-./]\d)", MEDIUM),
        # A long bare digit run that no unit, range or literature cue explains.
        Pattern("digit run", rf"{_LITERATURE_CUE}(?<![\w./,:+-])\d{{7,12}}(?![\w./,-]|:\d){_UNIT_AFTER}",
                MEDIUM),
    ])


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


class CardNumberRecognizer(PatternRecognizer):
    """Payment card numbers: four groups of four (any separator, no checksum needed), 4-6-5 (Amex), or
    12 to 19 digits that pass the Luhn check."""

    def __init__(self) -> None:
        super().__init__("CREDIT_CARD", name="card_number", patterns=[
            Pattern("grouped card", r"(?<![\d-])\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?(?![\d-])", STRONG),
            Pattern("amex card", r"(?<![\d-])3[47]\d{2}([ -])\d{6}\1\d{5}(?![\d-])", STRONG),
            # a run of digits inside a longer token (a hex id, a hash) is not a card
            Pattern("card digits", r"(?<![\w.,-])\d{12,19}(?![\d.,]\d|[^\W\d])", STRONG),
        ])

    def validate_result(self, pattern_text: str) -> bool | None:
        digits = re.sub(r"\D", "", pattern_text)
        if len(digits) != len(pattern_text):
            return True  # a grouped number: the grouping says card, a mistyped digit does not make it less PHI
        return luhn_valid(digits)


_NOT_YEAR = r"(?!(?:19|20)\d\d\b)"


def postcode_recognizer() -> PatternRecognizer:
    """Postcodes beyond US ZIPs: any shape after a postcode cue, British shapes, and the code that ends an
    address ("..., Walker, 48853.", "Josephinelaan 957, 4531 VK", ", 75008 Paris")."""
    return PatternRecognizer("ZIP_CODE", name="postcode", patterns=[
        Pattern("cued postcode", r"(?<=\b(?:zip|postal|post\s*code|zipcode)\s*(?:code)?\s*(?:is|:|#)?\s*)"
                r"(?=[A-Z]*\d)[A-Z0-9]{2,8}(?:[ -](?=[A-Z]*\d)[A-Z0-9]{2,4})?\b", STRONG),
        Pattern("british postcode", r"(?-i:\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b)", MEDIUM),
        Pattern("dutch postcode", r"(?<=,\s)(?-i:\d{4}\s?[A-Z]{2})\b", MEDIUM),
        Pattern("address end", rf"(?<=\p{{L}}[\p{{L}}.]*,\s){_NOT_YEAR}\d{{4,5}}(?:-\d{{4}})?(?=\s*(?:[.;]\s|[.;]?$))",
                MEDIUM),
        Pattern("before city", r"(?<=,\s)(?!(?:19|20)\d\d\b)\d{4,5}(?=\s(?-i:\p{Lu}\p{Ll}{2,}))", WEAK),
    ], global_regex_flags=re.MULTILINE | re.IGNORECASE)


def located_address_recognizer() -> PatternRecognizer:
    """A house number and capitalised words after "at"/"address"/"lives at": "at 36 Amber Artery"."""
    cue = r"(?<=\b(?:at|address|lives\s+at|living\s+at|resident\s+at|moved\s+to|home\s+is)\s+)"
    word = r"(?-i:\p{Lu}\p{Ll})[\w'’-]*"
    words = rf"{word}(?:\s+{word}){{0,3}}"
    return PatternRecognizer("STREET_ADDRESS", name="located_address", patterns=[
        Pattern("number and name", rf"{cue}\d{{1,6}}[A-Za-z]?(?:/\d{{1,5}})?,?\s+{words}", MEDIUM),
        Pattern("unit then street", rf"(?<=\b(?:studio|flat|unit|apt|apartment)\s+\d{{1,5}}[A-Za-z]?,\s+){words}",
                MEDIUM),
    ])


class CheckedNricRecognizer(SgFinRecognizer):
    """Singapore's NRIC/FIN (Presidio's shape) with its check letter: a valid one is certain, an invalid one is
    Presidio's guess as before (bench/phi_other_generators.py: "S1234567D" leaked without its name)."""

    _LETTERS = {"S": (0, "JZIHGFEDCBA"), "T": (4, "JZIHGFEDCBA"), "F": (0, "XWUTRQPNMLK"),
                "G": (4, "XWUTRQPNMLK"), "M": (3, "KLJNPQRTUWX")}

    def validate_result(self, pattern_text: str) -> bool | None:
        text = pattern_text.upper()
        offset_letters = self._LETTERS.get(text[:1])
        if offset_letters is None or len(text) != 9 or not text[1:8].isdigit():
            return None
        offset, letters = offset_letters
        total = offset + sum(int(d) * w for d, w in zip(text[1:8], (2, 7, 6, 5, 4, 3, 2), strict=True))
        return True if letters[total % 11] == text[8] else None


# A checked national id without its name scores below a cued identifier (STRONG): "Medicaid ID 9876543210" passes
# the NHS number's checksum, and its cue says what it is.
CHECKED_ID = 0.85


class _WholeToken(PatternRecognizer):
    """Presidio's patterns also match inside a longer token; an identifier's shape inside a hex id or a hash (a
    confirmation's action id read as a DEA number or a PESEL: one uuid4 in about 70) is not that identifier."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None,
                regex_flags: int | None = None) -> list[RecognizerResult]:
        results: list[RecognizerResult] = super().analyze(text, entities, nlp_artifacts, regex_flags)
        return [r for r in results if not (_word_char(text, r.start - 1) or _word_char(text, r.end))]


def _word_char(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


class DeaNumberRecognizer(_WholeToken, MedicalLicenseRecognizer):
    """Presidio's US DEA number (two letters, seven digits, checked), as a whole token."""


class _CappedScore(PatternRecognizer):
    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None,
                regex_flags: int | None = None) -> list[RecognizerResult]:
        results: list[RecognizerResult] = super().analyze(text, entities, nlp_artifacts, regex_flags)
        for result in results:
            result.score = min(result.score, CHECKED_ID)
        return results


def national_id_recognizers() -> list[EntityRecognizer]:
    """Presidio's recognizers of national and health identifiers that check a checksum or have a shape no clinical
    text has (measured on clinical_questions_no_phi: none of them fires on its 5,272 texts; docs/phi.md): the NHS
    number, Australia's Medicare, Canada's SIN, India's Aadhaar, Spain's NIF and NIE, Italy's codice fiscale,
    Poland's PESEL, Singapore's NRIC/FIN and the Philippines' UMID. They run on the English pipeline like ours, and
    match whole tokens only."""
    classes: tuple[type[PatternRecognizer], ...] = (
        NhsRecognizer, AuMedicareRecognizer, CaSinRecognizer, InAadhaarRecognizer, EsNifRecognizer, EsNieRecognizer,
        ItFiscalCodeRecognizer, PlPeselRecognizer, CheckedNricRecognizer, PhUmidRecognizer)
    return [type(f"Capped{cls.__name__}", (_CappedScore, _WholeToken, cls), {})(supported_language="en")
            for cls in classes]


def identifier_shape_recognizers() -> list[EntityRecognizer]:
    return [patient_number_recognizer(), CardNumberRecognizer(), postcode_recognizer(),
            located_address_recognizer(), *national_id_recognizers()]
