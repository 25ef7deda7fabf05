"""The extractive composer on clinical excerpts: whole sentences, cited, relevant, without repeats."""

from __future__ import annotations

import re

import pytest

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query.citations import parse_citations
from voiceassist.query.extractive import (
    EXTRACTIVE_LABEL,
    NO_ANSWER,
    applies_to,
    compose_extractive,
    question_values,
    split_sentences,
)
from voiceassist.query.generation import Excerpt, number_excerpts

ANAPHYLAXIS_EPINEPHRINE = (
    "Epinephrine\n"
    "Intramuscular epinephrine is the first-line treatment and must not be delayed. Give epinephrine\n"
    "1 mg/mL (1:1000) at 0.01 mg/kg intramuscularly into the anterolateral thigh, to a maximum single\n"
    "dose of 0.5 mg in adults and 0.3 mg in children. Repeat every 5 to 15 minutes if symptoms persist."
)
ANAPHYLAXIS_SUPPORTIVE = (
    "## Supportive care\n\n"
    "Lay the patient flat with the legs raised (or sitting up if breathing is difficult), give high-flow\n"
    "oxygen, and give intravenous crystalloid 20 mL/kg for hypotension. Antihistamines and\n"
    "corticosteroids are second-line and do not replace epinephrine [12]. Observe for at least 6 hours\n"
    "because of the risk of a biphasic reaction."
)
METFORMIN_DOSING = (
    "## Dosing\n\n"
    "Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two weeks as\n"
    "tolerated. The usual maximum dose is 2,000 mg per day in divided doses (extended-release: once daily\n"
    "with the evening meal). Metformin 500 mg p.o. b.i.d. is a common starting regimen, e.g. in primary care."
)
CAP_ANTIBIOTICS = (
    "For outpatients without comorbidities, amoxicillin 1 g three times daily is recommended. Alternatives\n"
    "include doxycycline 100 mg twice daily. Treat for a minimum of 5 days [3, 4]."
)


def excerpts_of(*texts: str) -> list[Excerpt]:
    meta = DocumentMetadata(doc_key="sample", title="Sample reference", source_type=SourceType.GUIDELINE)
    hits = [
        SearchHit(chunk=Chunk(chunk_id=f"c{i}", doc_id="d", doc_key="sample", version=1, ordinal=i, text=text,
                              token_count=len(text.split()), metadata=meta), score=1.0 - i / 10)
        for i, text in enumerate(texts)
    ]
    return number_excerpts(hits)


def sentences_of(answer: str) -> list[str]:
    assert answer.startswith(EXTRACTIVE_LABEL)
    return re.split(r"(?<=\]\.) ", answer[len(EXTRACTIVE_LABEL):])


def test_compose_extractive_labels_the_answer_and_cites_every_sentence() -> None:
    excerpts = excerpts_of(ANAPHYLAXIS_EPINEPHRINE, ANAPHYLAXIS_SUPPORTIVE)

    answer = compose_extractive("What is the epinephrine dose for anaphylaxis in children?", excerpts)

    assert answer.startswith("Extractive answer (no language model was used): ")
    assert all(re.search(r" \[\d\]\.$", s) for s in sentences_of(answer))
    assert parse_citations(answer, excerpt_count=2).invalid == []


def test_compose_extractive_quotes_dosing_sentences_whole() -> None:
    excerpts = excerpts_of(ANAPHYLAXIS_EPINEPHRINE, METFORMIN_DOSING)

    answer = compose_extractive("What dose of epinephrine is given intramuscularly?", excerpts)

    assert ("Give epinephrine 1 mg/mL (1:1000) at 0.01 mg/kg intramuscularly into the anterolateral thigh, "
            "to a maximum single dose of 0.5 mg in adults and 0.3 mg in children [1].") in answer


