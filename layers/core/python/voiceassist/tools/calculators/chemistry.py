"""Serum chemistry: anion gap family, corrected calcium and sodium, osmolality, LDL, HOMA-IR."""

from __future__ import annotations

from pydantic import Field

from voiceassist.errors import InvalidInput
from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, result, round5
from voiceassist.tools.calculators.plausibility import Validity

SODIUM = Field(gt=50, le=300, description="Serum sodium, mmol/L")
CHLORIDE = Field(gt=20, le=200, description="Serum chloride, mmol/L")
BICARBONATE = Field(ge=0, le=80, description="Serum bicarbonate, mmol/L")
ALBUMIN = Field(gt=0, le=10, description="Serum albumin, g/dL")
GLUCOSE = Field(gt=0, le=5000, description="Serum glucose, mg/dL")

NORMAL_GAP = 12.0
ANION_GAP_SOURCE = "Emmett M, Narins RG, Medicine (Baltimore) 1977;56:38-54"
ALBUMIN_GAP_SOURCE = "Figge J, Jabor A, Kazda A, Fencl V, Crit Care Med 1998;26:1807-1810"
DELTA_SOURCE = "Wrenn K, Ann Emerg Med 1990;19:1310-1313; Rastegar A, J Am Soc Nephrol 2007;18:2429-2431"


class AnionGapParams(CalculatorParams):
    sodium: float = SODIUM
    chloride: float = CHLORIDE
    bicarbonate: float = BICARBONATE


class AlbuminGapParams(AnionGapParams):
    albumin_g_dl: float = ALBUMIN


def _gap(params: AnionGapParams) -> float:
    return round5(params.sodium - (params.chloride + params.bicarbonate))


def _albumin_gap(params: AlbuminGapParams) -> float:
    return round5(_gap(params) + 2.5 * (4 - params.albumin_g_dl))


def _gap_category(gap: float) -> str:
    return "high anion gap" if gap > NORMAL_GAP else "low anion gap" if gap < 3 else "normal anion gap"


def anion_gap(params: AnionGapParams) -> CalculatorResult:
    value = _gap(params)
    category = _gap_category(value)
    return result("anion_gap", value, params, unit="mmol/L", risk_category=category, source=ANION_GAP_SOURCE,
                  interpretation=f"Anion gap {value:.1f} mmol/L: {category} (reference about 3-12).")


def albumin_corrected_anion_gap(params: AlbuminGapParams) -> CalculatorResult:
    value = _albumin_gap(params)
    category = _gap_category(value)
    return result("albumin_corrected_anion_gap", value, params, unit="mmol/L", risk_category=category,
                  source=ALBUMIN_GAP_SOURCE, interpretation=f"Albumin-corrected anion gap {value:.1f} mmol/L.")


def _delta_category(delta_gap: float) -> str:
    if delta_gap > 6:
        return "concurrent metabolic alkalosis possible"
    if delta_gap < -6:
        return "concurrent non-gap acidosis possible"
    return "pure anion gap acidosis"


def delta_gap(params: AnionGapParams) -> CalculatorResult:
    value = round5(_gap(params) - NORMAL_GAP)
    return result("delta_gap", value, params, unit="mmol/L", risk_category=_delta_category(value),
                  source=DELTA_SOURCE, interpretation=f"Delta gap {value:.1f} mmol/L ({_delta_category(value)}).")


def albumin_corrected_delta_gap(params: AlbuminGapParams) -> CalculatorResult:
    value = round5(_albumin_gap(params) - NORMAL_GAP)
    return result("albumin_corrected_delta_gap", value, params, unit="mmol/L", risk_category=_delta_category(value),
                  source=f"{DELTA_SOURCE}; {ALBUMIN_GAP_SOURCE}",
                  interpretation=f"Albumin-corrected delta gap {value:.1f} mmol/L.")


def _ratio_category(ratio: float) -> str:
    if ratio < 0.4:
        return "hyperchloraemic normal anion gap acidosis"
    if ratio < 1:
        return "mixed high and normal anion gap acidosis"
    if ratio <= 2:
        return "pure anion gap acidosis"
    return "concurrent metabolic alkalosis or chronic respiratory acidosis"


