"""Every lab conversion the calculators make, checked against the published SI conversion factors (not against
the molar masses units.py computes them from), and the physiologic ranges that catch a value read in the wrong
unit (issue 27, session 14).

Factors: Young DS, "Implementation of SI units for clinical laboratory data", Ann Intern Med 1987;106:114-129,
the table reprinted as the AMA Manual of Style SI conversion table (conventional unit x factor = SI unit).
Insulin: Heinemann L, Diabetes Care 2010;33:e83 (1 µIU/mL = 6.00 pmol/L, the factor the insulin assay
standardization workgroup recommends; older tables give 6.945). Non-lab units are UCUM's definitions
(mm[Hg] = 133.3220 Pa, [lb_av] = 0.45359237 kg, [in_i] = 2.54 cm).
"""

from __future__ import annotations

import pytest

from voiceassist.tools.calculators.plausible_ranges import PHYSIOLOGIC
from voiceassist.tools.calculators.question import extract_parameters
from voiceassist.tools.calculators.units import convert

# (quantity, conventional unit the calculator takes, SI unit, published factor: conventional x factor = SI)
PUBLISHED: list[tuple[str, str, str, float]] = [
    ("creatinine", "mg/dL", "µmol/L", 88.4),
    ("glucose", "mg/dL", "mmol/L", 0.05551),
    ("bun", "mg/dL", "mmol/L", 0.3570),  # urea nitrogen mg/dL -> urea mmol/L
    ("urea", "mg/dL", "mmol/L", 0.3570),  # a urea in mmol/L, as the BUN it carries
    ("calcium", "mg/dL", "mmol/L", 0.2495),
    ("bilirubin", "mg/dL", "µmol/L", 17.10),
    ("cholesterol", "mg/dL", "mmol/L", 0.02586),
    ("triglycerides", "mg/dL", "mmol/L", 0.01129),
    ("albumin", "g/dL", "g/L", 10.0),
    ("hemoglobin", "g/dL", "g/L", 10.0),
    ("hemoglobin", "g/dL", "mmol/L", 0.6206),
    ("insulin", "µIU/mL", "pmol/L", 6.00),
    ("pressure", "mm Hg", "kPa", 0.1333220),
    ("weight", "kg", "lb", 1 / 0.45359237),
    ("height", "cm", "in", 1 / 2.54),
]


@pytest.mark.parametrize(("quantity", "conventional", "si", "factor"), PUBLISHED)
def test_each_conversion_matches_the_published_si_factor(quantity: str, conventional: str, si: str,
                                                         factor: float) -> None:
    """One SI unit converted is 1/factor of the conventional unit, within the tables' rounding (0.5 %)."""
    assert convert(1000.0, si, quantity) == pytest.approx(1000.0 / factor, rel=5e-3)


def test_a_urea_by_mass_is_its_nitrogen_times_60_over_28() -> None:
    """Urea (CH4N2O, 60.06 g/mol) carries two nitrogens (28.02 g/mol): 60.06 mg of urea is 28.02 mg of BUN."""
    assert convert(60.06, "mg/dL", "urea") == pytest.approx(28.02)
    assert convert(40, "mg/dL", "urea") == pytest.approx(18.66, abs=0.01)
    assert convert(40, "mg/dL", "bun") == 40  # a BUN is already nitrogen


@pytest.mark.parametrize(("question", "bun_mg_dl"), [
    ("CURB-65: 72 year old confused man, urea 40 mg/dL, RR 24, BP 130/85", 18.66134),  # a urea by mass
    ("CURB-65: 72 year old confused man, BUN 40 mg/dL, RR 24, BP 130/85", 40.0),
    ("CURB-65: 72 year old confused man, urea nitrogen 40, RR 24, BP 130/85", 40.0),  # the nitrogen, in mg/dL
    ("CURB-65: 72 year old confused man, blood urea nitrogen 40 mg/dL, RR 24, BP 130/85", 40.0),
    ("CURB-65: 72 year old confused man, urea 9.1 mmol/L, RR 24, BP 130/85", 25.4982),
])
def test_a_urea_is_read_as_urea_and_a_bun_as_nitrogen(question: str, bun_mg_dl: float) -> None:
    params, missing = extract_parameters("curb65", question)
    assert missing == []
    assert params["bun_mg_dl"] == pytest.approx(bun_mg_dl)


def test_urea_40_mg_dl_scores_no_urea_point() -> None:
    """urea 40 mg/dL is BUN 18.7 mg/dL (urea 6.7 mmol/L): below CURB-65's > 7 mmol/L (BUN > 19 mg/dL)."""
    from voiceassist.tools.calculators import run_calculator

    params, _ = extract_parameters("curb65", "CURB-65: 50 year old man, not confused, urea 40 mg/dL, RR 18, "
                                             "BP 130/85")
    assert run_calculator("curb65", params).score == 0


@pytest.mark.parametrize(("written", "hemoglobin_g_dl"), [
    ("Hb 95", 9.5),  # above any g/dL a patient has: g/L
    ("haemoglobin 95 g/L", 9.5),
    ("Hb 9.5", 9.5),  # g/dL
    ("hemoglobin 12", 12.0),
    ("Hb 6.2 mmol/L", 9.9882),  # the Dutch report, in mmol/L of the monomer
])
def test_a_haemoglobin_is_read_in_the_unit_its_size_allows(written: str, hemoglobin_g_dl: float) -> None:
    question = f"Glasgow-Blatchford for a man, BUN 30, {written}, SBP 105, HR 110, melena"
    params, missing = extract_parameters("glasgow_blatchford", question)
    assert missing == []
    assert params["hemoglobin_g_dl"] == pytest.approx(hemoglobin_g_dl, abs=1e-3)


# A typical SI value read as if it were in the calculator's conventional unit: the physiologic range refuses it.
@pytest.mark.parametrize(("field", "si_value"), [
    ("creatinine_mg_dl", 88.0),  # µmol/L
    ("glucose_mg_dl", 6.0),  # mmol/L
    ("albumin_g_dl", 35.0),  # g/L
    ("hemoglobin_g_dl", 95.0),  # g/L
    ("total_cholesterol_mg_dl", 5.0),  # mmol/L
    ("hdl_mg_dl", 1.2),  # mmol/L
    ("triglycerides_mg_dl", 1.5),  # mmol/L
])
def test_the_physiologic_range_refuses_a_value_in_the_wrong_unit(field: str, si_value: float) -> None:
    assert not PHYSIOLOGIC[field].contains(si_value)
