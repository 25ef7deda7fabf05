"""MedCalc-Bench adapter: `Relevant Entities` -> calculator params -> the answer in the benchmark's form."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from voiceassist.errors import InvalidInput, NotFound
from voiceassist.tools.calculators.base import CalculatorResult, CalculatorSpec
from voiceassist.tools.calculators.medcalc_entities import Entities, entity_key, parse_date, parse_entities
from voiceassist.tools.calculators.medcalc_maps import MAPPERS
from voiceassist.tools.calculators.registry import BY_MEDCALC_ID, CALCULATORS, run_calculator

Answer = float | int | str | tuple[str, str]

# The benchmark's calculator names, so cases that carry only `calculator_name` resolve.
MEDCALC_NAMES: dict[int, str] = {
    2: "Creatinine Clearance (Cockcroft-Gault Equation)", 3: "CKD-EPI Equations for Glomerular Filtration Rate",
    4: "CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk", 5: "Mean Arterial Pressure (MAP)",
    6: "Body Mass Index (BMI)", 7: "Calcium Correction for Hypoalbuminemia",
    8: "Wells' Criteria for Pulmonary Embolism", 9: "MDRD GFR Equation", 10: "Ideal Body Weight",
    11: "QTc Bazett Calculator", 13: "Estimated Due Date", 15: "Child-Pugh Score for Cirrhosis Mortality",
    16: "Wells' Criteria for DVT", 17: "Revised Cardiac Risk Index for Pre-Operative Risk",
    18: "HEART Score for Major Cardiac Events", 19: "Fibrosis-4 (FIB-4) Index for Liver Fibrosis",
    20: "Centor Score (Modified/McIsaac) for Strep Pharyngitis", 21: "Glasgow Coma Score (GCS)",
    22: "Maintenance Fluids Calculations", 23: "MELD Na (UNOS/OPTN)", 24: "Steroid Conversion Calculator",
    25: "HAS-BLED Score for Major Bleeding Risk", 26: "Sodium Correction for Hyperglycemia",
    27: "Glasgow-Blatchford Bleeding Score (GBS)", 28: "APACHE II Score",
    29: "PSI Score: Pneumonia Severity Index for CAP", 30: "Serum Osmolality",
    31: "HOMA-IR (Homeostatic Model Assessment for Insulin Resistance)", 32: "Charlson Comorbidity Index (CCI)",
    33: "FeverPAIN Score for Strep Pharyngitis", 36: "Caprini Score for Venous Thromboembolism (2005)",
    38: "Free Water Deficit", 39: "Anion Gap", 40: "Fractional Excretion of Sodium (FENa)",
    43: "Sequential Organ Failure Assessment (SOFA) Score", 44: "LDL Calculated",
    45: "CURB-65 Score for Pneumonia Severity", 46: "Framingham Risk Score for Hard Coronary Heart Disease",
    48: "PERC Rule for Pulmonary Embolism", 49: "Morphine Milligram Equivalents (MME) Calculator",
    51: "SIRS Criteria", 56: "QTc Fridericia Calculator", 57: "QTc Framingham Calculator",
    58: "QTc Hodges Calculator", 59: "QTc Rautaharju Calculator", 60: "Body Surface Area Calculator",
    61: "Target weight", 62: "Adjusted Body Weight", 63: "Delta Gap", 64: "Delta Ratio",
    65: "Albumin Corrected Anion Gap", 66: "Albumin Corrected Delta Gap", 67: "Albumin Corrected Delta Ratio",
    68: "Estimated Date of Conception", 69: "Estimated Gestational Age",
}
# In the benchmark a score item that the note does not give scores 0: these values stand in for absent entities
# (the API itself still requires them, so a user is asked rather than silently scored as normal).
MISSING_SCORES_NOTHING: dict[str, dict[str, Any]] = {
    "chadsvasc": {"age": 0, "sex": "male"},
    "hasbled": {"age": 0},
    "heart_score": {"age": 0},
    "curb65": {"age": 0},
    "perc_rule": {"age": 0, "heart_rate": 60},
    "centor": {"age": 20},
    "caprini": {"age": 0},
    "charlson": {"age": 0},
    "pneumonia_severity_index": {"age": 0, "sex": "male"},
    "glasgow_blatchford": {"sex": "male", "bun_mg_dl": 0, "hemoglobin_g_dl": 16, "systolic_bp": 120},
    "child_pugh": {"bilirubin_mg_dl": 1.0, "albumin_g_dl": 4.0, "inr": 1.0},
    "sofa": {"pao2": 500},
    "apache_ii": {"age": 0, "temperature_c": 37, "mean_arterial_pressure": 90, "heart_rate": 80, "respiratory_rate": 16,
                  "pao2": 90, "arterial_ph": 7.4, "sodium": 140, "potassium": 4, "creatinine_mg_dl": 1.0,
                  "hematocrit": 40, "wbc_10_3_ul": 8},
}
_ID_BY_NAME_KEY = {entity_key(name): medcalc_id for medcalc_id, name in MEDCALC_NAMES.items()}


def resolve_calculator(calculator: int | str) -> CalculatorSpec:
    """A benchmark id (2 or "2"), a benchmark name, or one of our calculator names."""
    if isinstance(calculator, int) or (isinstance(calculator, str) and calculator.strip().isdigit()):
        spec = BY_MEDCALC_ID.get(int(calculator))
        if spec is None:
            raise NotFound(f"no MedCalc-Bench calculator with id {calculator}")
        return spec
    if calculator in CALCULATORS:
        return CALCULATORS[calculator]
    medcalc_id = _ID_BY_NAME_KEY.get(entity_key(calculator))
    if medcalc_id is None:
        raise NotFound(f"no MedCalc-Bench calculator named {calculator!r}")
    return BY_MEDCALC_ID[medcalc_id]


def medcalc_params(spec: CalculatorSpec, entities: Mapping[str, Any] | str) -> dict[str, Any]:
    mapper: Callable[[Entities], dict[str, Any]] | None = MAPPERS.get(spec.name)
    if mapper is None:
        raise NotFound(f"calculator {spec.name!r} takes no MedCalc-Bench entities")
    params = mapper(Entities(parse_entities(entities)))
    given = {name: value for name, value in params.items() if value is not None}
    return MISSING_SCORES_NOTHING.get(spec.name, {}) | given


def run_medcalc(calculator: int | str, entities: Mapping[str, Any] | str) -> CalculatorResult:
    spec = resolve_calculator(calculator)
    return run_calculator(spec.name, medcalc_params(spec, entities))


def benchmark_answer(result: CalculatorResult) -> Answer:
    """Dates as MM/DD/YYYY, gestational age as ('W weeks', 'D days'), numbers rounded to 5 decimals."""
    score = result.score
    if isinstance(score, tuple):
        return score
    if isinstance(score, str):
        return dt.date.fromisoformat(score).strftime("%m/%d/%Y")
    if isinstance(score, float):
        return round(score, 5)
    return score


def answer_medcalc(calculator: int | str, entities: Mapping[str, Any] | str) -> Answer:
    return benchmark_answer(run_medcalc(calculator, entities))


def answer_within_limits(answer: Answer, lower: Any, upper: Any) -> bool:
    """Numbers within [lower, upper]; dates and gestational ages exactly equal."""
    if isinstance(answer, tuple):
        expected = parse_entities(f"{{'v': {lower}}}")["v"] if isinstance(lower, str) else lower
        return tuple(str(part).strip() for part in expected) == answer
    if isinstance(answer, str):
        try:
            return parse_date(answer, field="answer") == parse_date(lower, field="lower_limit")
        except InvalidInput:
            return False
    tolerance = 1e-9 * max(1.0, abs(float(answer)))
    return float(lower) - tolerance <= float(answer) <= float(upper) + tolerance