def _ratio(gap: float, bicarbonate: float) -> float:
    if bicarbonate == 24:
        raise InvalidInput("bicarbonate: 24 mmol/L leaves the delta ratio undefined (24 - HCO3 = 0); use the delta gap")
    return round5((gap - NORMAL_GAP) / (24 - bicarbonate))


def delta_ratio(params: AnionGapParams) -> CalculatorResult:
    value = _ratio(_gap(params), params.bicarbonate)
    return result("delta_ratio", value, params, unit="ratio", risk_category=_ratio_category(value),
                  source=DELTA_SOURCE, interpretation=f"Delta ratio {value:.2f}: {_ratio_category(value)}.")


def albumin_corrected_delta_ratio(params: AlbuminGapParams) -> CalculatorResult:
    value = _ratio(_albumin_gap(params), params.bicarbonate)
    return result("albumin_corrected_delta_ratio", value, params, unit="ratio", risk_category=_ratio_category(value),
                  source=f"{DELTA_SOURCE}; {ALBUMIN_GAP_SOURCE}",
                  interpretation=f"Albumin-corrected delta ratio {value:.2f}: {_ratio_category(value)}.")


class CalciumParams(CalculatorParams):
    calcium_mg_dl: float = Field(gt=0, le=30, description="Total serum calcium, mg/dL")
    albumin_g_dl: float = ALBUMIN
    normal_albumin_g_dl: float = Field(default=4.0, gt=0, le=10, description="Normal albumin, g/dL")


def calcium_correction(params: CalciumParams) -> CalculatorResult:
    value = round5(params.calcium_mg_dl + 0.8 * (params.normal_albumin_g_dl - params.albumin_g_dl))
    category = "hypocalcaemia" if value < 8.5 else "hypercalcaemia" if value > 10.5 else "normal"
    return result("calcium_correction", value, params, unit="mg/dL", risk_category=category,
                  source="Payne RB et al., Br Med J 1973;4:643-646",
                  interpretation=f"Corrected calcium {value:.2f} mg/dL ({category}).")


class SodiumCorrectionParams(CalculatorParams):
    sodium: float = SODIUM
    glucose_mg_dl: float = GLUCOSE


def sodium_correction(params: SodiumCorrectionParams) -> CalculatorResult:
    value = round5(params.sodium + 0.024 * (params.glucose_mg_dl - 100))
    category = "hyponatraemia" if value < 135 else "hypernatraemia" if value > 145 else "normal"
    return result("sodium_correction", value, params, unit="mmol/L", risk_category=category,
                  source="Hillier TA, Abbott RD, Barrett EJ, Am J Med 1999;106:399-403",
                  interpretation=f"Sodium corrected for glucose {value:.1f} mmol/L ({category}).")


class OsmolalityParams(CalculatorParams):
    sodium: float = SODIUM
    bun_mg_dl: float = Field(ge=0, le=500, description="Blood urea nitrogen, mg/dL")
    glucose_mg_dl: float = GLUCOSE


def serum_osmolality(params: OsmolalityParams) -> CalculatorResult:
    value = round5(2 * params.sodium + params.bun_mg_dl / 2.8 + params.glucose_mg_dl / 18)
    category = "low" if value < 275 else "high" if value > 295 else "normal"
    return result("serum_osmolality", value, params, unit="mOsm/kg", risk_category=category,
                  source="Dorwart WV, Chalmers L, Clin Chem 1975;21:190-194",
                  interpretation=f"Calculated serum osmolality {value:.1f} mOsm/kg ({category}).")


class LdlParams(CalculatorParams):
    total_cholesterol_mg_dl: float = Field(gt=0, le=2000, description="Total cholesterol, mg/dL")
    hdl_mg_dl: float = Field(gt=0, le=500, description="HDL cholesterol, mg/dL")
    triglycerides_mg_dl: float = Field(ge=0, le=20000, description="Triglycerides, mg/dL")


