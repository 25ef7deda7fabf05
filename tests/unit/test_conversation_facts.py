"""Salient clinical facts by rule, from redacted turns (conversation/facts.py), and how they join a question
about the patient (conversation/budget.with_facts)."""

from __future__ import annotations

import pytest

from voiceassist.conversation import budget, context
from voiceassist.conversation.facts import NONE_KNOWN, OVER_89, Facts, extract, merge, render, search_terms

REDACTED_TURN = ("My patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>, is a 72-year-old woman with chronic kidney "
                 "disease stage 4, eGFR 25, on metformin 500 mg twice daily and lisinopril, allergic to penicillin.")


def test_a_redacted_turn_gives_age_sex_conditions_labs_medications_and_allergies() -> None:
    facts = extract(REDACTED_TURN)
    assert facts.to_dict() == {"age": "72", "sex": "female", "conditions": ["chronic kidney disease stage 4"],
                               "medications": ["metformin", "lisinopril"], "allergies": ["penicillin"],
                               "labs": {"eGFR": "25"}}
    assert render(facts) == ("72-year-old female; conditions: chronic kidney disease stage 4; eGFR 25; "
                             "medications: metformin, lisinopril; allergies: penicillin")


@pytest.mark.parametrize(("turn", "expected"), [
    ("45 yo male with type 2 diabetes and hypertension, eGFR of 40, taking atorvastatin. Allergies: sulfa drugs",
     {"age": "45", "sex": "male", "conditions": ["type 2 diabetes", "hypertension"], "medications": ["atorvastatin"],
      "allergies": ["sulfa"], "labs": {"eGFR": "40"}}),
    ("72F, penicillin allergy, pregnant 12 weeks", {"age": "72", "sex": "female", "conditions": ["pregnancy, 12 weeks"],
                                                    "medications": [], "allergies": ["penicillin"], "labs": {}}),
    ("My patient has heart failure, NKDA, HbA1c 8.1%, creatinine 180 umol/L",
     {"age": None, "sex": None, "conditions": ["heart failure"], "medications": [], "allergies": [NONE_KNOWN],
      "labs": {"HbA1c": "8.1 %", "creatinine": "180 umol/L"}}),
])
def test_facts_by_rule(turn: str, expected: dict[str, object]) -> None:
    assert extract(turn).to_dict() == expected


def test_an_age_over_89_is_aggregated_whether_the_detector_caught_it_or_not() -> None:
    assert extract("Mrs <PERSON> is <AGE_OVER_89> old and has atrial fibrillation").age == OVER_89
    assert extract("My patient is a 93-year-old man").age == OVER_89
    assert render(Facts(age=OVER_89, sex="male")) == "aged over 89 male"


@pytest.mark.parametrize("turn", [
    "What is the first-line treatment for hypertension?",  # a question about a topic, not about a patient
    "What is the dose of metformin in chronic kidney disease with an eGFR of 30?",
    "Is amoxicillin safe for patients on warfarin?",
    "<WITHHELD>",  # a turn the detector could not check is stored withheld: nothing to read
])
def test_a_question_that_speaks_of_no_patient_gives_no_facts(turn: str) -> None:
    assert not extract(turn)


def test_a_negated_condition_is_no_fact() -> None:
    facts = extract("My patient has no history of diabetes but has hypertension")
    assert facts.conditions == ["hypertension"]


@pytest.mark.parametrize("turn", [
    "My patient <PERSON> (MRN <MEDICAL_RECORD_NUMBER>, DOB <DATE_TIME>) is on metformin.",
    # What the detector might miss still cannot become a fact: no rule takes a free word or a bare number.
    "My patient Allegra Kendrick, MRN 4417823, phone 555-0134, is taking Allegra and Camila daily.",
    "She is on Smith 4417823 and allergic to Jones.",
])
def test_a_name_or_a_record_number_never_becomes_a_fact(turn: str) -> None:
    facts = extract(turn)
    text = str(facts.to_dict()).lower()
    for value in ("allegra", "kendrick", "camila", "smith", "jones", "4417823", "555", "person", "medical_record"):
        assert value not in text


