"""Liver and GI bleeding: MELD-Na (UNOS/OPTN), Child-Pugh, FIB-4 and the Glasgow-Blatchford score."""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import Field

from voiceassist.tools.calculators.base import (
    CalculatorParams,
    CalculatorResult,
    CalculatorSpec,
    Sex,
    band,
    flag,
    result,
    round5,
)
from voiceassist.tools.calculators.plausibility import Validity

BILIRUBIN = Field(gt=0, le=100, description="Total bilirubin, mg/dL")
INR = Field(gt=0, le=20, description="International normalised ratio")


class MeldParams(CalculatorParams):
    creatinine_mg_dl: float = Field(gt=0, le=40, description="Serum creatinine, mg/dL")
    bilirubin_mg_dl: float = BILIRUBIN
    inr: float = INR
    sodium: float = Field(gt=50, le=250, description="Serum sodium, mmol/L")
    dialysis: bool = Field(default=False, description="Dialysis twice or CVVHD >= 24 h in the past week")


def meld(params: MeldParams) -> CalculatorResult:
    """OPTN policy (2016): bounded inputs, MELD(i) rounded to the tenth, sodium term above 11, cap 40."""
    creatinine = 4.0 if params.dialysis else min(max(params.creatinine_mg_dl, 1.0), 4.0)
    bilirubin = max(params.bilirubin_mg_dl, 1.0)
    inr = max(params.inr, 1.0)
    sodium = min(max(params.sodium, 125.0), 137.0)
    meld_i = round(0.957 * math.log(creatinine) + 0.378 * math.log(bilirubin) + 1.120 * math.log(inr) + 0.643, 1)
    meld_i *= 10
    score = meld_i + 1.32 * (137 - sodium) - 0.033 * meld_i * (137 - sodium) if meld_i > 11 else meld_i
    value = min(round(score), 40)
    mortality = next(label for bound, label in ((10, "1.9 %"), (20, "6.0 %"), (30, "19.6 %"), (40, "52.6 %"),
                                               (math.inf, "71.3 %")) if value < bound)
    category = "low" if value < 10 else "moderate" if value < 20 else "high" if value < 30 else "very high"
    return result("meld", value, params, unit="points", risk_category=category,
                  interpretation=f"MELD-Na {value}: 90-day mortality about {mortality}.",
                  source="Kim WR et al., N Engl J Med 2008;359:1018-1026; OPTN policy 9.1 (2016)",
                  recommendations=["Refer for transplant evaluation (MELD >= 15)."] if value >= 15 else [])


class Ascites(StrEnum):
    absent = "absent"
    slight = "slight"
    moderate = "moderate"


class Encephalopathy(StrEnum):
    none = "none"
    grade_1_2 = "grade_1_2"
    grade_3_4 = "grade_3_4"


class ChildPughParams(CalculatorParams):
    bilirubin_mg_dl: float = BILIRUBIN
    albumin_g_dl: float = Field(gt=0, le=10, description="Serum albumin, g/dL")
    inr: float = INR
    ascites: Ascites = Ascites.absent
    encephalopathy: Encephalopathy = Encephalopathy.none


def child_pugh(params: ChildPughParams) -> CalculatorResult:
    bilirubin = 1 if params.bilirubin_mg_dl < 2 else 2 if params.bilirubin_mg_dl <= 3 else 3
    albumin = 1 if params.albumin_g_dl > 3.5 else 2 if params.albumin_g_dl >= 2.8 else 3
    inr = 1 if params.inr < 1.7 else 2 if params.inr <= 2.3 else 3
    ascites = {Ascites.absent: 1, Ascites.slight: 2, Ascites.moderate: 3}[params.ascites]
    encephalopathy = {Encephalopathy.none: 1, Encephalopathy.grade_1_2: 2, Encephalopathy.grade_3_4: 3}[
        params.encephalopathy]
    score = bilirubin + albumin + inr + ascites + encephalopathy
    category = "Class A" if score <= 6 else "Class B" if score <= 9 else "Class C"
    survival = {"Class A": "100 % / 85 %", "Class B": "80 % / 60 %", "Class C": "45 % / 35 %"}[category]
    return result("child_pugh", score, params, unit="points", risk_category=category,
                  interpretation=f"Child-Pugh {score} ({category}); 1- / 2-year survival {survival}.",
                  source="Pugh RN et al., Br J Surg 1973;60:646-649")