def ldl_calculated(params: LdlParams) -> CalculatorResult:
    value = round5(params.total_cholesterol_mg_dl - params.hdl_mg_dl - params.triglycerides_mg_dl / 5)
    category = next(label for bound, label in ((100, "optimal"), (130, "near optimal"), (160, "borderline high"),
                                               (190, "high"), (float("inf"), "very high")) if value < bound)
    notes = ["Friedewald is unreliable with triglycerides >= 400 mg/dL; measure LDL directly."]
    return result("ldl_calculated", value, params, unit="mg/dL", risk_category=category,
                  source="Friedewald WT, Levy RI, Fredrickson DS, Clin Chem 1972;18:499-502",
                  interpretation=f"LDL cholesterol {value:.0f} mg/dL ({category}, ATP III).",
                  recommendations=notes if params.triglycerides_mg_dl >= 400 else [])


class HomaIrParams(CalculatorParams):
    insulin_uiu_ml: float = Field(gt=0, le=1000, description="Fasting insulin, µIU/mL")
    glucose_mg_dl: float = GLUCOSE


def homa_ir(params: HomaIrParams) -> CalculatorResult:
    value = round5(params.insulin_uiu_ml * params.glucose_mg_dl / 405)
    category = "insulin resistance likely" if value > 2.5 else "insulin resistance unlikely"
    return result("homa_ir", value, params, unit="index", risk_category=category,
                  source="Matthews DR et al., Diabetologia 1985;28:412-419",
                  interpretation=f"HOMA-IR {value:.2f} ({category}).")


# Friedewald WT et al., Clin Chem 1972;18:499: the estimate is not to be used above 400 mg/dL of triglycerides
FRIEDEWALD_LIMIT = Validity("triglycerides_mg_dl", 0, 400, "the Friedewald equation must not be used with "
                            "triglycerides above 400 mg/dL (Friedewald WT et al., Clin Chem 1972); measure LDL "
                            "directly", "refuse")

SPECS = [
    CalculatorSpec("anion_gap", "Anion Gap", "Na - (Cl + HCO3).", AnionGapParams, anion_gap, "lab", (39,),
                   validity=()),
    CalculatorSpec("delta_gap", "Delta Gap", "Anion gap - 12.", AnionGapParams, delta_gap, "lab", (63,),
                   validity=()),
    CalculatorSpec("delta_ratio", "Delta Ratio", "(Anion gap - 12) / (24 - HCO3).", AnionGapParams, delta_ratio,
                   "lab", (64,),
                   validity=()),
    CalculatorSpec("albumin_corrected_anion_gap", "Albumin Corrected Anion Gap", "Anion gap + 2.5 x (4 - albumin).",
                   AlbuminGapParams, albumin_corrected_anion_gap, "lab", (65,),
                   validity=()),
    CalculatorSpec("albumin_corrected_delta_gap", "Albumin Corrected Delta Gap", "Albumin-corrected gap - 12.",
                   AlbuminGapParams, albumin_corrected_delta_gap, "lab", (66,),
                   validity=()),
    CalculatorSpec("albumin_corrected_delta_ratio", "Albumin Corrected Delta Ratio",
                   "(Albumin-corrected gap - 12) / (24 - HCO3).", AlbuminGapParams, albumin_corrected_delta_ratio,
                   "lab", (67,),
                   validity=()),
    CalculatorSpec("calcium_correction", "Calcium Correction for Hypoalbuminemia", "Ca + 0.8 x (4 - albumin).",
                   CalciumParams, calcium_correction, "lab", (7,),
                   validity=()),
    CalculatorSpec("sodium_correction", "Sodium Correction for Hyperglycemia", "Na + 0.024 x (glucose - 100).",
                   SodiumCorrectionParams, sodium_correction, "lab", (26,),
                   validity=()),
    CalculatorSpec("serum_osmolality", "Serum Osmolality", "2 Na + BUN/2.8 + glucose/18.", OsmolalityParams,
                   serum_osmolality, "lab", (30,),
                   validity=()),
    CalculatorSpec("ldl_calculated", "LDL Calculated (Friedewald)", "TC - HDL - TG/5.", LdlParams, ldl_calculated,
                   "lab", (44,),
                   validity=(FRIEDEWALD_LIMIT,)),
    CalculatorSpec("homa_ir", "HOMA-IR", "Insulin x glucose / 405.", HomaIrParams, homa_ir, "lab", (31,),
                   validity=()),
]
