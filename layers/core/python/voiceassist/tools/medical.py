"""calculate_medical_score: every calculator of tools/calculators behind one tool, its result a citable source."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType, ToolCategory
from voiceassist.tools.calculator_units import convert_units, list_fields_of, units_given
from voiceassist.tools.calculators import CALCULATORS, CalculatorResult, get_calculator, run_calculator
from voiceassist.tools.calculators.registry import validate_arguments
from voiceassist.tools.calculators.schema import calculate_tool_schema, compact_tool_schema
from voiceassist.tools.registry import ToolEnvironment, ToolOutput, define

_CALCULATOR_NAME = re.compile(r"[a-z0-9_]{1,40}")


class CalculateParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    calculator: str = Field(description="The calculator's name (see the enum)")
    parameters: dict[str, Any] = Field(default_factory=dict,
                                       description="The calculator's inputs by field name: numbers in the unit the "
                                                   "name gives (weight_kg, creatinine_mg_dl) or [value, unit] "
                                                   "([154, \"lb\"], [88, \"umol/L\"]), booleans, and "
                                                   "enumerated words (sex)")

    @field_validator("calculator")
    @classmethod
    def _calculator_is_known(cls, name: str) -> str:
        if name not in CALCULATORS:  # a name shaped like one is quoted (a typo: 'curb66'); free text never is
            named = f"named {name!r}" if _CALCULATOR_NAME.fullmatch(name) else "of that name"
            raise ValueError(f"no calculator {named}; the 'calculator' enum of the tool's schema lists them")
        return name

    @model_validator(mode="after")
    def _calculator_accepts_the_parameters(self) -> CalculateParams:
        """Validated here (a wrong unit, a missing or implausible input: InvalidInput, the executor's 400), so no
        free text reaches the PHI rule."""
        list_fields = list_fields_of(CALCULATORS[self.calculator].params)
        given_as = units_given(self.parameters, list_fields)
        self.parameters = convert_units(self.parameters, list_fields)
        validate_arguments(CALCULATORS[self.calculator], self.parameters, given_as)
        return self


def describe(result: CalculatorResult, title: str) -> str:
    """One paragraph a clinician (or a model) reads: score, interpretation, risk, recommendations, source."""
    score = " ".join(result.score) if isinstance(result.score, tuple) else result.score
    parts = [f"{title}: {score}{' ' + result.unit if result.unit else ''}."]
    parts.extend(f"Warning: {warning.rstrip('.')}." for warning in result.warnings)
    parts.append(result.interpretation.rstrip(".") + ".")
    if result.assumed:
        parts.append(f"Not given, so assumed: {', '.join(result.assumed)}.")
    if result.risk_category:
        parts.append(f"Risk category: {result.risk_category}.")
    parts.extend(r.rstrip(".") + "." for r in result.recommendations)
    parts.append(f"Source: {result.source}.")
    return " ".join(parts)


def source_hit(result: CalculatorResult, title: str, text: str) -> SearchHit:
    """The calculator's result as a citable excerpt: the formula's published source is its reference."""
    doc_key = f"calculator/{result.calculator}"
    metadata = DocumentMetadata(doc_key=doc_key, title=f"{title} (calculator; {result.source})",
                                source_type=SourceType.OTHER)
    chunk = Chunk(chunk_id=f"{doc_key}#result", doc_id=f"{doc_key}#v1", doc_key=doc_key, version=1, ordinal=0,
                  text=text, token_count=len(text.split()), section=title, metadata=metadata)
    return SearchHit(chunk=chunk, score=1.0, source="tool")


def calculate(params: CalculateParams, env: ToolEnvironment) -> ToolOutput:
    spec = get_calculator(params.calculator)
    result = run_calculator(params.calculator, params.parameters)
    text = describe(result, spec.title)
    return ToolOutput(content=text, data=result.model_dump(mode="json"), sources=[source_hit(result, spec.title, text)])


CALCULATE_MEDICAL_SCORE = define(
    "calculate_medical_score",
    "Compute a validated medical score or formula (CHA2DS2-VASc, HAS-BLED, Wells, MELD-Na, CURB-65, "
    "Cockcroft-Gault, CKD-EPI, BMI and more) from the patient's findings; returns the score, its "
    "interpretation, risk category, recommendations, the parameters used and the published source.",
    CalculateParams, calculate,
    schema=calculate_tool_schema(CalculateParams.model_json_schema(), CALCULATORS),
    model_schema=compact_tool_schema(CalculateParams.model_json_schema(), CALCULATORS),
    category=ToolCategory.CALCULATION, requires_phi=True,  # a pure function inside the boundary
    scan_arguments=False,  # validated: numbers, booleans, enumerated words and units only
    rate_limit=120, timeout_seconds=2.0,
)
