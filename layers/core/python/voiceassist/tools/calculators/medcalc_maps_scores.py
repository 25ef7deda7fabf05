"""MedCalc-Bench entity names -> params for the point scores (missing criteria count as absent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voiceassist.tools.calculators.medcalc_entities import (
    BP,
    HEART_RATE,
    Entities,
    age,
    bun,
    creatinine,
    glucose,
    option,
    platelets_per_nl,
    sex,
    sodium,
)
from voiceassist.tools.calculators.medcalc_maps_comorbidity import caprini, charlson

Params = dict[str, Any]

PRIOR_PE = "Previously Documented Pulmonary Embolism"
PRIOR_DVT = "Previously documented Deep Vein Thrombosis"


def _pressure(e: Entities, name: str) -> float | None:
    return e.number(name, quantity="pressure")


def _rate(e: Entities, name: str) -> float | None:
    return e.number(name, quantity="rate")


def _temperature(e: Entities) -> float | None:
    return e.number("Temperature", "Body temperature", quantity="temperature")


def _map(e: Entities) -> float | None:
    systolic, diastolic = _pressure(e, BP[0]), _pressure(e, BP[1])
    if systolic is None or diastolic is None:
        return e.number("Mean Arterial Pressure", "MAP", quantity="pressure")
    return systolic / 3 + 2 * diastolic / 3


def _white_count_per_ul(e: Entities) -> float | None:
    count = e.number("White blood cell count", "WBC", quantity="count")
    if count is None:
        return None
    return count * 1000 if count < 200 else count


def _fio2_percent(e: Entities) -> float | None:
    """FiO2 in %; a bare fraction (0.4) is read as 40 %."""
    value = e.number("FiO2", quantity="percent")
    return None if value is None else value * 100 if value <= 1 else value


def _gcs(e: Entities) -> int | None:
    value = e.number("Glasgow Coma Score", "GCS")
    return None if value is None else int(value)


def chadsvasc(e: Entities) -> Params:
    return {"age": age(e), "sex": sex(e), "congestive_heart_failure": e.flag("Congestive Heart Failure"),
            "hypertension": e.flag("Hypertension history", "Hypertension"),
            "diabetes": e.flag("Diabetes history", "Diabetes mellitus"),
            "stroke_tia_thromboembolism": e.flag("Stroke", "Transient Ischemic Attacks History",
                                                 "Thromboembolism history"),
            "vascular_disease": e.flag("Vascular disease history")}


def hasbled(e: Entities) -> Params:
    return {"age": age(e), "hypertension": e.flag("Hypertension"),
            "renal_disease": e.flag("Renal disease criteria for the HAS-BLED rule"),
            "liver_disease": e.flag("Liver disease criteria for the HAS-BLED rule"), "stroke": e.flag("Stroke"),
            "prior_bleeding": e.flag("Prior major bleeding or predisposition to bleeding"),
            "labile_inr": e.flag("Labile international normalized ratio"),
            "antiplatelet_or_nsaid": e.flag("Medication usage predisposing to bleeding"),
            "alcohol_drinks_per_week": e.number("Number of Alcoholic Drinks Per Week")}


def heart_score(e: Entities) -> Params:
    history = option(e.text("Suspicion History"), [(("high",), "highly"), (("moderate",), "moderately")], "slightly")
    ecg = option(e.text("Electrocardiogram Test"), [(("significant", "st deviation", "st-deviation"),
                                                     "significant_st_deviation"),
                                                    (("repolarization", "non-specific", "nonspecific"),
                                                     "nonspecific_repolarization")], "normal")
    troponin = option(e.text("Initial troponin"), [
        (("more than", "greater than", ">", "≥"), "above_three_times"),
        (("between", "up to", "1-3", "1–3"), "one_to_three_times"),
    ], "normal")
    return {"age": age(e), "history": history, "ecg": ecg, "troponin": troponin,
            "hypertension": e.flag("Hypertension history"), "hypercholesterolemia": e.flag("hypercholesterolemia"),
            "diabetes": e.flag("Diabetes mellitus"), "obesity": e.flag("obesity"), "smoking": e.flag("smoking"),
            "family_history": e.flag("parent or sibling with Cardiovascular disease before age 65"),
            "atherosclerotic_disease": e.flag("atherosclerotic disease"),
            "transient_ischemic_attack": e.flag("Transient Ischemic Attacks History")}


def rcri(e: Entities) -> Params:
    return {"high_risk_surgery": e.flag("Elevated-risk surgery"),
            "ischemic_heart_disease": e.flag("History of ischemic heart disease"),
            "congestive_heart_failure": e.flag("Congestive Heart Failure criteria for the Cardiac Risk Index rule"),
            "cerebrovascular_disease": e.flag("History of cerebrovascular disease"),
            "insulin_treatment": e.flag("Pre-operative treatment with insulin"), "creatinine_mg_dl": creatinine(e)}


def framingham(e: Entities) -> Params:
    return {"sex": sex(e), "age": age(e),
            "total_cholesterol_mg_dl": e.number("Total cholesterol", quantity="cholesterol"),
            "hdl_mg_dl": e.number("high-density lipoprotein cholesterol", quantity="cholesterol"),
            "systolic_bp": _pressure(e, BP[0]), "bp_treated": e.flag("Blood pressure being treated with medicines"),
            "smoker": e.flag("Smoker", "smoking")}


def wells_dvt(e: Entities) -> Params:
    return {"active_cancer": e.flag("Active cancer"),
            "bedridden_or_major_surgery": e.flag("Bedridden recently >3 days", "Major surgery within 12 weeks"),
            "calf_swelling": e.flag("Calf swelling >3 centimeters compared to the other leg"),
            "collateral_superficial_veins": e.flag("Collateral (nonvaricose) superficial veins present"),
            "entire_leg_swollen": e.flag("Entire Leg Swollen"),
            "localized_tenderness": e.flag("Localized tenderness along the deep venous system"),
            "pitting_edema": e.flag("Pitting edema, confined to symptomatic leg"),
            "paralysis_or_cast": e.flag("Paralysis, paresis, or recent plaster immobilization of the lower extremity"),
            "previous_dvt": e.flag(PRIOR_DVT),
            "alternative_diagnosis_likely": e.flag("Alternative diagnosis to Deep Vein Thrombosis as likely or more "
                                                   "likely")}


def wells_pe(e: Entities) -> Params:
    return {"dvt_signs": e.flag("Clinical signs and symptoms of Deep Vein Thrombosis"),
            "pe_most_likely": e.flag("Pulmonary Embolism is #1 diagnosis OR equally likely"),
            "heart_rate": _rate(e, HEART_RATE),
            "immobilization_or_surgery": e.flag("Immobilization for at least 3 days",
                                                "Surgery in the previous 4 weeks"),
            "previous_pe_or_dvt": e.flag(PRIOR_PE, PRIOR_DVT), "hemoptysis": e.flag("Hemoptysis"),
            "malignancy": e.flag("Malignancy with treatment within 6 months or palliative")}


def perc(e: Entities) -> Params:
    return {"age": age(e), "heart_rate": _rate(e, HEART_RATE),
            "oxygen_saturation": e.number("O2 saturation percentage", quantity="percent"),
            "unilateral_leg_swelling": e.flag("Unilateral Leg Swelling"), "hemoptysis": e.flag("Hemoptysis"),
            "recent_surgery_or_trauma": e.flag("Recent surgery or trauma"),
            "previous_pe_or_dvt": e.flag(PRIOR_PE, PRIOR_DVT), "hormone_use": e.flag("Hormone use")}


def gcs(e: Entities) -> Params:
    eye = option(e.text("Best eye response"), [(("not testable", "untestable"), "4"), (("spontan",), "4"),
                                               (("verbal", "speech", "sound"), "3"), (("pain",), "2")], "1")
    verbal = option(e.text("Best verbal response"), [(("not testable", "untestable", "intubated"), "4"),
                                                     (("oriented",), "5"), (("confused",), "4"),
                                                     (("inappropriate",), "3"), (("incomprehensible",), "2")], "1")
    motor = option(e.text("Best motor response"), [(("not testable", "untestable"), "6"), (("obey",), "6"),
                                                   (("locali",), "5"), (("withdraw",), "4"),
                                                   (("flexion", "decorticate"), "3"),
                                                   (("extension", "decerebrate"), "2")], "1")
    return {"eye": int(eye), "verbal": int(verbal), "motor": int(motor)}


def apache_ii(e: Entities) -> Params:
    white = _white_count_per_ul(e)
    admission = option(e.text("Surgery Type"), [(("elective",), "elective_postoperative"),
                                                (("emergency",), "emergency_postoperative")], "nonoperative")
    return {"age": age(e), "temperature_c": _temperature(e), "mean_arterial_pressure": _map(e),
            "heart_rate": _rate(e, HEART_RATE), "respiratory_rate": _rate(e, "respiratory rate"),
            "fio2_percent": _fio2_percent(e), "pao2": _pressure(e, "PaO2"),
            "a_a_gradient": e.number("A-a gradient", quantity="pressure"), "arterial_ph": e.number("pH"),
            "sodium": sodium(e), "potassium": e.number("Potassium", quantity="electrolyte"),
            "creatinine_mg_dl": creatinine(e), "acute_renal_failure": e.flag("Acute renal failure"),
            "hematocrit": e.number("Hematocrit", quantity="percent"),
            "wbc_10_3_ul": None if white is None else white / 1000, "gcs": _gcs(e),
            "severe_organ_insufficiency_or_immunocompromised": e.flag(
                "History of severe organ failure or immunocompromise"),
            "admission_type": admission}


def sofa(e: Entities) -> Params:
    platelets = e.number("Platelet count", quantity="count")
    mean_pressure = _map(e)
    if mean_pressure is None and e.flag("Hypotension"):
        mean_pressure = 65.0
    return {"pao2": _pressure(e, "PaO2"), "fio2_percent": _fio2_percent(e),
            "ventilated": e.flag("On mechanical ventilation", "Continuous positive airway pressure"),
            "platelets_10_3_ul": None if platelets is None else platelets_per_nl(platelets), "gcs": _gcs(e),
            "bilirubin_mg_dl": e.number("Bilirubin", quantity="bilirubin"), "mean_arterial_pressure": mean_pressure,
            "dopamine": e.number("DOPamine", quantity="infusion"),
            "dobutamine": e.number("DOBUTamine", quantity="infusion"),
            "epinephrine": e.number("EPINEPHrine", quantity="infusion"),
            "norepinephrine": e.number("norEPINEPHrine", quantity="infusion"),
            "creatinine_mg_dl": creatinine(e), "urine_output_ml_day": e.number("Urine Output", quantity="urine_output")}


def curb65(e: Entities) -> Params:
    return {"age": age(e), "confusion": e.flag("Confusion"), "bun_mg_dl": bun(e),
            "respiratory_rate": _rate(e, "respiratory rate"), "systolic_bp": _pressure(e, BP[0]),
            "diastolic_bp": _pressure(e, BP[1])}


def psi(e: Entities) -> Params:
    return {"age": age(e), "sex": sex(e), "nursing_home_resident": e.flag("Nursing home resident"),
            "neoplastic_disease": e.flag("Neoplastic disease"), "liver_disease": e.flag("Liver disease history"),
            "congestive_heart_failure": e.flag("Congestive Heart Failure"),
            "cerebrovascular_disease": e.flag("Cerebrovascular disease history"),
            "renal_disease": e.flag("Renal disease history"), "altered_mental_status": e.flag("Altered mental status"),
            "respiratory_rate": _rate(e, "respiratory rate"), "systolic_bp": _pressure(e, BP[0]),
            "temperature_c": _temperature(e), "heart_rate": _rate(e, HEART_RATE), "arterial_ph": e.number("pH"),
            "bun_mg_dl": bun(e), "sodium": sodium(e), "glucose_mg_dl": glucose(e),
            "hematocrit": e.number("Hematocrit", quantity="percent"),
            "pao2": _pressure(e, "Partial pressure of oxygen") or _pressure(e, "PaO2"),
            "pleural_effusion": e.flag("Pleural effusion on x-ray")}


def centor(e: Entities) -> Params:
    cough_absent = e.get("Cough Absent")
    return {"age": age(e), "temperature_c": _temperature(e),
            "tonsillar_exudate": e.flag("Exudate or swelling on tonsils"),
            "tender_anterior_nodes": e.flag("Tender/swollen anterior cervical lymph nodes"),
            "cough_absent": True if cough_absent is None else e.flag("Cough Absent")}


def feverpain(e: Entities) -> Params:
    no_cough = e.get("Absence of cough or coryza")
    return {"fever_past_24_hours": e.flag("Fever in past 24 hours"), "purulence": e.flag("Purulent tonsils"),
            "attend_rapidly": e.flag("Symptom onset <=3 days"),
            "severe_tonsil_inflammation": e.flag("Severe tonsil inflammation"),
            "no_cough_or_coryza": True if no_cough is None else e.flag("Absence of cough or coryza")}


def sirs(e: Entities) -> Params:
    return {"temperature_c": _temperature(e), "heart_rate": _rate(e, HEART_RATE),
            "respiratory_rate": _rate(e, "respiratory rate"), "paco2": _pressure(e, "PaCO2"),
            "wbc_per_ul": _white_count_per_ul(e),
            "bands_percent": e.number("Band form percentage", "Bands", quantity="percent")}


def glasgow_blatchford(e: Entities) -> Params:
    return {"sex": sex(e), "bun_mg_dl": bun(e), "hemoglobin_g_dl": e.number("Hemoglobin", quantity="hemoglobin"),
            "systolic_bp": _pressure(e, BP[0]), "heart_rate": _rate(e, HEART_RATE), "melena": e.flag("Melena Present"),
            "syncope": e.flag("Recent Syncope"), "hepatic_disease": e.flag("Hepatic disease history"),
            "cardiac_failure": e.flag("Cardiac Failure Present")}


SCORE_MAPPERS: dict[str, Callable[[Entities], Params]] = {
    "chadsvasc": chadsvasc, "hasbled": hasbled, "heart_score": heart_score, "rcri": rcri,
    "framingham_hard_chd": framingham, "wells_dvt": wells_dvt, "wells_pe": wells_pe, "perc_rule": perc,
    "caprini": caprini, "glasgow_coma_scale": gcs, "apache_ii": apache_ii, "sofa": sofa, "curb65": curb65,
    "pneumonia_severity_index": psi, "centor": centor, "feverpain": feverpain, "sirs": sirs, "charlson": charlson,
    "glasgow_blatchford": glasgow_blatchford,
}
