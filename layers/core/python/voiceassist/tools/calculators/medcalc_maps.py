"""Per calculator: MedCalc-Bench entity names -> our params (units converted, missing booleans absent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voiceassist.tools.calculators.medcalc_entities import (
    BP,
    HEART_RATE,
    Entities,
    age,
    albumin,
    bun,
    creatinine,
    entity_key,
    glucose,
    height,
    option,
    parse_date,
    platelets_per_nl,
    sex,
    sodium,
    weight,
)
from voiceassist.tools.calculators.medcalc_maps_scores import SCORE_MAPPERS

Params = dict[str, Any]

def qt(e: Entities) -> Params:
    return {"qt_msec": e.number("QT Interval", quantity="interval"),
            "heart_rate": e.number(HEART_RATE, quantity="rate")}


def gap(e: Entities) -> Params:
    return {"sodium": sodium(e), "chloride": e.number("Chloride", quantity="electrolyte"),
            "bicarbonate": e.number("Bicarbonate", "HCO3", quantity="electrolyte")}


def albumin_gap(e: Entities) -> Params:
    return gap(e) | {"albumin_g_dl": albumin(e)}


def steroid_name(text: str | None) -> str | None:
    if text is None:
        return None
    compact = entity_key(text)
    for name in ("methylprednisolone", "prednisolone", "prednisone", "hydrocortisone", "cortisone",
                 "dexamethasone", "betamethasone", "triamcinolone"):
        if name in compact:
            return name
    return compact


def steroid(e: Entities) -> Params:
    given = e.get("input steroid")
    dose = None
    if isinstance(given, list | tuple) and len(given) >= 2:
        amount = float(given[1])
        unit = str(given[2]).lower() if len(given) > 2 else "mg"
        dose = amount / 1000 if unit in {"µg", "ug", "mcg"} else amount * 1000 if unit == "g" else amount
        given = given[0]
    return {"from_steroid": steroid_name(None if given is None else str(given)), "dose_mg": dose,
            "to_steroid": steroid_name(e.text("target steroid"))}


OPIOIDS: list[tuple[str, str]] = [
    ("fentanylbuccal", "fentanyl_buccal"), ("fentanylpatch", "fentanyl_patch"), ("fentanyl", "fentanyl_buccal"),
    ("hydromorphone", "hydromorphone"), ("oxymorphone", "oxymorphone"), ("hydrocodone", "hydrocodone"),
    ("oxycodone", "oxycodone"), ("codeine", "codeine"), ("methadone", "methadone"), ("tapentadol", "tapentadol"),
    ("tramadol", "tramadol"), ("buprenorphine", "buprenorphine"), ("morphine", "morphine"),
]


def mme(e: Entities) -> Params:
    doses = []
    for name, value in e.raw.items():
        key = entity_key(name)
        if not key.endswith("dose"):
            continue
        opioid = next((choice for needle, choice in OPIOIDS if needle in key), None)
        if opioid is None or value is None:
            continue
        amount = float(value[0] if isinstance(value, list | tuple) else value)
        unit = str(value[1]).lower().replace("µ", "u").replace("mcg", "ug") if isinstance(value, list | tuple) \
            and len(value) > 1 else ""
        if opioid.startswith("fentanyl"):
            amount = amount * 1000 if unit == "mg" else amount
        elif unit.startswith("ug"):
            amount = amount / 1000
        per_day = e.number(f"{name} Per Day")
        doses.append({"opioid": opioid, "dose": amount, "doses_per_day": 1 if per_day is None else per_day})
    return {"opioids": doses}


def dates(e: Entities, *fields: tuple[str, str]) -> Params:
    params: Params = {}
    for entity, field in fields:
        value = e.get(entity)
        params[field] = None if value is None else parse_date(value, field=field)
    return params


def mdrd(e: Entities) -> Params:
    race = e.text("Race")
    return {"sex": sex(e), "age": age(e), "creatinine_mg_dl": creatinine(e),
            "black": race is not None and "black" in race or e.flag("Black", "African American")}


def child_pugh(e: Entities) -> Params:
    ascites = option(e.text("Ascites"), [(("moderate", "severe", "tense", "large"), "moderate"),
                                         (("slight", "mild", "small"), "slight")], "absent")
    encephalopathy = option(e.text("Encephalopathy"), [(("3-4", "3", "4", "severe"), "grade_3_4"),
                                                       (("1-2", "1", "2", "mild", "controlled"), "grade_1_2")], "none")
    return {"bilirubin_mg_dl": e.number("Bilirubin", quantity="bilirubin"), "albumin_g_dl": albumin(e),
            "inr": e.number("international normalized ratio", "INR"), "ascites": ascites,
            "encephalopathy": encephalopathy}


def meld(e: Entities) -> Params:
    dialysis = e.flag("Dialysis at least twice in the past week") or any(
        e.flag(name) for name in e.raw if "venovenoushemodialysis" in entity_key(name))
    return {"creatinine_mg_dl": creatinine(e), "bilirubin_mg_dl": e.number("Bilirubin", quantity="bilirubin"),
            "inr": e.number("international normalized ratio", "INR"), "sodium": sodium(e), "dialysis": dialysis}


def fib4(e: Entities) -> Params:
    platelets = e.number("Platelet count", quantity="count")
    return {"age": age(e), "ast": e.number("Aspartate aminotransferase", quantity="enzyme"),
            "alt": e.number("Alanine aminotransferase", quantity="enzyme"),
            "platelets_10_9_l": None if platelets is None else platelets_per_nl(platelets)}


SIMPLE_MAPPERS: dict[str, Callable[[Entities], Params]] = {
    "creatinine_clearance": lambda e: {"sex": sex(e), "age": age(e), "weight_kg": weight(e),
                                       "creatinine_mg_dl": creatinine(e), "height_cm": height(e)},
    "ckd_epi": lambda e: {"sex": sex(e), "age": age(e), "creatinine_mg_dl": creatinine(e)},
    "mdrd_gfr": mdrd,
    "mean_arterial_pressure": lambda e: {"systolic_bp": e.number(BP[0], quantity="pressure"),
                                         "diastolic_bp": e.number(BP[1], quantity="pressure")},
    "bmi": lambda e: {"weight_kg": weight(e), "height_cm": height(e)},
    "body_surface_area": lambda e: {"weight_kg": weight(e), "height_cm": height(e)},
    "ideal_body_weight": lambda e: {"sex": sex(e), "height_cm": height(e)},
    "adjusted_body_weight": lambda e: {"sex": sex(e), "weight_kg": weight(e), "height_cm": height(e)},
    "target_weight": lambda e: {"target_bmi": e.number("Body Mass Index (BMI)", "Target BMI", quantity="bmi"),
                                "height_cm": height(e)},
    "maintenance_fluids": lambda e: {"weight_kg": weight(e)},
    "calcium_correction": lambda e: {"calcium_mg_dl": e.number("Calcium", quantity="calcium"),
                                     "albumin_g_dl": albumin(e)},
    "qtc_bazett": qt, "qtc_fridericia": qt, "qtc_framingham": qt, "qtc_hodges": qt, "qtc_rautaharju": qt,
    "due_date": lambda e: dates(e, ("Last menstrual date", "last_menstrual_period"))
    | {"cycle_length_days": e.number("cycle length")},
    "conception_date": lambda e: dates(e, ("Last menstrual date", "last_menstrual_period")),
    "gestational_age": lambda e: dates(e, ("Last menstrual date", "last_menstrual_period"),
                                       ("Current Date", "current_date")),
    "child_pugh": child_pugh,
    "fib4": fib4,
    "meld": meld,
    "steroid_conversion": steroid,
    "sodium_correction": lambda e: {"sodium": sodium(e), "glucose_mg_dl": glucose(e)},
    "serum_osmolality": lambda e: {"sodium": sodium(e), "bun_mg_dl": bun(e), "glucose_mg_dl": glucose(e)},
    "homa_ir": lambda e: {"insulin_uiu_ml": e.number("Insulin", quantity="insulin"), "glucose_mg_dl": glucose(e)},
    "free_water_deficit": lambda e: {"sex": sex(e), "age": age(e), "weight_kg": weight(e), "sodium": sodium(e)},
    "anion_gap": gap, "delta_gap": gap, "delta_ratio": gap,
    "albumin_corrected_anion_gap": albumin_gap, "albumin_corrected_delta_gap": albumin_gap,
    "albumin_corrected_delta_ratio": albumin_gap,
    "fena": lambda e: {"sodium": sodium(e), "creatinine_mg_dl": creatinine(e),
                       "urine_sodium": e.number("Urine sodium", quantity="electrolyte"),
                       "urine_creatinine_mg_dl": e.number("Urine creatinine", quantity="creatinine")},
    "ldl_calculated": lambda e: {
        "total_cholesterol_mg_dl": e.number("Total cholesterol", quantity="cholesterol"),
        "hdl_mg_dl": e.number("high-density lipoprotein cholesterol", quantity="cholesterol"),
        "triglycerides_mg_dl": e.number("Triglycerides", quantity="triglycerides")},
    "morphine_milligram_equivalents": mme,
}

MAPPERS: dict[str, Callable[[Entities], Params]] = SIMPLE_MAPPERS | SCORE_MAPPERS
