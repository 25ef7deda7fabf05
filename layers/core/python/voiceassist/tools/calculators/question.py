"""Answering without a model: which calculator a question names, and its parameters read by rule.

`detect_calculator` matches names and aliases; `extract_parameters` reads age, sex, named conditions (with
negation: "no diabetes", "without hypertension"), measurements with units, and a few calculator-specific
phrasings, then reports the required fields it could not find so the caller can ask for them.
"""

from __future__ import annotations

import re
from typing import Any

from voiceassist.errors import InvalidInput
from voiceassist.query.population import NUMBER_WORDS, cardinal
from voiceassist.tools.calculators.base import CalculatorResult
from voiceassist.tools.calculators.plausible_ranges import physiologic_range
from voiceassist.tools.calculators.question_patterns import (
    CALCULATOR_ALIASES,
    CONCEPTS,
    MEASUREMENTS,
    NEGATION,
    SCOPE_BREAK,
)
from voiceassist.tools.calculators.question_specials import SPECIAL_EXTRACTORS
from voiceassist.tools.calculators.registry import get_calculator, run_calculator
from voiceassist.tools.calculators.units import convert

_ALIASES = [(name, re.compile(pattern, re.IGNORECASE)) for name, pattern in CALCULATOR_ALIASES]

# calculator -> {params field: concepts any of which sets it}
CONCEPT_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "chadsvasc": {"congestive_heart_failure": ("heart_failure",), "hypertension": ("hypertension",),
                  "diabetes": ("diabetes",), "stroke_tia_thromboembolism": ("stroke", "tia", "thromboembolism"),
                  "vascular_disease": ("vascular_disease",)},
    "hasbled": {"hypertension": ("hypertension",), "renal_disease": ("renal_disease",),
                "liver_disease": ("liver_disease",), "stroke": ("stroke",), "prior_bleeding": ("bleeding",),
                "labile_inr": ("labile_inr",), "antiplatelet_or_nsaid": ("bleeding_drugs",)},
    "heart_score": {"hypertension": ("hypertension",), "hypercholesterolemia": ("hypercholesterolemia",),
                    "diabetes": ("diabetes",), "obesity": ("obesity",), "smoking": ("smoking",),
                    "family_history": ("family_history",),
                    "atherosclerotic_disease": ("coronary_disease", "stroke", "vascular_disease"),
                    "transient_ischemic_attack": ("tia",)},
    "rcri": {"high_risk_surgery": ("high_risk_surgery",), "ischemic_heart_disease": ("coronary_disease",),
             "congestive_heart_failure": ("heart_failure",), "cerebrovascular_disease": ("stroke", "tia"),
             "insulin_treatment": ("insulin",)},
    "grace": {"cardiac_arrest_at_admission": ("cardiac_arrest",), "st_deviation": ("st_deviation",),
              "elevated_cardiac_enzymes": ("elevated_enzymes",)},
    "framingham_hard_chd": {"smoker": ("smoking",)},
    "wells_dvt": {"active_cancer": ("cancer",), "previous_dvt": ("previous_dvt_pe",),
                  "alternative_diagnosis_likely": ("alternative_diagnosis",), "calf_swelling": ("leg_swelling",)},
    "wells_pe": {"dvt_signs": ("dvt_signs",), "pe_most_likely": ("pe_most_likely",),
                 "immobilization_or_surgery": ("immobilization_or_surgery",),
                 "previous_pe_or_dvt": ("previous_dvt_pe",),
                 "hemoptysis": ("hemoptysis",), "malignancy": ("cancer",)},
    "perc_rule": {"unilateral_leg_swelling": ("leg_swelling",), "hemoptysis": ("hemoptysis",),
                  "recent_surgery_or_trauma": ("immobilization_or_surgery",),
                  "previous_pe_or_dvt": ("previous_dvt_pe",),
                  "hormone_use": ("hormone_use",)},
    "curb65": {"confusion": ("confusion",)},
    "pneumonia_severity_index": {"nursing_home_resident": ("nursing_home",), "neoplastic_disease": ("cancer",),
                                 "liver_disease": ("liver_disease",), "congestive_heart_failure": ("heart_failure",),
                                 "cerebrovascular_disease": ("stroke", "tia"), "renal_disease": ("renal_disease",),
                                 "altered_mental_status": ("confusion",), "pleural_effusion": ("pleural_effusion",)},
    "centor": {"tonsillar_exudate": ("tonsillar_exudate",), "tender_anterior_nodes": ("tender_nodes",)},
    "feverpain": {"fever_past_24_hours": ("fever",), "purulence": ("tonsillar_exudate",)},
    "glasgow_blatchford": {"melena": ("melena",), "syncope": ("syncope",), "hepatic_disease": ("liver_disease",),
                           "cardiac_failure": ("heart_failure",)},
    "charlson": {"myocardial_infarction": ("coronary_disease",), "congestive_heart_failure": ("heart_failure",),
                 "cerebrovascular_accident_or_tia": ("stroke", "tia"), "dementia": ("dementia",),
                 "chronic_pulmonary_disease": ("copd",)},
    "meld": {"dialysis": ("dialysis",)},
}

