"""The calculator registry and the one way to run a calculator from raw arguments."""

from __future__ import annotations

from typing import Any, get_args

from pydantic import ValidationError

from voiceassist.errors import InvalidInput, NotFound, field_path
from voiceassist.tools.calculators import (
    body,
    cardiology,
    chemistry,
    critical_care,
    dosing,
    hepatic,
    infection,
    obstetrics,
    pulmonary,
    qtc,
    renal,
    scores,
    thrombosis,
)
from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec
from voiceassist.tools.calculators.plausibility import check_plausible, check_population

_MODULES = (body, cardiology, chemistry, critical_care, dosing, hepatic, infection, obstetrics, pulmonary, qtc, renal,
            scores, thrombosis)

CALCULATORS: dict[str, CalculatorSpec] = {spec.name: spec for module in _MODULES for spec in module.SPECS}

BY_MEDCALC_ID: dict[int, CalculatorSpec] = {
    medcalc_id: spec for spec in CALCULATORS.values() for medcalc_id in spec.medcalc_ids
}


def get_calculator(name: str) -> CalculatorSpec:
    spec = CALCULATORS.get(name)
    if spec is None:
        raise NotFound(f"no calculator named {name!r}; known: {', '.join(sorted(CALCULATORS))}")
    return spec


_RANGE_ERRORS = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}


def describe_validation_error(error: ValidationError, subject: str = "calculator") -> str:
    """One line per bad field: its name and what was wrong; missing fields are named together (a clarification),
    and a number out of its range is shown with the range. Never a free-text value (it may be PHI)."""
    missing = [field_path(item["loc"]) for item in error.errors() if item["type"] == "missing"]
    problems = [f"missing inputs: {', '.join(missing)} (give them to compute this)"] if missing else []
    for item in error.errors():
        if item["type"] == "missing":
            continue
        field = field_path(item["loc"]) or "arguments"
        value = item.get("input")
        if item["type"] in _RANGE_ERRORS and isinstance(value, int | float) and not isinstance(value, bool):
            bound = next(iter((item.get("ctx") or {}).values()), "")
            problems.append(f"{field}: {value:g} is outside the accepted range ({_RANGE_ERRORS[item['type']]} "
                            f"{bound})")
        else:
            problems.append(f"{field}: {item['msg'].removeprefix('Value error, ')}")  # our validators' own words
    return f"invalid {subject} arguments: " + "; ".join(problems)


def _takes_booleans(annotation: Any) -> bool:
    return annotation is bool or any(_takes_booleans(arg) for arg in get_args(annotation))


def validate_arguments(spec: CalculatorSpec, arguments: dict[str, Any],
                       given_as: dict[str, str] | None = None) -> CalculatorParams:
    """The calculator's params: typed (InvalidInput), then physiologically plausible (ImplausibleInput, a 400
    naming the field, the value and the range). `given_as` is what the caller sent before unit conversion."""
    check_plausible(spec.params.model_fields, arguments, given_as)
    numbers_sent_as_booleans = [name for name, value in arguments.items() if isinstance(value, bool)
                                and name in spec.params.model_fields
                                and not _takes_booleans(spec.params.model_fields[name].annotation)]
    if numbers_sent_as_booleans:  # pydantic reads true as 1: weight_kg true scored a BMI of 0.3
        raise InvalidInput("invalid calculator arguments: " + "; ".join(
            f"{name}: a number, not true or false" for name in numbers_sent_as_booleans))
    try:
        return spec.params.model_validate(arguments)
    except ValidationError as error:
        raise InvalidInput(describe_validation_error(error)) from error


def run_calculator(name: str, arguments: dict[str, Any], given_as: dict[str, str] | None = None) -> CalculatorResult:
    """Validate `arguments`, check them against the calculator's validated population (a warning, or a refusal
    where its source says so), then compute; bad input raises InvalidInput."""
    spec = get_calculator(name)
    params = validate_arguments(spec, arguments, given_as)
    warnings = check_population(spec.name, spec.validity or (), params)
    computed = spec.function(params)
    computed.warnings = warnings
    return computed
