"""Latency of one calculator call (validation + computation) for every calculator; prints JSON.

    .venv/bin/python bench/calculators.py [--repeats 2000]

Each calculator runs through `run_calculator` (params validated by its pydantic model, then computed) with
representative arguments, `repeats` times after a warm-up; p50/p95 are per calculator, in milliseconds. A second
figure times the MedCalc-Bench path (entity parsing and unit conversion included) on the one-shot rows when
../shared/eval/medcalc is beside the checkout.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voiceassist.tools.calculators import CALCULATORS, run_calculator
from voiceassist.tools.calculators.medcalc import answer_medcalc

# ../shared beside the checkout, or beside the folder of worktrees
MEDCALC_ONE_SHOT = next((path for parent in Path(__file__).resolve().parents[1:3]
                         if (path := parent.parent / "shared/eval/medcalc/one_shot_data.csv").exists()),
                        Path("../shared/eval/medcalc/one_shot_data.csv"))

MALE_50 = {"sex": "male", "age": 50}
GAP = {"sodium": 140, "chloride": 104, "bicarbonate": 18}
QT = {"qt_msec": 420, "heart_rate": 88}
REPRESENTATIVE: dict[str, dict[str, Any]] = {
    "bmi": {"weight_kg": 80, "height_cm": 178}, "body_surface_area": {"weight_kg": 80, "height_cm": 178},
    "ideal_body_weight": {"sex": "female", "height_cm": 165},
    "adjusted_body_weight": {"sex": "female", "weight_kg": 95, "height_cm": 165},
    "target_weight": {"target_bmi": 24, "height_cm": 170}, "maintenance_fluids": {"weight_kg": 72},
    "creatinine_clearance": MALE_50 | {"weight_kg": 90, "height_cm": 180, "creatinine_mg_dl": 1.3},
    "renal_dosing": MALE_50 | {"weight_kg": 90, "height_cm": 180, "creatinine_mg_dl": 1.3},
    "ckd_epi": MALE_50 | {"creatinine_mg_dl": 1.3}, "mdrd_gfr": MALE_50 | {"creatinine_mg_dl": 1.3},
    "fena": {"sodium": 138, "creatinine_mg_dl": 2.1, "urine_sodium": 30, "urine_creatinine_mg_dl": 90},
    "free_water_deficit": MALE_50 | {"weight_kg": 80, "sodium": 152},
    "anion_gap": GAP, "delta_gap": GAP, "delta_ratio": GAP, "albumin_corrected_anion_gap": GAP | {"albumin_g_dl": 2.9},
    "albumin_corrected_delta_gap": GAP | {"albumin_g_dl": 2.9},
    "albumin_corrected_delta_ratio": GAP | {"albumin_g_dl": 2.9},
    "calcium_correction": {"calcium_mg_dl": 8.1, "albumin_g_dl": 2.6},
    "sodium_correction": {"sodium": 131, "glucose_mg_dl": 480},
    "serum_osmolality": {"sodium": 140, "bun_mg_dl": 20, "glucose_mg_dl": 110},
    "ldl_calculated": {"total_cholesterol_mg_dl": 210, "hdl_mg_dl": 45, "triglycerides_mg_dl": 150},
    "homa_ir": {"insulin_uiu_ml": 12, "glucose_mg_dl": 100},
    "qtc_bazett": QT, "qtc_fridericia": QT, "qtc_framingham": QT, "qtc_hodges": QT, "qtc_rautaharju": QT,
    "due_date": {"last_menstrual_period": "2026-03-01", "cycle_length_days": 30},
    "conception_date": {"last_menstrual_period": "2026-03-01"},
    "gestational_age": {"last_menstrual_period": "2026-03-01", "current_date": "2026-09-14"},
    "chadsvasc": {"sex": "female", "age": 75, "hypertension": True, "diabetes": True},
    "hasbled": {"age": 70, "hypertension": True, "antiplatelet_or_nsaid": True},
    "heart_score": {"age": 58, "history": "moderately", "smoking": True, "hypertension": True},
    "rcri": {"high_risk_surgery": True, "creatinine_mg_dl": 2.3},
    "grace": {"age": 72, "heart_rate": 96, "systolic_bp": 118, "creatinine_mg_dl": 1.4, "killip_class": 2},
    "framingham_hard_chd": MALE_50 | {"total_cholesterol_mg_dl": 220, "hdl_mg_dl": 40, "systolic_bp": 140,
                                      "smoker": True},
    "mean_arterial_pressure": {"systolic_bp": 124, "diastolic_bp": 78},
    "wells_dvt": {"active_cancer": True, "calf_swelling": True}, "wells_pe": {"heart_rate": 112, "hemoptysis": True},
    "perc_rule": {"age": 45, "heart_rate": 92, "oxygen_saturation": 97},
    "caprini": {"age": 68, "bmi": 31, "surgery_type": "major", "varicose_veins": True},
    "meld": {"creatinine_mg_dl": 1.6, "bilirubin_mg_dl": 3.2, "inr": 1.7, "sodium": 131},
    "child_pugh": {"bilirubin_mg_dl": 2.4, "albumin_g_dl": 3.1, "inr": 1.8, "ascites": "slight"},
    "fib4": {"age": 55, "ast": 60, "alt": 45, "platelets_10_9_l": 150},
    "glasgow_blatchford": {"sex": "male", "bun_mg_dl": 30, "hemoglobin_g_dl": 11, "systolic_bp": 104,
                           "heart_rate": 105},
    "apache_ii": {"age": 66, "temperature_c": 38.7, "mean_arterial_pressure": 64, "heart_rate": 118,
                  "respiratory_rate": 26, "fio2_percent": 40, "pao2": 68, "arterial_ph": 7.31, "sodium": 134,
                  "potassium": 5.6, "creatinine_mg_dl": 1.7, "hematocrit": 31, "wbc_10_3_ul": 17, "gcs": 13},
    "sofa": {"pao2": 80, "fio2_percent": 50, "ventilated": True, "platelets_10_3_ul": 90, "gcs": 12,
             "bilirubin_mg_dl": 2.5, "mean_arterial_pressure": 62, "norepinephrine": 0.08, "creatinine_mg_dl": 2.2},
    "glasgow_coma_scale": {"eye": 3, "verbal": 4, "motor": 5},
    "curb65": {"age": 70, "bun_mg_dl": 24, "respiratory_rate": 28, "systolic_bp": 96, "diastolic_bp": 58},
    "pneumonia_severity_index": {"age": 72, "sex": "male", "heart_rate": 110, "bun_mg_dl": 32, "pao2": 58},
    "centor": {"age": 12, "temperature_c": 38.6, "tonsillar_exudate": True},
    "feverpain": {"fever_past_24_hours": True, "purulence": True},
    "sirs": {"temperature_c": 38.6, "heart_rate": 104, "respiratory_rate": 22, "wbc_per_ul": 14500},
    "charlson": {"age": 72, "diabetes": "uncomplicated", "congestive_heart_failure": True},
    "steroid_conversion": {"from_steroid": "prednisone", "dose_mg": 40, "to_steroid": "dexamethasone"},
    "morphine_milligram_equivalents": {"opioids": [{"opioid": "oxycodone", "dose": 10, "doses_per_day": 4},
                                                   {"opioid": "tramadol", "dose": 50, "doses_per_day": 2}]},
}


def percentiles_ms(call: Callable[[], object], repeats: int) -> dict[str, float]:
    for _ in range(min(100, repeats)):
        call()
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        timings.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(timings, n=100)
    return {"p50_ms": round(cuts[49], 4), "p95_ms": round(cuts[94], 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    missing = sorted(set(CALCULATORS) - set(REPRESENTATIVE))
    if missing:
        raise SystemExit(f"no representative params for: {', '.join(missing)}")
    per_calculator = {
        name: percentiles_ms(lambda name=name: run_calculator(name, REPRESENTATIVE[name]), args.repeats)
        for name in sorted(CALCULATORS)
    }
    report: dict[str, Any] = {
        "calculators": len(per_calculator),
        "repeats": args.repeats,
        "worst_p95_ms": max(figures["p95_ms"] for figures in per_calculator.values()),
        "median_p50_ms": statistics.median(figures["p50_ms"] for figures in per_calculator.values()),
        "per_calculator": per_calculator,
    }
    if MEDCALC_ONE_SHOT.exists():
        with MEDCALC_ONE_SHOT.open(newline="", encoding="utf-8") as handle:
            rows = [(row["Calculator ID"], row["Relevant Entities"]) for row in csv.DictReader(handle)]
        medcalc = {row[0]: percentiles_ms(lambda row=row: answer_medcalc(*row), max(1, args.repeats // 10))
                   for row in rows}
        report["medcalc_entities_worst_p95_ms"] = max(figures["p95_ms"] for figures in medcalc.values())
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
