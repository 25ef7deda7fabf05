"""Who asks and where (query/setting.py): words that frame a question are context, not its topic."""

from __future__ import annotations

from pathlib import Path

import pytest
from voiceassist_local.evaluation import setting_data

from tests.support.passages import passage_hit
from voiceassist.models import AnswerStatus, PhiResult, QueryRequest
from voiceassist.query import abstention, evidence, terminology
from voiceassist.query.setting import context_words
from voiceassist.query.state import QueryState, response_of

BP_READING = ("Measure blood pressure after the patient has sat quietly for 5 minutes, with the arm supported at "
              "heart level; average two or more readings.")
EPINEPHRINE = "Give intramuscular epinephrine 0.5 mg (0.5 mL of 1 mg/mL) into the anterolateral thigh."


hit = passage_hit


def test_context_words_reads_a_place_phrase_as_context() -> None:
    assert context_words("bp cutoff to dx htn in clinic?") == {"clinic"}
    assert context_words("on the ward, max dose of amlodipine") == {"ward"}
    assert context_words("epinephrine dose in the maternity ward") == {"maternity", "ward"}


def test_context_words_reads_the_askers_label_and_role_as_context() -> None:
    assert context_words("nurse here - how many readings should i average") == {"nurse"}
    assert context_words("pharmacist q: when should modified release metformin be taken") == {"pharmacist"}
    assert context_words("Hi, GP here, metformin dose") == {"gp"}
    assert context_words("as a nurse, can I give IM epinephrine") == {"nurse"}
    # WordNet files the paramedic under paraprofessional, not health_professional: a root of its own
    assert context_words("Paramedic here - anaphylactic pt wont lie down") == {"paramedic"}
    assert terminology.setting_words()["paramedic"] == "person"


def test_context_words_reads_which_nurse_or_pharmacist_is_asking_as_part_of_the_label() -> None:
    assert context_words("ED nurse here, max epi dose?") == {"ed", "nurse"}
    assert context_words("community pharmacist q - metformin with food") == {"community", "pharmacist"}
    assert context_words("as the on-call doctor what abx for CAP") == {"on-call", "doctor"}
    assert context_words("im a gp, metformin dose") == {"gp"}  # typed in lower case, inside a frame
    # a label ends in a person: a drug before a place is no asker
    assert context_words("lisinopril ward: dose?") == frozenset()


def test_context_words_keeps_a_setting_word_that_is_the_topic() -> None:
    assert context_words("nurse-led titration of ramipril") == frozenset()  # joined to what is asked
    assert context_words("pharmacist role in metformin counselling") == frozenset()  # no frame: the topic
    assert context_words("paramedic role in anaphylaxis") == frozenset()
    assert context_words("How is pneumonia in nursing home residents treated?") == frozenset()  # the patients
    assert context_words("in clinic bp readings, how many") == frozenset()  # the place names a kind of reading
    assert context_words("nurse") == frozenset()  # a label needs a question after it


def test_context_words_leaves_clinical_vocabulary_a_topic() -> None:
    # WordNet files "hospital" and "surgery" (an operating room) as places of care; the concept layer's
    # clinical vocabulary keeps them topics ("hospital admission", "metformin before surgery")
    assert context_words("metformin before surgery in hospital?") == frozenset()
    assert {"nurse", "pharmacist", "clinic", "ward", "GP"} <= set(terminology.setting_words())


def test_evidence_a_framed_setting_word_is_not_a_missing_topic() -> None:
    framed = evidence.assess("nurse here - how long should the pt sit quietly before a BP reading",
                             [hit(BP_READING, "Hypertension")])
    plain = evidence.assess("how long should the pt sit quietly before a BP reading", [hit(BP_READING, "Hypertension")])

    assert "nurse" not in framed.passages[0].missing
    assert framed.score >= 0.55 and plain.score >= 0.55


def test_evidence_a_setting_word_that_is_the_topic_stays_missing() -> None:
    found = evidence.assess("pharmacist role in epinephrine dosing", [hit(EPINEPHRINE, "Anaphylaxis")])

    assert "pharmacist" in found.passages[0].missing


def test_evidence_a_framed_setting_word_counts_when_the_passage_holds_it() -> None:
    held = hit("On the ward, give intramuscular epinephrine 0.5 mg into the thigh.", "Ward protocol")
    question = "on the ward, epinephrine dose"

    found = evidence.assess(question, [held, hit(EPINEPHRINE, "Anaphylaxis")])

    weights = {c.label: c.weight for c in evidence.question_concepts(question)}
    # told before the ask, a place of care weighs nothing missing (described_case.CARERS_TOLD, session 19)
    assert weights["ward"] == 0.0
    assert found.passages[0].coverage > found.passages[1].coverage  # holding the setting never lowers coverage