# params field -> the measurement that fills it, where the names differ
FIELD_MEASUREMENT = {"platelets_10_9_l": "platelets", "platelets_10_3_ul": "platelets"}

# (session 19, fix20) and a person said to be a number ("yer man is 72", "she's 80", "the patient was 64", "dad just
# turned 90"), the number not a measure (a unit, a duration, a score's points, a ratio or a decimal after it: "he is
# 70 kg", "she's 32 weeks", "pt is 2 days post-op", "he is 3 on the GCS"); the people are the nouns of _FEMALE and
# _MALE with the patient and a family's members (blind19 drove it: "Yer man is 72 ... CURB-65" asked for the age)
_PERSON_AGED = (r"\b(?:he|she|patient|pt|person|man|woman|lady|gentleman|gent|guy|fella|chap|boy|girl|child|kid|mum"
                r"|mom|dad|mother|father|husband|wife|son|daughter|granny|grandma|grandmother|grandad|grandpa"
                r"|grandfather)(?:['’]s|\s+is|\s+was|\s+(?:just\s+)?turned)\s+(?:(?:only|just|about|around|nearly"
                r"|almost|aged?)\s+)?(\d{1,3})\b(?!\.\d|\s*(?:%|/|:|°|'|\"|x\b|-\s*\d|kgs?\b|kilos?|lbs?\b|pounds?"
                r"|stone|st\b|g\b|cm\b|mm|m\b|ft\b|feet|foot|in\b|inch|mmol|mg|mcg|ml\b|l\b|litres?|liters?|bpm|beats"
                r"|breaths|points?|on\b|out\b|of\b|weeks?|wks?|days?|months?|hours?|hrs?|h\b|mins?\b|minutes?"
                r"|units?|degrees?|percent|per\b|times|and\s+a\s+half))")
_AGE = [r"(\d{1,3})\s*[- ]?(?:years?|yrs?)[- ]?old", r"\baged?\s*[:=]?\s*(?:of\s*)?(\d{1,3})\b",
        r"(\d{1,3})\s*(?:yo|y/o|y\.o\.)", r"\b(\d{1,3})\s?[mf]\b", _PERSON_AGED]
_FEMALE = r"\b(?:woman|women|female|lady|girl|she|her|mrs|\d{1,3}\s?f)\b"
_MALE = r"\b(?:man|men|male|gentleman|boy|he|his|mr|\d{1,3}\s?m)\b"


def detect_calculator(question: str) -> str | None:
    for name, pattern in _ALIASES:
        if pattern.search(question):
            return name
    return None


