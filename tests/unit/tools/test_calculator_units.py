"""Unit conversion, wrong units and physiologically impossible values: a 400 that says what to fix."""

from __future__ import annotations

import pytest

from voiceassist.errors import InvalidInput, NotFound
from voiceassist.tools.calculators import run_calculator
from voiceassist.tools.calculators.medcalc import answer_medcalc
from voiceassist.tools.calculators.units import (
    accepted_units,
    celsius_to_fahrenheit,
    cm_to_inches,
    convert,
    creatinine_mg_dl_to_umol,
    feet_inches_to_cm,
    kg_to_lb,
)


@pytest.mark.parametrize(
    ("value", "unit", "quantity", "expected"),
    [
        (88.4, "µmol/L", "creatinine", 0.99998),
        (88.4, "umol/l", "creatinine", 0.99998),
        (1.0, "mg/dL", "creatinine", 1.0),
        (154, "lb", "weight", 69.85317),
        (154, "lbs", "weight", 69.85317),
        (70, "kg", "weight", 70.0),
        (70, "in", "height", 177.8),
        (5.5, "ft", "height", 167.64),
        (1.75, "m", "height", 175.0),
        (100.4, "°F", "temperature", 38.0),
        (212, "degrees fahrenheit", "temperature", 100.0),
        (37, "degrees celsius", "temperature", 37.0),
        (5.5, "mmol/L", "glucose", 99.088),
        (10, "mmol/L", "bun", 28.02),
        (2.5, "mmol/L", "calcium", 10.02),
        (5, "mEq/L", "calcium", 10.02),
        (35, "g/L", "albumin", 3.5),
        (17.1, "µmol/L", "bilirubin", 0.99977),
        (181000, "µL", "count", 181000),
        (12.3, "10^9/L", "count", 12300),
        (10, "mcg/kg/min", "infusion", 10),
        (6, "months", "age", 0.5),
    ],
)
def test_convert_into_canonical_units(value: float, unit: str, quantity: str, expected: float) -> None:
    assert convert(value, unit, quantity) == pytest.approx(expected, abs=1e-4)


def test_convert_helpers_round_trip() -> None:
    assert feet_inches_to_cm(5, 10) == pytest.approx(177.8)
    assert cm_to_inches(177.8) == pytest.approx(70)
    assert kg_to_lb(convert(154, "lb", "weight")) == pytest.approx(154, abs=1e-3)
    assert celsius_to_fahrenheit(convert(98.6, "F", "temperature")) == pytest.approx(98.6)
    assert convert(creatinine_mg_dl_to_umol(1.2), "µmol/L", "creatinine") == pytest.approx(1.2, abs=1e-4)


def test_convert_wrong_unit_lists_accepted_units() -> None:
    with pytest.raises(InvalidInput) as raised:
        convert(1.2, "furlongs", "creatinine", field="creatinine")
    message = str(raised.value)
    assert "creatinine" in message and "furlongs" in message
    for unit in accepted_units("creatinine"):
        assert unit in message
    assert "umol/l" in message and "mg/dl" in message


def test_medcalc_wrong_unit_is_invalid_input_naming_accepted_units() -> None:
    with pytest.raises(InvalidInput, match="kg"):
        answer_medcalc(6, {"weight": [70, "stone"], "height": [175, "cm"]})


@pytest.mark.parametrize(
    ("calculator", "params", "field"),
    [
        ("ckd_epi", {"sex": "male", "age": 300, "creatinine_mg_dl": 1.0}, "age"),
        ("ckd_epi", {"sex": "male", "age": 50, "creatinine_mg_dl": -1}, "creatinine_mg_dl"),
        ("ckd_epi", {"sex": "male", "age": 50, "creatinine_mg_dl": 0}, "creatinine_mg_dl"),
        ("chadsvasc", {"sex": "female", "age": -1}, "age"),
        ("bmi", {"weight_kg": 0, "height_cm": 170}, "weight_kg"),
        ("bmi", {"weight_kg": 70, "height_cm": 900}, "height_cm"),
        ("qtc_bazett", {"qt_msec": 400, "heart_rate": 0}, "heart_rate"),
        ("perc_rule", {"age": 40, "heart_rate": 80, "oxygen_saturation": 120}, "oxygen_saturation"),
        ("glasgow_coma_scale", {"eye": 5, "verbal": 5, "motor": 6}, "eye"),
        ("meld", {"creatinine_mg_dl": 1, "bilirubin_mg_dl": 1, "inr": 1, "sodium": 1000}, "sodium"),
        ("chadsvasc", {"sex": "unknown", "age": 50}, "sex"),
        ("chadsvasc", {"sex": "male", "age": 50, "diabetes_typo": True}, "diabetes_typo"),
    ],
)
def test_run_calculator_rejects_impossible_values_naming_the_field(calculator: str, params: dict[str, object],
                                                                  field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        run_calculator(calculator, params)
    assert field in str(raised.value)


def test_run_calculator_missing_required_field_is_named() -> None:
    with pytest.raises(InvalidInput, match="missing inputs: creatinine_mg_dl"):
        run_calculator("ckd_epi", {"sex": "male", "age": 50})


def test_run_calculator_unknown_name_is_not_found() -> None:
    with pytest.raises(NotFound, match="no calculator named"):
        run_calculator("astrology_score", {})


def test_delta_ratio_with_bicarbonate_24_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="bicarbonate"):
        run_calculator("delta_ratio", {"sodium": 140, "chloride": 100, "bicarbonate": 24})


def test_medcalc_entities_convert_units_before_scoring() -> None:
    in_si = {"sex": "Male", "age": [57, "years"], "weight": [180.78, "lbs"], "height": [70.08, "in"],
             "creatinine": [106.1, "µmol/L"]}
    in_us = {"sex": "Male", "age": [57, "years"], "weight": [82.0, "kg"], "height": [178, "cm"],
             "creatinine": [1.2, "mg/dL"]}
    assert answer_medcalc(2, in_si) == pytest.approx(answer_medcalc(2, in_us), rel=2e-3)


def test_a_validators_message_reaches_the_caller_in_its_own_words() -> None:
    from pydantic import BaseModel, ValidationError, field_validator

    from voiceassist.tools.calculators.registry import describe_validation_error

    class Arguments(BaseModel):
        calculator: str

        @field_validator("calculator")
        @classmethod
        def known(cls, value: str) -> str:
            raise ValueError(f"no calculator named {value!r}")

    with pytest.raises(ValidationError) as refused:
        Arguments(calculator="astrology_score")
    assert describe_validation_error(refused.value, "tool") == \
        "invalid tool arguments: calculator: no calculator named 'astrology_score'"
