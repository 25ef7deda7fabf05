"""The calculator registry and the one way to run a calculator from raw arguments."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from voiceassist.errors import InvalidInput, NotFound
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
from voiceassist.tools.calculators.base import CalculatorResult, CalculatorSpec

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


def describe_validation_error(error: ValidationError) -> str:
    """One line per bad field: its name and what was wrong, never the value itself (it may be PHI)."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{field}: {item['msg']}")
    return "invalid calculator arguments: " + "; ".join(problems)


def run_calculator(name: str, arguments: dict[str, Any]) -> CalculatorResult:
    """Validate `arguments` against the calculator's params model, then compute; bad input raises InvalidInput."""
    spec = get_calculator(name)
    try:
        params = spec.params.model_validate(arguments)
    except ValidationError as error:
        raise InvalidInput(describe_validation_error(error)) from error
    return spec.function(params)
