"""Drug dose conversion: corticosteroid equivalents and morphine milligram equivalents (MME)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, result, round5


class Steroid(StrEnum):
    betamethasone = "betamethasone"
    cortisone = "cortisone"
    dexamethasone = "dexamethasone"
    hydrocortisone = "hydrocortisone"
    methylprednisolone = "methylprednisolone"
    prednisolone = "prednisolone"
    prednisone = "prednisone"
    triamcinolone = "triamcinolone"


# Anti-inflammatory equivalent doses, mg (dexamethasone 0.75 mg = hydrocortisone 20 mg).
EQUIVALENT_MG: dict[Steroid, float] = {
    Steroid.betamethasone: 0.75, Steroid.cortisone: 25, Steroid.dexamethasone: 0.75, Steroid.hydrocortisone: 20,
    Steroid.methylprednisolone: 4, Steroid.prednisolone: 5, Steroid.prednisone: 5, Steroid.triamcinolone: 4,
}


class SteroidParams(CalculatorParams):
    from_steroid: Steroid
    dose_mg: float = Field(gt=0, le=10_000, description="Dose of the current steroid, mg")
    to_steroid: Steroid


def steroid_conversion(params: SteroidParams) -> CalculatorResult:
    value = round5(params.dose_mg / EQUIVALENT_MG[params.from_steroid] * EQUIVALENT_MG[params.to_steroid])
    return result("steroid_conversion", value, params, unit="mg", risk_category="not applicable",
                  interpretation=f"{params.dose_mg:g} mg {params.from_steroid.value} = {value:g} mg "
                  f"{params.to_steroid.value} (anti-inflammatory equivalence).",
                  source="Meikle AW, Tyler FH, Am J Med 1977;63:200-207; Liu D et al., Allergy Asthma Clin "
                  "Immunol 2013;9:30",
                  recommendations=["Equivalence ignores mineralocorticoid effect and duration of action."])


class Opioid(StrEnum):
    codeine = "codeine"
    fentanyl_buccal = "fentanyl_buccal"
    fentanyl_patch = "fentanyl_patch"
    hydrocodone = "hydrocodone"
    hydromorphone = "hydromorphone"
    methadone = "methadone"
    morphine = "morphine"
    oxycodone = "oxycodone"
    oxymorphone = "oxymorphone"
    tapentadol = "tapentadol"
    tramadol = "tramadol"
    buprenorphine = "buprenorphine"


# Conversion factor to oral morphine mg, per mg (fentanyl buccal per µg, fentanyl patch per µg/h).
MME_FACTOR: dict[Opioid, float] = {
    Opioid.codeine: 0.15, Opioid.fentanyl_buccal: 0.13, Opioid.fentanyl_patch: 2.4, Opioid.hydrocodone: 1,
    Opioid.hydromorphone: 5, Opioid.methadone: 4.7, Opioid.morphine: 1, Opioid.oxycodone: 1.5,
    Opioid.oxymorphone: 3, Opioid.tapentadol: 0.4, Opioid.tramadol: 0.2, Opioid.buprenorphine: 10,
}


class OpioidDose(BaseModel):
    opioid: Opioid
    # the largest single doses in palliative use (BNF 2024: plausible_ranges "dosing"); above is a unit slip
    dose: float = Field(gt=0, le=5000, description="Dose per administration: mg, or µg for fentanyl")
    doses_per_day: float = Field(default=1, ge=0, le=48, description="Administrations per day")


class MmeParams(CalculatorParams):
    opioids: list[OpioidDose] = Field(min_length=1, description="Each opioid with dose and doses per day")


def morphine_milligram_equivalents(params: MmeParams) -> CalculatorResult:
    value = round5(sum(item.dose * item.doses_per_day * MME_FACTOR[item.opioid] for item in params.opioids))
    if value >= 90:
        category, advice = "high", ["CDC: avoid or justify >= 90 MME/day; offer naloxone."]
    elif value >= 50:
        category, advice = "increased", ["CDC: reassess benefits and risks at >= 50 MME/day; offer naloxone."]
    else:
        category, advice = "lower", []
    return result("morphine_milligram_equivalents", value, params, unit="MME/day", risk_category=category,
                  recommendations=advice, interpretation=f"Total {value:g} morphine milligram equivalents per day.",
                  source="Dowell D et al., CDC Clinical Practice Guideline for Prescribing Opioids, MMWR 2022;71(3)")


SPECS = [
    CalculatorSpec("steroid_conversion", "Steroid Conversion", "Equivalent corticosteroid dose.", SteroidParams,
                   steroid_conversion, "dosing", (24,),
                   validity=()),
    CalculatorSpec("morphine_milligram_equivalents", "Morphine Milligram Equivalents", "Daily MME across opioids.",
                   MmeParams, morphine_milligram_equivalents, "dosing", (49,),
                   validity=()),
]
