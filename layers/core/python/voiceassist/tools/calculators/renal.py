"""Kidney function: Cockcroft-Gault, CKD-EPI 2021, MDRD, renal dose bands, FENa and free water deficit."""

from __future__ import annotations

from pydantic import Field

from voiceassist.tools.calculators.base import (
    CalculatorParams,
    CalculatorResult,
    CalculatorSpec,
    Sex,
    result,
    round5,
)
from voiceassist.tools.calculators.body import WEIGHT_KG, adjusted_weight, devine_ideal_weight
from voiceassist.tools.calculators.plausibility import adults

AGE = Field(ge=0, le=130, description="Age, years")
CREATININE = Field(gt=0, le=40, description="Serum creatinine, mg/dL")
SODIUM = Field(gt=50, le=300, description="Serum sodium, mmol/L")

COCKCROFT_GAULT = "Cockcroft DW, Gault MH, Nephron 1976;16:31-41"
CKD_EPI_2021 = "Inker LA et al. (CKD-EPI), N Engl J Med 2021;385:1737-1749"


class CockcroftGaultParams(CalculatorParams):
    sex: Sex
    age: float = AGE
    weight_kg: float = WEIGHT_KG
    creatinine_mg_dl: float = CREATININE
    height_cm: float | None = Field(
        default=None, gt=20, le=300, description="Height, cm; picks actual, ideal or adjusted weight by BMI"
    )


def dosing_weight(sex: Sex, weight_kg: float, height_cm: float | None) -> float:
    """Actual weight when BMI < 18.5 (or height unknown), min(ideal, actual) to 24.9, adjusted above."""
    if height_cm is None:
        return weight_kg
    bmi = round5(weight_kg / round5(height_cm / 100) ** 2)
    if bmi < 18.5:
        return weight_kg
    if bmi <= 24.9:
        return min(devine_ideal_weight(sex, height_cm), weight_kg)
    return adjusted_weight(sex, weight_kg, height_cm)


def cockcroft_gault(sex: Sex, age: float, weight_kg: float, creatinine_mg_dl: float) -> float:
    female = 0.85 if sex is Sex.female else 1.0
    return round5((140 - age) * weight_kg * female / (72 * creatinine_mg_dl))


def clearance_band(clearance: float) -> tuple[str, list[str]]:
    """Renal function bands of the FDA guidance for dose adjustment (CrCl, mL/min)."""
    if clearance >= 90:
        return "normal", ["No renal dose adjustment needed."]
    if clearance >= 60:
        return "mild impairment", ["Usually no adjustment; check the label for narrow-therapeutic-index drugs."]
    if clearance >= 30:
        return "moderate impairment", ["Adjust renally cleared drugs per label (CrCl 30-59 mL/min band)."]
    if clearance >= 15:
        return "severe impairment", ["Reduce dose or extend interval; avoid drugs contraindicated below 30 mL/min."]
    return "kidney failure", ["Most renally cleared drugs need major adjustment or avoidance; use dialysis dosing."]


def creatinine_clearance(params: CockcroftGaultParams) -> CalculatorResult:
    weight = dosing_weight(params.sex, params.weight_kg, params.height_cm)
    value = cockcroft_gault(params.sex, params.age, weight, params.creatinine_mg_dl)
    category, advice = clearance_band(value)
    return result(
        "creatinine_clearance", value, params, unit="mL/min", risk_category=category, recommendations=advice,
        interpretation=f"Creatinine clearance {value:.1f} mL/min ({category}), using {weight:.1f} kg.",
        source=COCKCROFT_GAULT,
    )


class CkdEpiParams(CalculatorParams):
    sex: Sex
    age: float = AGE
    creatinine_mg_dl: float = CREATININE


def ckd_epi_2021(sex: Sex, age: float, creatinine_mg_dl: float) -> float:
    kappa, alpha, female = (0.7, -0.241, 1.012) if sex is Sex.female else (0.9, -0.302, 1.0)
    ratio = creatinine_mg_dl / kappa
    return round5(142 * min(ratio, 1) ** alpha * max(ratio, 1) ** -1.200 * 0.9938**age * female)


def gfr_stage(gfr: float) -> str:
    """KDIGO 2012 GFR categories."""
    for lower, stage in ((90, "G1"), (60, "G2"), (45, "G3a"), (30, "G3b"), (15, "G4")):
        if gfr >= lower:
            return stage
    return "G5"


def ckd_epi(params: CkdEpiParams) -> CalculatorResult:
    value = ckd_epi_2021(params.sex, params.age, params.creatinine_mg_dl)
    stage = gfr_stage(value)
    return result(
        "ckd_epi", value, params, unit="mL/min/1.73 m²", risk_category=stage, source=CKD_EPI_2021,
        interpretation=f"eGFR {value:.0f} mL/min/1.73 m² (CKD-EPI 2021, race-free): KDIGO category {stage}.",
    )


class MdrdParams(CalculatorParams):
    sex: Sex
    age: float = Field(ge=1, le=130, description="Age, years")
    creatinine_mg_dl: float = CREATININE
    black: bool = Field(default=False, description="Black race (the 2006 equation's coefficient)")


def mdrd(params: MdrdParams) -> CalculatorResult:
    value = 175 * params.creatinine_mg_dl**-1.154 * params.age**-0.203
    value *= (0.742 if params.sex is Sex.female else 1.0) * (1.212 if params.black else 1.0)
    value = round5(value)
    stage = gfr_stage(value)
    return result(
        "mdrd_gfr", value, params, unit="mL/min/1.73 m²", risk_category=stage,
        interpretation=f"eGFR {value:.0f} mL/min/1.73 m² (MDRD): KDIGO category {stage}.",
        source="Levey AS et al., Ann Intern Med 2006;145:247-254 (IDMS-traceable MDRD)",
    )


