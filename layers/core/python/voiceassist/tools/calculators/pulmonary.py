"""Pneumonia severity: CURB-65 and the Pneumonia Severity Index (PSI/PORT)."""

from __future__ import annotations

from pydantic import Field

from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, Sex, flag, result
from voiceassist.tools.calculators.plausibility import adults

AGE = Field(ge=0, le=130, description="Age, years")


class Curb65Params(CalculatorParams):
    age: float = AGE
    confusion: bool = False
    bun_mg_dl: float = Field(default=10, ge=0, le=500, description="Blood urea nitrogen, mg/dL")
    respiratory_rate: float = Field(default=16, ge=0, le=150, description="Respiratory rate, breaths per minute")
    systolic_bp: float = Field(default=120, gt=0, le=350, description="Systolic blood pressure, mm Hg")
    diastolic_bp: float = Field(default=80, gt=0, le=300, description="Diastolic blood pressure, mm Hg")


def curb65(params: Curb65Params) -> CalculatorResult:
    low_bp = int(params.systolic_bp) < 90 or int(params.diastolic_bp) <= 60
    score = (flag(params.confusion) + flag(params.bun_mg_dl > 19) + flag(int(params.respiratory_rate) >= 30)
             + flag(low_bp) + flag(params.age >= 65))
    if score <= 1:
        category, advice = "low", ["Consider outpatient treatment."]
    elif score == 2:
        category, advice = "moderate", ["Consider a short admission or supervised outpatient treatment."]
    else:
        category, advice = "high", ["Admit; assess for ICU if 4-5."]
    return result("curb65", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"CURB-65 {score}: {category} 30-day mortality risk.",
                  source="Lim WS et al., Thorax 2003;58:377-382")


class PsiParams(CalculatorParams):
    age: float = AGE
    sex: Sex
    nursing_home_resident: bool = False
    neoplastic_disease: bool = False
    liver_disease: bool = False
    congestive_heart_failure: bool = False
    cerebrovascular_disease: bool = False
    renal_disease: bool = False
    altered_mental_status: bool = False
    respiratory_rate: float = Field(default=16, ge=0, le=150, description="Breaths per minute")
    systolic_bp: float = Field(default=120, gt=0, le=350, description="mm Hg")
    temperature_c: float = Field(default=37, ge=13.7, le=46.5, description="°C")
    heart_rate: float = Field(default=80, ge=0, le=400, description="Beats per minute")
    arterial_ph: float = Field(default=7.4, ge=6.3, le=8.0, description="Arterial pH")
    bun_mg_dl: float = Field(default=10, ge=0, le=500, description="Blood urea nitrogen, mg/dL")
    sodium: float = Field(default=140, gt=50, le=250, description="mmol/L")
    glucose_mg_dl: float = Field(default=100, gt=0, le=5000, description="mg/dL")
    hematocrit: float = Field(default=40, gt=0, le=90, description="%")
    pao2: float = Field(default=90, gt=0, le=800, description="Partial pressure of oxygen, mm Hg")
    pleural_effusion: bool = False


def pneumonia_severity_index(params: PsiParams) -> CalculatorResult:
    score = int(params.age) - flag(params.sex is Sex.female, 10)
    score += (flag(params.nursing_home_resident, 10) + flag(params.neoplastic_disease, 30)
              + flag(params.liver_disease, 20) + flag(params.congestive_heart_failure, 10)
              + flag(params.cerebrovascular_disease, 10) + flag(params.renal_disease, 10)
              + flag(params.altered_mental_status, 20) + flag(params.respiratory_rate >= 30, 20)
              + flag(params.systolic_bp < 90, 20) + flag(params.temperature_c < 35 or params.temperature_c >= 40, 15)
              + flag(params.heart_rate >= 125, 10) + flag(params.arterial_ph < 7.35, 30)
              + flag(params.bun_mg_dl >= 30, 20) + flag(params.sodium < 130, 20) + flag(params.glucose_mg_dl >= 250, 10)
              + flag(params.hematocrit < 30, 10) + flag(params.pao2 < 60, 10) + flag(params.pleural_effusion, 10))
    if score <= 70:
        category, advice = "Class II" if score > 50 else "Class I-II", ["Outpatient care (class I-II)."]
    elif score <= 90:
        category, advice = "Class III", ["Outpatient or brief observation."]
    elif score <= 130:
        category, advice = "Class IV", ["Inpatient care."]
    else:
        category, advice = "Class V", ["Inpatient care; consider ICU."]
    return result("pneumonia_severity_index", score, params, unit="points", risk_category=category,
                  recommendations=advice, interpretation=f"PSI {score} points: risk {category}.",
                  source="Fine MJ et al., N Engl J Med 1997;336:243-250")


SPECS = [
    CalculatorSpec("curb65", "CURB-65", "Pneumonia severity and 30-day mortality.", Curb65Params, curb65,
                   "pulmonology", (45,),
                   validity=(adults("Lim WS et al., Thorax 2003: adults with community-acquired pneumonia"),)),
    CalculatorSpec("pneumonia_severity_index", "Pneumonia Severity Index (PSI)", "PORT score, raw points.",
                   PsiParams, pneumonia_severity_index, "pulmonology", (29,),
                   validity=(adults("Fine MJ et al., N Engl J Med 1997: adults with community-acquired pneumonia"),)),
]