def test_no_evidence_reply_never_names_the_askers_setting() -> None:
    question = "nurse here - what is the dose of apixaban in clinic?"
    state = QueryState(user_id="u", request=QueryRequest(query=question), hits=[hit(EPINEPHRINE, "Anaphylaxis")],
                       sources_searched=["knowledge_base"],
                       phi=PhiResult(contains_phi=False, entities=[], redacted_text=question))

    response = response_of(abstention.keep_supported_hits(state, threshold=0.55))

    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE
    assert '"apixaban"' in response.answer
    assert '"nurse"' not in response.answer and '"clinic"' not in response.answer


def test_setting_data_setting_words_reads_wordnet_hyponyms_less_clinical_vocabulary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a data.noun in WordNet's format (wndb(5WN)): offset lex_filenum ss_type w_cnt word lex_id ... p_cnt
    # pointer_symbol offset pos source/target ... | gloss
    data = (
        "  1 This software and database is being provided to you ...\n"
        "00000001 18 n 02 health_professional 0 health_care_provider 0 001 ~ 00000002 n 0000 | a carer\n"
        "00000002 18 n 02 nurse 0 RN 0 002 @ 00000001 n 0000 ~i 00000004 n 0000 | one who nurses\n"
        "00000003 06 n 02 hospital_ward 0 ward 0 001 ~ 00000005 n 0000 | a block of a hospital\n"
        "00000004 18 n 01 Florence_Nightingale 0 001 @i 00000002 n 0000 | an English nurse\n"
        "00000005 06 n 02 surgery 0 maternity_ward 0 001 @ 00000003 n 0000 | a room\n"
    )
    (tmp_path / "data.noun").write_text(data, encoding="latin-1")
    monkeypatch.setattr(setting_data, "ROOTS", (("00000001", "health_professional", "person"),
                                                ("00000003", "hospital_ward", "place")))

    words = setting_data.setting_words(tmp_path)

    # not "health professional" nor "hospital ward" (a clinical word in each), nor "surgery" (25 meanings of
    # the abbreviation list), nor the instance "Florence Nightingale"
    assert words == {"RN": "person", "nurse": "person", "ward": "place", "maternity ward": "place"}


def test_setting_data_refuses_a_wordnet_whose_offsets_name_other_synsets(tmp_path: Path) -> None:
    (tmp_path / "data.noun").write_text("10165109 18 n 01 teapot 0 000 | not WordNet 3.0\n", encoding="latin-1")

    with pytest.raises(ValueError, match="not WordNet 3.0"):
        setting_data.setting_words(tmp_path)


def test_context_words_reads_the_source_asked_as_context() -> None:
    # the seventh blind writer: WordNet 3.0's publications and documents, framed by "per" or "does the"
    assert context_words("Main risk factors for metformin-associated lactic acidosis, per this monograph?") == {
        "monograph"}
    assert context_words("CURB-65 of 4 in a pt on the ward - does the guide say anything beyond just admit?") == {
        "ward", "guide"}
    assert context_words("what does the reference recommend for metformin and contrast") == {"reference"}
    assert context_words("max epinephrine dose according to the guidebook?") == {"guidebook"}
    assert context_words("metformin and contrast in this reference?") == {"reference"}
    assert terminology.setting_words()["monograph"] == "source"


def test_context_words_keeps_a_source_word_that_is_the_topic() -> None:
    assert context_words("patient information leaflet for metformin") == frozenset()  # no frame: what is asked
    assert context_words("does the report of a CURB-65 of 2 mean admission") == frozenset()  # "of": a kind of report
    assert context_words("epinephrine 0.01 mg per kg") == frozenset()  # "per" before a unit, no source word
    assert context_words("do monographs list lactic acidosis") == frozenset()  # an auxiliary needs a determiner
    # WordNet's check and pass are documents; without a determiner the word after "to" is a verb
    assert context_words("what bloods to check after starting losartan") == frozenset()
    assert context_words("any tips to pass on?") == frozenset()


def test_evidence_a_framed_source_word_is_not_a_missing_topic() -> None:
    found = evidence.assess("how long should the pt sit quietly before a BP reading, per this monograph?",
                            [hit(BP_READING, "Hypertension")])

    assert "monograph" not in found.passages[0].missing
    assert found.score >= 0.55
