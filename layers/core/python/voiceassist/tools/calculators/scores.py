"""Comorbidity: the Charlson Comorbidity Index (age-adjusted, updated weights of the original)."""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import Field

from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, band, flag, result
from voiceassist.tools.calculators.plausibility import adults


class LiverDisease(StrEnum):
    none = "none"
    mild = "mild"
    moderate_to_severe = "moderate_to_severe"


class Diabetes(StrEnum):
    none = "none"
    uncomplicated = "uncomplicated"
    end_organ_damage = "end_organ_damage"


class SolidTumor(StrEnum):
    none = "none"
    localized = "localized"
    metastatic = "metastatic"


CHARLSON_ITEMS: dict[str, int] = {
    "myocardial_infarction": 1, "congestive_heart_failure": 1, "peripheral_vascular_disease": 1, "dementia": 1,
    "chronic_pulmonary_disease": 1, "connective_tissue_disease": 1, "peptic_ulcer_disease": 1, "hemiplegia": 2,
    "moderate_to_severe_ckd": 2, "leukemia": 2, "lymphoma": 2, "aids": 6,
}


class CharlsonParams(CalculatorParams):
    age: float = Field(ge=0, le=130, description="Age, years")
    myocardial_infarction: bool = False
    congestive_heart_failure: bool = False
    peripheral_vascular_disease: bool = False
    cerebrovascular_accident_or_tia: bool = False
    dementia: bool = False
    chronic_pulmonary_disease: bool = False
    connective_tissue_disease: bool = False
    peptic_ulcer_disease: bool = False
    liver_disease: LiverDisease = LiverDisease.none
    diabetes: Diabetes = Diabetes.none
    hemiplegia: bool = False
    moderate_to_severe_ckd: bool = False
    solid_tumor: SolidTumor = SolidTumor.none
    leukemia: bool = False
    lymphoma: bool = False
    aids: bool = False


def charlson(params: CharlsonParams) -> CalculatorResult:
    score = (
        band(params.age, [(80, 4), (70, 3), (60, 2), (50, 1)], 0)
        + flag(params.cerebrovascular_accident_or_tia)
        + {LiverDisease.none: 0, LiverDisease.mild: 1, LiverDisease.moderate_to_severe: 3}[params.liver_disease]
        + {Diabetes.none: 0, Diabetes.uncomplicated: 1, Diabetes.end_organ_damage: 2}[params.diabetes]
        + {SolidTumor.none: 0, SolidTumor.localized: 2, SolidTumor.metastatic: 6}[params.solid_tumor]
        + sum(points for item, points in CHARLSON_ITEMS.items() if getattr(params, item))
    )
    survival = 100 * 0.983 ** math.exp(score * 0.9)
    category = "low" if score <= 2 else "moderate" if score <= 4 else "high"
    return result("charlson", score, params, unit="points", risk_category=category,
                  interpretation=f"Charlson {score}: estimated 10-year survival {survival:.0f} %.",
                  source="Charlson ME et al., J Chronic Dis 1987;40:373-383; Charlson M et al., J Clin Epidemiol "
                  "1994;47:1245-1251")


SPECS = [
    CalculatorSpec("charlson", "Charlson Comorbidity Index", "Comorbidity burden and 10-year survival.",
                   CharlsonParams, charlson, "comorbidity", (32,),
                   validity=(adults("Charlson ME et al., J Chronic Dis 1987: adult medical inpatients"),)),
]
