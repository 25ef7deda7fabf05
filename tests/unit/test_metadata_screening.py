"""ingest/screening.py on the real detector: what a document's file name and metadata keep, and what they lose."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from voiceassist import service
from voiceassist.ingest.screening import MetadataNotScreened, PhiDetectorBusy, pseudonymous_key, screen_metadata
from voiceassist.models import DocumentMetadata, PhiResult
from voiceassist.phi.detection import FailClosedDetector

PHI_VALUES = ("zebulon", "quartermaine", "84736251", "1961-04-17", "1961 04 17")
PHI_NAME = "Zebulon_Quartermaine_MRN_84736251_DOB_1961-04-17_sepsis.md"


def _dump(screened: Any) -> str:
    return (screened.metadata.model_dump_json() + screened.file_name).lower()


def test_a_patient_in_the_file_name_is_redacted_everywhere_it_flows(shared_phi_detector: Any) -> None:
    # Given a file named after a patient, with the defaults the upload paths derive from that name
    metadata = service.metadata_for(PHI_NAME, {"specialty": "critical care"})

    screened = screen_metadata(shared_phi_detector, metadata, PHI_NAME)

    assert not any(value in _dump(screened) for value in PHI_VALUES), _dump(screened)
    assert {"PERSON", "MEDICAL_RECORD_NUMBER"} <= set(screened.entity_types)
    assert screened.metadata.title.startswith("<PERSON>") and screened.metadata.title.endswith("sepsis")
    assert screened.file_name.endswith("_sepsis.md") and screened.metadata.specialty == "critical care"
    # the doc_key keeps one document's versions together under a pseudonym, distinct from any other key
    assert screened.metadata.doc_key == pseudonymous_key(metadata.doc_key, screened.metadata.doc_key.split("~")[0])
    assert screened.metadata.doc_key.split("~")[1] == __import__("hashlib").sha1(
        metadata.doc_key.encode()).hexdigest()[:16]


def test_a_name_the_title_shows_is_redacted_in_the_key_where_underscores_hid_it(shared_phi_detector: Any) -> None:
    metadata = DocumentMetadata(doc_key="plans/quartermaine_zebulon_plan", title="Plan for Zebulon Quartermaine")

    screened = screen_metadata(shared_phi_detector, metadata, "plan.md")

    assert "quartermaine" not in screened.metadata.doc_key.lower()
    assert "zebulon" not in screened.metadata.doc_key.lower()
    assert screened.metadata.doc_key.startswith("plans/<PERSON>") and screened.metadata.title == "Plan for <PERSON>"


@pytest.mark.parametrize(("filename", "names"), [
    ("Diaz_Charles_MRN97366946_discharge.pdf", ("diaz", "charles")),  # surname first, no sentence around it
    ("Miller, Derek - 55012398 - referral letter.docx", ("miller", "derek")),
    ("MRN 84736251 Hughes echo report.pdf", ("hughes",)),
])
def test_census_names_beside_an_identifier_in_a_file_name_are_redacted(shared_phi_detector: Any, filename: str,
                                                                       names: tuple[str, ...]) -> None:
    metadata = service.metadata_for(filename, {})

    screened = screen_metadata(shared_phi_detector, metadata, filename)

    assert not any(name in _dump(screened) for name in names), _dump(screened)
    assert "PERSON" in screened.entity_types and "MEDICAL_RECORD_NUMBER" in screened.entity_types


@pytest.mark.parametrize("filename", [
    "Wells-score-guideline-2019.pdf", "KDIGO 2024 CKD.pdf", "Surviving Sepsis Campaign 2021.pdf",
    "CURB-65 pneumonia severity.md", "metformin-drug-reference.md", "Child-Pugh score.txt",
    "AHA ACC 2017 hypertension guideline.pdf", "NICE NG28 type 2 diabetes.pdf",
    # file names of ../shared/eval/pdf whose lower-case words read as names without context (0.4-0.6)
    "reportlab-overlay.pdf", "crazyones-pdfa.pdf", "002-trivial-libre-office-writer.pdf", "habibi.pdf",
    # Census names alone (no identifier, date or name found beside them) stay: "Wells", "Graves", "Bell"
    "Graves disease and Bell palsy review.pdf",
    # a drug code is no record number beside "an" (a Census given name, and an English word), nor is it "ly"
    "LY2405319-an-Investigational-FGF21-Analogue-Lowers-Weight-in-Obese-Mice-a-Pilot-Report.pdf",
])
def test_a_phi_free_file_name_is_left_as_it_is(shared_phi_detector: Any, filename: str) -> None:
    metadata = service.metadata_for(filename, {})

    screened = screen_metadata(shared_phi_detector, metadata, filename)

    assert (screened.metadata, screened.file_name, screened.entity_types) == (metadata, filename, [])


def test_english_words_in_the_census_lists_are_not_redacted_beside_a_find(shared_phi_detector: Any) -> None:
    # "In" and "To" are Census names; an age found in the same file name used to make them redacted names
    name = "Tau-spread-and-the-disease-process-in-Alzheimer-brains-by-age-group-from-1-to-100-years.pdf"

    screened = screen_metadata(shared_phi_detector, service.metadata_for(name, {}), name)

    assert "-process-in-Alzheimer-" in screened.file_name and "-from-1-to-" in screened.file_name
    assert "PERSON" not in screened.entity_types


def test_bibliographic_metadata_is_kept(shared_phi_detector: Any) -> None:
    # A PMID is a bare digit run (the record-number recognizer's shape), a URL a link, authors people's names
    metadata = DocumentMetadata(doc_key="ssc-2021", title="Surviving Sepsis Campaign 2021", pmid="34599691",
                                doi="10.1097/CCM.0000000000005337", url="https://www.sccm.org/guidelines/ssc-2021",
                                authors=["Laura Evans", "Andrew Rhodes"], year=2021)

    screened = screen_metadata(shared_phi_detector, metadata, "ssc-2021.pdf")

    assert (screened.metadata, screened.entity_types) == (metadata, [])


def test_identifiers_in_an_author_field_are_redacted(shared_phi_detector: Any) -> None:
    metadata = DocumentMetadata(doc_key="notes", title="Notes", authors=["Laura Evans", "MRN 84736251"])

    screened = screen_metadata(shared_phi_detector, metadata, "notes.md")

    assert screened.metadata.authors[0] == "Laura Evans"
    assert "84736251" not in screened.metadata.authors[1] and screened.entity_types == ["MEDICAL_RECORD_NUMBER"]


class _Crashing:
    def detect(self, text: str) -> PhiResult:
        raise RuntimeError(f"choked on {text}")  # a message that quotes its input


def test_a_crashing_detector_fails_closed_without_quoting_a_value() -> None:
    metadata = service.metadata_for(PHI_NAME, {})

    with pytest.raises(MetadataNotScreened) as raised:
        screen_metadata(FailClosedDetector(_Crashing()), metadata, PHI_NAME)

    message = str(raised.value).lower()
    assert "could not be screened for phi" in message and "retry the job" in message
    assert not any(value in message for value in PHI_VALUES)


class _Hung:
    """Never answers until released: its one worker stays busy, so the next detection cannot start."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def detect(self, text: str) -> PhiResult:
        self.release.wait(timeout=30)
        return PhiResult(contains_phi=False, redacted_text=text)


