"""Venous thromboembolism: Wells DVT, Wells PE, PERC rule and the Caprini score (2005)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from voiceassist.tools.calculators.base import (
    CalculatorParams,
    CalculatorResult,
    CalculatorSpec,
    band,
    flag,
    result,
)
from voiceassist.tools.calculators.plausibility import adults, not_in_pregnancy

PREGNANT = Field(default=None, description="Pregnant (the rule was not validated in pregnancy)")


class WellsDvtParams(CalculatorParams):
    pregnant: bool | None = PREGNANT
    active_cancer: bool = Field(default=False, description="Treatment within 6 months or palliative")
    bedridden_or_major_surgery: bool = Field(default=False, description="Bedridden > 3 days or major surgery "
                                             "within 12 weeks")
    calf_swelling: bool = Field(default=False, description="Calf > 3 cm larger than the other side")
    collateral_superficial_veins: bool = False
    entire_leg_swollen: bool = False
    localized_tenderness: bool = Field(default=False, description="Along the deep venous system")
    pitting_edema: bool = Field(default=False, description="Confined to the symptomatic leg")
    paralysis_or_cast: bool = Field(default=False, description="Paralysis, paresis or recent plaster cast of a leg")
    previous_dvt: bool = False
    alternative_diagnosis_likely: bool = Field(default=False, description="Alternative diagnosis at least as likely")


def wells_dvt(params: WellsDvtParams) -> CalculatorResult:
    score = (flag(params.active_cancer) + flag(params.bedridden_or_major_surgery) + flag(params.calf_swelling)
             + flag(params.collateral_superficial_veins) + flag(params.entire_leg_swollen)
             + flag(params.localized_tenderness) + flag(params.pitting_edema) + flag(params.paralysis_or_cast)
             + flag(params.previous_dvt) - flag(params.alternative_diagnosis_likely, 2))
    if score <= 0:
        category, advice = "low", ["D-dimer; if negative, DVT is excluded."]
    elif score <= 2:
        category, advice = "moderate", ["High-sensitivity D-dimer; ultrasound if positive."]
    else:
        category, advice = "high", ["Compression ultrasound."]
    return result("wells_dvt", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"Wells DVT {score}: {category} pre-test probability "
                  f"(DVT {'likely' if score >= 2 else 'unlikely'}).",
                  source="Wells PS et al., N Engl J Med 2003;349:1227-1235")


class WellsPeParams(CalculatorParams):
    pregnant: bool | None = PREGNANT
    dvt_signs: bool = Field(default=False, description="Clinical signs and symptoms of DVT")
    pe_most_likely: bool = Field(default=False, description="PE is the most likely diagnosis or equally likely")
    heart_rate: float = Field(default=80, gt=0, le=400, description="Heart rate, beats per minute")
    immobilization_or_surgery: bool = Field(default=False, description="Immobilised >= 3 days or surgery in 4 weeks")
    previous_pe_or_dvt: bool = False
    hemoptysis: bool = False
    malignancy: bool = Field(default=False, description="Treatment within 6 months or palliative")


def wells_pe(params: WellsPeParams) -> CalculatorResult:
    score = (3.0 * params.dvt_signs + 3.0 * params.pe_most_likely + 1.5 * (params.heart_rate > 100)
             + 1.5 * params.immobilization_or_surgery + 1.5 * params.previous_pe_or_dvt + 1.0 * params.hemoptysis
             + 1.0 * params.malignancy)
    if score < 2:
        category = "low"
    elif score <= 6:
        category = "moderate"
    else:
        category = "high"
    likely = score > 4
    advice = ["CT pulmonary angiography."] if likely else ["D-dimer (consider PERC if low risk)."]
    return result("wells_pe", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"Wells PE {score:g}: {category} probability; "
                  f"PE {'likely' if likely else 'unlikely'}.",
                  source="Wells PS et al., Thromb Haemost 2000;83:416-420")


class PercParams(CalculatorParams):
    pregnant: bool | None = PREGNANT
    age: float = Field(ge=0, le=130, description="Age, years")
    heart_rate: float = Field(gt=0, le=400, description="Heart rate, beats per minute")
    oxygen_saturation: float = Field(default=98, gt=0, le=100, description="SaO2 on room air, %")
    unilateral_leg_swelling: bool = False
    hemoptysis: bool = False
    recent_surgery_or_trauma: bool = Field(default=False, description="Within 4 weeks, needing general anaesthesia")
    previous_pe_or_dvt: bool = False
    hormone_use: bool = Field(default=False, description="Oral contraceptives, hormone replacement or oestrogens")


def perc_rule(params: PercParams) -> CalculatorResult:
    score = (flag(params.age >= 50) + flag(params.heart_rate >= 100) + flag(params.oxygen_saturation < 95)
             + flag(params.unilateral_leg_swelling) + flag(params.hemoptysis)
             + flag(params.recent_surgery_or_trauma) + flag(params.previous_pe_or_dvt) + flag(params.hormone_use))
    negative = score == 0
    return result("perc_rule", score, params, unit="criteria", risk_category="PERC negative" if negative
                  else "PERC positive",
                  interpretation=f"{score} PERC criteria met." + (" PE ruled out if pre-test probability < 15 %."
                                                                  if negative else ""),
                  source="Kline JA et al., J Thromb Haemost 2004;2:1247-1255",
                  recommendations=[] if negative else ["PERC cannot rule out PE: proceed to D-dimer or imaging."])


class Mobility(StrEnum):
    ambulatory = "ambulatory"
    bed_rest = "bed_rest"
    confined_over_72_hours = "confined_over_72_hours"


class SurgeryType(StrEnum):
    none = "none"
    minor = "minor"
    major = "major"
    laparoscopic = "laparoscopic"
    arthroscopic = "arthroscopic"
    major_lower_extremity_arthroplasty = "major_lower_extremity_arthroplasty"


CAPRINI_ITEMS: dict[str, int] = {
    "major_surgery_last_month": 1, "heart_failure_last_month": 1, "sepsis_last_month": 1,
    "pneumonia_last_month": 1, "plaster_cast_last_month": 2, "hip_pelvis_leg_fracture_last_month": 5,
    "stroke_last_month": 5, "multiple_trauma_last_month": 5, "spinal_cord_injury_last_month": 5,
    "varicose_veins": 1, "swollen_legs": 1, "central_venous_access": 2, "previous_dvt": 3, "previous_pe": 3,
    "family_history_thrombosis": 3, "factor_v_leiden": 3, "prothrombin_20210a": 3, "elevated_homocysteine": 3,
    "lupus_anticoagulant": 3, "anticardiolipin_antibody": 3, "heparin_induced_thrombocytopenia": 3,
    "other_thrombophilia": 3, "inflammatory_bowel_disease": 1, "acute_myocardial_infarction": 1, "copd": 1,
    "malignancy": 2,
}


class CapriniParams(CalculatorParams):
    age: float = Field(ge=0, le=130, description="Age, years")
    bmi: float = Field(default=22, gt=5, le=200, description="Body mass index, kg/m²")
    surgery_type: SurgeryType = SurgeryType.none
    mobility: Mobility = Mobility.ambulatory
    major_surgery_last_month: bool = False
    heart_failure_last_month: bool = False
    sepsis_last_month: bool = False
    pneumonia_last_month: bool = False
    plaster_cast_last_month: bool = False
    hip_pelvis_leg_fracture_last_month: bool = False
    stroke_last_month: bool = False
    multiple_trauma_last_month: bool = False
    spinal_cord_injury_last_month: bool = False
    varicose_veins: bool = False
    swollen_legs: bool = False
    central_venous_access: bool = False
    previous_dvt: bool = False
    previous_pe: bool = False
    family_history_thrombosis: bool = False
    factor_v_leiden: bool = False
    prothrombin_20210a: bool = False
    elevated_homocysteine: bool = False
    lupus_anticoagulant: bool = False
    anticardiolipin_antibody: bool = False
    heparin_induced_thrombocytopenia: bool = False
    other_thrombophilia: bool = False
    inflammatory_bowel_disease: bool = False
    acute_myocardial_infarction: bool = False
    copd: bool = False
    malignancy: bool = Field(default=False, description="Present or previous malignancy")


SURGERY_POINTS = {SurgeryType.none: 0, SurgeryType.minor: 1, SurgeryType.major: 2, SurgeryType.laparoscopic: 2,
                  SurgeryType.arthroscopic: 2, SurgeryType.major_lower_extremity_arthroplasty: 5}
MOBILITY_POINTS = {Mobility.ambulatory: 0, Mobility.bed_rest: 1, Mobility.confined_over_72_hours: 2}


def caprini(params: CapriniParams) -> CalculatorResult:
    score = (band(params.age, [(75, 3), (61, 2), (41, 1)], 0) + flag(params.bmi > 25)
             + SURGERY_POINTS[params.surgery_type] + MOBILITY_POINTS[params.mobility]
             + sum(points for item, points in CAPRINI_ITEMS.items() if getattr(params, item)))
    if score <= 1:
        category, advice = "low", ["Early ambulation."]
    elif score == 2:
        category, advice = "moderate", ["Mechanical or pharmacological prophylaxis."]
    elif score <= 4:
        category, advice = "high", ["Pharmacological prophylaxis (LMWH or UFH) with mechanical."]
    else:
        category, advice = "highest", ["Pharmacological plus mechanical prophylaxis; consider extended duration."]
    return result("caprini", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"Caprini {score}: {category} risk of venous thromboembolism.",
                  source="Caprini JA, Dis Mon 2005;51:70-78")


PERC_SOURCE = "Kline JA et al., J Thromb Haemost 2004;2:1247-1255"

SPECS = [
    CalculatorSpec("wells_dvt", "Wells' Criteria for DVT", "Pre-test probability of deep vein thrombosis.",
                   WellsDvtParams, wells_dvt, "thrombosis", (16,),
                   validity=(not_in_pregnancy("Wells PS et al., N Engl J Med 2003"),)),
    CalculatorSpec("wells_pe", "Wells' Criteria for PE", "Pre-test probability of pulmonary embolism.",
                   WellsPeParams, wells_pe, "thrombosis", (8,),
                   validity=(not_in_pregnancy("Wells PS et al., Thromb Haemost 2000"),)),
    CalculatorSpec("perc_rule", "PERC Rule", "Pulmonary embolism rule-out criteria.", PercParams, perc_rule,
                   "thrombosis", (48,),
                   validity=(adults(PERC_SOURCE), not_in_pregnancy(PERC_SOURCE + "; the rule must not be used to "
                                                                 "exclude PE in pregnancy", action="refuse"))),
    CalculatorSpec("caprini", "Caprini Score (2005)", "Venous thromboembolism risk.", CapriniParams, caprini,
                   "thrombosis", (36,),
                   validity=(adults("Caprini JA, Dis Mon 2005: adult surgical patients"),)),
]
