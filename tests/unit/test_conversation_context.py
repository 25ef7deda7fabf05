"""The context pipeline's rules: which questions are follow-ups, and what each becomes standalone."""

from __future__ import annotations

import pytest

from voiceassist.conversation.context import Turn, drugs, pending_question, resolve, resolve_conversation

LYME = [Turn("user", "What is the first-line treatment for early Lyme disease?"),
        Turn("assistant", "Doxycycline 100 mg twice daily for 10 days is first-line [1]. Amoxicillin is the "
                          "alternative in pregnancy [2].")]
PREGNANCY = [Turn("user", "Is doxycycline safe in pregnancy?"),
             Turn("assistant", "Avoid doxycycline in pregnancy after the first trimester [1].")]
DIABETES = [Turn("user", "What is the first-line treatment for diabetes?"),
            Turn("assistant", "Which diabetes do you mean: type 1, type 2, gestational diabetes, or diabetes "
                              "insipidus?")]


@pytest.mark.parametrize(("history", "question", "standalone"), [
    (LYME, "What is the dose of the alternative?", "What is the dose of amoxicillin? (early Lyme disease)"),
    (LYME, "What is its dose?", "What is doxycycline dose? (early Lyme disease)"),
    (LYME, "how long?", "how long? (doxycycline, early Lyme disease)"),
    (LYME, "And in penicillin allergy?", "And in penicillin allergy? (early Lyme disease)"),
    (PREGNANCY, "What about amoxicillin?", "What about amoxicillin? (pregnancy)"),
    (PREGNANCY, "Is it safe in children?", "Is doxycycline safe in children?"),
    (PREGNANCY, "What are the contraindications?", "What are the contraindications? (doxycycline)"),
    (DIABETES, "type 2", "What is the first-line treatment for diabetes? type 2"),
    ([Turn("user", "My patient has chronic kidney disease stage 4 with eGFR 25."), Turn("assistant", "See [1].")],
     "Can he keep taking metformin?", "Can he keep taking metformin? (chronic kidney disease stage 4, eGFR 25)"),
])
def test_a_follow_up_becomes_a_standalone_question(history: list[Turn], question: str, standalone: str) -> None:
    assert resolve(question, history).query == standalone


@pytest.mark.parametrize("question", ["What is the treatment for gout?", "What is the dose of amlodipine in adults?",
                                      "Which antibiotic for outpatient community-acquired pneumonia?"])
def test_a_standalone_question_is_left_alone(question: str) -> None:
    resolution = resolve(question, LYME)
    assert resolution.query == question and not resolution.rewritten


def test_the_alternative_comes_from_the_cited_excerpts_when_the_answer_names_only_the_choice() -> None:
    history = [LYME[0], Turn("assistant", "Doxycycline is the first-line drug [1].",
                             evidence="Doxycycline is first-line. Amoxicillin is the alternative in pregnancy.")]
    assert resolve("And the alternative's dose?", history).query.startswith("And amoxicillin")
    assert "alternative" in resolve("And the alternative's dose?", [LYME[0], Turn("assistant", "See [1].")]).query


def test_a_long_new_question_after_a_clarifying_question_is_not_joined() -> None:
    question = "What is the maximum dose of metformin per day in adults?"
    assert resolve(question, DIABETES).query == question
    assert pending_question(DIABETES) == DIABETES[0].text and pending_question(LYME) is None


def test_a_chat_conversation_resolves_each_turn_in_order() -> None:
    resolution = resolve_conversation([*LYME, Turn("user", "What is the dose of the alternative?"),
                                       Turn("assistant", "500 mg three times daily [1]."),
                                       Turn("user", "And its cautions?")])
    assert resolution.query == "And amoxicillin cautions? (early Lyme disease)"


def test_redaction_placeholders_and_identifier_labels_never_join_the_question() -> None:
    history = [Turn("user", "My patient <PERSON>, MRN <MEDICAL_RECORD>, DOB <DATE_TIME>, has CKD stage 4."),
               Turn("assistant", "See [1].")]
    assert resolve("Can he keep taking metformin?", history).query == "Can he keep taking metformin? (CKD stage 4)"


def test_drug_names_are_recognised_by_name_and_by_stem() -> None:
    assert drugs("Creatinine, protein and the routine baseline; chlorthalidone, nifedipine, cefalexin, "
                 "bisoprolol, aspirin") == ["chlorthalidone", "nifedipine", "cefalexin", "bisoprolol", "aspirin"]


