"""evaluate_calculator_cases on the benchmark's one-shot CSV (when ../shared/eval is there) and on JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from voiceassist_local.evaluation.calculators import evaluate_calculator_cases

from tests.conftest import SHARED_EVAL
from voiceassist.tools.calculators.medcalc import answer_medcalc, answer_within_limits

MEDCALC: Path | None = SHARED_EVAL / "medcalc" if (SHARED_EVAL / "medcalc" / "one_shot_data.csv").exists() else None


@pytest.mark.skipif(MEDCALC is None, reason="../shared/eval/medcalc is not beside the checkout")
def test_evaluate_calculator_cases_one_shot_csv_is_all_within_limits() -> None:
    # No one-shot row hits a known defect of the benchmark's reference code, so no exception is documented here.
    assert MEDCALC is not None
    report = evaluate_calculator_cases(MEDCALC / "one_shot_data.csv")
    assert report["failures"] == []
    assert report["cases"] == 55
    assert report["calculators_covered"] == 55
    assert report["accuracy"] == 1.0


def test_evaluate_calculator_cases_reads_jsonl_and_reports_failures(tmp_path: Path) -> None:
    cases = [
        {"calculator_id": 5, "relevant_entities": {"Systolic Blood Pressure": [120, "mm hg"],
                                                   "Diastolic Blood Pressure": [80, "mm hg"]},
         "ground_truth": 93.33333, "lower_limit": 88.66666, "upper_limit": 98.0},
        {"calculator_name": "CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk",
         "relevant_entities": "{'sex': 'Female', 'age': [75, 'years'], 'Hypertension history': True}",
         "ground_truth": 4, "lower_limit": 4, "upper_limit": 4},
        {"calculator_name": "chadsvasc", "relevant_entities": {"sex": "Male", "age": [50, "years"]},
         "ground_truth": 1, "lower_limit": 1, "upper_limit": 1},
        {"calculator_id": 3, "relevant_entities": {"sex": "Male", "age": [300, "years"],
                                                   "creatinine": [1.0, "mg/dL"]},
         "ground_truth": 50, "lower_limit": 47.5, "upper_limit": 52.5},
        {"calculator_id": 69, "relevant_entities": {"Current Date": "09/01/2022", "Last menstrual date": "01/10/2022"},
         "ground_truth": "('33 weeks', '3 days')", "lower_limit": "('33 weeks', '3 days')",
         "upper_limit": "('33 weeks', '3 days')"},
        {"calculator_id": 13, "relevant_entities": {"cycle length": 28, "Last menstrual date": "01/01/2023"},
         "ground_truth": "10/08/2023", "lower_limit": "10/08/2023", "upper_limit": "10/08/2023"},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(case) for case in cases) + "\n", encoding="utf-8")

    report = evaluate_calculator_cases(path)

    assert report["cases"] == 6
    assert report["accuracy"] == pytest.approx(4 / 6)
    assert report["calculators_covered"] == 5
    assert report["per_calculator"]["chadsvasc"] == {"accuracy": 0.5, "cases": 2}
    wrong, raised = report["failures"]
    assert wrong["calculator"] == "chadsvasc" and wrong["got"] == 0 and wrong["error"] is None
    assert raised["calculator"] == "ckd_epi" and "age" in raised["error"] and raised["got"] is None


@pytest.mark.parametrize(
    ("answer", "lower", "upper", "inside"),
    [(1.5, "1.5", "1.5", True), (1.0, "1.5", "1.5", False), (9.999999999, 10, 12, True), ("07/19/2031",
     "07/19/2031", "07/19/2031", True), ("07/20/2031", "07/19/2031", "07/19/2031", False),
     (("21 weeks", "6 days"), "('21 weeks', '6 days')", "('21 weeks', '6 days')", True)],
)
def test_answer_within_limits_numbers_dates_and_gestational_age(answer: object, lower: object, upper: object,
                                                                inside: bool) -> None:
    assert answer_within_limits(answer, lower, upper) is inside  # type: ignore[arg-type]


def test_answer_medcalc_missing_boolean_counts_as_absent() -> None:
    assert answer_medcalc(4, {"sex": "Male", "age": [62, "years"]}) == 0
    assert answer_medcalc("HAS-BLED Score for Major Bleeding Risk", {"age": [70, "years"]}) == 1


def test_eval_calculators_cli_prints_the_report_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from voiceassist_local.cli import main

    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"calculator_name": "bmi", "relevant_entities": {
        "weight": [70, "kg"], "height": [175, "cm"]}, "ground_truth": 22.857, "lower_limit": 21.714,
        "upper_limit": 24.0}) + "\n")

    assert main(["eval", "calculators", "--cases", str(cases), "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert (report["accuracy"], report["calculators_covered"]) == (1.0, 1)
