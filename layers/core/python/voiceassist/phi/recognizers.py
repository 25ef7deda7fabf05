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
# "double seven", "triple oh": how a repeated digit is said (bench/phi_other_generators.py, dictated numbers)
_SPOKEN_DIGIT = rf"(?:(?:double|triple)[\s-]+)?{_DIGIT_WORD}"
_DICTATED = rf"(?:\d\s){{4,}}\d(?!\d|[.,]\d)|(?:{_SPOKEN_DIGIT}[\s-]+){{4,}}{_SPOKEN_DIGIT}"
# Six digits or more said one by one, with no cue: a phone or an identifier read aloud; no dose, count or score is
# said that way ("oh seven nine double one one two three four five six").
_SPOKEN_RUN = rf"\b(?:{_SPOKEN_DIGIT}[\s-]+){{5,}}{_SPOKEN_DIGIT}\b"


# ... or, after a national identifier's name, groups of letters and digits ("QQ 12 34 56 C", "8003 6087 1234 5566"):
# each group after the first holds a digit or is a lone letter, so the words after it are not taken
_SPACED = r"(?=[A-Z0-9 ]*\d[A-Z0-9 ]*\d)[A-Z0-9]{1,6}(?: (?:\d[A-Z0-9]{0,6}|[A-Z](?![\w-]))){1,5}"


def _cued(name: str, cues: str, score: float = STRONG, *, spaced: bool = False) -> Pattern:
    """A value that follows a cue phrase; only the value is the entity (variable-width look-behind)."""
    value = rf"{_GROUPED}(?!\d|,\d)|{_DICTATED}|{_HAS_DIGITS}{_ID}" + (rf"|{_SPACED}" if spaced else "")
    return Pattern(name, rf"(?<=\b(?:{cues}){_GLUE})(?:{value})\b", score)


