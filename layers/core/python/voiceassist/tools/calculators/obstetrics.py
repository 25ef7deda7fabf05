"""Pregnancy dating: due date (Naegele, cycle-adjusted), conception date and gestational age from the LMP."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from voiceassist.errors import InvalidInput
from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, result

NAEGELE = "Naegele FC, Lehrbuch der Geburtshülfe, 1830; ACOG Committee Opinion 700, Obstet Gynecol 2017;129:e150"


class DueDateParams(CalculatorParams):
    last_menstrual_period: dt.date = Field(description="First day of the last menstrual period")
    cycle_length_days: int = Field(default=28, ge=20, le=60, description="Usual cycle length, days")


def _after_lmp(lmp: dt.date, days: int) -> dt.date:
    """`days` after the LMP; an LMP so late that the date is past the calendar's last day (9999-12-31) is the
    caller's slip, a 400, not the tool's failure."""
    try:
        return lmp + dt.timedelta(days=days)
    except OverflowError:
        raise InvalidInput(f"last_menstrual_period: {lmp.isoformat()} + {days} days is past the last date this "
                           f"calculator can give ({dt.date.max.isoformat()}); check the date") from None


def due_date(params: DueDateParams) -> CalculatorResult:
    offset = 280 + params.cycle_length_days - 28
    value = _after_lmp(params.last_menstrual_period, offset)
    return result("due_date", value.isoformat(), params, unit="date", risk_category="not applicable", source=NAEGELE,
                  interpretation=f"Estimated due date {value.isoformat()} (LMP + {offset} days).",
                  recommendations=["Confirm or revise dating with first-trimester ultrasound."])


class ConceptionParams(CalculatorParams):
    last_menstrual_period: dt.date = Field(description="First day of the last menstrual period")


def conception_date(params: ConceptionParams) -> CalculatorResult:
    value = _after_lmp(params.last_menstrual_period, 14)
    return result("conception_date", value.isoformat(), params, unit="date", risk_category="not applicable",
                  source=NAEGELE, interpretation=f"Estimated conception {value.isoformat()} (LMP + 14 days).")


class GestationalAgeParams(CalculatorParams):
    last_menstrual_period: dt.date = Field(description="First day of the last menstrual period")
    current_date: dt.date = Field(description="Date of assessment")


def gestational_age(params: GestationalAgeParams) -> CalculatorResult:
    days = (params.current_date - params.last_menstrual_period).days
    if days < 0:
        raise InvalidInput("current_date: must not be before last_menstrual_period")
    weeks, rest = divmod(days, 7)
    trimester = "first" if weeks < 14 else "second" if weeks < 28 else "third"
    return result("gestational_age", (f"{weeks} weeks", f"{rest} days"), params, unit="weeks, days",
                  risk_category=f"{trimester} trimester", source=NAEGELE,
                  interpretation=f"Gestational age {weeks} weeks {rest} days ({trimester} trimester).")


SPECS = [
    CalculatorSpec("due_date", "Estimated Due Date", "LMP + 280 days, adjusted for cycle length.", DueDateParams,
                   due_date, "obstetrics", (13,),
                   validity=()),
    CalculatorSpec("conception_date", "Estimated Date of Conception", "LMP + 14 days.", ConceptionParams,
                   conception_date, "obstetrics", (68,),
                   validity=()),
    CalculatorSpec("gestational_age", "Estimated Gestational Age", "Weeks and days since the LMP.",
                   GestationalAgeParams, gestational_age, "obstetrics", (69,),
                   validity=()),
]
