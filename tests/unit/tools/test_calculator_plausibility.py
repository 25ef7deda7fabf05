"""Every calculator refuses an impossible patient (400 naming the field, the value and the range), warns or
refuses outside its validated population, says what it assumed, and publishes its inputs in the tool schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.tools.executor_fixtures import build
from voiceassist.errors import InvalidInput
from voiceassist.models import ToolCall
from voiceassist.tools.calculators import CALCULATORS, CalculatorSpec, run_calculator
from voiceassist.tools.calculators.plausibility import ImplausibleInput, OutsideValidatedPopulation
from voiceassist.tools.calculators.plausible_ranges import PHYSIOLOGIC, SOURCES
from voiceassist.tools.executor import Caller
from voiceassist.tools.medical import CALCULATE_MEDICAL_SCORE, describe

# A typical adult, for the inputs a calculator requires (the test then breaks one input at a time).
TYPICAL: dict[str, Any] = {
    "age": 50, "sex": "male", "weight_kg": 70, "height_cm": 170, "creatinine_mg_dl": 1.0, "sodium": 140,
    "chloride": 100, "bicarbonate": 18, "albumin_g_dl": 4.0, "glucose_mg_dl": 100, "bun_mg_dl": 14,
    "calcium_mg_dl": 9.5, "total_cholesterol_mg_dl": 200, "hdl_mg_dl": 50, "triglycerides_mg_dl": 150,
    "insulin_uiu_ml": 10, "heart_rate": 80, "systolic_bp": 120, "diastolic_bp": 80, "qt_msec": 400,
    "target_bmi": 22, "urine_sodium": 40, "urine_creatinine_mg_dl": 100, "bilirubin_mg_dl": 1.0, "inr": 1.1,
    "ast": 30, "alt": 30, "platelets_10_9_l": 250, "hemoglobin_g_dl": 14, "dose_mg": 10,
    "from_steroid": "prednisone", "to_steroid": "dexamethasone",
    "opioids": [{"opioid": "morphine", "dose": 10, "doses_per_day": 4}],
    "temperature_c": 37, "pao2": 90, "fio2_percent": 21, "respiratory_rate": 16, "mean_arterial_pressure": 90,
    "arterial_ph": 7.4, "potassium": 4.2, "hematocrit": 42, "wbc_10_3_ul": 7, "wbc_per_ul": 7000, "paco2": 40,
    "platelets_10_3_ul": 250, "oxygen_saturation": 98, "bmi": 24, "urine_output_ml_day": 1500, "gcs": 15,
    "last_menstrual_period": "2024-01-01", "current_date": "2024-03-01", "eye": 4, "verbal": 5, "motor": 6,
}


def typical_arguments(spec: CalculatorSpec) -> dict[str, Any]:
    return {name: TYPICAL[name] for name, info in spec.params.model_fields.items() if info.is_required()}


PLAUSIBILITY_CASES = [(name, field) for name, spec in sorted(CALCULATORS.items())
                      for field in spec.params.model_fields if field in PHYSIOLOGIC]


def test_every_calculator_computes_a_typical_patient() -> None:
    for name, spec in CALCULATORS.items():
        assert run_calculator(name, typical_arguments(spec)).calculator


@pytest.mark.parametrize(("name", "field"), PLAUSIBILITY_CASES)
def test_calculator_refuses_an_implausible_input_naming_field_value_and_range(name: str, field: str) -> None:
    spec = CALCULATORS[name]
    plausible = PHYSIOLOGIC[field]
    for impossible in (plausible.high * 10 + 1, plausible.low - 1):
        if impossible < 0 and plausible.low == 0:
            continue
        with pytest.raises(InvalidInput) as refused:
            run_calculator(name, typical_arguments(spec) | {field: impossible})
        message = str(refused.value)
        assert refused.value.status_code == 400 and field in message and f"{impossible:g}" in message
        if isinstance(refused.value, ImplausibleInput):
            assert plausible.describe() in message


def test_every_physiologic_range_cites_a_source() -> None:
    assert all(plausible.source in SOURCES and plausible.low < plausible.high for plausible in PHYSIOLOGIC.values())


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_calculator_declares_its_validated_population_on_fields_it_has(name: str) -> None:
    spec = CALCULATORS[name]
    assert spec.validity is not None
    assert all(rule.field in spec.params.model_fields and rule.reason for rule in spec.validity)


def test_the_issue_examples_are_refused_with_the_field_and_range() -> None:
    with pytest.raises(ImplausibleInput, match=r"age: 130 years is outside the plausible range 0-120 years"):
        run_calculator("creatinine_clearance", {"sex": "male", "age": 130, "weight_kg": 70,
                                                "creatinine_mg_dl": 1.0})
    with pytest.raises(ImplausibleInput, match=r"weight_kg: 700 kg is outside the plausible range 0.3-650 kg"):
        run_calculator("creatinine_clearance", {"sex": "male", "age": "60", "weight_kg": "700",
                                                "creatinine_mg_dl": 1.0})
    with pytest.raises(ImplausibleInput, match=r"creatinine_mg_dl: 1e-07 mg/dL .* 0.1-40 mg/dL"):
        run_calculator("creatinine_clearance", {"sex": "male", "age": 60, "weight_kg": 70,
                                                "creatinine_mg_dl": 0.0000001})


def test_an_adult_score_for_a_child_carries_a_warning() -> None:
    computed = run_calculator("curb65", {"age": 12, "confusion": False, "bun_mg_dl": 14, "respiratory_rate": 20,
                                         "systolic_bp": 110, "diastolic_bp": 70})

    assert computed.warnings and "validated in adults only" in computed.warnings[0]
    assert describe(computed, "CURB-65").count("Warning: curb65: age 12 is outside the validated population") == 1


@pytest.mark.parametrize(("name", "arguments"), [
    ("ckd_epi", {"sex": "female", "age": 4, "creatinine_mg_dl": 0.4}),
    ("creatinine_clearance", {"sex": "male", "age": 10, "weight_kg": 30, "creatinine_mg_dl": 0.5}),
    ("perc_rule", {"age": 30, "heart_rate": 80, "pregnant": True}),
    ("ldl_calculated", {"total_cholesterol_mg_dl": 300, "hdl_mg_dl": 40, "triglycerides_mg_dl": 900}),
])
def test_calculator_refuses_where_its_source_says_it_must_not_be_used(name: str, arguments: dict[str, Any]) -> None:
    with pytest.raises(OutsideValidatedPopulation, match="outside the validated population"):
        run_calculator(name, arguments)


def test_wells_pe_in_pregnancy_warns_and_still_computes() -> None:
    computed = run_calculator("wells_pe", {"pregnant": True, "heart_rate": 110})

    assert computed.score == 1.5 and "not validated in pregnancy" in computed.warnings[0]


def test_a_result_resting_on_assumed_inputs_says_so_in_its_text() -> None:
    computed = run_calculator("curb65", {"age": 70})
    text = describe(computed, "CURB-65")

    assert "Not given, so assumed: confusion absent, bun mg dl 10 mg/dL, respiratory rate 16" in text
    assert "systolic bp 120 mm Hg" in text and computed.assumed[0] == "confusion absent"


def test_a_result_on_given_inputs_assumes_nothing() -> None:
    computed = run_calculator("bmi", {"weight_kg": 70, "height_cm": 175})

    assert computed.assumed == [] and "assumed" not in describe(computed, "BMI")


def test_a_missing_input_is_a_clarification_naming_every_missing_field() -> None:
    with pytest.raises(InvalidInput, match="missing inputs: sex, age, creatinine_mg_dl"):
        run_calculator("ckd_epi", {})


def published(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = CALCULATE_MEDICAL_SCORE.definition.parameters["$defs"][name]
    return schema


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_tool_schema_publishes_each_calculators_fields_with_units_and_ranges(name: str) -> None:
    schema = published(name)
    spec = CALCULATORS[name]
    tool_schema = CALCULATE_MEDICAL_SCORE.definition.parameters

    assert set(schema["properties"]) == set(spec.params.model_fields)
    assert {"$ref": f"#/$defs/{name}"} in tool_schema["properties"]["parameters"]["anyOf"]
    for field, prop in schema["properties"].items():
        number = next((branch for branch in prop.get("anyOf", [prop]) if branch.get("type") == "number"), None)
        if number is not None and field in PHYSIOLOGIC:  # within the physiologic range (a score may narrow it)
            assert PHYSIOLOGIC[field].low <= number["minimum"] < number["maximum"] <= PHYSIOLOGIC[field].high


def test_tool_schema_names_the_real_field_names_and_their_alternative_units() -> None:
    curb65 = published("curb65")["properties"]
    units = CALCULATE_MEDICAL_SCORE.definition.parameters["$defs"]["bun_with_unit"]

    assert "bun_mg_dl" in curb65 and "bun" not in curb65
    assert {"$ref": "#/$defs/bun_with_unit"} in curb65["bun_mg_dl"]["anyOf"] and "mmol/l" in units["description"]


def test_an_unknown_calculator_is_refused_naming_the_calculator_field(tmp_path: Path) -> None:
    result = build(tmp_path).executor.execute(
        ToolCall(name="calculate_medical_score", arguments={"calculator": "curb66", "parameters": {}}),
        Caller(user_id="u1"))

    assert result.status == 400 and result.content.startswith("invalid tool arguments: calculator: ")
    assert "no calculator named 'curb66'; the 'calculator' enum" in result.content


def test_a_value_sent_in_another_unit_is_checked_after_conversion_and_quoted_as_sent() -> None:
    with pytest.raises(ImplausibleInput, match=r"creatinine_mg_dl: 113.12 mg/dL \(sent as 10000 umol/L\)"):
        CALCULATE_MEDICAL_SCORE.params.model_validate({"calculator": "ckd_epi", "parameters": {
            "sex": "male", "age": 60, "creatinine_mg_dl": [10000, "umol/L"]}})


def test_tool_call_with_an_implausible_input_is_a_400_for_every_caller(tmp_path: Path) -> None:
    tool_executor = build(tmp_path).executor
    for channel in ("model", "api", "mcp"):
        result = tool_executor.execute(ToolCall(name="calculate_medical_score", arguments={
            "calculator": "ckd_epi", "parameters": {"sex": "male", "age": 0, "creatinine_mg_dl": 1e-300}}),
            Caller(user_id="u1", channel=channel))
        assert (result.ok, result.status, result.error) == (False, 400, "implausible_input")
        assert "creatinine_mg_dl: 1e-300 mg/dL is outside the plausible range 0.1-40 mg/dL" in result.content


def test_a_urea_marked_as_such_is_converted_to_its_nitrogen_for_every_caller(tmp_path: Path) -> None:
    """A BUN field takes a urea with its unit marked "(urea)": 40 mg/dL of urea is 18.7 mg/dL of nitrogen (units.py),
    below CURB-65's urea point; the same 40 sent as mg/dL is a BUN and scores it. The schema lists the units."""
    tool_executor = build(tmp_path).executor
    for channel in ("model", "api", "mcp"):
        scores = {}
        for unit in ("mg/dL (urea)", "mg/dL"):
            result = tool_executor.execute(ToolCall(name="calculate_medical_score", arguments={
                "calculator": "curb65", "parameters": {"age": 50, "bun_mg_dl": [40, unit]}}),
                Caller(user_id="u1", channel=channel))
            assert result.ok, result.content
            scores[unit] = result.data["score"]
        assert scores == {"mg/dL (urea)": 0, "mg/dL": 1}, channel
    units = CALCULATE_MEDICAL_SCORE.definition.parameters["$defs"]["bun_with_unit"]["description"]
    assert "mg/dl(urea)" in units and "mmol/l(urea)" in units


