"""Heart-rate corrected QT interval: Bazett, Fridericia, Framingham, Hodges and Rautaharju (RR = 60 / HR)."""

from __future__ import annotations

import math
from collections.abc import Callable

from pydantic import Field

from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, result, round5


class QtcParams(CalculatorParams):
    qt_msec: float = Field(gt=100, le=1000, description="Measured QT interval, msec")
    heart_rate: float = Field(gt=10, le=400, description="Heart rate, beats per minute")


def _rr_seconds(heart_rate: float) -> float:
    return round5(60 / heart_rate)


FORMULAS: dict[str, tuple[Callable[[float, float], float], str]] = {
    "bazett": (lambda qt, hr: qt / math.sqrt(_rr_seconds(hr)), "Bazett HC, Heart 1920;7:353-370"),
    "fridericia": (lambda qt, hr: qt / _rr_seconds(hr) ** (1 / 3), "Fridericia LS, Acta Med Scand 1920;53:469-486"),
    "framingham": (lambda qt, hr: qt + 154 * (1 - _rr_seconds(hr)), "Sagie A et al., Am J Cardiol 1992;70:797-801"),
    "hodges": (lambda qt, hr: qt + 1.75 * (hr - 60), "Hodges M et al., J Am Coll Cardiol 1983;1:694 (abstract)"),
    "rautaharju": (lambda qt, hr: qt * (120 + hr) / 180,
                   "Rautaharju PM, Warren JW, Calhoun HP, J Electrocardiol 1990;23 Suppl:111-117"),
}


def qtc_category(qtc: float) -> tuple[str, list[str]]:
    if qtc >= 500:
        return "markedly prolonged", ["QTc >= 500 ms: high torsades risk; stop QT-prolonging drugs, check K and Mg."]
    if qtc > 460:
        return "prolonged", ["Review QT-prolonging drugs and electrolytes."]
    if qtc < 350:
        return "short", ["Consider short QT syndrome if persistent."]
    return "normal", []


def _qtc_calculator(method: str) -> Callable[[QtcParams], CalculatorResult]:
    formula, source = FORMULAS[method]

    def calculate(params: QtcParams) -> CalculatorResult:
        value = round5(formula(params.qt_msec, params.heart_rate))
        category, advice = qtc_category(value)
        return result(f"qtc_{method}", value, params, unit="msec", risk_category=category, source=source,
                      recommendations=advice, interpretation=f"QTc ({method.title()}) {value:.0f} ms: {category}.")

    calculate.__name__ = f"qtc_{method}"
    return calculate


qtc_bazett = _qtc_calculator("bazett")
qtc_fridericia = _qtc_calculator("fridericia")
qtc_framingham = _qtc_calculator("framingham")
qtc_hodges = _qtc_calculator("hodges")
qtc_rautaharju = _qtc_calculator("rautaharju")

SPECS = [
    CalculatorSpec("qtc_bazett", "QTc Bazett", "QT / sqrt(RR).", QtcParams, qtc_bazett, "cardiology", (11,),
                   validity=()),
    CalculatorSpec("qtc_fridericia", "QTc Fridericia", "QT / RR^(1/3).", QtcParams, qtc_fridericia, "cardiology",
                   (56,),
                   validity=()),
    CalculatorSpec("qtc_framingham", "QTc Framingham", "QT + 154 x (1 - RR).", QtcParams, qtc_framingham,
                   "cardiology", (57,),
                   validity=()),
    CalculatorSpec("qtc_hodges", "QTc Hodges", "QT + 1.75 x (HR - 60).", QtcParams, qtc_hodges, "cardiology", (58,),
                   validity=()),
    CalculatorSpec("qtc_rautaharju", "QTc Rautaharju", "QT x (120 + HR) / 180.", QtcParams, qtc_rautaharju,
                   "cardiology", (59,),
                   validity=()),
]
