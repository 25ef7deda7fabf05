"""Unit conversion for the quantities clinicians mix, into each calculator's canonical unit.

Molar masses follow MedCalc-Bench: creatinine 113.12, glucose 180.16, BUN (as nitrogen, 2 x 14.01) 28.02 g/mol.
Calcium 40.08, bilirubin 584.66, cholesterol 386.65 and triglyceride (as triolein) 885.7 g/mol.

Urea is not urea nitrogen. One urea molecule (CH4N2O, 60.06 g/mol) carries two nitrogen atoms (28.02 g/mol): a
urea reported in mmol/L is the same number of millimoles as its nitrogen (x 2.802 -> BUN mg/dL), but a urea
reported by mass (mg/dL, as German, Brazilian or Turkish labs do) is 60.06/28.02 = 2.14 times its BUN, so
BUN mg/dL = urea mg/dL x 28.02/60.06 (Young DS, Ann Intern Med 1987;106:114, SI conversion table: urea nitrogen
mg/dL x 0.357 = urea mmol/L; IUPAC standard atomic weights). The quantity "urea" converts a urea into the BUN
the calculators take; a caller of the tool marks a urea's unit "(urea)" ([40, "mg/dL (urea)"]).
tests/unit/tools/test_calculator_unit_factors.py checks every lab conversion against the published SI factors.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from voiceassist.errors import InvalidInput

Conversion = Callable[[float], float]


def _scale(factor: float) -> Conversion:
    return lambda value: value * factor


def _identity(value: float) -> float:
    return value


def _mmol_to_mg_dl(molar_mass: float) -> Conversion:
    return _scale(molar_mass / 10)


def _umol_to_mg_dl(molar_mass: float) -> Conversion:
    return _scale(molar_mass / 10_000)


_CREATININE = 113.12
_GLUCOSE = 180.16
_BUN = 28.02
_UREA = 60.06
_CALCIUM = 40.08
_BILIRUBIN = 584.66
_CHOLESTEROL = 386.65
_TRIGLYCERIDE = 885.7

_CONCENTRATION_MG_DL: dict[str, Conversion] = {
    "mg/dl": _identity, "mg/100ml": _identity, "mg%": _identity, "g/l": _scale(100),
}
_ELECTROLYTE: dict[str, Conversion] = {"mmol/l": _identity, "meq/l": _identity}
_COUNT: dict[str, Conversion] = {
    "/ul": _identity, "ul": _identity, "/mm3": _identity, "mm3": _identity, "mm^3": _identity, "cells/ul": _identity,
    "10^9/l": _scale(1000), "x10^9/l": _scale(1000), "10^3/ul": _scale(1000), "k/ul": _scale(1000),
    "x10^3/ul": _scale(1000), "10^3/mm3": _scale(1000), "/l": _scale(1e-6),
}

# a urea, by moles or by mass, as the BUN (mg/dL of urea nitrogen) it carries
_UREA_AS_BUN: dict[str, Conversion] = {"mmol/l": _mmol_to_mg_dl(_BUN), "mg/dl": _scale(_BUN / _UREA),
                                       "g/l": _scale(100 * _BUN / _UREA)}

# quantity -> (canonical unit, {accepted unit (normalised) -> conversion into the canonical unit})
UNITS: dict[str, tuple[str, dict[str, Conversion]]] = {
    "creatinine": ("mg/dL", _CONCENTRATION_MG_DL | {"umol/l": _umol_to_mg_dl(_CREATININE),
                                                    "mmol/l": _mmol_to_mg_dl(_CREATININE)}),
    "glucose": ("mg/dL", _CONCENTRATION_MG_DL | {"mmol/l": _mmol_to_mg_dl(_GLUCOSE)}),
    # a BUN field also takes a urea, its unit marked "(urea)": [40, "mg/dL (urea)"] is BUN 18.7 mg/dL
    "bun": ("mg/dL", _CONCENTRATION_MG_DL | {"mmol/l": _mmol_to_mg_dl(_BUN)}
            | {f"{unit}(urea)": conversion for unit, conversion in _UREA_AS_BUN.items()}),
    "urea": ("mg/dL", _UREA_AS_BUN),
    "calcium": ("mg/dL", _CONCENTRATION_MG_DL | {"mmol/l": _mmol_to_mg_dl(_CALCIUM),
                                                 "meq/l": _mmol_to_mg_dl(_CALCIUM / 2)}),
    "bilirubin": ("mg/dL", _CONCENTRATION_MG_DL | {"umol/l": _umol_to_mg_dl(_BILIRUBIN),
                                                   "mmol/l": _mmol_to_mg_dl(_BILIRUBIN)}),
    "cholesterol": ("mg/dL", _CONCENTRATION_MG_DL | {"mmol/l": _mmol_to_mg_dl(_CHOLESTEROL)}),
    "triglycerides": ("mg/dL", _CONCENTRATION_MG_DL | {"mmol/l": _mmol_to_mg_dl(_TRIGLYCERIDE)}),
    "albumin": ("g/dL", {"g/dl": _identity, "g/l": _scale(0.1), "mg/dl": _scale(0.001)}),
    "hemoglobin": ("g/dL", {"g/dl": _identity, "g/l": _scale(0.1), "mmol/l": _scale(1.611)}),
    "electrolyte": ("mmol/L", _ELECTROLYTE),
    "insulin": ("µIU/mL", {"uiu/ml": _identity, "uu/ml": _identity, "miu/l": _identity, "pmol/l": _scale(1 / 6)}),
    "enzyme": ("U/L", {"u/l": _identity, "iu/l": _identity}),
    "count": ("per µL", _COUNT),
    "weight": ("kg", {"kg": _identity, "g": _scale(0.001), "lb": _scale(0.453592), "lbs": _scale(0.453592),
                      "pounds": _scale(0.453592), "oz": _scale(0.0283495)}),
    "height": ("cm", {"cm": _identity, "m": _scale(100), "mm": _scale(0.1), "in": _scale(2.54),
                      "inches": _scale(2.54), "ft": _scale(30.48), "feet": _scale(30.48)}),
    "temperature": ("°C", {"c": _identity, "degreescelsius": _identity, "celsius": _identity,
                           "f": lambda f: (f - 32) * 5 / 9, "degreesfahrenheit": lambda f: (f - 32) * 5 / 9,
                           "fahrenheit": lambda f: (f - 32) * 5 / 9, "k": lambda k: k - 273.15}),
    "pressure": ("mm Hg", {"mmhg": _identity, "torr": _identity, "kpa": _scale(7.50062)}),
    "rate": ("per minute", {"beatsperminute": _identity, "bpm": _identity, "breathsperminute": _identity,
                            "/min": _identity, "perminute": _identity, "beats/min": _identity,
                            "breaths/min": _identity, "min^-1": _identity}),
    "interval": ("msec", {"msec": _identity, "ms": _identity, "s": _scale(1000), "sec": _scale(1000)}),
    "age": ("years", {"years": _identity, "year": _identity, "y": _identity, "yr": _identity,
                      "months": _scale(1 / 12), "weeks": _scale(7 / 365.25), "days": _scale(1 / 365.25)}),
    "percent": ("%", {"%": _identity, "percent": _identity, "fraction": _scale(100)}),
    "bmi": ("kg/m²", {"kg/m^2": _identity, "kg/m2": _identity}),
    "urine_output": ("mL/day", {"ml/day": _identity, "ml/24h": _identity, "ml/24hr": _identity, "ml/d": _identity,
                                "l/day": _scale(1000), "ml/h": _scale(24), "ml/hr": _scale(24)}),
    "infusion": ("µg/kg/min", {"ug/kg/min": _identity, "mg/kg/min": _scale(1000)}),
    "mass_dose": ("mg", {"mg": _identity, "ug": _scale(0.001), "g": _scale(1000)}),
    "microgram_dose": ("µg", {"ug": _identity, "mg": _scale(1000)}),
}


_SUPERSCRIPTS = str.maketrans({"⁹": "^9", "³": "^3", "²": "^2", "⁶": "^6", "⁻": "^-", "¹": "1"})


def normalise_unit(unit: str) -> str:
    text = unit.translate(_SUPERSCRIPTS)
    text = unicodedata.normalize("NFKC", text).strip().lower()
    for old, new in (("µ", "u"), ("μ", "u"), ("°", ""), ("mcg", "ug"), ("×", "x"), ("*", "x"), (" ", "")):
        text = text.replace(old, new)
    return text


# A unit as units are written (mg/dL, umol/L, °F, 10^9/L): one short word without spaces. Any other text sent as a
# unit (free text, perhaps a patient's name) is not quoted back.
_UNIT_SHAPE = re.compile(r"[^\s'\"]{1,16}")


def _quoted_unit(unit: object) -> str:
    return repr(unit) if isinstance(unit, str) and _UNIT_SHAPE.fullmatch(unit) else "of that name"


def accepted_units(quantity: str) -> list[str]:
    return sorted(UNITS[quantity][1])


def canonical_unit(quantity: str) -> str:
    return UNITS[quantity][0]


def convert(value: float, unit: str, quantity: str, *, field: str | None = None) -> float:
    """`value` in `unit` expressed in the quantity's canonical unit; an unknown unit raises InvalidInput."""
    conversions = UNITS[quantity][1]
    conversion = conversions.get(normalise_unit(unit))
    if conversion is None:
        raise InvalidInput(
            f"{field or quantity}: unit {_quoted_unit(unit)} is not accepted; use one of "
            f"{', '.join(accepted_units(quantity))}"
        )
    # The benchmark rounds converted values to 5 decimals; it matters at thresholds (100.4 °F is 38.0 °C, not more).
    return round(conversion(float(value)), 5)


def feet_inches_to_cm(feet: float, inches: float = 0.0) -> float:
    return (feet * 12 + inches) * 2.54


def cm_to_inches(cm: float) -> float:
    return cm / 2.54


def kg_to_lb(kg: float) -> float:
    return kg / 0.453592


def celsius_to_fahrenheit(celsius: float) -> float:
    return celsius * 9 / 5 + 32


def creatinine_umol_to_mg_dl(umol_per_l: float) -> float:
    return convert(umol_per_l, "µmol/L", "creatinine")


def creatinine_mg_dl_to_umol(mg_per_dl: float) -> float:
    return mg_per_dl * 10_000 / _CREATININE
