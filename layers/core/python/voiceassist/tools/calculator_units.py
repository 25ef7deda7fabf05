"""`[value, unit]` arguments of calculate_medical_score, converted to the unit each calculator field is in.

Clinicians mix units (lb and kg, µmol/L and mg/dL, °F and °C, mmol/L and mg/dL for glucose, urea and
calcium); a calculator field takes a number in the unit its name gives (weight_kg, creatinine_mg_dl), so a
caller may send `[154, "lb"]` and the tool converts it. An unknown unit is a 400 listing the accepted ones.
"""

from __future__ import annotations

from typing import Any, get_origin

from pydantic import BaseModel

from voiceassist.errors import InvalidInput
from voiceassist.tools.calculators.medcalc_entities import to_number

_PRESSURE = ("systolic_bp", "diastolic_bp", "mean_arterial_pressure", "pao2", "paco2", "a_a_gradient")
_ELECTROLYTES = ("sodium", "potassium", "chloride", "bicarbonate", "urine_sodium")
_PERCENT = ("fio2_percent", "oxygen_saturation", "hematocrit", "bands_percent")
FIELD_QUANTITY: dict[str, str] = {
    "age": "age", "weight_kg": "weight", "height_cm": "height", "temperature_c": "temperature",
    "creatinine_mg_dl": "creatinine", "urine_creatinine_mg_dl": "creatinine", "glucose_mg_dl": "glucose",
    "bun_mg_dl": "bun", "calcium_mg_dl": "calcium", "bilirubin_mg_dl": "bilirubin",
    "total_cholesterol_mg_dl": "cholesterol", "hdl_mg_dl": "cholesterol", "triglycerides_mg_dl": "triglycerides",
    "albumin_g_dl": "albumin", "normal_albumin_g_dl": "albumin", "hemoglobin_g_dl": "hemoglobin",
    "insulin_uiu_ml": "insulin", "alt": "enzyme", "ast": "enzyme", "heart_rate": "rate",
    "respiratory_rate": "rate", "qt_msec": "interval", "bmi": "bmi", "target_bmi": "bmi",
    "urine_output_ml_day": "urine_output", "dose_mg": "mass_dose",
    **dict.fromkeys(_PRESSURE, "pressure"), **dict.fromkeys(_ELECTROLYTES, "electrolyte"),
    **dict.fromkeys(_PERCENT, "percent"),
}


def convert_units(parameters: dict[str, Any], list_fields: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The parameters with every `[value, unit]` (or `[5, "ft", 10, "in"]`) in its field's canonical unit.
    `list_fields` take a list as their value (morphine_milligram_equivalents' opioids): left to the params model."""
    converted = dict(parameters)
    for field, value in parameters.items():
        if not isinstance(value, list | tuple) or field in list_fields:
            continue
        quantity = FIELD_QUANTITY.get(field)
        if quantity is None and len(value) != 1:
            raise InvalidInput(f"{field}: takes a number in the unit its name gives, not [value, unit]")
        converted[field] = to_number(list(value), quantity, field=field)
    return converted


def units_given(parameters: dict[str, Any], list_fields: frozenset[str] = frozenset()) -> dict[str, str]:
    """What the caller sent for each `[value, unit]` field ("88 umol/L"), to quote beside the converted value."""
    return {field: " ".join(str(part) for part in value) for field, value in parameters.items()
            if isinstance(value, list | tuple) and len(value) >= 2 and field not in list_fields}


def list_fields_of(model: type[BaseModel]) -> frozenset[str]:
    """The fields of a calculator's params model whose value is a list (never a `[value, unit]`)."""
    return frozenset(name for name, field in model.model_fields.items()
                     if get_origin(field.annotation) in (list, tuple))