def test_the_model_is_offered_a_short_listing_of_every_calculators_fields_units_and_ranges() -> None:
    from voiceassist.tools.registry import ToolRegistry

    offered = ToolRegistry([CALCULATE_MEDICAL_SCORE]).definitions(for_model=True)[0].parameters
    listing = offered["properties"]["parameters"]["description"]

    assert all(f"\n{name}: " in listing for name in CALCULATORS if name != min(CALCULATORS))
    assert "curb65: *age (years 0-120), confusion (bool), bun_mg_dl (mg/dL 1-300)" in listing
    assert "$defs" not in offered and len(str(offered)) < len(str(CALCULATE_MEDICAL_SCORE.definition.parameters)) / 3


@pytest.mark.parametrize("name", ["bmi", "anion_gap", "ckd_epi", "qtc_bazett", "curb65"])
def test_a_boolean_for_a_number_is_refused_not_read_as_one(name: str) -> None:
    """weight_kg: true scored a BMI of 0.3 (true read as 1 kg), below every plausibility check."""
    spec = CALCULATORS[name]
    numeric = next(field for field, value in typical_arguments(spec).items()
                   if isinstance(value, int | float) and not isinstance(value, bool))

    with pytest.raises(InvalidInput, match=f"{numeric}: a number, not true or false"):
        run_calculator(name, {**typical_arguments(spec), numeric: True})


