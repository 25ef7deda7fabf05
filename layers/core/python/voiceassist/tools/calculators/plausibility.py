"""Two checks on a calculator's validated params before it computes.

1. Plausible: every numeric input lies in its physiologic range (plausible_ranges.PHYSIOLOGIC); outside it the
   call is refused with a 400 naming the field, the value and the range.
2. Validated population: each calculator carries the population its source derived and validated it in (a
   tuple of `Validity` on its CalculatorSpec, e.g. adults only, not in pregnancy, Friedewald below 400 mg/dL of
   triglycerides). Outside it the result carries a warning, or the call is refused where the source says the
   formula must not be used (`action="refuse"`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from voiceassist.errors import InvalidInput
from voiceassist.tools.calculators.plausible_ranges import PHYSIOLOGIC, SOURCES


class ImplausibleInput(InvalidInput):
    """A value no living patient has (or a unit slip): the message names the field, the value and the range."""

    code = "implausible_input"


class OutsideValidatedPopulation(InvalidInput):
    """The patient is outside the population the calculator's source says it must not be used in."""

    code = "outside_validated_population"


@dataclass(frozen=True)
class Validity:
    """The calculator is validated for `low <= field <= high` (a boolean field: True counts as 1)."""

    field: str
    low: float
    high: float
    reason: str  # what the source says, with its citation
    action: Literal["warn", "refuse"] = "warn"

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high


def adults(source: str, *, action: Literal["warn", "refuse"] = "warn", alternative: str = "") -> Validity:
    """Derived and validated in adults (18 years and over) by `source`."""
    advice = f"; {alternative}" if alternative else ""
    return Validity("age", 18, 120, f"validated in adults only ({source}){advice}", action)


def not_in_pregnancy(source: str, *, action: Literal["warn", "refuse"] = "warn") -> Validity:
    return Validity("pregnant", 0, 0, f"not validated in pregnancy: pregnant patients were excluded ({source})",
                    action)


def _number(value: object, *, text: bool = False) -> float | None:
    """`value` as a number (True counts 1); a numeric string too when `text` (the params model coerces it). An
    integer too large for a float (10**400) is an infinity of its sign: implausible, not an OverflowError."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _LARGEST_FLOAT:
        return math.inf if value > 0 else -math.inf
    if isinstance(value, bool | int | float):
        return float(value)
    if text and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


_LARGEST_FLOAT = int(1.7976931348623157e308)


def first_source(sources: str) -> str:
    """The first of `sources` ("A (x; y); B"): up to the first ';' outside parentheses."""
    depth = 0
    for index, char in enumerate(sources):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == ";" and depth == 0:
            return sources[:index]
    return sources


def check_plausible(fields: Iterable[str], arguments: Mapping[str, Any],
                    given_as: Mapping[str, str] | None = None) -> None:
    """Raise ImplausibleInput listing every numeric argument of `fields` outside its physiologic range.

    Checked on the arguments before the params model, so the message is the physiologic one whatever the
    model's own bounds. `given_as` maps a field to the value and unit the caller sent before conversion
    ("88 umol/L"), so the message shows what was sent as well as what it became."""
    problems = []
    for field in fields:
        plausible = PHYSIOLOGIC.get(field)
        value = _number(arguments.get(field), text=True)
        if plausible is None or value is None or isinstance(arguments.get(field), bool):
            continue
        if not plausible.contains(float(value)):
            sent = f" (sent as {given_as[field]})" if given_as and field in given_as else ""
            problems.append(f"{field}: {float(value):g} {plausible.unit}{sent} is outside the plausible range "
                            f"{plausible.describe()} (source: {first_source(SOURCES[plausible.source])})")
    if problems:
        raise ImplausibleInput("implausible calculator input: " + "; ".join(problems)
                               + ". Check the value and its unit.")


def check_population(name: str, validity: tuple[Validity, ...], params: BaseModel) -> list[str]:
    """The warnings for each validity condition the params fall outside; raises for a refusing one."""
    warnings = []
    for rule in validity:
        if rule.field not in type(params).model_fields:
            continue
        value = _number(getattr(params, rule.field))
        if value is None or rule.holds(value):
            continue
        shown = "yes" if isinstance(getattr(params, rule.field), bool) else f"{value:g}"
        message = f"{name}: {rule.field} {shown} is outside the validated population: {rule.reason}"
        if rule.action == "refuse":
            raise OutsideValidatedPopulation(message + ". Not computed.")
        warnings.append(message + ".")
    return warnings
