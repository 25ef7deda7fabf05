"""Every calculator at the values where its category or points change, its minimum inputs and its defaults."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.tools.calculators import CALCULATORS, run_calculator

CASES: list[tuple[str, dict[str, Any], float | int | str | tuple[str, str]]] = [
    # CHA2DS2-VASc: age 64/65/75 bands, female point, stroke counts 2
    ("chadsvasc", {"age": 64, "sex": "male"}, 0),
    ("chadsvasc", {"age": 65, "sex": "male"}, 1),
    ("chadsvasc", {"age": 74.9, "sex": "male"}, 1),
    ("chadsvasc", {"age": 75, "sex": "female"}, 3),
    ("chadsvasc", {"age": 40, "sex": "male", "stroke_tia_thromboembolism": True}, 2),
    ("chadsvasc", {"age": 80, "sex": "female", "congestive_heart_failure": True, "hypertension": True,
                   "diabetes": True, "stroke_tia_thromboembolism": True, "vascular_disease": True}, 9),
    # HAS-BLED: age strictly > 65, alcohol >= 8 drinks/week
    ("hasbled", {"age": 65}, 0),
    ("hasbled", {"age": 66}, 1),
    ("hasbled", {"age": 40, "alcohol_drinks_per_week": 7}, 0),
    ("hasbled", {"age": 40, "alcohol_drinks_per_week": 8}, 1),
    # Wells PE: HR strictly > 100; immobilisation/surgery and prior PE/DVT count once each
    ("wells_pe", {"heart_rate": 100}, 0),
    ("wells_pe", {"heart_rate": 101}, 1.5),
    ("wells_pe", {"dvt_signs": True, "pe_most_likely": True, "heart_rate": 120, "immobilization_or_surgery": True,
                  "previous_pe_or_dvt": True, "hemoptysis": True, "malignancy": True}, 12.5),
    # Wells DVT: alternative diagnosis -2
    ("wells_dvt", {}, 0),
    ("wells_dvt", {"alternative_diagnosis_likely": True}, -2),
    ("wells_dvt", {"active_cancer": True, "bedridden_or_major_surgery": True, "previous_dvt": True}, 3),
    # MELD-Na: floors at 1.0, MELD(i) <= 11 keeps no sodium term, cap 40, dialysis sets creatinine 4
    ("meld", {"creatinine_mg_dl": 0.5, "bilirubin_mg_dl": 0.5, "inr": 0.9, "sodium": 120}, 6),
    ("meld", {"creatinine_mg_dl": 1.0, "bilirubin_mg_dl": 1.0, "inr": 1.3, "sodium": 125}, 9),
    ("meld", {"creatinine_mg_dl": 2.0, "bilirubin_mg_dl": 3.0, "inr": 1.5, "sodium": 130}, 26),
    ("meld", {"creatinine_mg_dl": 1.0, "bilirubin_mg_dl": 3.0, "inr": 1.5, "sodium": 130, "dialysis": True}, 31),
    ("meld", {"creatinine_mg_dl": 8, "bilirubin_mg_dl": 40, "inr": 4, "sodium": 120}, 40),
    # Cockcroft-Gault weight choice by BMI (< 18.5 actual, to 24.9 min(ideal, actual), above adjusted)
    ("creatinine_clearance", {"sex": "male", "age": 40, "weight_kg": 50, "height_cm": 180, "creatinine_mg_dl": 1},
     69.44444),
    ("creatinine_clearance", {"sex": "male", "age": 40, "weight_kg": 70, "height_cm": 180, "creatinine_mg_dl": 1},
     97.22222),
    ("creatinine_clearance", {"sex": "female", "age": 40, "weight_kg": 100, "height_cm": 160,
                              "creatinine_mg_dl": 1}, 84.32607),
    ("creatinine_clearance", {"sex": "male", "age": 40, "weight_kg": 70, "creatinine_mg_dl": 1}, 97.22222),
    ("renal_dosing", {"sex": "male", "age": 80, "weight_kg": 60, "creatinine_mg_dl": 1.0}, 50.0),
    ("ckd_epi", {"sex": "male", "age": 81, "creatinine_mg_dl": 1.7}, 39.99991),
    ("ckd_epi", {"sex": "female", "age": 40, "creatinine_mg_dl": 0.7}, 112.05431),
    ("mdrd_gfr", {"sex": "female", "age": 85, "creatinine_mg_dl": 1.36}, 36.95439),
    ("mdrd_gfr", {"sex": "male", "age": 50, "creatinine_mg_dl": 1.0, "black": True}, 95.86272),
    ("bmi", {"weight_kg": 68, "height_cm": 182}, 20.52892),
    ("body_surface_area", {"weight_kg": 85, "height_cm": 180}, 2.06155),
    ("ideal_body_weight", {"sex": "male", "height_cm": 152.4}, 50.0),
    ("ideal_body_weight", {"sex": "female", "height_cm": 140}, 34.27165),
    ("adjusted_body_weight", {"sex": "female", "weight_kg": 40, "height_cm": 160}, 47.42914),
    ("target_weight", {"target_bmi": 23.2, "height_cm": 182.88}, 77.59262),
    ("maintenance_fluids", {"weight_kg": 10}, 40),
    ("maintenance_fluids", {"weight_kg": 20}, 60),
    ("maintenance_fluids", {"weight_kg": 76}, 116),
    ("mean_arterial_pressure", {"systolic_bp": 110, "diastolic_bp": 70}, 83.33333),
    ("calcium_correction", {"calcium_mg_dl": 8.4, "albumin_g_dl": 3.3}, 8.96),
    ("sodium_correction", {"sodium": 140, "glucose_mg_dl": 50}, 138.8),
    ("serum_osmolality", {"sodium": 136.4, "bun_mg_dl": 11, "glucose_mg_dl": 125}, 283.67302),
    ("homa_ir", {"insulin_uiu_ml": 14.5, "glucose_mg_dl": 298}, 10.66914),
    ("ldl_calculated", {"total_cholesterol_mg_dl": 161, "hdl_mg_dl": 39, "triglycerides_mg_dl": 95}, 103.0),
    ("anion_gap", {"sodium": 140, "chloride": 110, "bicarbonate": 9.4}, 20.6),
    ("delta_gap", {"sodium": 142, "chloride": 123, "bicarbonate": 14}, -7.0),
    ("delta_ratio", {"sodium": 148, "chloride": 117, "bicarbonate": 8.6}, 0.67532),
    ("albumin_corrected_anion_gap", {"sodium": 127, "chloride": 101, "bicarbonate": 9, "albumin_g_dl": 1.8}, 22.5),
    ("albumin_corrected_delta_gap", {"sodium": 143, "chloride": 120, "bicarbonate": 12.5, "albumin_g_dl": 2.1}, 3.25),
    ("albumin_corrected_delta_ratio", {"sodium": 142.8, "chloride": 125.5, "bicarbonate": 7.5, "albumin_g_dl": 4.2},
     -0.16364),
    ("free_water_deficit", {"sex": "female", "age": 17, "weight_kg": 35, "sodium": 126}, -2.1),
    ("free_water_deficit", {"sex": "female", "age": 65, "weight_kg": 70, "sodium": 154}, 3.15),
    ("free_water_deficit", {"sex": "male", "age": 64, "weight_kg": 70, "sodium": 140}, 0.0),
    ("fena", {"sodium": 140, "creatinine_mg_dl": 2, "urine_sodium": 70, "urine_creatinine_mg_dl": 100}, 1.0),
    ("qtc_bazett", {"qt_msec": 400, "heart_rate": 60}, 400.0),
    ("qtc_fridericia", {"qt_msec": 373, "heart_rate": 161}, 518.32325),
    ("qtc_framingham", {"qt_msec": 405, "heart_rate": 87}, 452.79236),
    ("qtc_hodges", {"qt_msec": 280, "heart_rate": 101}, 351.75),
    ("qtc_rautaharju", {"qt_msec": 321, "heart_rate": 68}, 335.26667),
    ("due_date", {"last_menstrual_period": "2000-02-24", "cycle_length_days": 30}, "2000-12-02"),
    ("due_date", {"last_menstrual_period": "2023-01-01"}, "2023-10-08"),
    ("conception_date", {"last_menstrual_period": "2017-01-07"}, "2017-01-21"),
    ("gestational_age", {"last_menstrual_period": "2020-12-23", "current_date": "2021-08-21"}, ("34 weeks", "3 days")),
    ("gestational_age", {"last_menstrual_period": "2021-01-01", "current_date": "2021-01-01"}, ("0 weeks", "0 days")),
    # Child-Pugh: inclusive middle bands (bilirubin 2-3, albumin 2.8-3.5, INR 1.7-2.3)
    ("child_pugh", {"bilirubin_mg_dl": 1.99, "albumin_g_dl": 3.51, "inr": 1.69}, 5),
    ("child_pugh", {"bilirubin_mg_dl": 2, "albumin_g_dl": 3.5, "inr": 1.7}, 8),
    ("child_pugh", {"bilirubin_mg_dl": 3, "albumin_g_dl": 2.8, "inr": 2.3}, 8),
    ("child_pugh", {"bilirubin_mg_dl": 3.1, "albumin_g_dl": 2.7, "inr": 2.4, "ascites": "moderate",
                    "encephalopathy": "grade_3_4"}, 15),
    ("fib4", {"age": 35, "ast": 107, "alt": 104, "platelets_10_9_l": 181}, 2.02888),
    ("rcri", {"creatinine_mg_dl": 2.0}, 0),
    ("rcri", {"creatinine_mg_dl": 2.01, "insulin_treatment": True}, 2),
    ("heart_score", {"age": 44}, 0),
    ("heart_score", {"age": 45, "smoking": True}, 2),
    ("heart_score", {"age": 65, "hypertension": True, "diabetes": True, "obesity": True, "history": "highly",
                     "ecg": "significant_st_deviation", "troponin": "above_three_times"}, 10),
    ("centor", {"age": 3}, 2),
    ("centor", {"age": 15, "temperature_c": 38.0, "cough_absent": False}, 0),
    ("centor", {"age": 45, "temperature_c": 38.1, "tonsillar_exudate": True, "tender_anterior_nodes": True}, 3),
    ("feverpain", {}, 1),
    ("feverpain", {"fever_past_24_hours": True, "purulence": True, "attend_rapidly": True,
                   "severe_tonsil_inflammation": True}, 5),
    ("glasgow_coma_scale", {"eye": 1, "verbal": 1, "motor": 1}, 3),
    ("glasgow_coma_scale", {"eye": 4, "verbal": 5, "motor": 6}, 15),
    ("steroid_conversion", {"from_steroid": "hydrocortisone", "dose_mg": 65.867, "to_steroid": "dexamethasone"},
     2.47001),
    ("morphine_milligram_equivalents", {"opioids": [{"opioid": "oxymorphone", "dose": 10},
                                                    {"opioid": "fentanyl_buccal", "dose": 20},
                                                    {"opioid": "morphine", "dose": 50}]}, 82.6),
    ("morphine_milligram_equivalents", {"opioids": [{"opioid": "methadone", "dose": 10, "doses_per_day": 2}]}, 94.0),
    ("glasgow_blatchford", {"sex": "male", "bun_mg_dl": 18.1, "hemoglobin_g_dl": 13, "systolic_bp": 110}, 0),
    ("glasgow_blatchford", {"sex": "male", "bun_mg_dl": 18.2, "hemoglobin_g_dl": 12.9, "systolic_bp": 109}, 4),
    ("glasgow_blatchford", {"sex": "female", "bun_mg_dl": 70, "hemoglobin_g_dl": 11.9, "systolic_bp": 99,
                            "heart_rate": 100}, 8),
    ("glasgow_blatchford", {"sex": "female", "bun_mg_dl": 70.1, "hemoglobin_g_dl": 9.9, "systolic_bp": 89,
                            "melena": True, "syncope": True, "hepatic_disease": True, "cardiac_failure": True}, 22),
    ("apache_ii", {"age": 64, "temperature_c": 38.22222, "mean_arterial_pressure": 75.33333, "heart_rate": 107,
                   "respiratory_rate": 22, "fio2_percent": 36, "pao2": 75, "arterial_ph": 7.29, "sodium": 136,
                   "potassium": 4.5, "creatinine_mg_dl": 1.8, "acute_renal_failure": True, "hematocrit": 34,
                   "wbc_10_3_ul": 12.3, "gcs": 13}, 11),
    ("apache_ii", {"age": 75, "temperature_c": 37, "mean_arterial_pressure": 90, "heart_rate": 80,
                   "respiratory_rate": 16, "fio2_percent": 60, "pao2": 100, "a_a_gradient": 500, "arterial_ph": 7.4,
                   "sodium": 140, "potassium": 4, "creatinine_mg_dl": 1, "hematocrit": 40, "wbc_10_3_ul": 8,
                   "gcs": 15, "severe_organ_insufficiency_or_immunocompromised": True}, 15),
    ("sofa", {"pao2": 79, "fio2_percent": 52, "ventilated": True, "platelets_10_3_ul": 147, "gcs": 13,
              "bilirubin_mg_dl": 1.6, "mean_arterial_pressure": 56.7, "dopamine": 5, "creatinine_mg_dl": 1.7,
              "urine_output_ml_day": 650}, 9),
    ("sofa", {"pao2": 90, "fio2_percent": 50, "urine_output_ml_day": 199}, 6),
    ("sirs", {}, 0),
    ("sirs", {"temperature_c": 38.0, "heart_rate": 90, "respiratory_rate": 20, "wbc_per_ul": 12000}, 0),
    ("sirs", {"temperature_c": 35.9, "heart_rate": 91, "paco2": 31, "wbc_per_ul": 3999}, 4),
    ("perc_rule", {"age": 49, "heart_rate": 99, "oxygen_saturation": 95}, 0),
    ("perc_rule", {"age": 50, "heart_rate": 100, "oxygen_saturation": 94.9}, 3),
    ("curb65", {"age": 64, "bun_mg_dl": 19, "respiratory_rate": 29.9, "systolic_bp": 90, "diastolic_bp": 61}, 0),
    ("curb65", {"age": 65, "bun_mg_dl": 19.1, "respiratory_rate": 30, "systolic_bp": 89, "confusion": True}, 5),
    ("pneumonia_severity_index", {"age": 67, "sex": "female", "nursing_home_resident": True, "renal_disease": True,
                                  "glucose_mg_dl": 179, "pao2": 79}, 77),
    ("pneumonia_severity_index", {"age": 50, "sex": "male", "temperature_c": 40, "pao2": 59}, 75),
    ("charlson", {"age": 82, "connective_tissue_disease": True, "peptic_ulcer_disease": True,
                  "chronic_pulmonary_disease": True}, 7),
    ("charlson", {"age": 49, "liver_disease": "moderate_to_severe", "diabetes": "end_organ_damage",
                  "solid_tumor": "metastatic", "aids": True}, 17),
    ("caprini", {"age": 67, "pneumonia_last_month": True, "hip_pelvis_leg_fracture_last_month": True,
                 "varicose_veins": True, "family_history_thrombosis": True, "copd": True,
                 "mobility": "confined_over_72_hours", "bmi": 21}, 15),
    ("caprini", {"age": 40, "bmi": 25}, 0),
    ("caprini", {"age": 41, "bmi": 25.1, "previous_dvt": True, "previous_pe": True}, 8),
    ("framingham_hard_chd", {"sex": "male", "age": 79, "total_cholesterol_mg_dl": 190, "hdl_mg_dl": 49,
                             "systolic_bp": 120}, 17.123),
    ("grace", {"age": 29, "heart_rate": 49, "systolic_bp": 200, "creatinine_mg_dl": 0.39}, 1),
    ("grace", {"age": 90, "heart_rate": 200, "systolic_bp": 79, "creatinine_mg_dl": 4, "killip_class": 4,
               "cardiac_arrest_at_admission": True, "st_deviation": True, "elevated_cardiac_enzymes": True}, 372),
]


@pytest.mark.parametrize(("calculator", "params", "expected"), CASES)
def test_calculator_scores_at_boundaries(calculator: str, params: dict[str, Any], expected: Any) -> None:
    score = run_calculator(calculator, params).score
    if isinstance(expected, float):
        assert score == pytest.approx(expected, abs=1e-4)
    else:
        assert score == expected


def test_calculator_cases_cover_every_calculator() -> None:
    assert {case[0] for case in CASES} == set(CALCULATORS)


@pytest.mark.parametrize(
    ("calculator", "params", "category"),
    [("chadsvasc", {"age": 60, "sex": "female"}, "low"), ("chadsvasc", {"age": 65, "sex": "male"}, "moderate"),
     ("chadsvasc", {"age": 75, "sex": "male"}, "high"), ("meld", {"creatinine_mg_dl": 1, "bilirubin_mg_dl": 1,
                                                                 "inr": 1, "sodium": 137}, "low"),
     ("bmi", {"weight_kg": 56.6, "height_cm": 175}, "underweight"), ("bmi", {"weight_kg": 76.6, "height_cm": 175},
                                                                     "overweight"),
     ("renal_dosing", {"sex": "male", "age": 80, "weight_kg": 60, "creatinine_mg_dl": 2.0}, "severe impairment"),
     ("grace", {"age": 70, "heart_rate": 90, "systolic_bp": 120, "creatinine_mg_dl": 1.0}, "intermediate")],
)
def test_calculator_risk_category_changes_at_thresholds(calculator: str, params: dict[str, Any],
                                                        category: str) -> None:
    assert run_calculator(calculator, params).risk_category == category


def test_calculator_result_names_defaults_and_source() -> None:
    result = run_calculator("wells_pe", {"hemoptysis": True})
    assert result.parameters_used["heart_rate"] == 80
    assert "heart_rate" in result.parameters_used["defaults_applied"]
    assert "hemoptysis" not in result.parameters_used["defaults_applied"]
    assert "Wells" in result.source and "2000" in result.source


def test_renal_dosing_reports_clearance_bands_and_ckd_epi() -> None:
    result = run_calculator("renal_dosing", {"sex": "female", "age": 70, "weight_kg": 60, "creatinine_mg_dl": 1.2})
    assert result.score == pytest.approx(41.31944)
    assert result.risk_category == "moderate impairment"
    assert "CKD-EPI 2021 eGFR" in result.interpretation
    assert result.recommendations


def test_every_calculator_publishes_a_json_schema_and_source() -> None:
    for spec in CALCULATORS.values():
        schema = spec.json_schema()
        assert schema["type"] == "object" and schema["properties"], spec.name
