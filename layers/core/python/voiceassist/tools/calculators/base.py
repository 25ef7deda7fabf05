"""What every calculator shares: the result model, the registry entry, rounding and result building."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from voiceassist.tools.calculators.plausibility import Validity


class Sex(StrEnum):
    female = "female"
    male = "male"


class CalculatorParams(BaseModel):
    """Base of every params model: unknown fields are refused so a typo cannot silently score 0."""

    model_config = ConfigDict(extra="forbid")


Score = float | int | str | tuple[str, str]


class CalculatorResult(BaseModel):
    calculator: str
    score: Score = Field(description="The result; ISO date for dates, ('W weeks', 'D days') for gestational age")
    unit: str
    interpretation: str
    risk_category: str
    recommendations: list[str] = Field(default_factory=list)
    parameters_used: dict[str, Any]
    source: str
    assumed: list[str] = Field(default_factory=list,
                               description="Inputs not given and the value the calculator assumed for each")
    warnings: list[str] = Field(default_factory=list,
                                description="The patient is outside the population the calculator was validated in")


@dataclass(frozen=True)
class CalculatorSpec:
    name: str
    title: str
    description: str
    params: type[CalculatorParams]
    function: Callable[[Any], CalculatorResult]
    category: str
    medcalc_ids: tuple[int, ...] = ()
    # the population its source validated it in; () when it applies at any age (a formula of physics or
    # chemistry); None only until declared (a test requires every calculator to declare it)
    validity: tuple[Validity, ...] | None = None

    def json_schema(self) -> dict[str, Any]:
        return self.params.model_json_schema()


def round5(value: float) -> float:
    """The benchmark rounds decimal answers and intermediate values to 5 decimals."""
    return round(value, 5)


def parameters_used(params: CalculatorParams) -> dict[str, Any]:
    """The params as used, defaults included, with the defaulted field names listed."""
    used = params.model_dump(mode="json")
    used["defaults_applied"] = [name for name in type(params).model_fields if name not in params.model_fields_set]
    return used


def assumed_inputs(params: CalculatorParams) -> list[str]:
    """Each input the caller did not give, worded with what was assumed ("confusion absent", "respiratory
    rate 16 (breaths per minute)"), so no result rests silently on a default."""
    assumed = []
    for name, info in type(params).model_fields.items():
        if name in params.model_fields_set:
            continue
        value = getattr(params, name)
        label = name.replace("_", " ")
        unit = (info.description or "").partition(",")[2].strip()
        if value is None:
            assumed.append(f"{label} not given (not used)")
        elif isinstance(value, bool):
            assumed.append(f"{label} {'present' if value else 'absent'}")
        elif isinstance(value, int | float):
            assumed.append(f"{label} {value:g}{' ' + unit if unit else ''}")
        elif isinstance(value, str):
            assumed.append(f"{label} {value}")
        elif isinstance(value, list | tuple) and not value:
            assumed.append(f"{label} none")
        else:
            assumed.append(f"{label} {value}")
    return assumed


def result(
    calculator: str,
    score: Score,
    params: CalculatorParams,
    *,
    unit: str,
    interpretation: str,
    risk_category: str,
    source: str,
    recommendations: list[str] | None = None,
) -> CalculatorResult:
    return CalculatorResult(
        calculator=calculator,
        score=score,
        unit=unit,
        interpretation=interpretation,
        risk_category=risk_category,
        recommendations=recommendations or [],
        parameters_used=parameters_used(params),
        source=source,
        assumed=assumed_inputs(params),
    )


def band(value: float, bands: list[tuple[float, int]], otherwise: int) -> int:
    """Points of the first band whose lower bound `value` reaches (bands sorted from the highest bound down)."""
    for lower, points in bands:
        if value >= lower:
            return points
    return otherwise


def flag(condition: bool, points: int = 1) -> int:
    return points if condition else 0
