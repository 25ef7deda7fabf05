"""What a question asks about (query/asked_thing.py) must be in the passage that answers it: the noun phrase of a
"what/which" question or the object of a yes/no question's verb, a drug class it names, an abbreviation spelt out
letter by letter, and the owner of the attribute asked in the clause a question mark closes."""

from __future__ import annotations

import pytest

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import evidence
from voiceassist.query.asked_thing import asked_phrase, asked_things
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.wording import joined_scores, questioned_clauses

THRESHOLD = 0.55
BRONCHIECTASIS = ("Bronchiectasis exacerbations in adults are treated as outpatients when the patient is well: "
                  "give oral amoxicillin 500 mg three times daily for 14 days, and review after 48 hours.")
GOUT = ("Acute gout is treated with colchicine 500 micrograms two to four times daily or a short course of "
        "naproxen; continue allopurinol if the patient already takes it.")
ASTHMA = ("In acute asthma give salbutamol 5 mg nebulised, repeated every 15 to 30 minutes, with prednisolone "
          "40 mg orally for 5 days.")
HEART_FAILURE = ("Heart failure with reduced ejection fraction is treated with an ACE inhibitor (for example "
                 "ramipril 2.5 mg twice daily), a mineralocorticoid antagonist and a loop diuretic for congestion.")


def hit(text: str, title: str) -> SearchHit:
    return passage_hit(text, title, vector_score=0.8)


@pytest.mark.parametrize(("question", "phrase"), [
    ("For a frail inpatient with bronchiectasis, what intravenous antibiotics should I give?", ("intravenous",)),
    ("what height should the couch be at for a lumbar puncture", ()),  # the head names the kind of answer
    ("Should I request sputum cultures in a bronchiectasis exacerbation?", ("sputum", "cultures")),
    ("do we need to measure uric acid during an acute gout flare", ("uric", "acid")),
    ("Which steroid should I give in acute asthma?", ()),
    ("what is the colchicine dose in gout", ()),  # "what is": the attribute and its owner (asked_owner) say it
    ("is naproxen safe in gout", ()),  # "is" puts the asked thing first, not the asker
])
def test_the_phrase_asked_about_is_read_from_the_interrogative(question: str, phrase: tuple[str, ...]) -> None:
    assert asked_phrase(question) == phrase


@pytest.mark.parametrize(("question", "passage"), [
    # the setting is stated (outpatients), the regimen asked (intravenous) is not
    ("For a frail inpatient with bronchiectasis, what intravenous antibiotics should I give?",
     hit(BRONCHIECTASIS, "Bronchiectasis")),
    # the condition is the reference's, the test asked is never named in it
    ("Do I need sputum cultures for a bronchiectasis exacerbation in adults before amoxicillin?",
     hit(BRONCHIECTASIS, "Bronchiectasis")),
    ("Do I need uric acid levels in acute gout before starting colchicine or naproxen?", hit(GOUT, "Gout")),
    ("Should I check peak flow in acute asthma before salbutamol and prednisolone?", hit(ASTHMA, "Asthma")),
])
def test_a_passage_without_the_thing_asked_about_does_not_answer(question: str, passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score < THRESHOLD


@pytest.mark.parametrize(("question", "passage"), [
    ("which antibiotic should I give for a bronchiectasis exacerbation", hit(BRONCHIECTASIS, "Bronchiectasis")),
    ("Should I give prednisolone in acute asthma?", hit(ASTHMA, "Asthma")),
    ("what oral steroid should I give in acute asthma", hit(ASTHMA, "Asthma")),
    ("do I need to continue allopurinol during acute gout", hit(GOUT, "Gout")),
])
def test_a_passage_naming_the_thing_asked_about_still_answers(question: str, passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score >= THRESHOLD


def test_a_drug_class_the_passage_names_neither_by_name_nor_by_a_member_is_another_drug() -> None:
    failure = hit(HEART_FAILURE, "Heart failure")

    statins = evidence.assess("Where do statins fit in the treatment of heart failure with reduced ejection fraction?",
                              [failure])
    ace = evidence.assess("Where do ACE inhibitors fit in the treatment of heart failure with reduced ejection "
                          "fraction?", [failure])

    assert statins.passages[0].other_drug and statins.score < THRESHOLD
    assert not ace.passages[0].other_drug and ace.score >= THRESHOLD


@pytest.mark.parametrize(("said", "written"), [
    ("Is her C R P still rising on day three?", "Is her CRP still rising on day three?"),
    ("his e G F R came back at forty", "his eGFR came back at forty"),
    ("what H B A one C should I aim for", "what HbA1c should I aim for"),
    ("is a B P of 150 over 95 high", "is a BP of 150 over 95 high"),
    ("plan A or B for the ward round", "plan A or B for the ward round"),  # no listed abbreviation: as typed
    ("vitamin B 12 injections", "vitamin B 12 injections"),  # one letter is no spelt abbreviation
])
def test_an_abbreviation_spelt_letter_by_letter_is_read_as_the_list_writes_it(said: str, written: str) -> None:
    assert joined_scores(said) == written


def test_a_spelt_abbreviation_whose_attribute_is_asked_must_be_in_the_passage() -> None:
    question = "What's the H B A one C target once someone is on metformin and gliclazide?"
    concepts = question_concepts(question)

    owner = evidence.asked_owner(question, concepts)

    assert owner is not None and owner.label == "HbA1c"


def test_the_owner_of_the_attribute_is_read_in_the_clause_a_question_mark_closes() -> None:
    question = "still wheezy after 3 doses of salbutamol - magnesium infusion rate?"

    owner = evidence.asked_owner(question, question_concepts(question))

    assert questioned_clauses(question) == ("magnesium infusion rate",)
    assert owner is not None and owner.label == "infusion"
    assert evidence.assess(question, [hit(ASTHMA, "Asthma")]).score < THRESHOLD


def test_the_effect_a_causative_question_asks_is_the_thing_asked_about() -> None:
    # issue 24, session 17: "can metformin on its own cause low blood sugar" was answered from metformin's indication
    start = hit("Lisinopril is started at 10 mg once daily for hypertension and raised after two weeks.", "Lisinopril")
    faint = hit("Lisinopril may cause low blood pressure and dizziness after the first dose.", "Lisinopril")

    for question in ("can lisinopril cause low blood pressure?", "does gliclazide make people go hypo",
                     "could lisinopril trigger a dry cough"):
        assert asked_things(question, question_concepts(question)), question
    assert evidence.assess("can lisinopril cause low blood pressure?", [start]).passages[0].owner_missing
    assert not evidence.assess("can lisinopril cause low blood pressure?", [faint]).passages[0].owner_missing
    # the asker as the subject is read as before ("should I ..."), a statement is no question
    assert asked_things("lisinopril can cause a dry cough", question_concepts("lisinopril can cause a dry cough")) == ()
