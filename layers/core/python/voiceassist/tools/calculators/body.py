"""Body size: BMI, body surface area, ideal, adjusted and target weight, maintenance fluids."""

from __future__ import annotations

import math

from pydantic import Field

from voiceassist.tools.calculators.base import (
    CalculatorParams,
    CalculatorResult,
    CalculatorSpec,
    Sex,
    result,
    round5,
)

WEIGHT_KG = Field(gt=0, le=700, description="Body weight, kg")
HEIGHT_CM = Field(gt=20, le=300, description="Height, cm")


class BmiParams(CalculatorParams):
    weight_kg: float = WEIGHT_KG
    height_cm: float = HEIGHT_CM


def body_mass_index(weight_kg: float, height_cm: float) -> float:
    height_m = round5(height_cm / 100)
    return round5(weight_kg / height_m**2)


def bmi_category(bmi: float) -> str:
    if bmi < 18.5:
        return "underweight"
    if bmi < 25:
        return "normal weight"
    if bmi < 30:
        return "overweight"
    if bmi < 35:
        return "obesity class I"
    if bmi < 40:
        return "obesity class II"
    return "obesity class III"


def bmi(params: BmiParams) -> CalculatorResult:
    value = body_mass_index(params.weight_kg, params.height_cm)
    category = bmi_category(value)
    return result(
        "bmi", value, params, unit="kg/m²", interpretation=f"BMI {value:.1f} kg/m²: {category} (WHO).",
        risk_category=category, source="Keys A et al., J Chronic Dis 1972; WHO Technical Report Series 894, 2000",
        recommendations=[] if category == "normal weight" else ["Assess weight-related risk and counsel."],
    )


def body_surface_area(params: BmiParams) -> CalculatorResult:
    value = round5(math.sqrt(params.weight_kg * params.height_cm / 3600))
    return result(
        "body_surface_area", value, params, unit="m²", interpretation=f"Body surface area {value:.2f} m² (Mosteller).",
        risk_category="not applicable", source="Mosteller RD, N Engl J Med 1987;317:1098",
    )


class IdealWeightParams(CalculatorParams):
    sex: Sex
    height_cm: float = HEIGHT_CM


def devine_ideal_weight(sex: Sex, height_cm: float) -> float:
    """Devine: 50 kg (men) or 45.5 kg (women) + 2.3 kg per inch above 5 ft; no floor below 5 ft."""
    inches = round5(height_cm / 2.54)
    base = 50.0 if sex is Sex.male else 45.5
    return round5(base + 2.3 * (inches - 60))


def ideal_body_weight(params: IdealWeightParams) -> CalculatorResult:
    value = devine_ideal_weight(params.sex, params.height_cm)
    return result(
        "ideal_body_weight", value, params, unit="kg", interpretation=f"Ideal body weight {value:.1f} kg (Devine).",
        risk_category="not applicable", source="Devine BJ, Drug Intell Clin Pharm 1974;8:650-655",
    )


class AdjustedWeightParams(CalculatorParams):
    sex: Sex
    weight_kg: float = WEIGHT_KG
    height_cm: float = HEIGHT_CM


def adjusted_weight(sex: Sex, weight_kg: float, height_cm: float) -> float:
    ideal = devine_ideal_weight(sex, height_cm)
    return round5(ideal + 0.4 * (weight_kg - ideal))


def adjusted_body_weight(params: AdjustedWeightParams) -> CalculatorResult:
    value = adjusted_weight(params.sex, params.weight_kg, params.height_cm)
    return result(
        "adjusted_body_weight", value, params, unit="kg",
        interpretation=f"Adjusted body weight {value:.1f} kg (ideal + 0.4 x excess).", risk_category="not applicable",
        source="Bauer LA, Applied Clinical Pharmacokinetics, McGraw-Hill 2008; Devine BJ 1974 for ideal weight",
    )


class TargetWeightParams(CalculatorParams):
    target_bmi: float = Field(gt=5, le=100, description="Target body mass index, kg/m²")
    height_cm: float = HEIGHT_CM


def target_weight(params: TargetWeightParams) -> CalculatorResult:
    value = round5(params.target_bmi * round5(params.height_cm / 100) ** 2)
    return result(
        "target_weight", value, params, unit="kg",
        interpretation=f"Weight {value:.1f} kg gives a BMI of {params.target_bmi} at this height.",
        risk_category=bmi_category(params.target_bmi), source="BMI definition: Keys A et al., J Chronic Dis 1972",
    )


class MaintenanceFluidsParams(CalculatorParams):
    weight_kg: float = WEIGHT_KG


def maintenance_fluids(params: MaintenanceFluidsParams) -> CalculatorResult:
    """Holliday-Segar 4-2-1 rule, mL/h, without an adult cap."""
    weight = params.weight_kg
    if weight <= 10:
        rate = 4 * weight
    elif weight <= 20:
        rate = 40 + 2 * (weight - 10)
    else:
        rate = 60 + (weight - 20)
    value = round5(rate)
    return result(
        "maintenance_fluids", value, params, unit="mL/h", interpretation=f"Maintenance fluid rate {value:.0f} mL/h.",
        risk_category="not applicable", source="Holliday MA, Segar WE, Pediatrics 1957;19:823-832",
        recommendations=["Adjust for ongoing losses, renal and cardiac function."],
    )


SPECS = [
    CalculatorSpec("bmi", "Body Mass Index (BMI)", "Weight over height squared with the WHO category.",
                   BmiParams, bmi, "physical", (6,),
                   validity=()),
    CalculatorSpec("body_surface_area", "Body Surface Area (Mosteller)", "sqrt(height cm x weight kg / 3600).",
                   BmiParams, body_surface_area, "physical", (60,),
                   validity=()),
    CalculatorSpec("ideal_body_weight", "Ideal Body Weight (Devine)", "Devine ideal body weight from sex and height.",
                   IdealWeightParams, ideal_body_weight, "physical", (10,),
                   validity=()),
    CalculatorSpec("adjusted_body_weight", "Adjusted Body Weight", "Ideal weight + 0.4 x (actual - ideal).",
                   AdjustedWeightParams, adjusted_body_weight, "physical", (62,),
                   validity=()),
    CalculatorSpec("target_weight", "Target Weight", "Weight for a target BMI at a given height.",
                   TargetWeightParams, target_weight, "physical", (61,),
                   validity=()),
    CalculatorSpec("maintenance_fluids", "Maintenance Fluids (4-2-1 rule)", "Hourly maintenance fluid by weight.",
                   MaintenanceFluidsParams, maintenance_fluids, "physical", (22,),
                   validity=()),
]
