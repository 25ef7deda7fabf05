"""Answers that came out wrong after the gate, as classes (session 16): the composer quoted the sentence next to the
one asked about (a "needing" in it, or the second-line options the question named, outscored the asked test or the
first line), and an uncovered question passed the gate on a regimen the reference gives for another setting of care,
or on letters said one by one that the asked phrase did not read. Fresh references, not the sample corpus."""

from __future__ import annotations

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import care_setting, evidence, wording
from voiceassist.query.asked_thing import asked_phrase
from voiceassist.query.extractive import answers_kind, select_sentences
from voiceassist.query.generation import Excerpt, number_excerpts

DVT = "Deep Vein Thrombosis in Adults (reference)"
SEIZURE = "Status Epilepticus: emergency treatment (reference)"
CELLULITIS = "Cellulitis in Adults (reference)"


def hits(title: str, *sections: tuple[str, str]) -> list[SearchHit]:
    meta = DocumentMetadata(doc_key="doc", title=title, source_type=SourceType.GUIDELINE)
    return [SearchHit(chunk=Chunk(chunk_id=f"c{i}", doc_id="d", doc_key="doc", version=1, ordinal=i, text=text,
                                  token_count=len(text.split()), metadata=meta, section=section), score=1.0 - i / 10)
            for i, (section, text) in enumerate(sections)]


def excerpts(title: str, *sections: tuple[str, str]) -> list[Excerpt]:
    return number_excerpts(hits(title, *sections))


def first_quoted(question: str, title: str, *sections: tuple[str, str]) -> str:
    return select_sentences(question, excerpts(title, *sections))[0].text


EMBOLISM = "Pulmonary Embolism in Adults (reference)"
WELLS = ("", "A Wells score above 4 suggests a likely pulmonary embolism needing anticoagulation while imaging is "
             "arranged.")
IMAGING = ("", "Pulmonary embolism is a clot in the pulmonary arteries. Confirm it with a chest CT angiogram when the "
               "diagnosis is uncertain.")


def test_need_is_the_question_s_mood_not_a_word_a_sentence_answers_with() -> None:
    # "needing anticoagulation" shares the question's "need" and nothing else it asks
    first = first_quoted("do i need a CT of the chest for a pulmonary embolism", EMBOLISM, WELLS, IMAGING)
    assert first.startswith("Confirm it with a chest CT angiogram")


DVT_WELLS = ("Wells", "A Wells score of 2 or more suggests a likely deep vein thrombosis needing same-day assessment.")
DIAGNOSIS = ("", "Deep vein thrombosis is a clot in a deep vein, most often of the leg. Confirm it with a compression "
                 "ultrasound when the diagnosis is uncertain.")


def test_a_test_asked_whether_needed_is_answered_by_the_sentence_naming_the_test() -> None:
    for question in ("Do I actually need an ultrasound to diagnose a DVT?", "is an ultrasound needed for a DVT",
                     "do i need a compression ultrasound for deep vein thrombosis"):
        first = first_quoted(question, DVT, DVT_WELLS, DIAGNOSIS)
        assert first.startswith("Confirm it with a compression ultrasound"), question


SUPPORTIVE = ("Supportive care", "Phenytoin and levetiracetam are second-line and follow a benzodiazepine. Protect the "
                                 "airway, give oxygen and check the blood glucose.")
BENZODIAZEPINE = ("Benzodiazepines", "Intravenous lorazepam is the first-line treatment and must not be delayed. Give "
                                     "lorazepam 0.1 mg/kg intravenously, to a maximum single dose of 4 mg.")


def test_the_first_line_asked_is_answered_by_the_sentence_naming_the_first_line() -> None:
    for question in ("first line tx status epilepticus? phenytoin or levetiracetam or something else",
                     "what's the very first drug you give in status epilepticus?",
                     "Phenytoin or lorazepam first for a seizure that won't stop?",
                     "what is the first choice treatment for status epilepticus"):
        assert first_quoted(question, SEIZURE, SUPPORTIVE, BENZODIAZEPINE).startswith(
            "Intravenous lorazepam is the first-line"), question


def test_first_as_an_occurrence_asks_no_line() -> None:
    line = "Intravenous lorazepam is the first-line treatment and must not be delayed."
    for question in ("after a first episode of status epilepticus should I refer to neurology",
                     "his first seizure meds were started last week - what blood tests?",
                     "how long after the first dose of lorazepam can I repeat it"):
        states = answers_kind(question)
        assert states is None or not states(line), question