def identifier_recognizers() -> list[PatternRecognizer]:
    """Record, account, plan and licence numbers, recognised by what precedes them."""
    table = {
        # "no." with its dot: "visit no. 2231K8890" ("unit no.", Australia's URN: unit record number)
        "MEDICAL_RECORD_NUMBER": r"mrn|medical\s+record|med\s+rec|chart|patient\s+id"
        r"|hosp(?:ital|\.)?\s+(?:number|no\.?)|case\s+(?:number|no\.?)|encounter|visit\s+(?:number|no\.?|id)|admission\s+(?:number|no\.?)"
        r"|unit\s+(?:number|no\.?)|(?-i:URN)",
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
    recognizers.append(PatternRecognizer("NATIONAL_ID", name="national_id_cued", patterns=[
        _cued("national id", _NATIONAL_ID_CUES, spaced=True)]))
    recognizers.append(vehicle_recognizer())
    recognizers.append(PatternRecognizer(
        "US_DRIVER_LICENSE", name="us_driver_license_cued",
        # Scored above the generic licence cue so that a driver's licence keeps its own type.
        patterns=[_cued("driver licence", r"driver'?s?\s+licen[cs]e|driving\s+licen[cs]e|\bDL", 0.95)]))
    return recognizers


# The names of national and health identifiers (bench/phi_other_generators.py: cued, they leaked): the UK's NHS,
# National Insurance and Scotland's CHI numbers, New Zealand's NHI, Australia's IHI, Ireland's PPSN, the
# Philippines' SSS and UMID, Singapore's NRIC/FIN, Spain's DNI/NIE/NIF, Mexico's CURP/RFC, France's NIR, Germany's
# KVNR, Brazil's CPF and cartão SUS, the Netherlands' BSN, Poland's PESEL, Canada's SIN and health card, India's
# Aadhaar, the Emirates ID. Acronyms count in capitals only ("CF", "CNS" and "fin" are not among them: cystic
# fibrosis, the nervous system).
_NATIONAL_ID_CUES = (
    r"(?-i:NHS|NHI|IHI|CHI|PPSN?|SSS|UMID|NRIC|FIN|DNI|NIE|NIF|CURP|RFC|NIR|KVNR|CPF|BSN|PESEL|SIN|INSEE)"
    r"|ni\s+(?:number|no)|national\s+(?:insurance|id|identity|health\s+index)|aadhaa?r|health\s+card|ohip"
    r"|philhealth|emirates\s+id|id\s+card|identity\s+(?:card|number)|social\s+insurance|cart[ãa]o\s+(?:sus|nacional)"
    r"|codice\s+fiscale|s[ée]cu(?:rit[ée]\s+sociale)?|carte\s+vitale|versichertennummer|personnummer|identifier"
)
# What names a car before its plate ("his car BN68KTD", "(reg LK19 XYZ)", "number plate 7ABC123", "driver of ...").
_VEHICLE_CUES = (
    r"(?:car|vehicle|motorbike|motorcycle|taxi)(?:\s+(?:reg(?:istration)?|plate|number|no\.?))?"
    r"|reg(?:istration)?(?:\s+(?:no\.?|number|plate|mark))?|(?:number|licen[cs]e)\s+plate|driver\s+of"
)


def vehicle_recognizer() -> PatternRecognizer:
    """Licence plates after what names a car: capitals and digits, both, 5 to 10 of them in up to four groups."""
    plate = (r"(?-i:(?=(?:[ -]?[A-Z0-9]){5})(?=[A-Z0-9 -]{0,12}\d)(?=[A-Z0-9 -]{0,12}[A-Z])"
             r"[A-Z0-9]{1,4}(?:[ -]?[A-Z0-9]{1,4}){1,3})(?![\w-])")
    return PatternRecognizer("VEHICLE_ID", name="vehicle_plate", patterns=[
        Pattern("plate", rf"(?<=\b(?:{_VEHICLE_CUES})\b\s*[(:]?\s*){plate}", MEDIUM),
    ])


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
        groups = r"(?:\+\d{1,3}[\s.-]?)?(?:1[\s.-])?(?:\(\d{1,5}\)[\s.-]?)?(?:\d{2,5}[\s.-]){1,4}\d{2,8}"
        # A "+" country code or a bracketed area code says phone by itself: "+447911123456", "+64-9-367-2345",
        # "(01632) 960001" (bench/phi_other_generators.py: Faker's and presidio-evaluator's formats).
        prefixed = (r"(?:\+\d{1,3}[\s.-]?(?:\(\d{1,5}\)[\s.-]?)?|\(\d{2,5}\)[\s.-]?)"
                    r"(?:\d{1,5}[\s.-]){0,4}\d{2,11}")
        extension = r"(?:\s?(?:x|ext\.?)\s?\d{1,5})?"
        super().__init__("PHONE_NUMBER", name="phone_clinical", patterns=[
            Pattern("phone groups", rf"(?<![\w/.,:-]){groups}{extension}(?![\w/%]|[.,-]\d)", MEDIUM),
            Pattern("phone prefixed", rf"(?<![\w/.,:+-]){prefixed}{extension}(?![\w/%]|[.,-]\d)", MEDIUM),
            Pattern("phone dictated", _SPOKEN_RUN, MEDIUM),
        ], context=list(_PHONE_CUES))

    def invalidate_result(self, pattern_text: str) -> bool:
        if re.fullmatch(_SPOKEN_RUN, pattern_text):
            return False
        digits = sum(c.isdigit() for c in pattern_text)
        if not 7 <= digits <= 15 or re.match(r"\((?:19|20)\d\d\)", pattern_text):  # "(2019) 393 447": a citation
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


_PHONE_CUES = ("phone", "tel", "telephone", "fax", "cell", "mobile", "call", "pager", "reach", "contact", "ring")


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
    not_days = r"(?!\s*(?:days?|d\b|weeks?|wks?|months?|mo\b|%|mg|ml|min))"
    ones = r"(?:one|two|three|four|five|six|seven|eight|nine)"
    words = rf"(?:ninety(?:[\s-]{ones})?|(?:a|one)\s+hundred(?:\s+and\s+(?:{ones}|ten|eleven|twelve))?)"
    # "93F", "91 M": the age before the sex, as handovers write it; not a temperature ("T 101F", "spiking to 102F")
    temperature = r"(?<!\b(?:t|temp\w*|fever\w*|febrile|pyrex\w*|spik\w*|t\s?max|max|peak\w*)\b[^.;\n]{0,12})"
    return PatternRecognizer("AGE_OVER_89", name="age_over_89", patterns=[
        Pattern("age with unit", rf"\b(?:9\d|1[0-2]\d)\s?{unit}", STRONG),
        Pattern("aged", rf"(?<=\b(?:aged?|age\s+of)\s*[:=]?\s*)(?:9\d|1[0-2]\d)\b{not_days}", STRONG),
        Pattern("age and sex", rf"{temperature}(?<![\w.,/°-])(?:9\d|1[0-2]\d)\s?(?-i:[MF])(?![\w°])", STRONG),
        Pattern("age in words", rf"\b{words}[\s-]+(?:years?[\s-]+old|year-old|yrs?[\s-]+old)\b", STRONG),
        Pattern("aged in words", rf"(?<=\baged?\s*:?\s*){words}\b{not_days}", STRONG),
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
_ADDRESS_WORD = r"[\p{L}'’.-]+"
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
            # An address typed in lower case, where a street word says nothing by itself ("the wrong way"): a house
            # number, a street word in lower case (capitalised ones are the rules above), a comma, the town, a comma,
            # a code with a digit ("232 steven place, lake
            # billy, s2 4fd", "16323 khan ford, zamoraport, nd 77478": bench/phi_other_generators.py).
            Pattern("number street town code", rf"(?<![\w/.,-])\d{{1,6}}(?:-?[a-z])?\s+(?:{_ADDRESS_WORD}\s+){{0,3}}"
                    rf"(?-i:(?=\p{{Ll}}))(?:{_STREET_SUFFIX}|{_AMBIGUOUS_STREET_SUFFIX})s?\b,\s*(?:{_ADDRESS_WORD}\s+){{0,3}}"
                    rf"{_ADDRESS_WORD},"
                    r"\s*(?:[a-z]{2,3}\.?,?\s+)?(?=[a-z0-9 -]{0,8}\d)(?:[a-z0-9]{3,7}|[a-z]\d)"
                    r"(?:[ -]\d[a-z0-9]{1,3})?(?![\w-])"
                    r"(?!\s*(?:mg|mcg|ml|min|minutes?|hours?|hrs?|days?|weeks?|units?|%|mmol|kg|g|l|x)\b)",
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
