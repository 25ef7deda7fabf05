"""MedCalc-Bench entity names -> params for the comorbidity checklists: Caprini (2005) and Charlson."""

from __future__ import annotations

from typing import Any

from voiceassist.tools.calculators.body import body_mass_index
from voiceassist.tools.calculators.medcalc_entities import Entities, age, height, option, weight

Params = dict[str, Any]

PRIOR_PE = "Previously Documented Pulmonary Embolism"
PRIOR_DVT = "Previously documented Deep Vein Thrombosis"


CAPRINI_ENTITIES: dict[str, str] = {
    "major_surgery_last_month": "Major Surgery in the last month",
    "heart_failure_last_month": "Congestive Heart Failure in the last month",
    "sepsis_last_month": "Sepsis in the last month", "pneumonia_last_month": "Pneumonia in the last month",
    "plaster_cast_last_month": "Immobilizing plaster cast in the last month",
    "hip_pelvis_leg_fracture_last_month": "Hip, pelvis, or leg fracture in the last month",
    "stroke_last_month": "Stroke in the last month", "multiple_trauma_last_month": "Multiple trauma in the last month",
    "spinal_cord_injury_last_month": "Acute spinal cord injury causing paralysis in the last month",
    "varicose_veins": "Varicose veins", "swollen_legs": "Current swollen legs",
    "central_venous_access": "Current central venous access", "previous_dvt": PRIOR_DVT, "previous_pe": PRIOR_PE,
    "family_history_thrombosis": "Family history of thrombosis", "factor_v_leiden": "Positive Factor V Leiden",
    "prothrombin_20210a": "Positive prothrombin 20210A", "elevated_homocysteine": "Elevated serum homocysteine",
    "lupus_anticoagulant": "Positive lupus anticoagulant",
    "anticardiolipin_antibody": "Elevated anticardiolipin antibody",
    "heparin_induced_thrombocytopenia": "Heparin-induced thrombocytopenia",
    "other_thrombophilia": "Other congenital or acquired thrombophilia",
    "inflammatory_bowel_disease": "History of inflammatory bowel disease",
    "acute_myocardial_infarction": "Acute Myocardial infarction", "copd": "Chronic Obstructive Pulmonary Disease",
    "malignancy": "Present or previous malignancy",
}


def caprini(e: Entities) -> Params:
    bmi = e.number("Body Mass Index (BMI)", quantity="bmi")
    kg, cm = weight(e), height(e)
    if bmi is None and kg is not None and cm is not None:
        bmi = body_mass_index(kg, cm)
    surgery = option(e.text("Surgery Type"), [(("arthroplasty",), "major_lower_extremity_arthroplasty"),
                                              (("laparoscopic",), "laparoscopic"), (("arthroscopic",), "arthroscopic"),
                                              (("major",), "major"), (("minor",), "minor")], "none")
    mobility = option(e.text("Mobility"), [(("confined", "72"), "confined_over_72_hours"),
                                           (("bed rest", "bedrest", "bed"), "bed_rest")], "ambulatory")
    params: Params = {"age": age(e), "bmi": bmi, "surgery_type": surgery, "mobility": mobility}
    return params | {field: e.flag(name) for field, name in CAPRINI_ENTITIES.items()}


def _grade(e: Entities, name: str, choices: list[tuple[tuple[str, ...], str]], if_true: str) -> str:
    value = e.get(name)
    if isinstance(value, bool):
        return if_true if value else "none"
    return option(e.text(name), choices, "none")


def charlson(e: Entities) -> Params:
    return {
        "age": age(e), "myocardial_infarction": e.flag("Myocardial infarction"),
        "congestive_heart_failure": e.flag("Congestive Heart Failure"),
        "peripheral_vascular_disease": e.flag("Peripheral vascular disease"),
        "cerebrovascular_accident_or_tia": e.flag("Cerebrovascular Accident", "Transient Ischemic Attacks History"),
        "dementia": e.flag("Dementia"), "chronic_pulmonary_disease": e.flag("Chronic Pulmonary Disease"),
        "connective_tissue_disease": e.flag("Connective tissue disease"),
        "peptic_ulcer_disease": e.flag("Peptic ulcer disease"),
        "liver_disease": _grade(e, "Liver disease severity", [(("moderate", "severe"), "moderate_to_severe"),
                                                              (("mild",), "mild")], "mild"),
        "diabetes": _grade(e, "Diabetes mellitus", [(("end-organ", "end organ", "damage"), "end_organ_damage"),
                                                    (("uncomplicated",), "uncomplicated")], "uncomplicated"),
        "hemiplegia": e.flag("Hemiplegia"),
        "moderate_to_severe_ckd": e.flag("Moderate to severe Chronic Kidney Disease"),
        "solid_tumor": _grade(e, "Solid tumor", [(("metastatic",), "metastatic"), (("local",), "localized")],
                              "localized"),
        "leukemia": e.flag("Leukemia"), "lymphoma": e.flag("Lymphoma"), "aids": e.flag("AIDS"),
    }