# A calculator's value, in digits or in English words as a spoken question says it ("fifty", "three")
_VALUE = r"(?>(\d+(?:\.\d+)?|" + NUMBER_WORDS + r"\b))"
# ... that is a result, not an age ("CHA2DS2-VASc: 50 year old male", "CURB-65 75F", "crcl 82yo F") nor a blood
# pressure ("MAP from 120/80"). A unit after it may be the result's own ("BMI is 24 kg/m2", "CrCl of 25 mL/min").
_NOT_A_RESULT = r"(?!\s*-?\s*(?:years?|yrs?|yo\b|y/o|y\.o|months?|weeks?|days?|[mf]\b)|\s*/\s*\d)"
# A calculator's name followed by its value ("eGFR 25", "CURB-65 is 2", "Wells score of 4", "eGFR is about 50",
# "I calculated CURB-65 as 3", "CURB-65 came out at 3", "my CHA2DS2-VASc calculation gave 3", "eGFR's come back at
# 38", "eGFR drifted from 60 to 42") reports a result. So does a name set off by commas before its verb ("his kidney
# function, the eGFR, is twenty eight", "eGFR, which was 40"), any form of a verb of change or of reporting ("eGFR
# drift / drops / falling / decline from 60 to 41", "was measured at 28", "came back as 38"), a word for the reading
# ("eGFR level of 30", "eGFR reading is 30") and a bound ("eGFR below 30") (blind14 drove this: development figures).
_GIVEN_VALUE = re.compile(
    r"(?:\s*\([^()]{1,30}\))?(?:'s)?\s*(?:,\s*(?:which|that)?\s*(?=(?:is|was|were|has|had|have|'s|now|just|came|comes|dropp?\w*|drift\w*"
    r"|f[ae]ll\w*|declin\w*|decreas\w*|ris\w*|rose|increas\w*|measur\w*|stands?|sits?|remains?)\b))?"
    r"\s*(?:score|points?|result|calculation|readings?|levels?|values?)?\s*"
    r"(?:(?:is|was|were|been|being|has|had|have|just|now|today|recently|already|currently|still)\s+)*"
    r"(?:(?:came|comes|come|coming|works?|worked|calculated|computed|measur(?:ed|es?|ing)|recorded|reported|gave|gives"
    r"|totals?|totall?ed|adds?|added|dropp?(?:ed|s|ing)?|drift(?:ed|s|ing)?|f[ae]ll(?:en|s|ing)?|decreas(?:ed|es?|ing)"
    r"|declin(?:ed|es?|ing)|rose|ris(?:en|es?|ing)|increas(?:ed|es?|ing)|went|gone|goes|going|stands?|stood|sits?"
    r"|sitting|remains?|remained|stays?|stayed)\s*(?:out|back|up|down)?\s*)?"
    r"(?:of|is|was|=|:|at|as|to|from|below|under|above|over|between|<|>|≤|≥|<=|>=|≈|~=|[-–—](?!\s*\d+\s*[-–—]))?\s*"
    r"(?:(?:an?|about|around|approx\w*|roughly|nearly|only|just|est(?:imated)?\.?|in|the|(?:low|mid|high|upper|lower)"
    r"(?=[\s-]))(?:\s+|-|\b)|~\s*)*" + _VALUE + _NOT_A_RESULT,
    re.IGNORECASE)
# ... or preceded by it ("scores three on CURB-65", "scoring 2 on the Wells", "a 4 on CHA2DS2-VASc", "3 points on")
_VALUE_BEFORE = re.compile(r"(?:\bscor\w*\s+(?:of\s+)?" + _VALUE + r"|\b" + _VALUE + r"\s*points?|\ba\s+"
                           + _VALUE + r")\s+(?:on|in|for)\s+(?:the|a|his|her|their)?\s*$", re.IGNORECASE)
