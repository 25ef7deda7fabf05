"""Clinical PHI recognizers for Presidio: identifiers by pattern, names by NER, cue words and word shape.

Each recognizer aims at the HIPAA Safe Harbor identifiers that show up in a clinician's question (names,
record/account/plan/licence numbers, phone/fax, e-mail, street address, ZIP, dates tied to a person,
ages over 89, URLs and IPs). Clinical text is full of numbers, doses, eponyms and drug names, so every
pattern either needs a shape no dose or lab value has, or a cue word that says what the number is.
"""

from __future__ import annotations

import regex as re
from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer

# Scores: STRONG needs nothing else; WEAK is a guess that only the strict mode acts on.
STRONG = 0.9
MEDIUM = 0.6
WEAK = 0.4

_ID = r"[A-Z0-9][A-Z0-9-]{3,18}[A-Z0-9]"  # an identifier: at least 5 characters ...
_HAS_DIGITS = r"(?=[A-Z-]*\d[A-Z-]*\d)"  # ... of which at least two are digits
_GLUE = r"(?:\s*(?:number|num|no\.?|nbr|id|#|is|was|of|:)\s*){0,3}\s*"


# ... or a number written in groups of three, as speech recognizers write a spoken one ("4,417,823", "4 417 823"),
# of five digits or more
_GROUPED = r"(?=(?:\d[,\s]?){5})\d{1,3}(?:[,\s]\d{3}){1,4}"
# ... or dictated digit by digit, five digits or more: "4 8 2 1 3 3 7 7", "four eight two one three three seven seven"
# (English's names of the ten digits, and "oh" for zero as a number is read aloud)
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_DICTATED = rf"(?:\d\s){{4,}}\d(?!\d|[.,]\d)|(?:{_DIGIT_WORD}[\s-]+){{4,}}{_DIGIT_WORD}"


def _cued(name: str, cues: str, score: float = STRONG) -> Pattern:
    """A value that follows a cue phrase; only the value is the entity (variable-width look-behind)."""
    return Pattern(name, rf"(?<=\b(?:{cues}){_GLUE})(?:{_GROUPED}(?!\d|,\d)|{_DICTATED}|{_HAS_DIGITS}{_ID})\b",
                   score)


def identifier_recognizers() -> list[PatternRecognizer]:
    """Record, account, plan and licence numbers, recognised by what precedes them."""
    table = {
        "MEDICAL_RECORD_NUMBER": r"mrn|medical\s+record|med\s+rec|chart|patient\s+id|hospital\s+(?:number|no)"
        r"|case\s+(?:number|no)|encounter|visit\s+(?:number|no|id)|admission\s+(?:number|no)",
        "ACCOUNT_NUMBER": r"account|acct|a/c|billing|invoice|claim",
        "HEALTH_PLAN_ID": r"member|subscriber|policy|insurance|health\s+plan|medicaid|medicare|beneficiary"
        r"|group\s+(?:number|no)|insurer",
        "LICENSE_NUMBER": r"licen[cs]e|certificate|dea|npi|passport|registration",
        "DEVICE_ID": r"serial|device|implant|pacemaker|vehicle|vin|plate",
    }
    recognizers = [
        PatternRecognizer(entity, name=f"{entity.lower()}_cued", patterns=[_cued(entity, cues)])
        for entity, cues in table.items()
    ]
    recognizers.append(PatternRecognizer(
        "US_DRIVER_LICENSE", name="us_driver_license_cued",
        # Scored above the generic licence cue so that a driver's licence keeps its own type.
        patterns=[_cued("driver licence", r"driver'?s?\s+licen[cs]e|driving\s+licen[cs]e|\bDL", 0.95)]))
    return recognizers


_SSN_INVALID = re.compile(r"^(?:000|666|9\d\d)|^\d{3}\D?00|0000$")


