"""Cardiac risk: CHA2DS2-VASc, HAS-BLED, HEART, RCRI, GRACE, Framingham hard CHD and mean arterial pressure."""

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
from voiceassist.tools.calculators.plausibility import Validity, adults

AGE = Field(ge=0, le=130, description="Age, years")
SBP = Field(gt=0, le=350, description="Systolic blood pressure, mm Hg")


class ChadsVascParams(CalculatorParams):
    age: float = AGE
    sex: Sex
    congestive_heart_failure: bool = Field(default=False, description="Heart failure or LV dysfunction")
    hypertension: bool = False
    diabetes: bool = False
    stroke_tia_thromboembolism: bool = Field(default=False, description="Prior stroke, TIA or thromboembolism")
    vascular_disease: bool = Field(default=False, description="Prior MI, peripheral artery disease or aortic plaque")


def chadsvasc(params: ChadsVascParams) -> CalculatorResult:
    score = (
        flag(params.congestive_heart_failure) + flag(params.hypertension) + flag(params.diabetes)
        + band(params.age, [(75, 2), (65, 1)], 0) + flag(params.stroke_tia_thromboembolism, 2)
        + flag(params.vascular_disease) + flag(params.sex is Sex.female)
    )
    non_sex_score = score - flag(params.sex is Sex.female)
    if non_sex_score == 0:
        category, advice = "low", ["No antithrombotic therapy (ESC 2020)."]
    elif non_sex_score == 1:
        category, advice = "moderate", ["Consider oral anticoagulation (ESC 2020 IIa)."]
    else:
        category, advice = "high", ["Oral anticoagulation recommended; DOAC preferred over VKA (ESC 2020 I)."]
    return result("chadsvasc", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"CHA2DS2-VASc {score}: {category} stroke risk in atrial fibrillation.",
                  source="Lip GYH et al., Chest 2010;137:263-272")


class HasBledParams(CalculatorParams):
    age: float = AGE
    hypertension: bool = Field(default=False, description="Uncontrolled, systolic > 160 mm Hg")
    renal_disease: bool = Field(default=False, description="Dialysis, transplant or creatinine > 2.26 mg/dL")
    liver_disease: bool = Field(default=False, description="Cirrhosis or bilirubin > 2x / AST-ALT > 3x normal")
    stroke: bool = False
    prior_bleeding: bool = Field(default=False, description="Major bleeding or predisposition")
    labile_inr: bool = Field(default=False, description="Unstable or high INRs, time in range < 60 %")
    antiplatelet_or_nsaid: bool = Field(default=False, description="Drugs predisposing to bleeding")
    alcohol_drinks_per_week: float = Field(default=0, ge=0, le=500, description="Alcoholic drinks per week")


def hasbled(params: HasBledParams) -> CalculatorResult:
    score = (
        flag(params.hypertension) + flag(params.renal_disease) + flag(params.liver_disease) + flag(params.stroke)
        + flag(params.prior_bleeding) + flag(params.labile_inr) + flag(params.age > 65)
        + flag(params.antiplatelet_or_nsaid) + flag(params.alcohol_drinks_per_week >= 8)
    )
    category = "low" if score == 0 else "moderate" if score <= 2 else "high"
    advice = ["Address modifiable bleeding risk factors; a high score alone is no reason to withhold OAC."]
    return result("hasbled", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"HAS-BLED {score}: {category} risk of major bleeding on anticoagulation.",
                  source="Pisters R et al., Chest 2010;138:1093-1100")


class Suspicion(StrEnum):
    slightly = "slightly"
    moderately = "moderately"
    highly = "highly"


class EcgFinding(StrEnum):
    normal = "normal"
    nonspecific_repolarization = "nonspecific_repolarization"
    significant_st_deviation = "significant_st_deviation"


class TroponinLevel(StrEnum):
    normal = "normal"
    one_to_three_times = "one_to_three_times"
    above_three_times = "above_three_times"


class HeartParams(CalculatorParams):
    age: float = AGE
    history: Suspicion = Suspicion.slightly
    ecg: EcgFinding = EcgFinding.normal
    troponin: TroponinLevel = TroponinLevel.normal
    hypertension: bool = False
    hypercholesterolemia: bool = False
    diabetes: bool = False
    obesity: bool = Field(default=False, description="BMI > 30 kg/m²")
    smoking: bool = Field(default=False, description="Current or recent (< 3 months) smoker")
    family_history: bool = Field(default=False, description="Parent or sibling with cardiovascular disease < 65")
    atherosclerotic_disease: bool = Field(default=False, description="Prior MI, PCI/CABG, stroke or PAD")
    transient_ischemic_attack: bool = False


def _risk_factor_count(params: HeartParams) -> int:
    factors = (params.hypertension, params.hypercholesterolemia, params.diabetes, params.obesity, params.smoking,
               params.family_history, params.atherosclerotic_disease, params.transient_ischemic_attack)
    return sum(factors)