# A name whose alias reaches past its value ("Wells score of 4 for suspected PE"): the value follows the head word
_HEAD = re.compile(r"wells?'?s?\b", re.IGNORECASE)
# A question about the score itself (its criteria, cut-offs, meaning or use: "what are the five things in the
# CURB-65 score", "what urea cut-off scores the point", "what does a Wells of 4 mean") asks the knowledge base,
# unless it also asks for the value ("calculate", "work out"); ASKS_VALUE wins. (session 19, fix20) The value is asked
# by the verb's base form or its noun, an order or a request ("calculate", "please work out", "can you compute", "the
# calculation"): a progressive or a past ("Working out his CURB-65 - what does the score mean", "I've calculated it")
# is the asker's own act, reported, and the question is the score's meaning (route_to_tool states the score the
# findings give first, when they give it).
_ABOUT_SCORE = re.compile(r"\bcut[\s-]?offs?\b|\bthresholds?\b|\bcriteri(?:a|on)\b|\bcomponents?\b|\bitems\b"
                          r"|\bthings\s+(?:in|on|that)\b|\bwhat\s+(?:are|goes\s+into|makes\s+up)\s+the\b"
                          r"|\bwhat\s+(?:does|do|would)\b[^?]*\bmean\b|\bmeaning\b|\binterpret\w*|\bstands?\s+for\b"
                          r"|\b(?:gets?|scores?|earns?|gives?)\s+(?:them\s+|him\s+|her\s+|you\s+)?(?:a|the|one)\s+point\b",
                          re.IGNORECASE)
_ASKS_VALUE = re.compile(r"\b(?:calculat|comput|estimat)(?:e|es|ion|ions)?\b|\b(?:work|figure)s?\s+out\b",
                         re.IGNORECASE)


def requested_calculator(question: str) -> str | None:
    """The calculator a question asks to run: named, and not only as a result it already gives ("CKD with an
    eGFR of 25: can he keep taking metformin?" asks about metformin, not for an eGFR; "scores three on CURB-65")
    nor as the subject of a question about its criteria or meaning ("what are the five things in CURB-65?")."""
    if _ABOUT_SCORE.search(question) and not _ASKS_VALUE.search(question):
        return None
    given = _given_spans(question)
    for name, pattern in _ALIASES:
        if any(_value_given(question, match) is None and not _beside(match, given) for match in
               pattern.finditer(question)):
            return name
    return None


# Between two names of one result ("CKD-EPI eGFR 38", "CrCl 40 (Cockcroft-Gault)"): spaces, brackets, a slash,
# after the rest of a hyphenated name its alias matches in part ("Cockcroft" of "Cockcroft-Gault CrCl 40")
_BESIDE = re.compile(r"(?:[-–]\w+)?[\s()/:]*")


def _given_spans(question: str) -> list[tuple[int, int]]:
    """Where the question gives a calculator's result: from the name to the end of its value."""
    spans = []
    for _name, pattern in _ALIASES:
        for match in pattern.finditer(question):
            found = _GIVEN_VALUE.match(question, match.end())
            if found is not None and _value_given(question, match) is not None:
                spans.append((match.start(), found.end()))
    return spans