def test_a_busy_detector_is_back_pressure_distinct_from_a_failed_screen() -> None:
    # Given a detector whose one worker is held by a hung detection (a crowd of uploads on one CPU)
    hung = _Hung()
    detector = FailClosedDetector(hung, timeout_s=0.05, queue_timeout_s=0.1)
    metadata = service.metadata_for(PHI_NAME, {})
    try:
        with pytest.raises(MetadataNotScreened) as timed_out:  # the first detection starts, then times out
            screen_metadata(detector, metadata, PHI_NAME)
        with pytest.raises(PhiDetectorBusy) as busy:  # the next cannot start at all
            screen_metadata(detector, metadata, PHI_NAME)
    finally:
        hung.release.set()

    # Then only the second is back-pressure (the workflow retries it by this class name), and it says so
    assert not isinstance(timed_out.value, PhiDetectorBusy)
    message = str(busy.value).lower()
    assert "busy" in message and "back-pressure" in message and "ingest it again" in message
    assert not any(value in message for value in PHI_VALUES)


def test_name_particles_alone_are_not_redacted_elsewhere(shared_phi_detector: Any) -> None:
    # Given a patient named with particles in the title, and a guideline phrase with the same particles in the key
    metadata = DocumentMetadata(doc_key="de-la-sepsis-2021", title="Plan for Maria de la Cruz Quartermaine")

    screened = screen_metadata(shared_phi_detector, metadata, "plan.md")

    assert "quartermaine" not in screened.metadata.title.lower()
    assert screened.metadata.doc_key == "de-la-sepsis-2021"  # "de" and "la" are not names on their own


def test_a_corpus_id_is_no_record_number_unless_the_document_names_a_patient(shared_phi_detector: Any) -> None:
    # A bare 8-digit id in a key is a record number only by its shape (a BEIR corpus id, a report number)
    paper = DocumentMetadata(doc_key="10608397", title="Statin use and breast cancer survival")
    assert screen_metadata(shared_phi_detector, paper, "10608397.txt").metadata == paper
    # but beside a patient's name it is redacted as one
    patient = DocumentMetadata(doc_key="10608397", title="Letter about Zebulon Quartermaine")
    screened = screen_metadata(shared_phi_detector, patient, "10608397.txt")
    assert "10608397" not in screened.metadata.doc_key + screened.file_name
    assert screened.entity_types == ["MEDICAL_RECORD_NUMBER", "PERSON"]
    # and an MRN-named scan is redacted: its title, derived from the name, is screened as prose
    scan = service.metadata_for("84736251.pdf", {})
    assert "84736251" not in screen_metadata(shared_phi_detector, scan, "84736251.pdf").metadata.model_dump_json()


def test_invalid_metadata_is_refused_without_quoting_it() -> None:
    # Refused before any screen ran (in the trigger's Lambda error log, the API's 400): it names fields only
    from voiceassist.errors import InvalidInput

    with pytest.raises(InvalidInput) as refused:
        service.metadata_for(PHI_NAME, {"title": "Zebulon Quartermaine " * 60, "year": "DOB 1961-04-17"})

    message = str(refused.value).lower()
    assert "title" in message and "year" in message
    assert not any(value in message for value in PHI_VALUES)