class SsnRecognizer(PatternRecognizer):
    """US social security numbers: dashed form on its own, bare nine digits only after a cue."""

    def __init__(self) -> None:
        super().__init__("US_SSN", name="us_ssn_clinical", patterns=[
            Pattern("ssn dashed", r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])", STRONG),
            Pattern("ssn cued", r"(?<=\b(?:ssn|social\s+security)\D{0,25})\b\d{3}[ .-]?\d{2}[ .-]?\d{4}\b",
                    STRONG),
            Pattern("ssn dictated", rf"(?<=\b(?:ssn|social\s+security)\D{{0,25}})\b(?:{_DICTATED})\b", STRONG),
        ])

    def invalidate_result(self, pattern_text: str) -> bool:
        return bool(_SSN_INVALID.search(pattern_text.replace(" ", "").replace(".", "-")))


class PhoneRecognizer(PatternRecognizer):
    """Phone and fax numbers: three or more digit groups, or a bracketed/plus prefix, 7 to 15 digits."""

    def __init__(self) -> None:
        groups = r"(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?(?:\d{2,5}[\s.-]){1,4}\d{2,8}"
        extension = r"(?:\s?(?:x|ext\.?)\s?\d{1,5})?"
        super().__init__("PHONE_NUMBER", name="phone_clinical", patterns=[
            Pattern("phone groups", rf"(?<![\w/.,:-]){groups}{extension}(?![\w/%]|[.,-]\d)", MEDIUM),
        ], context=list(_PHONE_CUES))

    def invalidate_result(self, pattern_text: str) -> bool:
        digits = sum(c.isdigit() for c in pattern_text)
        if not 7 <= digits <= 15:
            return True
        # Two groups joined by a dash or dot read as a range or a decimal ("1500-2000") unless a trunk
        # zero starts them ("06-24312407"); joined by a space they read as a local number ("785 8949").
        two_groups = re.fullmatch(r"(\d+)([.-])\d+", pattern_text.strip())
        iso_date = re.match(r"(?:19|20)\d\d-\d\d-\d\d", pattern_text.strip())
        return bool((two_groups and not two_groups.group(1).startswith("0")) or iso_date
                    or _calendar_date(pattern_text.strip()))


def _calendar_date(text: str) -> bool:
    """Day, month and a four-digit year with one separator ("12.03.1956", "03-12-1956"): a date, which the date
    recognizer labels; as a phone number it would be redacted as <PHONE_NUMBER>."""
    match = re.fullmatch(r"(\d{1,2})([.-])(\d{1,2})\2((?:18|19|20)\d\d)", text)
    if match is None:
        return False
    first, second = int(match.group(1)), int(match.group(3))
    return min(first, second) >= 1 and max(first, second) <= 31 and min(first, second) <= 12


_PHONE_CUES = ("phone", "tel", "telephone", "fax", "cell", "mobile", "call", "pager", "reach", "contact")


def cued_phone_recognizer() -> PatternRecognizer:
    """Any 7 to 15 digits right after a phone word: "call 9469 9966" has no other shape to go by."""
    cues = "|".join(_PHONE_CUES)
    return PatternRecognizer("PHONE_NUMBER", name="phone_cued", patterns=[
        Pattern("phone cued", rf"(?<=\b(?:{cues})\D{{0,20}})\+?\d(?:[\s().-]?\d){{6,14}}(?![\d/])", STRONG),
    ])


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")


def date_recognizer() -> PatternRecognizer:
    """Calendar dates precise to the day (a year alone, a duration or '17 weeks' is not PHI).

    A date is PHI when it belongs to a person; without a cue (born, admitted, ...) it is only a guess
    that the strict mode acts on ("as on 31st March 2016" in a statistics question is not a patient's).
    """
    numeric = r"(?<![\d/.-])\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?![\d/-]|\.\d)"
    year = r"(?:\d{4}|['’]\d\d(?!\d))"  # or its last two digits after an apostrophe: "March the 3rd, '61"
    month_first = rf"{_MONTH}\.?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?,?\s+{year}"
    # the separators may be missing: "05May1978", "05MAY1978" (EHR exports, file names)
    day_first = rf"\d{{1,2}}(?:st|nd|rd|th)?(?:\s+|-)?(?:of\s+)?{_MONTH}\.?,?(?:\s+|-)?{year}"
    iso = r"(?:19|20)\d\d-[01]\d-[0-3]\d"
    any_date = rf"(?:{numeric}|\b{month_first}\b|\b{day_first}\b|\b{iso}\b)"
    events = r"born|dob|birth|birthday|admitted|admission|discharged|died|deceased|seen|visit"
    cue = rf"(?<=\b(?:{events})(?:\W+[\w']{{1,5}}){{0,3}}\W+)"  # "DOB:", "born on", "date of birth. It's"
    return PatternRecognizer("DATE", name="date_clinical", patterns=[
        Pattern("date", any_date, 0.5),
        Pattern("cued date", cue + any_date, STRONG),
        Pattern("cued day", rf"{cue}{_MONTH}\.?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\b", STRONG),
        Pattern("cued day first", rf"{cue}\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", STRONG),
    ])