def test_compose_extractive_answers_from_the_relevant_sentence_not_the_top_excerpt() -> None:
    excerpts = excerpts_of(ANAPHYLAXIS_EPINEPHRINE, ANAPHYLAXIS_SUPPORTIVE)

    answer = compose_extractive("How long should patients be observed after anaphylaxis?", excerpts)

    assert "Observe for at least 6 hours because of the risk of a biphasic reaction [2]." in answer
    assert "Lay the patient flat" not in answer


def test_compose_extractive_keeps_abbreviated_regimens_in_one_sentence() -> None:
    answer = compose_extractive("What is a common metformin starting regimen?", excerpts_of(METFORMIN_DOSING))

    assert "Metformin 500 mg p.o. b.i.d. is a common starting regimen, e.g. in primary care [1]." in answer


def test_compose_extractive_does_not_repeat_a_sentence_two_excerpts_share() -> None:
    excerpts = excerpts_of(METFORMIN_DOSING, METFORMIN_DOSING.replace("## Dosing", "## Metformin dosing"))

    answer = compose_extractive("What is the maximum dose of metformin?", excerpts)

    assert answer.count("The usual maximum dose is 2,000 mg per day") == 1


def test_compose_extractive_never_passes_source_reference_markers_as_citations() -> None:
    excerpts = excerpts_of(CAP_ANTIBIOTICS, ANAPHYLAXIS_SUPPORTIVE)

    question = "How many days should antibiotics treat pneumonia for, and are antihistamines second-line?"

    answer = compose_extractive(question, excerpts)

    assert "Treat for a minimum of 5 days [1]." in answer
    assert "do not replace epinephrine [2]." in answer
    assert parse_citations(answer, excerpt_count=2).invalid == []


def test_compose_extractive_returns_at_most_max_sentences_best_first() -> None:
    excerpts = excerpts_of(METFORMIN_DOSING, ANAPHYLAXIS_EPINEPHRINE, CAP_ANTIBIOTICS)

    answer = compose_extractive("What dose of epinephrine in mg for anaphylaxis?", excerpts, max_sentences=2)

    sentences = sentences_of(answer)
    assert len(sentences) == 2
    assert sentences[0].startswith("Give epinephrine 1 mg/mL")  # the answering sentence, though excerpt [2]


METFORMIN_RENAL = (
    "## Renal function\n\n"
    "Check the estimated glomerular filtration rate (eGFR) before starting and at least yearly. Metformin is\n"
    "contraindicated when eGFR is below 30 mL/min/1.73 m2. Starting it is not recommended when eGFR is between 30\n"
    "and 45 mL/min/1.73 m2; if eGFR falls below 45 during treatment, reassess the benefit and consider a reduced\n"
    "dose. Withhold it before iodinated contrast in patients with an eGFR between 30 and 60."
)


def test_compose_extractive_puts_first_the_rule_whose_range_holds_the_patients_value() -> None:
    answer = compose_extractive("<PERSON> has an eGFR of 38: can he keep taking metformin?",
                                excerpts_of(METFORMIN_RENAL))

    first = sentences_of(answer)[0]
    assert first.startswith("Starting it is not recommended when eGFR is between 30 and 45")
    assert "reassess the benefit and consider a reduced dose" in first


CAP_SEVERITY = (
    "Assess severity with the CURB-65 score: confusion, urea above 7 mmol/L, respiratory rate of 30 per minute or\n"
    "more, systolic blood pressure below 90 mmHg or diastolic 60 mmHg or less, and age 65 years or older.\n"
    "A CURB-65 score of 0 or 1 suggests treatment at home is usually possible; a score of 2 suggests a short\n"
    "hospital stay or closely supervised outpatient care; a score of 3 or more indicates severe pneumonia."
)


@pytest.mark.parametrize("question", ["curb 65 score 1 - send home?", "CURB-65 2 what do u do with them",
                                      "CURB 65 score 1 can they be managed at home"])
def test_compose_extractive_reads_a_score_as_the_gate_does_and_quotes_the_rule_for_its_point(question: str) -> None:
    """"curb 65" is the score CURB-65 (not the value 65, held by "age 65 or older"), and the case's point is
    the one a sentence states ("a score of 0 or 1"), not one a bound on blood pressure meets ("60 or less")."""
    first = sentences_of(compose_extractive(question, excerpts_of(CAP_SEVERITY)))[0]

    assert first.startswith("A CURB-65 score of 0 or 1 suggests")


