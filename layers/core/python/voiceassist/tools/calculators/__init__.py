"""Medical calculators: pure functions over pydantic params, a registry, units and MedCalc-Bench adapters."""

from __future__ import annotations

from voiceassist.tools.calculators.base import CalculatorResult, CalculatorSpec
from voiceassist.tools.calculators.registry import BY_MEDCALC_ID, CALCULATORS, get_calculator, run_calculator

__all__ = ["BY_MEDCALC_ID", "CALCULATORS", "CalculatorResult", "CalculatorSpec", "get_calculator", "run_calculator"]
