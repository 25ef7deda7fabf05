"""The composer quotes the sentence of the kind the question asks for: a titration step and its interval for
"how fast", the identifying findings for "how do I recognise", read from the sentence or its section heading."""

from __future__ import annotations

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import answer_kinds
from voiceassist.query.extractive import select_sentences
from voiceassist.query.generation import Excerpt, number_excerpts

DOSING = ("Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two weeks as "
          "tolerated. The usual maximum is 2,000 mg per day in divided doses.")
ADVERSE = ("Gastrointestinal effects (nausea, diarrhoea, abdominal discomfort) are common at the start and are "
           "reduced by slow titration and taking the drug with food. Long-term use can lower vitamin B12 levels.")
RENAL = "Metformin is contraindicated when eGFR is below 30 mL/min/1.73 m2."
RECOGNITION = ("Anaphylaxis is likely when skin or mucosal symptoms (hives, flushing, swollen lips or tongue) appear "
               "suddenly together with breathing difficulty, low blood pressure or persistent gastrointestinal "
               "symptoms, minutes to hours after exposure to a likely allergen.")
EPINEPHRINE = ("Give epinephrine 1 mg/mL (1:1000) at 0.01 mg/kg intramuscularly into the anterolateral thigh. "
               "Repeat every 5 to 15 minutes if symptoms persist.")
SUPPORTIVE = ("Lay the patient flat with the legs raised, give high-flow oxygen, and give intravenous crystalloid "
              "for hypotension. Observe for at least 6 hours because of the risk of a biphasic reaction.")


def excerpts(title: str, *sections: tuple[str, str]) -> list[Excerpt]:
    meta = DocumentMetadata(doc_key="doc", title=title, source_type=SourceType.DRUG_REFERENCE)
    return number_excerpts([
        SearchHit(chunk=Chunk(chunk_id=f"c{i}", doc_id="d", doc_key="doc", version=1, ordinal=i, text=text,
                              token_count=len(text.split()), metadata=meta, section=section), score=1.0 - i / 10)
        for i, (section, text) in enumerate(sections)])


def first_sentence(question: str, title: str, *sections: tuple[str, str]) -> str:
    return select_sentences(question, excerpts(title, *sections))[0].text


def test_how_fast_to_titrate_is_answered_by_the_step_and_its_interval_not_the_sentence_naming_titration() -> None:
    # Only the adverse-effects sentence says "titration"; the dosing schedule answers "how fast".
    for question in ("how fast do i uptitrate metformin", "how quickly can metformin be uptitrated",
                     "Metformin titration - how fast can I go up"):
        assert first_sentence(question, "Metformin", ("Renal function", RENAL), ("Adverse effects", ADVERSE),
                              ("Dosing", DOSING)).startswith("Start with 500 mg"), question


def test_how_to_recognise_a_condition_is_answered_by_its_findings_before_its_treatment() -> None:
    # The treatment instructions share the condition and are instructions; the recognition sentence answers.
    for question in ("how do I recognise anaphylaxis", "how to recognise anaphylaxis",
                     "signs that an allergic reaction is anaphylaxis"):
        chosen = first_sentence(question, "Anaphylaxis: emergency treatment", ("Supportive care", SUPPORTIVE),
                                ("Epinephrine", EPINEPHRINE), ("Recognition", RECOGNITION))
        assert chosen.startswith("Anaphylaxis is likely when"), question


def test_a_section_headed_for_the_asked_kind_lifts_a_sentence_that_does_not_repeat_the_cue() -> None:
    findings = "Fever, cough and focal crackles with new consolidation on a chest radiograph point to pneumonia."
    treatment = "Give amoxicillin 1 g three times daily for five days in pneumonia treated at home."
    assert first_sentence("how do I recognise pneumonia", "Pneumonia", ("Treatment", treatment),
                          ("Diagnosis", findings)).startswith("Fever, cough")
    assert first_sentence("how do I treat pneumonia", "Pneumonia", ("Treatment", treatment),
                          ("Diagnosis", findings)).startswith("Give amoxicillin")


def test_the_asked_kind_is_read_from_the_interrogative_phrase_only() -> None:
    def names(question: str) -> set[str]:
        return {kind.name for kind in answer_kinds.asked(question)}

    assert names("how fast can I go up on the dose") == {"rate"}
    assert names("how quickly is it titrated?") == {"rate"}
    assert names("how do I recognise anaphylaxis") == {"recognition"}
    assert names("what are the signs of anaphylaxis") == {"recognition"}
    assert names("how long should CAP be treated") == {"duration"}
    assert names("what is the maximum metformin dose") == set()


def test_a_daily_maximum_is_not_a_titration_rate() -> None:
    rate = next(kind for kind in answer_kinds.KINDS if kind.name == "rate")
    assert answer_kinds.states(rate, "increase by 500 mg every one to two weeks as tolerated")
    assert answer_kinds.states(rate, "double the dose every 2 weeks")
    assert not answer_kinds.states(rate, "The usual maximum is 2,000 mg per day in divided doses.")
    assert answer_kinds.heads(rate, "Dosing") and not answer_kinds.heads(rate, "Adverse effects")


def test_extractive_brand_name_quotes_the_sentence_naming_its_class() -> None:
    # "Solu-Medrol" is methylprednisolone (a salt of it), a corticosteroid; the reference names the class only.
    supportive = ("Lay the patient flat with the legs raised, give high-flow oxygen, and give intravenous crystalloid "
                  "for hypotension. Antihistamines and corticosteroids are second-line and do not replace "
                  "epinephrine.")
    for question in ("role of solumedrol in anaphylaxis", "is methylprednisolone useful in anaphylaxis"):
        chosen = first_sentence(question, "Anaphylaxis: emergency treatment", ("Recognition", RECOGNITION),
                                ("Supportive care", supportive))
        assert chosen.startswith("Antihistamines and corticosteroids"), question


def test_extractive_brand_name_does_not_match_another_member_of_its_class() -> None:
    # A sentence about another corticosteroid names that drug, not the class: it does not answer for this one.
    other = "Prednisolone 40 mg daily for five days is used in acute asthma exacerbations in adults."
    asked = "Intravenous methylprednisolone is given at 1 mg/kg in severe acute reactions in adults."
    chosen = first_sentence("solumedrol dose", "Steroids", ("Asthma", other), ("Reactions", asked))
    assert chosen.startswith("Intravenous methylprednisolone")


def test_extractive_drug_named_in_the_passage_does_not_pull_in_its_class() -> None:
    # The question's amoxicillin is named by the passage, so "penicillin allergy" (its class) adds nothing: the
    # review sentence, the time asked, comes first.
    treatment = ("For adults treated as outpatients, first-line treatment is amoxicillin 1 g orally three times "
                 "daily. Doxycycline 100 mg orally twice daily is an alternative, for example in penicillin "
                 "allergy.")
    review = "Review the patient within 48 hours, or sooner if symptoms worsen."
    chosen = select_sentences("when to review a pneumonia pt after starting amoxicilin",
                              excerpts("Community-acquired pneumonia", ("Treatment", treatment),
                                       ("Follow-up", review)))
    assert chosen[0].text.startswith("Review the patient")
