"""Named diseases from MeSH: one concept whatever name is typed, and MeSH's tree."""

from __future__ import annotations

from voiceassist.models import PhiEntity, PhiResult
from voiceassist.query import abstention, concepts, diseases


def test_a_disease_is_named_by_any_of_its_mesh_entry_terms() -> None:
    (covid,) = diseases.mentions("covid pneumonia")[:1]
    assert covid.written == "covid"
    assert covid.mark in diseases.marks("SARS-CoV-2 infection in adults")
    assert [d.written for d in diseases.mentions("doxycycline for lyme disease")] == ["lyme disease"]


def test_a_passage_naming_a_disease_holds_the_broader_headings_above_it() -> None:
    (pneumonia,) = diseases.mentions("pneumonia")
    (aspiration,) = diseases.mentions("aspiration pneumonia")

    assert pneumonia.mark in diseases.marks("Aspiration pneumonia follows ...")
    assert aspiration.mark not in diseases.marks("Community-acquired pneumonia is ...")


def test_a_disease_the_name_detector_took_for_a_person_is_read_back_for_the_evidence() -> None:
    question = "covid pneumonia treatment"
    phi = PhiResult(contains_phi=True, redacted_text="<PERSON> pneumonia treatment",
                    entities=[PhiEntity(entity_type="PERSON", start=0, end=5, score=0.85)])

    assert concepts.is_clinical("covid")
    assert abstention.clinical_words_restored(question, phi) == question


def test_a_disease_word_that_is_also_a_census_name_stays_redacted() -> None:
    # "Burns" is a MeSH disease heading and a Census surname: a patient's name is never read back
    question = "Mr Burns has pneumonia"
    phi = PhiResult(contains_phi=True, redacted_text="Mr <PERSON> has pneumonia",
                    entities=[PhiEntity(entity_type="PERSON", start=3, end=8, score=0.85)])

    assert diseases.is_disease("burns")
    assert "Burns" not in abstention.clinical_words_restored(question, phi)