def test_a_boolean_input_still_takes_true_and_false() -> None:
    assert run_calculator("curb65", {**typical_arguments(CALCULATORS["curb65"]), "confusion": True}).score == 1


@pytest.mark.parametrize("huge", [10**400, -(10**400)], ids=["large", "large-negative"])
def test_a_number_too_large_for_a_float_is_implausible_not_a_tool_failure(tmp_path: Path, huge: int) -> None:
    """float(10**400) raised OverflowError: 'the tool failed; do not retry it', logged as an error."""
    result = build(tmp_path).executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": "bmi", "parameters": {"weight_kg": huge, "height_cm": 170}}), Caller(user_id="u1"))

    assert result.status == 400 and "weight_kg: " in result.content and "plausible range" in result.content


def test_the_source_named_for_a_range_is_whole() -> None:
    """The first source was cut at a ';' inside its parentheses: a height out of range cited 'Guinness World
    Records (heaviest recorded human 635 kg' and stopped."""
    with pytest.raises(ImplausibleInput) as refused:
        run_calculator("bmi", {"weight_kg": 70, "height_cm": 0})
    cited = str(refused.value).split("(source: ", 1)[1]
    assert cited.startswith("Guinness World Records (heaviest recorded human 635 kg; tallest 272 cm; shortest adult")
    assert cited.count("(") + 1 == cited.count(")")  # the source's own parentheses closed, then the message's