def test_compose_extractive_prefers_a_duration_for_how_long_and_a_frequency_for_how_often() -> None:
    excerpts = excerpts_of(ANAPHYLAXIS_EPINEPHRINE, ANAPHYLAXIS_SUPPORTIVE)

    how_often = compose_extractive("How often can intramuscular epinephrine be repeated?", excerpts)
    how_long = compose_extractive("How long should a patient be observed after anaphylaxis?", excerpts)

    # "Repeat ..." continues the sentence before it: it is quoted right after it, never alone (discourse.py)
    assert [s[:25] for s in sentences_of(how_often)[:2]] == ["Give epinephrine 1 mg/mL ", "Repeat every 5 to 15 minu"]
    assert sentences_of(how_long)[0].startswith("Observe for at least 6 hours")


def test_compose_extractive_never_quotes_a_disclaimer_and_keeps_a_repeat_with_its_drug() -> None:
    disclaimer = ("SAMPLE CONTENT written for the VoiceAssist project to demonstrate the software. It is a "
                  "simplified summary, not medical advice, and not for clinical use.")
    excerpts = excerpts_of(disclaimer + " " + ANAPHYLAXIS_EPINEPHRINE, ANAPHYLAXIS_SUPPORTIVE)

    answer = compose_extractive("How do I treat anaphylaxis in adults?", excerpts)

    assert "SAMPLE CONTENT" not in answer and "medical advice" not in answer
    assert [s[:16] for s in sentences_of(answer)[:2]] == ["Give epinephrine", "Repeat every 5 t"]


def test_applies_to_reads_ranges_and_bounds() -> None:
    assert applies_to("when eGFR is between 30 and 45", [38.0])
    assert not applies_to("when eGFR is between 30 and 45", [50.0])
    assert applies_to("a score of 3 or more indicates severe pneumonia", [4.0])
    assert not applies_to("contraindicated when eGFR is below 30", [38.0])
    assert question_values("CURB-65 score of 3, eGFR 38, 500 mg") == [3.0, 38.0]
    assert applies_to("a CURB-65 score of 0 or 1 suggests treatment at home", [1.0])
    assert applies_to("a score of 2 suggests a short hospital stay", [2.0])
    assert not applies_to("a score of 2 suggests a short hospital stay", [3.0])


@pytest.mark.parametrize("question", ["How is warfarin reversed before surgery?", "?", "what is it"])
def test_compose_extractive_says_when_no_passage_answers(question: str) -> None:
    answer = compose_extractive(question, excerpts_of(METFORMIN_DOSING, ANAPHYLAXIS_EPINEPHRINE))

    assert answer == EXTRACTIVE_LABEL + NO_ANSWER


def test_compose_extractive_without_excerpts_says_no_passage_answers() -> None:
    assert compose_extractive("Maximum dose of metformin?", []) == EXTRACTIVE_LABEL + NO_ANSWER


def test_split_sentences_ends_sentences_only_where_clinical_text_does() -> None:
    text = ("Give 500 mg b.i.d. Monitor renal function, e.g. Creatinine yearly. Use 0.5 mg/kg i.v. over\n"
            "10 min. See Dr. Smith's protocol. Stop at 2,000 mg.\n\n- Bullet one is here\n- Bullet two")

    assert split_sentences(text) == [
        "Give 500 mg b.i.d.", "Monitor renal function, e.g. Creatinine yearly.",
        "Use 0.5 mg/kg i.v. over 10 min.", "See Dr. Smith's protocol.", "Stop at 2,000 mg.",
        "Bullet one is here", "Bullet two",
    ]


def test_split_sentences_leaves_out_heading_lines() -> None:
    assert split_sentences("Duration and follow-up\nTreat for a minimum of 5 days.") == [
        "Treat for a minimum of 5 days."
    ]