class RenalDosingParams(CockcroftGaultParams):
    pass


def renal_dosing(params: RenalDosingParams) -> CalculatorResult:
    weight = dosing_weight(params.sex, params.weight_kg, params.height_cm)
    clearance = cockcroft_gault(params.sex, params.age, weight, params.creatinine_mg_dl)
    egfr = ckd_epi_2021(params.sex, params.age, params.creatinine_mg_dl)
    category, advice = clearance_band(clearance)
    return result(
        "renal_dosing", clearance, params, unit="mL/min", risk_category=category, recommendations=advice,
        interpretation=(
            f"Cockcroft-Gault CrCl {clearance:.1f} mL/min ({category}) for drug dosing; "
            f"CKD-EPI 2021 eGFR {egfr:.0f} mL/min/1.73 m² (KDIGO {gfr_stage(egfr)}) for staging."
        ),
        source=f"{COCKCROFT_GAULT}; {CKD_EPI_2021}; FDA guidance, Pharmacokinetics in Renal Impairment, 2020",
    )


class FenaParams(CalculatorParams):
    sodium: float = SODIUM
    creatinine_mg_dl: float = CREATININE
    urine_sodium: float = Field(ge=0, le=500, description="Urine sodium, mmol/L")
    urine_creatinine_mg_dl: float = Field(gt=0, le=1000, description="Urine creatinine, mg/dL")


def fena(params: FenaParams) -> CalculatorResult:
    value = round5(
        100 * params.urine_sodium * params.creatinine_mg_dl / (params.sodium * params.urine_creatinine_mg_dl)
    )
    category = "prerenal" if value < 1 else "intrinsic renal" if value > 2 else "indeterminate"
    return result(
        "fena", value, params, unit="%", risk_category=category,
        interpretation=f"FENa {value:.2f} %: suggests {category} cause of acute kidney injury (if oliguric).",
        source="Espinel CH, JAMA 1976;236:579-581",
        recommendations=["Interpret with caution after diuretics (consider FEUrea)."],
    )


class FreeWaterParams(CalculatorParams):
    sex: Sex
    age: float = AGE
    weight_kg: float = WEIGHT_KG
    sodium: float = SODIUM


def total_body_water_fraction(sex: Sex, age: float) -> float:
    if age < 18:
        return 0.6
    if age < 65:
        return 0.6 if sex is Sex.male else 0.5
    return 0.5 if sex is Sex.male else 0.45


def free_water_deficit(params: FreeWaterParams) -> CalculatorResult:
    fraction = total_body_water_fraction(params.sex, params.age)
    value = round5(fraction * params.weight_kg * (params.sodium / 140 - 1))
    category = "water deficit" if value > 0 else "no deficit (water excess)" if value < 0 else "no deficit"
    return result(
        "free_water_deficit", value, params, unit="L", risk_category=category,
        interpretation=f"Free water deficit {value:.2f} L.",
        source="Adrogué HJ, Madias NE, N Engl J Med 2000;342:1493-1499",
        recommendations=["Correct sodium by no more than 10-12 mmol/L in 24 h."] if value > 0 else [],
    )


# KDIGO 2012 CKD guideline (Kidney Int Suppl 2013;3:1), recommendation 1.4.3.5: in children, a paediatric equation
CHILDREN = "in children use the bedside Schwartz or CKiD U25 equation (KDIGO 2012 CKD guideline, 1.4.3.5)"
COCKCROFT_GAULT_COHORT = "Cockcroft DW, Gault MH, Nephron 1976: men aged 18-92"


SPECS = [
    CalculatorSpec("creatinine_clearance", "Creatinine Clearance (Cockcroft-Gault)",
                   "CrCl with the BMI-based choice of actual, ideal or adjusted weight.",
                   CockcroftGaultParams, creatinine_clearance, "renal", (2,),
                   validity=(adults(COCKCROFT_GAULT_COHORT, action="refuse", alternative=CHILDREN),)),
    CalculatorSpec("ckd_epi", "CKD-EPI 2021 eGFR", "Race-free CKD-EPI creatinine equation.",
                   CkdEpiParams, ckd_epi, "renal", (3,),
                   validity=(adults("Inker LA et al., N Engl J Med 2021", action="refuse", alternative=CHILDREN),)),
    CalculatorSpec("mdrd_gfr", "MDRD GFR", "4-variable MDRD eGFR (IDMS, 175).", MdrdParams, mdrd, "renal", (9,),
                   validity=(adults("Levey AS et al., Ann Intern Med 2006", action="refuse", alternative=CHILDREN),)),
    CalculatorSpec("renal_dosing", "Renal Dosing", "Cockcroft-Gault CrCl with dose-adjustment bands plus "
                   "CKD-EPI 2021 eGFR.", RenalDosingParams, renal_dosing, "renal",
                   validity=(adults(COCKCROFT_GAULT_COHORT, action="refuse", alternative=CHILDREN),)),
    CalculatorSpec("fena", "Fractional Excretion of Sodium", "FENa, percent.", FenaParams, fena, "renal", (40,),
                   validity=()),
    CalculatorSpec("free_water_deficit", "Free Water Deficit", "TBW x weight x (Na/140 - 1), litres.",
                   FreeWaterParams, free_water_deficit, "renal", (38,),
                   validity=()),
]