def test_an_unknown_calculator_that_is_free_text_is_not_quoted(tmp_path: Path) -> None:
    result = build(tmp_path).executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": "Zebulon Quartermaine 1961-04-17", "parameters": {}}), Caller(user_id="u1"))

    assert result.status == 400 and "no calculator of that name" in result.content
    assert "Quartermaine" not in result.content and "1961" not in result.content


@pytest.mark.parametrize("name", ["due_date", "conception_date"])
def test_a_date_whose_result_is_past_the_calendar_is_refused_not_a_tool_failure(tmp_path: Path, name: str) -> None:
    """An LMP of 9999-12-31 raised OverflowError adding 280 days: 'the tool failed; do not retry it' (MCP probe)."""
    result = build(tmp_path).executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": name, "parameters": {"last_menstrual_period": "9999-12-31"}}), Caller(user_id="u1"))

    assert result.status == 400 and "last_menstrual_period" in result.content, result.content


@pytest.mark.parametrize(("unit", "shown"), [("Zebulon Quartermaine 1961-04-17", "unit of that name"),
                                              ("parsecs", "unit 'parsecs'")])  # a unit's shape is still quoted
def test_a_unit_that_is_free_text_is_not_quoted(tmp_path: Path, unit: str, shown: str) -> None:
    result = build(tmp_path).executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": "bmi", "parameters": {"weight_kg": [154, unit], "height_cm": 170}}), Caller(user_id="u1"))

    assert result.status == 400 and f"weight_kg: {shown} is not accepted; use one of" in result.content
    assert "Quartermaine" not in result.content and "1961" not in result.content


@pytest.mark.parametrize("opioids", [
    [{"opioid": "oxycodone", "dose": 10, "doses_per_day": 2}],
    [{"opioid": "oxycodone", "dose": 10, "doses_per_day": 2}, {"opioid": "morphine", "dose": 10, "doses_per_day": 3}],
], ids=["one", "two"])
def test_the_opioid_list_is_no_value_and_unit_and_the_tool_computes_mme(tmp_path: Path, opioids: list) -> None:
    """Found by an MCP client probe: any list argument was read as [value, unit], so the one calculator taking a list
    (morphine_milligram_equivalents) could not be called: 'opioids: expected a number or [value, unit]' for one
    opioid, 'opioids: takes a number in the unit its name gives' for two."""
    result = build(tmp_path).executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": "morphine_milligram_equivalents", "parameters": {"opioids": opioids}}), Caller(user_id="u1"))
    expected = sum(o["dose"] * o["doses_per_day"] * f for o, f in zip(opioids, (1.5, 1), strict=False))
    assert result.status == 200, result.content
    assert f"Total {expected:g} morphine milligram equivalents per day" in result.content


def test_an_empty_or_malformed_opioid_list_is_refused_naming_the_field(tmp_path: Path) -> None:
    executor = build(tmp_path).executor
    for opioids in ([], [{"opioid": "unicorn", "dose": 10}], [12, "mg"]):
        result = executor.execute(ToolCall(name="calculate_medical_score", arguments={
            "calculator": "morphine_milligram_equivalents", "parameters": {"opioids": opioids}}), Caller(user_id="u1"))
        assert result.status == 400 and "opioids" in result.content, (opioids, result.content)
        assert "[value, unit]" not in result.content, (opioids, result.content)