CAP = [Turn("user", "What is the first-line antibiotic for outpatient community-acquired pneumonia?"),
       Turn("assistant", "Amoxicillin 1 g three times daily [1]. Doxycycline is the alternative in penicillin "
                         "allergy [1].")]


@pytest.mark.parametrize(("question", "standalone"), [
    ("What about amoxicillin-clavulanate instead?",
     "What about amoxicillin-clavulanate instead? (antibiotic, outpatient community-acquired pneumonia)"),
    ("What dose for a 70 kg adult?",
     "What dose for a 70 kg adult? (amoxicillin, antibiotic, outpatient community-acquired pneumonia)"),
    ("How long should it be given?",
     "How long should amoxicillin be given? (antibiotic, outpatient community-acquired pneumonia)"),
    ("What is the dose of the alternative?",
     "What is the dose of doxycycline? (antibiotic, outpatient community-acquired pneumonia)"),
])
def test_more_follow_up_phrasings(question: str, standalone: str) -> None:
    assert resolve(question, CAP).query == standalone


def test_a_follow_up_of_only_aspects_reaches_back_to_the_last_topic_and_the_chosen_drug() -> None:
    hypertension = [Turn("user", "What is the first-line treatment for uncomplicated hypertension?"),
                    Turn("assistant", "Chlorthalidone or lisinopril [1]."),
                    Turn("user", "What target should we aim for?"), Turn("assistant", "Below 130/80 mmHg [1].")]
    assert resolve("And the ACE inhibitor dose?", hypertension).query == \
        "And the ACE inhibitor dose? (target, uncomplicated hypertension)"
    diabetes = [Turn("user", "What is the first-line treatment for diabetes? type 2"),
                Turn("assistant", "Metformin is the usual first-line oral agent [1].")]
    assert resolve("What is the maximum dose?", diabetes).query == \
        "What is the maximum dose? (metformin, diabetes type 2)"


def test_the_drugs_the_session_kept_stand_in_for_a_redacted_answer() -> None:
    """The stored answer is redacted, and the detector can take a drug at a sentence's start for a name."""
    history = [Turn("user", "What is the first-line treatment for diabetes? type 2"),
               Turn("assistant", "<PERSON> is the usual first-line oral agent [1].", named=("metformin",))]
    assert resolve("What is the maximum dose?", history).query == \
        "What is the maximum dose? (metformin, diabetes type 2)"
    assert resolve("How is it taken?", history).query == "How is metformin taken? (diabetes type 2)"


def test_topic_terms_are_joined_as_the_earlier_question_wrote_them() -> None:
    """"CURB-65" and "pneumonia" of "use CURB-65 in pneumonia" must not read as one condition, "CURB-65
    pneumonia", a sibling of community-acquired pneumonia (query/siblings.py)."""
    history = [Turn("user", "How do I use CURB-65 in pneumonia?"), Turn("assistant", "A score of 0 or 1 [1].")]
    assert resolve("And what if the score is 3?", history).query == "And what if the score is 3? (CURB-65, pneumonia)"


def test_the_history_window_keeps_the_latest_turns_that_fit_its_tokens() -> None:
    from voiceassist.conversation.orchestrator import window

    turns = [Turn("user", "old " * 3000), *LYME]
    assert window(turns) == LYME
    assert window(turns, max_tokens=5)[0].role == LYME[-1].role  # the last turn always, cut to the budget
    assert len(window(turns, max_tokens=5)) == 1 and len(window(turns, max_tokens=5)[0].text) < len(LYME[-1].text)
    assert window([Turn("user", "old " * 3000)], max_tokens=50)[0].text.endswith(" …")


def test_the_history_window_keeps_at_most_the_sessions_six_messages() -> None:
    """A chat of 24,000 one-word turns fit 2,000 tokens as 2,000 turns: the input screen and the PHI check read them
    all, and the run failed with a 502 after 16 s (found by a client probe). A chat's window is a session's: the
    last 6 messages within 2,000 tokens."""
    from voiceassist.conversation.orchestrator import HISTORY_MESSAGES, window

    turns = [Turn("user", "x"), Turn("assistant", "y")] * 12_000
    assert window(turns) == turns[-HISTORY_MESSAGES:] and HISTORY_MESSAGES == 6
