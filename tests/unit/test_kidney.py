"""KDIGO's GFR categories: a staged kidney condition in a question, GFR cut-offs in a passage."""

from __future__ import annotations

from voiceassist.query import kidney, population


def _stages(marks: frozenset[str]) -> set[str]:
    return {m.removeprefix(kidney.MARK) for m in marks}


def test_a_gfr_cut_off_reaches_the_categories_below_or_above_it() -> None:
    assert _stages(kidney.marks("contraindicated when eGFR is below 30 mL/min/1.73 m2")) == {"G4", "G5"}
    assert _stages(kidney.marks("not recommended when eGFR is 30-45")) == {"G3b", "G3a"}
    assert _stages(kidney.marks("creatinine clearance of 25 mL/min")) == {"G4"}
    assert _stages(kidney.marks("if eGFR is at least 60")) == {"G1", "G2"}


def test_a_test_of_kidney_function_without_a_value_states_no_category() -> None:
    assert kidney.marks("Check the estimated glomerular filtration rate (eGFR) before starting and at least yearly.") \
        == frozenset()
    assert kidney.marks("check electrolytes and renal function after starting a diuretic") == frozenset()


def test_a_question_names_its_stage_dialysis_is_kidney_failure_and_unstaged_ckd_is_a_low_gfr() -> None:
    assert _stages(kidney.asked("metformin in CKD stage 4")) == {"G4"}
    assert _stages(kidney.asked("stage 3b CKD and lisinopril")) == {"G3b"}
    assert _stages(kidney.asked("stage 3 chronic kidney disease")) == {"G3a", "G3b"}
    assert _stages(kidney.asked("amoxicillin for a pt on haemodialysis")) == {"G5"}
    assert _stages(kidney.asked("metformin in CKD")) == {"G3a", "G3b", "G4", "G5"}
    assert kidney.asked("metformin in hepatic impairment") == frozenset()


def test_every_name_of_renal_impairment_is_a_kidney_condition_and_a_renal_population() -> None:
    # one list (population.TERMS, MeSH entry terms): what the population check reads, the stages read too
    for question in ("amoxicillin in kidney failure", "metformin in renal disease", "dose in kidney impairment",
                     "levofloxacin in end-stage kidney disease", "metformin in chronic kidney failure"):
        assert kidney.asked(question), question
        assert population.asked(question) == {population.RENAL}, question
    assert _stages(kidney.asked("amoxicillin in kidney failure")) == {"G5"}
    # a test of function names no condition: "eGFR 25" is a value the question gives, not a stage it asks
    assert not kidney.names_condition("eGFR") and not kidney.names_condition("renal function")