def _beside(match: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    """Whether a name is another name of a result given next to it: inside its span ("eGFR (CKD-EPI) 38") or set
    beside it with nothing between but spaces and brackets ("CKD-EPI eGFR 38", "CrCl 40 (Cockcroft-Gault)")."""
    start, end = match.span()
    return any(start < span_end and end > span_start
               or _BESIDE.fullmatch(match.string[end:span_start]) is not None and end <= span_start
               or _BESIDE.fullmatch(match.string[span_end:start]) is not None and span_end <= start
               for span_start, span_end in spans)


def _value_given(question: str, match: re.Match[str]) -> str | None:
    """The result a mention of a calculator's name gives with it, as written ("3", "three"), or None."""
    head = _HEAD.match(question, match.start())
    found = (_GIVEN_VALUE.match(question, match.end())
             or (head is not None and head.end() < match.end() and _GIVEN_VALUE.match(question, head.end()))
             or _VALUE_BEFORE.search(question[: match.start()]))
    return next((group for group in found.groups() if group), None) if found else None


def given_score(question: str) -> tuple[str, float] | None:
    """The calculator whose result the question gives, and that result: "I calculated CURB-65 as 3", "a CURB
    score of two", "scored 4 on the Wells for PE", "CHA2DS2-VASc 2". The question is then about that score (its
    meaning, what to do), answered from the knowledge base; the score is never silently replaced by one computed
    from the findings (`score_disagreement`)."""
    for name, pattern in _ALIASES:
        for match in pattern.finditer(question):
            value = _value_given(question, match)
            if value is not None:
                return name, float(value) if value[0].isdigit() else float(cardinal(value))
    return None


# Results that are counts (points, criteria met): a score given and one computed either agree or do not
_COUNTED = ("points", "criteria")


def _counted_score(calculator: str, params: dict[str, Any]) -> tuple[CalculatorResult, float] | None:
    """The calculator's result on `params` and its score when that is a counted score (points, criteria met) resting
    on no assumed input, or None (implausible inputs, a measured value, an assumption)."""
    try:
        computed = run_calculator(calculator, params)
    except InvalidInput:
        return None
    if computed.unit not in _COUNTED or computed.assumed or not isinstance(computed.score, int | float):
        return None
    return computed, float(computed.score)


def score_disagreement(calculator: str, given: float, question: str) -> str | None:
    """What to say when the findings in the question compute a different result from the one the clinician
    gave ("I calculated CURB-65 as 3" with a 50-year-old's findings that score 1), or None: they agree, a
    finding is missing (no result rests on an assumed input here) or a unit read either way gives the score
    given. Only counted scores are compared; a measured value ("eGFR 42") is not recomputed."""
    spec = get_calculator(calculator)
    params, missing = extract_parameters(calculator, question)
    if not params or any(not item.startswith("the unit of ") for item in missing):
        return None
    counted = _counted_score(calculator, params)
    if counted is None:
        return None
    computed, score = counted
    outcomes = {score} | _other_readings(calculator, question, params)
    if any(abs(outcome - given) < 1e-9 for outcome in outcomes):
        return None
    return (f"You gave {spec.title} as {given:g}, but the findings in the question score {score:g} "
            f"{computed.unit} by the calculator ({computed.interpretation.rstrip('.')}). The answer below is about "
            f"the score you gave; check the findings against it.")


def score_of_findings(calculator: str, question: str) -> str | None:
    """What the findings in a question about a score's meaning compute (session 19, fix20: "Yer man is 72 ... Working
    out his CURB-65 - what does the score mean for where he's managed?" asks the knowledge base, and the score its
    findings give is stated first), or None: a finding is missing, a unit is read either way, an input would be
    assumed, or the inputs are implausible. Only counted scores (points, criteria met) are stated."""
    params, missing = extract_parameters(calculator, question)
    if not params or missing:
        return None
    counted = _counted_score(calculator, params)
    if counted is None:
        return None
    computed, score = counted
    return (f"By the calculator, the findings in the question score {get_calculator(calculator).title} "
            f"{score:g} {computed.unit} ({computed.interpretation.rstrip('.')}). The answer below is what "
            f"the knowledge base says about the score.")


def _other_readings(calculator: str, question: str, params: dict[str, Any]) -> set[float]:
    """The calculator's results with each value written without its unit read in its other plausible units."""
    text, outcomes = question.lower(), set()
    for field in params:
        if field not in MEASUREMENTS:
            continue
        for _unit, value in _readings(text, field)[1][1:]:
            try:
                score = run_calculator(calculator, params | {field: value}).score
            except InvalidInput:
                continue
            if isinstance(score, int | float):
                outcomes.add(float(score))
    return outcomes


def mentioned(text: str, concept: str) -> bool | None:
    """True if mentioned outside a negated scope, False if only negated mentions, None if not mentioned."""
    found = None
    for match in re.finditer(CONCEPTS[concept], text):
        before = text[: match.start()]
        breaks = list(SCOPE_BREAK.finditer(before))
        scope = before[breaks[-1].end():] if breaks else before
        if NEGATION.search(scope):
            found = False if found is None else found
        else:
            return True
    return found


def extract_age(text: str) -> float | None:
    for pattern in _AGE:
        match = re.search(pattern, text, re.IGNORECASE)
        if match:
            return float(match.group(1))
    return None


def extract_sex(text: str) -> str | None:
    female, male = re.search(_FEMALE, text), re.search(_MALE, text)
    if female and (not male or female.start() < male.start()):
        return "female"
    return "male" if male else None


def extract_height_cm(text: str) -> float | None:
    feet = re.search(r"\b(\d)\s*(?:'|ft|feet|foot)\s*(?:(\d{1,2}(?:\.\d+)?)\s*(?:\"|''|in(?:ches)?)?)?", text)
    if feet:
        return round(convert(float(feet.group(1)) * 12 + float(feet.group(2) or 0), "in", "height"), 5)
    metric = re.search(r"(\d+(?:\.\d+)?)\s*(cm|m)\b(?!\s*/)", text)
    if metric and (metric.group(2) == "cm" or float(metric.group(1)) < 3):
        return convert(float(metric.group(1)), metric.group(2), "height")
    inches = re.search(r"(\d+(?:\.\d+)?)\s*(?:in|inches)\b\s*(?:tall)?", text)
    if inches and re.search(r"tall|height", text):
        return convert(float(inches.group(1)), "in", "height")
    return None


# measurement -> the units a value written without one may be in, the conventional reading first. The name as
# written sets the convention: "urea" is the UK/European/Commonwealth report in mmol/L (a urea by mass, mg/dL, is
# 2.14 times its nitrogen: units.py), while a US BUN is written "BUN" or "urea nitrogen" (mg/dL); creatinine
# above 20 is conventionally µmol/L, a haemoglobin above the highest g/dL a patient has (plausible_ranges, 25)
# is g/L. A reading outside the field's physiologic range (plausible_ranges.PHYSIOLOGIC, sourced there) is
# dropped; where more than one stays, extract_parameters asks for the unit when the readings give different
# results (decision 0027).
_UNITLESS_READINGS: dict[str, tuple[str, ...]] = {
    "creatinine_mg_dl": ("mg/dL", "µmol/L"),
    "glucose_mg_dl": ("mg/dL", "mmol/L"),
    "bilirubin_mg_dl": ("mg/dL", "µmol/L"),
    "calcium_mg_dl": ("mg/dL", "mmol/L"),
    "albumin_g_dl": ("g/dL", "g/L"),
    "bun_mg_dl": ("mg/dL",),
}
_UREA_READINGS = ("mmol/L", "mg/dL")
# "urea 40 mg/dL" is a urea, not its nitrogen; "urea nitrogen" and "BUN" are the nitrogen
_UREA = re.compile(r"urea\b(?!\s+nitrogen)")


def _is_urea(name: str, written: str) -> bool:
    return name == "bun_mg_dl" and _UREA.match(written.lstrip()) is not None


def _unitless_units(name: str, written: str, value: float) -> tuple[str, ...]:
    if _is_urea(name, written):
        return _UREA_READINGS
    if name == "creatinine_mg_dl" and value > 20:
        return ("µmol/L", "mg/dL")
    if name == "hemoglobin_g_dl":
        highest = physiologic_range(name)
        return ("g/L",) if highest is not None and value > highest.high else ("g/dL",)
    return _UNITLESS_READINGS.get(name, ())


def _readings(text: str, name: str) -> tuple[str, list[tuple[str, float]]]:
    """(the value as written, [(unit, value in the field's unit)]) for measurement `name`: one reading when the
    question gives the unit (or the field has one unit), else every physiologically plausible one, the
    conventional first (the conventional one alone when none is plausible: the plausibility check refuses it)."""
    pattern, quantity, default_unit = MEASUREMENTS[name]
    match = re.search(pattern, text)
    if not match:
        return "", []
    groups = [group for group in match.groups() if group is not None]
    value = float(groups[0])
    unit = groups[1] if len(groups) > 1 and groups[1] else None
    written = match.group(0).strip()
    quantity = "urea" if _is_urea(name, written) else quantity  # converted to the BUN it carries
    candidates = _unitless_units(name, written, value) if not unit else ()
    if quantity and candidates:
        readings = [(candidate, convert(value, candidate, quantity, field=name)) for candidate in candidates]
        plausible = physiologic_range(name)
        kept = [reading for reading in readings if plausible is None or plausible.contains(reading[1])]
        return written, kept or readings[:1]
    unit = unit or default_unit
    if name == "temperature_c" and not unit:
        unit = "f" if value > 45 else "c"
    if name == "weight_kg":
        unit = unit.rstrip("s") if unit and unit.startswith("kilogram") else unit
        unit = "kg" if unit and unit.startswith("kilo") else unit
    if name == "platelets" and value >= 2000:
        value /= 1000
    return written, [(unit or "", convert(value, unit, quantity, field=name) if quantity and unit else value)]


def _measurement(text: str, name: str) -> float | None:
    _written, readings = _readings(text, name)
    return readings[0][1] if readings else None


def measurements(text: str) -> dict[str, float]:
    found = {name: value for name in MEASUREMENTS if (value := _measurement(text, name)) is not None}
    pressure = re.search(r"\b(?:bp|blood pressure)?\s*(?:of|is|was|=|:)?\s*(\d{2,3})\s*/\s*(\d{2,3})\b", text)
    if pressure:
        found["systolic_bp"], found["diastolic_bp"] = float(pressure.group(1)), float(pressure.group(2))
    systolic = re.search(r"\b(?:sbp|systolic(?: bp| blood pressure)?)\b\s*(?:of|is|was|=|:)?\s*(\d{2,3})", text)
    if systolic:
        found["systolic_bp"] = float(systolic.group(1))
    if "systolic_bp" in found and "diastolic_bp" in found:
        found["mean_arterial_pressure"] = found["systolic_bp"] / 3 + 2 * found["diastolic_bp"] / 3
    height = extract_height_cm(text)
    if height is not None:
        found["height_cm"] = height
    return found


def extract_parameters(calculator: str, question: str) -> tuple[dict[str, Any], list[str]]:
    """(params found, required fields still missing) for `calculator` from the question text."""
    spec = get_calculator(calculator)
    text = question.lower()
    # The calculator's own name is not a finding ("Wells score for PE" says nothing about a prior PE).
    findings_text = text
    for name, pattern in _ALIASES:
        if name == calculator:
            findings_text = pattern.sub(" ", findings_text)
    fields = spec.params.model_fields
    params: dict[str, Any] = {}
    age, sex = extract_age(text), extract_sex(text)
    if "age" in fields and age is not None:
        params["age"] = age
    if "sex" in fields and sex is not None:
        params["sex"] = sex
    values = measurements(text)
    for field in fields:
        source = FIELD_MEASUREMENT.get(field, field)
        if source in values and field not in params:
            params[field] = values[source]
    for field, concepts in CONCEPT_FIELDS.get(calculator, {}).items():
        states = [mentioned(findings_text, concept) for concept in concepts]
        if any(states):
            params[field] = True
        elif False in states:
            params[field] = False
    special = SPECIAL_EXTRACTORS.get(calculator)
    if special is not None:
        params.update(special(text))
    missing = [name for name, info in fields.items() if info.is_required() and name not in params]
    if not missing:
        missing = _units_to_ask(calculator, text, params)
    return params, missing


def _units_to_ask(calculator: str, text: str, params: dict[str, Any]) -> list[str]:
    """The values written without a unit that more than one plausible unit reads and whose readings give
    different results ("urea 8.5": 8.5 mmol/L scores a CURB-65 point, 8.5 mg/dL of BUN does not): the unit is
    asked for rather than picked silently."""
    asks = []
    for field in params:
        if field not in MEASUREMENTS or params[field] != _measurement(text, field):
            continue
        written, readings = _readings(text, field)
        if len(readings) < 2:
            continue
        outcomes = []
        for unit, value in readings:
            try:
                computed = run_calculator(calculator, params | {field: value})
            except InvalidInput:
                continue
            outcomes.append((unit, f"{computed.score:g}" if isinstance(computed.score, float | int)
                             else str(computed.score), computed.unit, computed.risk_category))
        if len({outcome[1:] for outcome in outcomes}) > 1:
            shown = "; ".join(f"read as {unit}: {score} {result_unit}".rstrip() for unit, score, result_unit, _
                              in outcomes)
            asks.append(f"the unit of {written} ({shown})")
    return asks
