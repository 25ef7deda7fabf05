"""What every calculator shares: the result model, the registry entry, rounding and result building."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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


@dataclass(frozen=True)
class CalculatorSpec:
    name: str
    title: str
    description: str
    params: type[CalculatorParams]
    function: Callable[[Any], CalculatorResult]
    category: str
    medcalc_ids: tuple[int, ...] = ()

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
    )


def band(value: float, bands: list[tuple[float, int]], otherwise: int) -> int:
    """Points of the first band whose lower bound `value` reaches (bands sorted from the highest bound down)."""
    for lower, points in bands:
        if value >= lower:
            return points
    return otherwise


def flag(condition: bool, points: int = 1) -> int:
    return points if condition else 0
