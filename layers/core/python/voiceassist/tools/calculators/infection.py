"""Infection: Centor (McIsaac), FeverPAIN and SIRS criteria."""

from __future__ import annotations

from pydantic import Field

from voiceassist.tools.calculators.base import CalculatorParams, CalculatorResult, CalculatorSpec, flag, result
from voiceassist.tools.calculators.plausibility import Validity


class CentorParams(CalculatorParams):
    age: float = Field(ge=0, le=130, description="Age, years")
    temperature_c: float = Field(default=37, ge=13.7, le=46.5, description="Temperature, °C")
    tonsillar_exudate: bool = Field(default=False, description="Exudate or swelling on tonsils")
    tender_anterior_nodes: bool = Field(default=False, description="Tender or swollen anterior cervical nodes")
    cough_absent: bool = Field(default=True, description="Cough absent (unknown counts as absent)")


def centor(params: CentorParams) -> CalculatorResult:
    age = 1 if 3 <= params.age <= 14 else -1 if params.age >= 45 else 0
    score = (age + flag(params.temperature_c > 38) + flag(params.tonsillar_exudate)
             + flag(params.tender_anterior_nodes) + flag(params.cough_absent))
    if score <= 1:
        category, advice = "low", ["No testing or antibiotics."]
    elif score <= 3:
        category, advice = "moderate", ["Rapid antigen test or culture; treat if positive."]
    else:
        category, advice = "high", ["Test; consider empiric antibiotics."]
    return result("centor", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"McIsaac-modified Centor {score}: {category} probability of group A strep.",
                  source="McIsaac WJ et al., CMAJ 1998;158:75-83; Centor RM et al., Med Decis Making 1981;1:239-246")


class FeverPainParams(CalculatorParams):
    fever_past_24_hours: bool = False
    purulence: bool = Field(default=False, description="Purulent tonsils")
    attend_rapidly: bool = Field(default=False, description="Symptom onset <= 3 days")
    severe_tonsil_inflammation: bool = False
    no_cough_or_coryza: bool = Field(default=True, description="Absence of cough or coryza (unknown counts)")


def feverpain(params: FeverPainParams) -> CalculatorResult:
    score = (flag(params.fever_past_24_hours) + flag(params.purulence) + flag(params.attend_rapidly)
             + flag(params.severe_tonsil_inflammation) + flag(params.no_cough_or_coryza))
    if score <= 1:
        category, advice = "low", ["No antibiotics."]
    elif score <= 3:
        category, advice = "moderate", ["Consider a delayed antibiotic prescription."]
    else:
        category, advice = "high", ["Immediate or delayed antibiotics."]
    return result("feverpain", score, params, unit="points", risk_category=category, recommendations=advice,
                  interpretation=f"FeverPAIN {score}: {category} likelihood of streptococcal infection.",
                  source="Little P et al., BMJ 2013;347:f5806")


class SirsParams(CalculatorParams):
    temperature_c: float | None = Field(default=None, ge=13.7, le=46.5, description="Temperature, °C")
    heart_rate: float | None = Field(default=None, ge=0, le=400, description="Beats per minute")
    respiratory_rate: float | None = Field(default=None, ge=0, le=150, description="Breaths per minute")
    paco2: float | None = Field(default=None, gt=0, le=200, description="PaCO2, mm Hg")
    wbc_per_ul: float | None = Field(default=None, ge=0, le=1_000_000, description="White cells per µL")
    bands_percent: float | None = Field(default=None, ge=0, le=100, description="Immature (band) forms, %")


def sirs(params: SirsParams) -> CalculatorResult:
    temperature = params.temperature_c is not None and (params.temperature_c > 38 or params.temperature_c < 36)
    heart = params.heart_rate is not None and params.heart_rate > 90
    breathing = (params.respiratory_rate is not None and params.respiratory_rate > 20) or (
        params.paco2 is not None and params.paco2 < 32)
    white = (params.wbc_per_ul is not None and (params.wbc_per_ul > 12_000 or params.wbc_per_ul < 4_000)) or (
        params.bands_percent is not None and params.bands_percent > 10)
    score = flag(temperature) + flag(heart) + flag(breathing) + flag(white)
    category = "SIRS" if score >= 2 else "no SIRS"
    return result("sirs", score, params, unit="criteria", risk_category=category,
                  interpretation=f"{score} of 4 SIRS criteria met ({category}).",
                  source="Bone RC et al., Chest 1992;101:1644-1655",
                  recommendations=["With suspected infection, assess for sepsis (qSOFA/SOFA)."] if score >= 2 else [])


SPECS = [
    CalculatorSpec("centor", "Centor Score (McIsaac)", "Streptococcal pharyngitis.", CentorParams, centor,
                   "infectious disease", (20,),
                   validity=(
                       Validity("age", 3, 120, "the McIsaac-modified Centor score was validated from 3 years (McIsaac "
                       "WJ et al., CMAJ 1998)"),)),
    CalculatorSpec("feverpain", "FeverPAIN", "Streptococcal pharyngitis.", FeverPainParams, feverpain,
                   "infectious disease", (33,),
                   validity=()),
    CalculatorSpec("sirs", "SIRS Criteria", "Systemic inflammatory response syndrome.", SirsParams, sirs,
                   "infectious disease", (51,),
                   validity=()),
]