OUTPATIENT = ("Outpatient antibiotic treatment",
              "For adults treated as outpatients, give flucloxacillin 500 mg orally four times daily for 5 days. "
              "Clarithromycin 500 mg twice daily is an alternative in penicillin allergy.")
RECOGNITION = ("Recognition", "Cellulitis is a spreading infection of the skin with redness, warmth and swelling, "
                              "and a fever in more severe cases.")


def test_a_treatment_asked_for_hospital_care_is_not_covered_by_the_outpatient_regimen() -> None:
    found = hits(CELLULITIS, OUTPATIENT, RECOGNITION)
    home = evidence.assess("which antibiotic for cellulitis treated at home?", found).score
    for question in ("which antibiotic for cellulitis in a patient admitted to hospital?",
                     "Which antibiotics should I use for cellulitis in a patient going to intensive care?",
                     "which antibiotic for cellulitis in an I C U patient"):
        assert evidence.assess(question, found).score <= 0.5 * home + 1e-9, question


def test_the_setting_of_the_case_or_both_settings_asked_is_no_setting_asked() -> None:
    assert care_setting.asked("pt admitted with cellulitis yesterday, flucloxacillin dose?") is None
    assert care_setting.asked("CURB-65 of 2 - admit or send home?") is None
    assert care_setting.asked("antibiotic for cellulitis acquired outside hospital") is None
    assert care_setting.asked("which antibiotic for an inpt with cellulitis?") == care_setting.INPATIENT
    assert care_setting.asked("can they go home on oral antibiotics?") == care_setting.OUTPATIENT


def test_a_document_naming_the_treatment_without_a_setting_says_nothing_of_the_setting() -> None:
    names = [lambda text: "flucloxacillin" in text.lower()]
    assert care_setting.other_setting(care_setting.INPATIENT, names, ["Outpatient\nFor outpatients, flucloxacillin."])
    assert not care_setting.other_setting(care_setting.INPATIENT, names, ["Dosing\nGive flucloxacillin 500 mg."])
    assert not care_setting.other_setting(care_setting.INPATIENT, names, [
        "Outpatient\nFor outpatients, flucloxacillin.", "Inpatient\nIn hospital, flucloxacillin 1 g IV."])


def test_letters_said_one_by_one_are_read_in_the_asked_phrase() -> None:
    assert asked_phrase("which I V antibiotic do I use for cellulitis") == asked_phrase(
        "which IV antibiotic do I use for cellulitis")


LITHIUM = "Lithium (drug reference)"
MONITORING = ("Monitoring", "Check renal function before starting and at least yearly. Keep the serum level between "
                            "0.4 and 1.0 mmol/L.")
THYROID = ("Adverse effects", "Tremor and thirst are common at the start. Long-term use can cause hypothyroidism; "
                              "check the thyroid hormone levels periodically.")


def test_a_thing_asked_to_exist_is_answered_by_the_sentence_naming_it_not_one_sharing_the_case_words() -> None:
    # "for years" and "checking" are the yearly renal check's words; the question asks whether there is a hormone
    for question in ("She's been on lithium for years, is there a hormone I should be checking?",
                     "on lithium for years - are there any hormone levels we should check?"):
        assert first_quoted(question, LITHIUM, MONITORING, THYROID).startswith("Long-term use can cause"), question


def test_a_vitamin_said_with_its_number_in_words_is_written_as_typed() -> None:
    assert "B12" in wording.joined_scores("Should we be checking B twelve on people on metformin for years?")
    assert wording.joined_scores("Vitamin D three dose in pregnancy") == "Vitamin D3 dose in pregnancy"
    # the article and a number, and a letter no numbered vitamin has, stay as said
    assert wording.joined_scores("give a one off dose") == "give a one off dose"
    assert wording.joined_scores("bed C two") == "bed C two"


REGIMEN = ("Outpatient antibiotic treatment",
           "For adults treated as outpatients, give flucloxacillin 500 mg orally four times daily. Clarithromycin "
           "500 mg twice daily is an alternative.")
FOLLOW_UP = ("Follow-up",
             "Mark the edge of the redness with a pen. Review the patient within 48 hours, or sooner if it spreads.")


def test_the_kind_asked_after_the_case_is_read_in_the_clause_that_asks() -> None:
    # the case ("outpt cellulitis started on fluclox") names the regimen's words; the clause that asks, a time
    for question in ("outpt cellulitis started on fluclox - when should i see them back",
                     "Started flucloxacillin at home for cellulitis yesterday. When should somebody review him?"):
        first = first_quoted(question, CELLULITIS, REGIMEN, RECOGNITION, FOLLOW_UP)
        assert first.startswith("Review the patient within 48 hours"), question