def heart_score(params: HeartParams) -> CalculatorResult:
    levels = {Suspicion.slightly: 0, Suspicion.moderately: 1, Suspicion.highly: 2}
    ecg = {EcgFinding.normal: 0, EcgFinding.nonspecific_repolarization: 1, EcgFinding.significant_st_deviation: 2}
    troponin = {TroponinLevel.normal: 0, TroponinLevel.one_to_three_times: 1, TroponinLevel.above_three_times: 2}
    score = (levels[params.history] + ecg[params.ecg] + troponin[params.troponin]
             + band(params.age, [(65, 2), (45, 1)], 0) + band(_risk_factor_count(params), [(3, 2), (1, 1)], 0))
    if score <= 3:
        category, advice = "low", ["0.9-1.7 % MACE at 6 weeks: consider discharge."]
    elif score <= 6:
        category, advice = "moderate", ["12-16.6 % MACE: admit for observation and non-invasive testing."]
    else:
        category, advice = "high", ["50-65 % MACE: early invasive strategy."]
    return result("heart_score", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"HEART score {score}: {category} risk of major adverse cardiac events.",
                  source="Six AJ, Backus BE, Kelder JC, Neth Heart J 2008;16:191-196")


class RcriParams(CalculatorParams):
    high_risk_surgery: bool = Field(default=False, description="Intraperitoneal, intrathoracic or suprainguinal "
                                    "vascular surgery")
    ischemic_heart_disease: bool = False
    congestive_heart_failure: bool = False
    cerebrovascular_disease: bool = False
    insulin_treatment: bool = False
    creatinine_mg_dl: float = Field(default=1.0, gt=0, le=40, description="Pre-operative creatinine, mg/dL")


def rcri(params: RcriParams) -> CalculatorResult:
    score = (flag(params.high_risk_surgery) + flag(params.ischemic_heart_disease)
             + flag(params.congestive_heart_failure) + flag(params.cerebrovascular_disease)
             + flag(params.insulin_treatment) + flag(params.creatinine_mg_dl > 2))
    risks = {0: "3.9 %", 1: "6.0 %", 2: "10.1 %"}
    category = "low" if score <= 1 else "elevated"
    return result("rcri", score, params, unit="points", risk_category=category,
                  interpretation=f"RCRI {score}: 30-day MI, arrest or death risk about {risks.get(score, '15 %')}.",
                  source="Lee TH et al., Circulation 1999;100:1043-1049; Duceppe E et al., Can J Cardiol 2017",
                  recommendations=[] if score <= 1 else ["Consider BNP/NT-proBNP and post-operative troponin."])


class GraceParams(CalculatorParams):
    age: float = AGE
    heart_rate: float = Field(gt=0, le=400, description="Heart rate, beats per minute")
    systolic_bp: float = SBP
    creatinine_mg_dl: float = Field(gt=0, le=40, description="Serum creatinine, mg/dL")
    killip_class: int = Field(default=1, ge=1, le=4, description="Killip class I-IV")
    cardiac_arrest_at_admission: bool = False
    st_deviation: bool = False
    elevated_cardiac_enzymes: bool = False


def grace(params: GraceParams) -> CalculatorResult:
    """In-hospital mortality points of the GRACE model (Granger 2003)."""
    score = (
        band(params.age, [(90, 100), (80, 91), (70, 75), (60, 58), (50, 41), (40, 25), (30, 8)], 0)
        + band(params.heart_rate, [(200, 46), (150, 38), (110, 24), (90, 15), (70, 9), (50, 3)], 0)
        + band(params.systolic_bp, [(200, 0), (160, 10), (140, 24), (120, 34), (100, 43), (80, 53)], 58)
        + band(params.creatinine_mg_dl, [(4, 28), (2, 21), (1.6, 13), (1.2, 10), (0.8, 7), (0.4, 4)], 1)
        + {1: 0, 2: 20, 3: 39, 4: 59}[params.killip_class]
        + flag(params.cardiac_arrest_at_admission, 39) + flag(params.st_deviation, 28)
        + flag(params.elevated_cardiac_enzymes, 14)
    )
    if score <= 108:
        category, mortality = "low", "< 1 %"
    elif score <= 140:
        category, mortality = "intermediate", "1-3 %"
    else:
        category, mortality = "high", "> 3 %"
    advice = ["Early invasive strategy (< 24 h) is recommended for GRACE > 140."] if score > 140 else []
    return result("grace", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"GRACE {score}: {category} risk, in-hospital mortality {mortality}.",
                  source="Granger CB et al., Arch Intern Med 2003;163:2345-2353")


class FraminghamParams(CalculatorParams):
    sex: Sex
    age: float = Field(ge=20, le=130, description="Age, years")
    total_cholesterol_mg_dl: float = Field(gt=0, le=2000, description="Total cholesterol, mg/dL")
    hdl_mg_dl: float = Field(gt=0, le=500, description="HDL cholesterol, mg/dL")
    systolic_bp: float = SBP
    bp_treated: bool = False
    smoker: bool = False


