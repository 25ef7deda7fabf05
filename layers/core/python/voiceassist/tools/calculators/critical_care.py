"""Critical care: APACHE II, SOFA and the Glasgow Coma Scale."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, band, result
from voiceassist.tools.calculators.plausibility import Validity

GCS_FIELD = Field(default=15, ge=3, le=15, description="Glasgow Coma Scale total")


class AdmissionType(StrEnum):
    nonoperative = "nonoperative"
    emergency_postoperative = "emergency_postoperative"
    elective_postoperative = "elective_postoperative"


class ApacheParams(CalculatorParams):
    age: float = Field(ge=0, le=130, description="Age, years")
    temperature_c: float = Field(ge=13.7, le=46.5, description="Core temperature, °C")
    mean_arterial_pressure: float = Field(gt=0, le=300, description="Mean arterial pressure, mm Hg")
    heart_rate: float = Field(ge=0, le=400, description="Heart rate, beats per minute")
    respiratory_rate: float = Field(ge=0, le=150, description="Respiratory rate, breaths per minute")
    fio2_percent: float = Field(default=21, ge=10, le=100, description="Inspired oxygen, %")
    pao2: float = Field(gt=0, le=800, description="Arterial PaO2, mm Hg")
    a_a_gradient: float | None = Field(default=None, description="A-a gradient, mm Hg (used when FiO2 >= 50 %)")
    arterial_ph: float = Field(ge=6.3, le=8.0, description="Arterial pH")
    sodium: float = Field(gt=50, le=250, description="Serum sodium, mmol/L")
    potassium: float = Field(gt=0, le=15, description="Serum potassium, mmol/L")
    creatinine_mg_dl: float = Field(gt=0, le=40, description="Serum creatinine, mg/dL")
    acute_renal_failure: bool = False
    hematocrit: float = Field(gt=0, le=90, description="Haematocrit, %")
    wbc_10_3_ul: float = Field(ge=0, le=1000, description="White cell count, 10^3/µL")
    gcs: int = GCS_FIELD
    severe_organ_insufficiency_or_immunocompromised: bool = False
    admission_type: AdmissionType = AdmissionType.nonoperative


def _oxygenation_points(params: ApacheParams) -> int:
    if params.fio2_percent >= 50:
        gradient = params.a_a_gradient
        if gradient is None:
            gradient = params.fio2_percent / 100 * (760 - 47) - 40 / 0.8 - params.pao2
        return band(gradient, [(500, 4), (350, 3), (200, 2)], 0)
    pao2 = params.pao2
    return 0 if pao2 > 70 else 1 if pao2 >= 61 else 3 if pao2 >= 55 else 4


def apache_ii(params: ApacheParams) -> CalculatorResult:
    map_ = params.mean_arterial_pressure
    map_points = 4 if map_ > 159 else 3 if map_ > 129 else 2 if map_ > 109 else 0 if map_ > 69 else 2 if map_ > 49 \
        else 4
    creatinine = band(params.creatinine_mg_dl, [(3.5, 4), (2, 3), (1.5, 2), (0.6, 0)], 2)
    chronic = 0
    if params.severe_organ_insufficiency_or_immunocompromised:
        chronic = 2 if params.admission_type is AdmissionType.elective_postoperative else 5
    points = {
        "temperature": band(params.temperature_c, [(41, 4), (39, 3), (38.5, 1), (36, 0), (34, 1), (32, 2), (30, 3)], 4),
        "mean_arterial_pressure": map_points,
        "heart_rate": band(params.heart_rate, [(180, 4), (140, 3), (110, 2), (70, 0), (55, 2), (40, 3)], 4),
        "respiratory_rate": band(params.respiratory_rate, [(50, 4), (35, 3), (25, 1), (12, 0), (10, 1), (6, 2)], 4),
        "oxygenation": _oxygenation_points(params),
        "arterial_ph": band(params.arterial_ph, [(7.7, 4), (7.6, 3), (7.5, 1), (7.33, 0), (7.25, 2), (7.15, 3)], 4),
        "sodium": band(params.sodium, [(180, 4), (160, 3), (155, 2), (150, 1), (130, 0), (120, 2), (111, 3)], 4),
        "potassium": band(params.potassium, [(7, 4), (6, 3), (5.5, 1), (3.5, 0), (3, 1), (2.5, 2)], 4),
        "creatinine": creatinine * (2 if params.acute_renal_failure else 1),
        "hematocrit": band(params.hematocrit, [(60, 4), (50, 2), (46, 1), (30, 0), (20, 2)], 4),
        "wbc": band(params.wbc_10_3_ul, [(40, 4), (20, 2), (15, 1), (3, 0), (1, 2)], 4),
        "gcs": 15 - params.gcs,
        "age": band(params.age, [(75, 6), (65, 5), (55, 3), (45, 2)], 0),
        "chronic_health": chronic,
    }
    score = sum(points.values())
    category = "low" if score < 10 else "moderate" if score < 20 else "high" if score < 30 else "very high"
    return result("apache_ii", score, params, unit="points", risk_category=category,
                  interpretation=f"APACHE II {score}: {category} predicted hospital mortality.",
                  source="Knaus WA et al., Crit Care Med 1985;13:818-829")


class SofaParams(CalculatorParams):
    pao2: float = Field(gt=0, le=800, description="Arterial PaO2, mm Hg")
    fio2_percent: float = Field(default=21, ge=10, le=100, description="Inspired oxygen, %")
    ventilated: bool = Field(default=False, description="Mechanical ventilation or CPAP")
    platelets_10_3_ul: float = Field(default=200, ge=0, le=3000, description="Platelets, 10^3/µL")
    gcs: int = GCS_FIELD
    bilirubin_mg_dl: float = Field(default=0.5, gt=0, le=100, description="Bilirubin, mg/dL")
    mean_arterial_pressure: float = Field(default=80, gt=0, le=300, description="Mean arterial pressure, mm Hg")
    dopamine: float = Field(default=0, ge=0, le=100, description="Dopamine, µg/kg/min")
    dobutamine: float = Field(default=0, ge=0, le=100, description="Dobutamine, µg/kg/min")
    epinephrine: float = Field(default=0, ge=0, le=10, description="Epinephrine, µg/kg/min")
    norepinephrine: float = Field(default=0, ge=0, le=10, description="Norepinephrine, µg/kg/min")
    creatinine_mg_dl: float = Field(default=1.0, gt=0, le=40, description="Creatinine, mg/dL")
    urine_output_ml_day: float | None = Field(default=None, ge=0, le=20000, description="Urine output, mL/day")


def _cardiovascular_points(params: SofaParams) -> int:
    if params.dopamine > 15 or params.epinephrine > 0.1 or params.norepinephrine > 0.1:
        return 4
    if params.dopamine > 5 or params.epinephrine > 0 or params.norepinephrine > 0:
        return 3
    if params.dopamine > 0 or params.dobutamine > 0:
        return 2
    return 1 if params.mean_arterial_pressure < 70 else 0


def sofa(params: SofaParams) -> CalculatorResult:
    ratio = params.pao2 / (params.fio2_percent / 100)
    if params.ventilated and ratio < 100:
        respiration = 4
    elif params.ventilated and ratio < 200:
        respiration = 3
    else:
        respiration = 2 if ratio < 300 else 1 if ratio < 400 else 0
    renal = band(params.creatinine_mg_dl, [(5, 4), (3.5, 3), (2, 2), (1.2, 1)], 0)
    if params.urine_output_ml_day is not None:
        urine = 4 if params.urine_output_ml_day < 200 else 3 if params.urine_output_ml_day < 500 else 0
        renal = max(renal, urine)
    gcs = params.gcs
    score = (
        respiration
        + (4 if params.platelets_10_3_ul < 20 else 3 if params.platelets_10_3_ul < 50 else
           2 if params.platelets_10_3_ul < 100 else 1 if params.platelets_10_3_ul < 150 else 0)
        + band(params.bilirubin_mg_dl, [(12, 4), (6, 3), (2, 2), (1.2, 1)], 0)
        + _cardiovascular_points(params)
        + (0 if gcs == 15 else 1 if gcs >= 13 else 2 if gcs >= 10 else 3 if gcs >= 6 else 4)
        + renal
    )
    category = "low" if score < 7 else "moderate" if score < 10 else "high" if score < 13 else "very high"
    return result("sofa", score, params, unit="points", risk_category=category,
                  interpretation=f"SOFA {score}: {category} mortality risk; a rise >= 2 marks sepsis-related "
                  "organ dysfunction.", source="Vincent JL et al., Intensive Care Med 1996;22:707-710")


class GcsParams(CalculatorParams):
    eye: int = Field(ge=1, le=4, description="Eye response 1-4 (not testable scores 4)")
    verbal: int = Field(ge=1, le=5, description="Verbal response 1-5 (not testable scores 4)")
    motor: int = Field(ge=1, le=6, description="Motor response 1-6")


def glasgow_coma_scale(params: GcsParams) -> CalculatorResult:
    score = params.eye + params.verbal + params.motor
    category = "mild" if score >= 13 else "moderate" if score >= 9 else "severe"
    return result("glasgow_coma_scale", score, params, unit="points", risk_category=category,
                  interpretation=f"GCS {score} (E{params.eye} V{params.verbal} M{params.motor}): {category} brain "
                  "injury.", source="Teasdale G, Jennett B, Lancet 1974;2:81-84",
                  recommendations=["GCS <= 8: protect the airway."] if score <= 8 else [])


SPECS = [
    CalculatorSpec("apache_ii", "APACHE II", "ICU severity of illness.", ApacheParams, apache_ii, "critical care",
                   (28,),
                   validity=(
                       Validity("age", 16, 120, "APACHE II was developed in ICU patients aged 16 and over (Knaus WA et "
                       "al., Crit Care Med 1985)"),)),
    CalculatorSpec("sofa", "SOFA Score", "Sequential organ failure assessment.", SofaParams, sofa, "critical care",
                   (43,),
                   validity=()),
    CalculatorSpec("glasgow_coma_scale", "Glasgow Coma Scale", "Level of consciousness.", GcsParams,
                   glasgow_coma_scale, "critical care", (21,),
                   validity=()),
]
