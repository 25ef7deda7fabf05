"""ingest/screening.py on the real detector: numbers, dates and names in the shapes file names and titles take
(a date's hyphens, a year range, a phone number's numbering plan, a surname before a comma, a name beside a date)."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist import service
from voiceassist.ingest.screening import screen_metadata


def _screened(detector: Any, file_name: str, values: dict[str, Any] | None = None) -> tuple[Any, Any]:
    metadata = service.metadata_for(file_name, values or {})
    return metadata, screen_metadata(detector, metadata, file_name)


def _stored(screened: Any) -> str:
    return (screened.metadata.model_dump_json() + screened.file_name).lower()


@pytest.mark.parametrize("file_name", [
    "Zebulon-Quartermaine-1961-04-17-labs.pdf", "Zebulon-Quartermaine-04-17-1961-labs.pdf",
    "Zebulon_Quartermaine_1961-04-17_labs.pdf",
])
def test_screen_metadata_reads_a_hyphenated_date_in_a_file_name_as_a_date(shared_phi_detector: Any,
                                                                          file_name: str) -> None:
    _metadata, screened = _screened(shared_phi_detector, file_name)

    assert "1961" not in _stored(screened) and "quartermaine" not in _stored(screened)
    assert "DATE" in screened.entity_types and "PHONE_NUMBER" not in screened.entity_types
    assert screened.file_name.endswith("-labs.pdf") or screened.file_name.endswith("_labs.pdf")


@pytest.mark.parametrize(("file_name", "number"), [
    ("Diabetes-prevalence-in-a-coastal-province-the-2007-2008-household-survey.pdf", "2007-2008"),
    ("Vaccination-coverage-1999-2000-in-Warren-County.pdf", "1999-2000"),
    # an allele is no date: only groups of digits keep their hyphen ("DRB1" is a word, "01-03" no date alone)
    ("Typing-of-HLA-DRB1-01-03-in-a-rheumatoid-arthritis-cohort.pdf", "01-03"),
])
def test_screen_metadata_keeps_numbers_joined_by_hyphens_in_a_file_name(shared_phi_detector: Any, file_name: str,
                                                                        number: str) -> None:
    metadata, screened = _screened(shared_phi_detector, file_name)

    assert (screened.metadata, screened.file_name, screened.entity_types) == (metadata, file_name, [])
    assert f" {number} " in metadata.title  # the title made from the name keeps the number's hyphen


def test_screen_metadata_takes_no_number_outside_the_numbering_plan_for_a_phone(shared_phi_detector: Any) -> None:
    # Given a title with two four-digit groups the phone pattern reads as a local number, and no cue
    metadata, screened = _screened(shared_phi_detector, "survey.pdf", {"title": "Survey 2007 2008 of Warren County"})

    assert screened.metadata == metadata and screened.entity_types == []


def test_screen_metadata_redacts_a_phone_number_of_the_numbering_plan_beside_a_name(shared_phi_detector: Any) -> None:
    _metadata, screened = _screened(shared_phi_detector, "Miller-Derek-617-555-0123-letter.pdf")

    assert not any(value in _stored(screened) for value in ("617", "miller", "derek"))
    assert "PHONE_NUMBER" in screened.entity_types


@pytest.mark.parametrize("file_name", [
    "Gierschner, Stefania - 81174962 - referral letter.docx",  # the detector finds the given name only
    "Mathiassen_Joseph_MRN86875416_discharge.pdf",
])
def test_screen_metadata_redacts_the_surname_beside_a_found_given_name(shared_phi_detector: Any,
                                                                     file_name: str) -> None:
    _metadata, screened = _screened(shared_phi_detector, file_name)

    stored = _stored(screened)
    assert not any(word in stored for word in ("gierschner", "stefania", "mathiassen", "joseph")), stored
    assert "referral letter" in stored or "discharge" in stored  # the words that are no names stay


@pytest.mark.parametrize("title", [
    "Kevin Miles - lab results 04-27-2019",  # a name guess and a date guess, each alone a guess
    "Referral: Veindorfer Teresa, MRN 87200282",  # a headline, but a cued record number says whom it is about
])
def test_screen_metadata_redacts_a_name_beside_an_identifier_in_a_title(shared_phi_detector: Any, title: str) -> None:
    _metadata, screened = _screened(shared_phi_detector, "document.pdf", {"title": title})

    stored = _stored(screened)
    assert not any(word in stored for word in ("kevin", "miles", "04-27-2019", "veindorfer", "teresa", "87200282"))


@pytest.mark.parametrize("file_name", [
    "Activin-Nodal-signalling-in-stem-cells.pdf",  # "Activin/Nodal" in the title: NER's 0.85 for two names
    "Kras-oncogene-mutations-potentially-indicate-mucinous-carcinoma.pdf",
])
def test_screen_metadata_keeps_words_of_the_drug_dictionary_that_read_as_names(shared_phi_detector: Any,
                                                                               file_name: str) -> None:
    metadata, screened = _screened(shared_phi_detector, file_name)

    assert (screened.metadata, screened.file_name, screened.entity_types) == (metadata, file_name, [])


def test_screen_metadata_still_redacts_a_patient_beside_drug_words(shared_phi_detector: Any) -> None:
    # a Census name is a name even where the drug dictionary has the word too ("Major", "Long")
    _metadata, screened = _screened(shared_phi_detector, "document.pdf",
                                    {"title": "Metformin letter for Howard Long, MRN 84736251"})

    assert not any(value in _stored(screened) for value in ("howard", "long", "84736251")), _stored(screened)
    assert "metformin letter" in _stored(screened)


@pytest.mark.parametrize(("file_name", "value"), [
    # shapes other generators write (bench/phi_other_generators.py): a national id by its name or its checked shape,
    # an age over 89 with the sex letter, a plate after "reg"
    ("NHI_QKD4821_cellulitis_referral.pdf", "qkd4821"),
    ("DNI-52871346K-alergia.pdf", "52871346k"),
    ("RSSMRA85T10A562S_warfarin.docx", "rssmra85t10a562s"),
    ("handover_94M_urosepsis.txt", "94m"),
])
def test_screen_metadata_redacts_identifiers_other_generators_write_in_a_file_name(shared_phi_detector: Any,
                                                                                 file_name: str, value: str) -> None:
    _metadata, screened = _screened(shared_phi_detector, file_name)

    assert value not in _stored(screened) and screened.entity_types