def test_merging_keeps_the_latest_values_and_gathers_the_lists() -> None:
    first = extract("My patient, 70 yo man, has diabetes and an eGFR of 45; on metformin")
    later = extract("His eGFR is now 28 and he has type 2 diabetes; he takes empagliflozin. NKDA")
    merged = merge(first, later)
    assert merged.labs == {"eGFR": "28"} and merged.conditions == ["type 2 diabetes"]
    assert merged.medications == ["metformin", "empagliflozin"] and merged.allergies == [NONE_KNOWN]
    assert merge(merged, extract("He is allergic to penicillin")).allergies == ["penicillin"]
    assert Facts.from_dict(merged.to_dict()) == merged


def test_a_question_about_the_patient_gets_the_facts_the_window_no_longer_holds() -> None:
    known = extract(REDACTED_TURN)
    alone = context.resolve("Can she keep taking it?", [])
    resolution, used = budget.with_facts(alone, known)
    assert resolution.query == ("Can she keep taking lisinopril? (chronic kidney disease stage 4, eGFR 25, "
                                "penicillin allergy)")
    assert resolution.rewritten and used[0] == "lisinopril"
    assert search_terms(known) == ["chronic kidney disease stage 4", "eGFR 25", "penicillin allergy"]


def test_facts_join_the_inherited_topic_and_are_not_repeated() -> None:
    history = [context.Turn("user", "My patient has chronic kidney disease with an eGFR of 25."),
               context.Turn("assistant", "Metformin should be stopped below an eGFR of 30 [1].")]
    resolved = context.resolve("Can he keep taking metformin?", history)
    known = extract("My patient has chronic kidney disease with an eGFR of 25 and is allergic to penicillin")
    resolution, used = budget.with_facts(resolved, known)
    assert resolution.query == "Can he keep taking metformin? (chronic kidney disease, eGFR 25, penicillin allergy)"
    assert used == ["penicillin allergy"]


def test_a_question_not_about_the_patient_is_left_alone() -> None:
    known = extract(REDACTED_TURN)
    resolution = context.resolve("What is the dose of amoxicillin?", [])
    assert budget.with_facts(resolution, known) == (resolution, [])
    assert budget.with_facts(context.resolve("Can she take it?", []), Facts()) == (
        context.resolve("Can she take it?", []), [])


def test_the_facts_joined_stay_within_their_budget() -> None:
    many = Facts(conditions=[f"condition number {n} with a long descriptive name" for n in range(30)])
    resolution, used = budget.with_facts(context.resolve("Is it safe for my patient?", []), many)
    from voiceassist.query.generation import count_tokens

    assert used and count_tokens(", ".join(used)) <= budget.FACTS_TOKENS


def test_a_clinical_context_is_about_the_patient_without_saying_so() -> None:
    stated = "CKD stage 4, eGFR 25, on metformin; NKDA"
    assert not extract(stated)
    assert extract(stated, about_patient=True).to_dict() == {
        "age": None, "sex": None, "conditions": ["chronic kidney disease stage 4"], "medications": ["metformin"],
        "allergies": [NONE_KNOWN], "labs": {"eGFR": "25"}}


def test_a_chats_user_turns_give_their_facts_in_order() -> None:
    from voiceassist.conversation.facts import of_turns

    turns = [context.Turn("user", "My patient John Smith has an eGFR of 40 and takes metformin."),
             context.Turn("assistant", "Metformin is taken with meals; eGFR 10 is a limit [1]."),
             context.Turn("user", "Her eGFR is now 28.")]
    known = of_turns(turns)
    assert known.labs == {"eGFR": "28"} and known.medications == ["metformin"]  # the assistant's words are no fact
    assert "smith" not in str(known.to_dict()).lower()