class Fib4Params(CalculatorParams):
    age: float = Field(ge=0, le=130, description="Age, years")
    ast: float = Field(gt=0, le=20000, description="AST, U/L")
    alt: float = Field(gt=0, le=20000, description="ALT, U/L")
    platelets_10_9_l: float = Field(gt=0, le=3000, description="Platelet count, 10^9/L")


def fib4(params: Fib4Params) -> CalculatorResult:
    value = round5(params.age * params.ast / (params.platelets_10_9_l * math.sqrt(params.alt)))
    if value < 1.3:
        category, advice = "low", ["Advanced fibrosis unlikely; repeat in 2-3 years."]
    elif value <= 2.67:
        category, advice = "indeterminate", ["Second-line test (elastography or ELF)."]
    else:
        category, advice = "high", ["Advanced fibrosis likely: refer to hepatology."]
    return result("fib4", value, params, unit="index", risk_category=category, recommendations=advice,
                  interpretation=f"FIB-4 {value:.2f}: {category} risk of advanced fibrosis.",
                  source="Sterling RK et al., Hepatology 2006;43:1317-1325")


class BlatchfordParams(CalculatorParams):
    sex: Sex
    bun_mg_dl: float = Field(ge=0, le=500, description="Blood urea nitrogen, mg/dL")
    hemoglobin_g_dl: float = Field(gt=0, le=30, description="Haemoglobin, g/dL")
    systolic_bp: float = Field(gt=0, le=350, description="Systolic blood pressure, mm Hg")
    heart_rate: float = Field(default=80, gt=0, le=400, description="Heart rate, beats per minute")
    melena: bool = False
    syncope: bool = False
    hepatic_disease: bool = False
    cardiac_failure: bool = False


def glasgow_blatchford(params: BlatchfordParams) -> CalculatorResult:
    bun = params.bun_mg_dl
    urea = 6 if bun > 70 else band(bun, [(28, 4), (22.4, 3), (18.2, 2)], 0)
    hb = params.hemoglobin_g_dl
    if params.sex is Sex.male:
        hemoglobin = 6 if hb < 10 else 3 if hb < 12 else 1 if hb < 13 else 0
    else:
        hemoglobin = 6 if hb < 10 else 1 if hb < 12 else 0
    systolic = 3 if params.systolic_bp < 90 else 2 if params.systolic_bp < 100 else 1 if params.systolic_bp < 110 else 0
    score = (urea + hemoglobin + systolic + flag(params.heart_rate >= 100) + flag(params.melena)
             + flag(params.syncope, 2) + flag(params.hepatic_disease, 2) + flag(params.cardiac_failure, 2))
    category = "very low" if score == 0 else "low" if score <= 1 else "high"
    advice = ["Score 0-1: consider outpatient management."] if score <= 1 else ["Admit; endoscopy within 24 h."]
    return result("glasgow_blatchford", score, params, unit="points", risk_category=category,
                  recommendations=advice, source="Blatchford O, Murray WR, Blatchford M, Lancet 2000;356:1318-1321",
                  interpretation=f"Glasgow-Blatchford {score}: {category} risk of needing intervention.")


SPECS = [
    CalculatorSpec("meld", "MELD-Na (UNOS/OPTN)", "Liver disease severity, 90-day mortality.", MeldParams, meld,
                   "hepatology", (23,),
                   validity=()),
    CalculatorSpec("child_pugh", "Child-Pugh Score", "Cirrhosis severity.", ChildPughParams, child_pugh,
                   "hepatology", (15,),
                   validity=()),
    CalculatorSpec("fib4", "FIB-4 Index", "Liver fibrosis.", Fib4Params, fib4, "hepatology", (19,),
                   validity=(
                       Validity("age", 35, 65, "FIB-4 is unreliable under 35 and over-calls fibrosis over 65 "
                       "(McPherson S et al., Am J Gastroenterol 2017;112:740); over 65 use 2.0"
                       " as the lower cut-off"),)),
    CalculatorSpec("glasgow_blatchford", "Glasgow-Blatchford Bleeding Score", "Upper GI bleeding risk.",
                   BlatchfordParams, glasgow_blatchford, "gastroenterology", (27,),
                   validity=()),
]
