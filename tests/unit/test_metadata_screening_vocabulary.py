"""ingest/name_vocabulary.py through the metadata screen on the real detector: a title's capitalised common words
and eponyms, which NER takes for names, are kept; a patient's name is still redacted, and an eponym's or common
word's guess still counts once something else names a patient."""

from __future__ import annotations

from typing import Any

import pytest
from voiceassist_local.evaluation.common_words import common_words

from voiceassist import service
from voiceassist.ingest.name_vocabulary import EPONYM_HEADS, common_word_name, eponym
from voiceassist.ingest.screening import screen_metadata
from voiceassist.models import PhiEntity


def _screened(detector: Any, file_name: str, values: dict[str, Any] | None = None) -> tuple[Any, Any]:
    metadata = service.metadata_for(file_name, values or {})
    return metadata, screen_metadata(detector, metadata, file_name)


def _name(probe: str, text: str, score: float = 0.85) -> PhiEntity:
    start = probe.index(text)
    return PhiEntity(entity_type="PERSON", start=start, end=start + len(text), score=score)


# Titles of the shape of SciFact's that the screen changed before (written for this test, not copied from the
# corpus): NER gives their capitalised words a name's 0.85
@pytest.mark.parametrize("title", [
    "Skeletal Muscle Wasting and Contractile Failure in a Murine Model of Chronic Heart Failure",
    "Birth Weight and Prostate Cancer Risk: Pooled Analysis of Individual Participant Data from 18 Cohorts",
    "Farnesylation inhibitors restore nuclear shape in cells from the progeroid disease Hutchinson-Gilford progeria "
    "syndrome",
    "Endothelial Krüppel-like factor 4 deletion increases monocyte adhesion to the aortic wall and "
    "accelerates atherosclerosis.",
    # (session 17) a MeSH disease's eponym without its head noun: "Hutchinson-Gilford progeria" (MeSH: Progeria,
    # entry term "hutchinson-gilford progeria syndrome"), written for this test
    "Lamin A processing in skin fibroblasts from children with Hutchinson-Gilford progeria",
])
@pytest.mark.parametrize("shape", ["bulk", "named"])
def test_screen_metadata_keeps_common_words_and_eponyms_in_a_title(shared_phi_detector: Any, title: str,
                                                                  shape: str) -> None:
    if shape == "bulk":  # as voiceassist ingest-jsonl stores a corpus record
        file_name, values = "4445629.txt", {"doc_key": "4445629", "title": title}
    else:  # a file named after its title
        file_name, values = "-".join("".join(c if c.isalnum() else " " for c in title).split()) + ".pdf", {}
    metadata, screened = _screened(shared_phi_detector, file_name, values)

    assert (screened.metadata, screened.file_name, screened.entity_types) == (metadata, file_name, [])


@pytest.mark.parametrize(("file_name", "values", "patient"), [
    ("document.pdf", {"title": "Letter about Rose Baker"}, ["rose", "baker"]),  # the dictionary capitalises both
    ("Anna-Berg-lab-results.pdf", {}, ["anna", "berg"]),  # common words beside the name are not the name's
    ("Smith_John_MRN84736251_Down_syndrome.pdf", {}, ["smith", "john", "84736251"]),  # a guess, then an MRN
    # (session 17) a disease beside a patient's name is not a MeSH name that starts with the name
    ("Anna-Berg-progeria-clinic-letter.pdf", {}, ["anna", "berg"]),
])
def test_screen_metadata_still_redacts_a_patient_beside_common_words_and_eponym_heads(
        shared_phi_detector: Any, file_name: str, values: dict[str, Any], patient: list[str]) -> None:
    _metadata, screened = _screened(shared_phi_detector, file_name, values)

    stored = (screened.metadata.model_dump_json() + screened.file_name).lower()
    assert "PERSON" in screened.entity_types and not [value for value in patient if value in stored]


def test_common_word_name_is_common_words_only_and_never_a_census_name() -> None:
    probe = "Plasma Atrophy and Young Repair in Jean Size"
    assert common_word_name(_name(probe, "Plasma Atrophy"), probe)
    assert not common_word_name(_name(probe, "Young Repair"), probe)  # "Young": a Census surname
    assert not common_word_name(_name(probe, "Jean Size"), probe)  # "Jean": the dictionary capitalises it
    assert not common_word_name(_name(probe, "Plasma Atrophy", score=0.95), probe)  # after a cue: a name


def test_eponym_is_a_name_before_or_ending_in_a_head_noun_or_like() -> None:
    for probe, name in [("the Hutchinson-Gilford progeria syndrome", "Hutchinson-Gilford"),
                        ("Epstein-Barr Virus nuclear antigen", "Epstein-Barr Virus"),
                        ("Krüppel-like factor 2", "Krüppel"), ("Barrett s disease of the esophagus", "Barrett")]:
        assert eponym(_name(probe, name), probe), probe
    for probe, name in [("John Smith test results", "John Smith"), ("Letter about Anna Berg", "Anna Berg"),
                        ("Anna Berg discharge summary and other notes about a syndrome", "Anna Berg")]:
        assert not eponym(_name(probe, name), probe), probe
    assert "test" not in EPONYM_HEADS and "score" not in EPONYM_HEADS


def test_eponym_is_a_name_that_starts_a_mesh_disease_name_with_the_words_after_it() -> None:
    for probe, name in [("children with Hutchinson Gilford progeria", "Hutchinson Gilford"),
                        ("a family with Charcot Marie Tooth neuropathy", "Charcot Marie")]:
        assert eponym(_name(probe, name), probe), probe
    for probe, name in [("Anna Berg progeria clinic letter", "Anna Berg"),  # no MeSH name starts "anna berg"
                        ("Hutchinson Gilford clinic letter", "Hutchinson Gilford"),  # no word of the disease after it
                        ("letter about Martin Bell", "Martin Bell")]:  # "Martin-Bell syndrome": nothing after the name
        assert not eponym(_name(probe, name), probe), probe


def test_common_words_leave_out_what_the_dictionary_capitalises() -> None:
    lines = ["Smith", "smith", "plasma", "Bill", "bill", "don't", "atrophy", "a", "Jean"]
    assert common_words(lines) == ["atrophy", "plasma"]
