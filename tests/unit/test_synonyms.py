"""Clinical synonyms (query/synonyms.py): one concept however it is written, in search, evidence and composer."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.query import evidence, synonyms
from voiceassist.query.extractive import select_sentences
from voiceassist.query.generation import Excerpt

EPINEPHRINE = "Give epinephrine 0.01 mg/kg intramuscularly into the anterolateral thigh."


hit = passage_hit


def test_forms_are_found_as_whole_phrases_longest_first() -> None:
    found = [(m.form, m.group[0]) for m in synonyms.find("High blood pressure and adrenaline doses")]
    assert found == [("High blood pressure", "hypertension"), ("adrenaline", "epinephrine")]
    # the verb "lower" is not "low"
    assert [m.group[0] for m in synonyms.find("lower blood pressure")] == ["blood pressure"]
    assert [m.group[0] for m in synonyms.find("low blood pressure")] == ["hypotension"]


def test_search_gets_the_clinical_form_once_and_only_where_it_is_missing() -> None:
    assert synonyms.expand("adrenaline dose in high blood pressure") == \
        "adrenaline (epinephrine) dose in high blood pressure (hypertension)"
    assert synonyms.expand("epinephrine or adrenaline") == "epinephrine or adrenaline"
    assert synonyms.expand("What is the dose of metformin?") == "What is the dose of metformin?"


def test_a_passage_using_another_form_covers_the_concept() -> None:
    asked = "Where is adrenaline injected in a severe allergic reaction?"
    concepts = {c.label for c in evidence.question_concepts(asked)}
    assert {"epinephrine", "injected", "severe allergic reaction"} <= concepts  # a drug by its generic name
    # epinephrine / intramuscularly / the title "Anaphylaxis" cover adrenaline / injected / severe allergic reaction
    answering = evidence.assess(asked, [hit(EPINEPHRINE, "Anaphylaxis")]).passages[0]
    assert (answering.coverage, answering.missing) == (1.0, ())
    other = evidence.assess(asked, [hit("Observe for at least 6 hours.", "Anaphylaxis")]).passages[0]
    assert other.missing == ("epinephrine", "injected")


def test_scattered_words_do_not_make_a_phrase() -> None:
    """"infection of the lung" is not the form "lung infection": a group counts only as a phrase."""
    assert synonyms.marks("an infection of the lung") == frozenset({synonyms.mark(("pulmonary",))})
    assert synonyms.mark(("pneumonia",)) in synonyms.marks("a chest infection")


def test_a_passage_about_another_drug_cannot_answer_a_question_about_this_one() -> None:
    metformin = hit("Metformin is the usual first-line oral agent for type 2 diabetes; start with 500 mg.",
                    "Metformin", vector_score=0.8)
    other = evidence.assess("What is the dose of glipizide in type 2 diabetes?", [metformin])
    own = evidence.assess("What is the dose of metformin in type 2 diabetes?", [metformin])
    assert other.score <= own.score * evidence.OTHER_DRUG_FACTOR + 1e-9 and other.score < 0.55 <= own.score
    # a class of drugs is a topic, not a named drug: the passage may name a member of it
    assert evidence.named_drugs(evidence.question_concepts("Which antibiotic or antihypertensive?")) == []


def test_the_composer_counts_a_concept_once_whichever_form_a_sentence_uses() -> None:
    text = ("Anaphylaxis is likely with hives and low blood pressure. Give intravenous crystalloid 20 mL/kg "
            "for hypotension.")
    excerpt = Excerpt(number=1, chunk=hit(text, "Anaphylaxis").chunk, text=text)
    # "low blood pressure" counts once (not as three words) in the first sentence, as "hypotension" does in the
    # second, which also names the fluid
    chosen = select_sentences("What fluid bolus is given for low blood pressure?", [excerpt])
    assert chosen[0].text.startswith("Give intravenous crystalloid")


def test_a_maximal_dose_is_the_maximum_a_passage_states() -> None:
    # "maximal" is a maximum asked, as query/answer_kinds.py reads it; the passage says "maximum"
    asked = "What is the usual maximal daily dose of gabapentin?"
    stated = hit("The usual maximum is 3,600 mg per day in three divided doses.", "Gabapentin")
    answering = evidence.assess(asked, [stated]).passages[0]
    assert answering.missing == ()