def age_over_89_recognizer() -> PatternRecognizer:
    """Ages of 90 and over are PHI on their own (Safe Harbor); younger ages are not."""
    unit = r"(?:-|\s)?(?:years?-old|yrs?-old|years?|yrs?|yo|y/o|y\.o\.)(?!\w)"
    return PatternRecognizer("AGE_OVER_89", name="age_over_89", patterns=[
        Pattern("age with unit", rf"\b(?:9\d|1[0-2]\d)\s?{unit}", STRONG),
        Pattern("aged", r"(?<=\b(?:aged?|age\s+of)\s+)(?:9\d|1[0-2]\d)\b", STRONG),
    ], global_regex_flags=re.IGNORECASE)


def network_recognizers() -> list[PatternRecognizer]:
    """URLs that name a host (bare 'e.g.' or 'N. gonorrhoea' never match) and e-mail addresses."""
    url = PatternRecognizer("URL", name="url_clinical", patterns=[
        Pattern("url", r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)]", STRONG),
    ])
    email = PatternRecognizer("EMAIL_ADDRESS", name="email_clinical", patterns=[
        Pattern("email", r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b", STRONG),
    ])
    return [url, email]


# Street words that are nothing else, and those that are also English ("she still gardens", "by the way"):
# the second kind counts only capitalised.
_STREET_SUFFIX = r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|parkway|pkwy|highway|hwy|terrace"
_AMBIGUOUS_STREET_SUFFIX = (
    r"Drive|Dr|Court|Ct|Way|Place|Pl|Circle|Cir|Square|Sq|Trail|Crescent|Close|Alley|Plaza|Row|Mews"
    r"|Gardens|Grove"
    # more USPS street suffixes, capitalised only ("a bypass", "the estate" stay English)
    r"|Estate|Estates|Bypass|Gateway|Turnpike|Station|Landing|Annex|Crest|Summit|Points?|Spring|Springs|Pines?"
    r"|Neck|Ranch|Run|Mall|Park|Crossing|Heights|Hills?|Meadows?|Ridge|Vista|View|Village|Walk|Path|Pike|Loop"
    r"|Expressway|Freeway|Motorway|Junction|Harbor|Harbour|Shores?|Falls|Ferry|Fork|Forge|Glen|Haven|Hollow"
    r"|Isle|Knoll|Manor|Mill|Mount|Orchard|Pass|Port|Prairie|Rapids|Rest|Shoal|Skyway|Spur|Stream|Track"
    r"|Trace|Tunnel|Union|Valley|Wells|Corner|Courts|Cove|Creek|Dale|Dam|Divide|Estate|Extension|Field"
    r"|Flats|Ford|Fort|Garden|Green|Inlet|Island|Keys?|Lake|Landing|Light|Lodge|Mews|Oval|Plains?|Quay"
    r"|Radial|Ramp|Row|Shore|Square|Stravenue|Throughway|Trafficway|Underpass|Viaduct|Ville|Wall|Wharf"
)
# Continental street words, as a word of their own ("Grote Baan") or the end of one ("Bruggenweg");
# the short ones end English words too ("during 2"), so they count only in a capitalised word.
_STREET_WORD_END = (
    r"stra(?:ss|ß)e|str\.|gasse|gatan|vägen|veien|straat|plein|plaats|dreef|gracht|utca|ulica|allee"
)
_SHORT_STREET_WORD_END = (
    r"weg|vej|gade|gata|väg|vei|laan|baan|kade|singel|tie|katu|kuja|polku|út|tér|platz|damm"
)
_STREET_PREFIX = (
    r"via|viale|piazza|calle|carrer|avenida|av\.|rua|praça|travessa|rue|chemin|ctra\.|paseo|avenue|ul\.|trg"
)
_CAPITAL_WORD = r"(?-i:\p{Lu})[\w'’-]*"
_NAME_WORD = r"(?!(?:the|a|an|of|in|on|at|to|for|with|and|or|by|from|is|was|per)\b)[^\W\d_][\w'’.-]*"


class StreetAddressRecognizer(PatternRecognizer):
    """Street addresses in English and continental forms, unit numbers, PO and military boxes."""

    def __init__(self) -> None:
        patterns = [
            Pattern("number then street", rf"\b\d{{1,6}}[A-Za-z]?,?\s+(?:{_NAME_WORD}\s+){{1,4}}"
                    rf"(?:{_STREET_SUFFIX}|(?-i:{_AMBIGUOUS_STREET_SUFFIX}))\b\.?", MEDIUM),
            Pattern("street then number", rf"\b(?:{_CAPITAL_WORD}\s+){{0,3}}[^\W\d_]*(?:{_STREET_WORD_END})"
                    rf"\s*\d{{1,5}}[A-Za-z]?\b", MEDIUM),
            Pattern("capitalised street then number", rf"\b(?:{_CAPITAL_WORD}\s+){{0,3}}(?-i:\p{{Lu}})\w*"
                    rf"(?:{_SHORT_STREET_WORD_END})\s*\d{{1,5}}[A-Za-z]?\b", MEDIUM),
            Pattern("prefix street", rf"\b(?:{_STREET_PREFIX})\s+(?:{_NAME_WORD}\s+){{1,4}}\d{{1,5}}\b",
                    MEDIUM),
            Pattern("unit", r"\b(?:apt|apartment|suite|ste|unit|flat)\.?\s*#?\s*\d{1,5}[A-Za-z]?\b", MEDIUM),
            Pattern("box", r"\b(?:p\.?\s?o\.?\s+box|box|psc|cmr|unit)\s+\d{2,6}\b", MEDIUM),
            Pattern("military", r"\b(?:apo|fpo|dpo)\s+(?:aa|ae|ap)\b(?:\s+\d{5})?", STRONG),
            Pattern("corner", rf"\bcorner\s+of\s+(?:{_NAME_WORD}\s+){{1,4}}and\s+(?:{_NAME_WORD}\s*){{1,4}}",
                    MEDIUM),
        ]
        super().__init__("STREET_ADDRESS", name="street_address", patterns=patterns,
                         context=["address", "live", "lives", "street", "moved", "send", "mail", "meet"])


def zip_code_recognizer() -> PatternRecognizer:
    """ZIP and postal codes: after a cue, a state code, or a place name that ends an address line."""
    return PatternRecognizer("ZIP_CODE", name="zip_code", patterns=[
        Pattern("cued zip", r"(?i)(?<=\b(?:zip|postal|post)\s*(?:code)?\s*(?:is|:)?\s*)\d{5}(?:-\d{4})?\b",
                STRONG),
        Pattern("state zip", r"(?<=\b[A-Z]{2}\s+)\d{5}(?:-\d{4})?\b", STRONG),  # "IL 62704", "AP 95145"
        Pattern("line end", r"(?<=\p{Lu}\p{Ll}+,?\s)\d{5}(?:-\d{4})?(?=\s*$)", MEDIUM),
    ], global_regex_flags=re.MULTILINE)


def pattern_recognizers() -> list[EntityRecognizer]:
    """Every pattern recognizer of the clinical PHI engine (names are PersonNameRecognizer's job)."""
    return [
        *identifier_recognizers(), SsnRecognizer(), PhoneRecognizer(), cued_phone_recognizer(),
        date_recognizer(), age_over_89_recognizer(), *network_recognizers(), StreetAddressRecognizer(),
        zip_code_recognizer(),
    ]