def framingham_hard_chd(params: FraminghamParams) -> CalculatorResult:
    """10-year hard CHD risk, ATP III (2001) Cox model coefficients; percent to 3 decimals."""
    ln_age, ln_tc = math.log(params.age), math.log(params.total_cholesterol_mg_dl)
    ln_hdl, ln_sbp = math.log(params.hdl_mg_dl), math.log(params.systolic_bp)
    treated, smoker = float(params.bp_treated), float(params.smoker)
    if params.sex is Sex.male:
        ln_age_smoke = math.log(min(params.age, 70))
        linear = (52.00961 * ln_age + 20.014077 * ln_tc - 0.905964 * ln_hdl + 1.305784 * ln_sbp
                  + 0.241549 * treated + 12.096316 * smoker - 4.605038 * ln_age * ln_tc
                  - 2.84367 * ln_age_smoke * smoker - 2.93323 * ln_age * ln_age - 172.300168)
        baseline = 0.9402
    else:
        ln_age_smoke = math.log(min(params.age, 78))
        linear = (31.764001 * ln_age + 22.465206 * ln_tc - 1.187731 * ln_hdl + 2.552905 * ln_sbp
                  + 0.420251 * treated + 13.07543 * smoker - 5.060998 * ln_age * ln_tc
                  - 2.996945 * ln_age_smoke * smoker - 146.5933061)
        baseline = 0.98767
    value = round(100 * (1 - baseline ** math.exp(linear)), 3)
    category = "low" if value < 10 else "intermediate" if value <= 20 else "high"
    return result("framingham_hard_chd", value, params, unit="%", risk_category=category,
                  interpretation=f"10-year hard CHD risk {value:.1f} % ({category}, ATP III).",
                  source="NCEP ATP III, JAMA 2001;285:2486-2497; Wilson PWF et al., Circulation 1998;97:1837-1847")


class MapParams(CalculatorParams):
    systolic_bp: float = SBP
    diastolic_bp: float = Field(gt=0, le=300, description="Diastolic blood pressure, mm Hg")


def mean_arterial_pressure(params: MapParams) -> CalculatorResult:
    value = round5(params.systolic_bp / 3 + 2 * params.diastolic_bp / 3)
    category = "low" if value < 65 else "high" if value > 110 else "normal"
    return result("mean_arterial_pressure", value, params, unit="mm Hg", risk_category=category,
                  interpretation=f"Mean arterial pressure {value:.0f} mm Hg ({category}).",
                  source="Sesso HD et al., Hypertension 2000;36:801-807",
                  recommendations=["MAP < 65 mm Hg: assess perfusion (Surviving Sepsis target >= 65)."]
                  if value < 65 else [])


SPECS = [
    CalculatorSpec("chadsvasc", "CHA2DS2-VASc", "Stroke risk in atrial fibrillation.", ChadsVascParams, chadsvasc,
                   "cardiology", (4,),
                   validity=(adults("Lip GYH et al., Chest 2010: adults with non-valvular atrial fibrillation"),)),
    CalculatorSpec("hasbled", "HAS-BLED", "Major bleeding risk on anticoagulation.", HasBledParams, hasbled,
                   "cardiology", (25,),
                   validity=(adults("Pisters R et al., Chest 2010: adults with atrial fibrillation"),)),
    CalculatorSpec("heart_score", "HEART Score", "Major adverse cardiac events in chest pain.", HeartParams,
                   heart_score, "cardiology", (18,),
                   validity=(
                       adults("Six AJ et al., Neth Heart J 2008: adults with chest pain at the "
                       "emergency department"),)),
    CalculatorSpec("rcri", "Revised Cardiac Risk Index", "Pre-operative cardiac risk.", RcriParams, rcri,
                   "cardiology", (17,),
                   validity=()),
    CalculatorSpec("grace", "GRACE ACS Risk", "In-hospital mortality in acute coronary syndrome.", GraceParams,
                   grace, "cardiology",
                   validity=(adults("Granger CB et al., Arch Intern Med 2003: adults with acute coronary syndrome"),)),
    CalculatorSpec("framingham_hard_chd", "Framingham Risk Score (hard CHD)", "10-year hard CHD risk, ATP III.",
                   FraminghamParams, framingham_hard_chd, "cardiology", (46,),
                   validity=(
                       Validity("age", 20, 79, "the ATP III Framingham estimate covers ages 20-79 (NCEP ATP III, JAMA "
                       "2001)"),)),
    CalculatorSpec("mean_arterial_pressure", "Mean Arterial Pressure", "SBP/3 + 2 DBP/3.", MapParams,
                   mean_arterial_pressure, "cardiology", (5,),
                   validity=()),
]
