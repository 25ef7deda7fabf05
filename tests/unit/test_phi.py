"""The PHI boundary's domain side: redaction, fail-closed detection, the egress guard, mode off."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from voiceassist import observability
from voiceassist.composition.phi_detectors import build_detector
from voiceassist.errors import InvalidInput, PhiBoundaryViolation
from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi import (
    WITHHELD,
    DisabledPhiDetector,
    FailClosedDetector,
    ensure_no_phi,
    redact,
)
from voiceassist.phi.detection import readable_form
from voiceassist.settings import PhiMode, Settings, settings_from_env

RAW = "Patient Anna Kowalczyk, MRN 00123456, asks about metformin"


class FixedDetector:
    """Flags the given entities; a stand-in for Presidio where only the wrapper is under test."""

    def __init__(self, *entities: PhiEntity) -> None:
        self.entities = list(entities)

    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=bool(self.entities), entities=self.entities,
                         redacted_text=redact(text, self.entities))


class ExplodingDetector:
    def detect(self, text: str) -> PhiResult:
        raise ValueError(f"could not parse {text!r}")  # the message quotes the raw text


class BlockingDetector:
    """Never answers until released: a hung NLP engine."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def detect(self, text: str) -> PhiResult:
        self.release.wait(timeout=30)
        return PhiResult(contains_phi=False, redacted_text=text)


class UnloadableDetector(FixedDetector):
    def load(self) -> None:
        raise OSError("spaCy model missing")


class NotAResultDetector:
    def detect(self, text: str) -> object:
        return {"contains_phi": False}


@pytest.fixture
def blocking() -> Iterator[BlockingDetector]:
    detector = BlockingDetector()
    yield detector
    detector.release.set()  # let the worker thread finish


def test_redact_replaces_each_entity_with_its_type() -> None:
    entities = [PhiEntity(entity_type="PERSON", start=8, end=22),
                PhiEntity(entity_type="MEDICAL_RECORD_NUMBER", start=28, end=36)]
    assert redact(RAW, entities) == "Patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>, asks about metformin"


def test_redact_merges_overlaps_under_the_strongest_type() -> None:
    text = "lives at 12 Oak Street 02139"
    entities = [PhiEntity(entity_type="STREET_ADDRESS", start=9, end=22, score=0.6),
                PhiEntity(entity_type="PERSON", start=12, end=15, score=0.5),
                PhiEntity(entity_type="ZIP_CODE", start=20, end=28, score=0.9)]
    assert redact(text, entities) == "lives at <ZIP_CODE>"


def test_redact_without_entities_returns_the_text() -> None:
    assert redact(RAW, []) == RAW


def test_redact_ignores_spans_outside_the_text() -> None:
    assert redact("short", [PhiEntity(entity_type="PERSON", start=3, end=40)]) == "short"


def test_fail_closed_passes_a_working_detectors_result_through() -> None:
    entity = PhiEntity(entity_type="PERSON", start=8, end=22)
    result = FailClosedDetector(FixedDetector(entity), timeout_s=5).detect(RAW)
    assert result.contains_phi and result.error is None and result.entities == [entity]


def test_fail_closed_turns_an_exception_into_phi_without_the_raw_text() -> None:
    result = FailClosedDetector(ExplodingDetector(), timeout_s=5).detect(RAW)
    assert result.contains_phi and result.error is not None and "ValueError" in result.error
    assert "Kowalczyk" not in result.error and "Kowalczyk" not in result.redacted_text
    assert result.redacted_text == WITHHELD


def test_fail_closed_turns_a_time_out_into_phi(blocking: BlockingDetector) -> None:
    result = FailClosedDetector(blocking, timeout_s=0.05).detect(RAW)
    assert result.contains_phi and result.error is not None and "timed out" in result.error
    assert "Kowalczyk" not in result.error and result.redacted_text == WITHHELD


class SlowDetector(FixedDetector):
    """Answers after a fixed delay: a healthy engine under load."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        self.delay_s = delay_s

    def detect(self, text: str) -> PhiResult:
        time.sleep(self.delay_s)
        return super().detect(text)


def test_fail_closed_counts_the_time_out_from_when_a_detection_starts_not_from_the_queue() -> None:
    # Twelve callers at once (a local server's requests, the ingest workers) share the one worker: the last waits
    # ~2.75 s for it, beyond the 2 s time-out, yet every detection itself takes 0.25 s and must succeed. (With a 1 s
    # time-out, a detection woken 0.75 s late by a loaded 2-core machine would fail closed: 1.75 s of margin now.)
    detector = FailClosedDetector(SlowDetector(0.25), timeout_s=2.0, queue_timeout_s=30.0)
    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(detector.detect, ["What is the dose of metformin?"] * 12))
    assert [result.error for result in results] == [None] * 12
    assert not any(result.contains_phi for result in results)


def test_fail_closed_bounds_the_wait_behind_a_hung_detection(blocking: BlockingDetector) -> None:
    detector = FailClosedDetector(blocking, timeout_s=0.05, queue_timeout_s=0.1)
    first = detector.detect(RAW)
    assert first.error is not None and "timed out" in first.error
    second = detector.detect(RAW)  # the worker is still stuck in the first detection
    assert second.contains_phi and second.error is not None and "busy" in second.error
    assert "Kowalczyk" not in second.error and second.redacted_text == WITHHELD


def test_fail_closed_turns_a_failed_load_into_phi() -> None:
    result = FailClosedDetector(UnloadableDetector(), timeout_s=5).detect("What is the dose of metformin?")
    assert result.contains_phi and result.error is not None and "could not load" in result.error


def test_fail_closed_refuses_a_result_of_the_wrong_type() -> None:
    result = FailClosedDetector(NotAResultDetector(), timeout_s=5).detect("What is the dose of metformin?")  # type: ignore[arg-type]
    assert result.contains_phi and result.error is not None


def test_fail_closed_rejects_a_non_positive_time_out() -> None:
    with pytest.raises(InvalidInput, match="timeout_s"):
        FailClosedDetector(FixedDetector(), timeout_s=0)
    with pytest.raises(InvalidInput):
        FailClosedDetector(FixedDetector(), queue_timeout_s=0)


def test_ensure_no_phi_lets_clean_text_leave() -> None:
    ensure_no_phi("What is the first-line treatment of hypertension?", FixedDetector())  # no exception


def test_ensure_no_phi_stops_phi_and_names_only_the_types() -> None:
    detector = FixedDetector(PhiEntity(entity_type="PERSON", start=8, end=22))
    with pytest.raises(PhiBoundaryViolation, match="PERSON") as raised:
        ensure_no_phi(RAW, detector)
    assert "Kowalczyk" not in str(raised.value)


def test_ensure_no_phi_stops_text_when_the_detector_fails() -> None:
    with pytest.raises(PhiBoundaryViolation, match="ValueError"):
        ensure_no_phi(RAW, FailClosedDetector(ExplodingDetector(), timeout_s=5))


def test_disabled_detector_flags_nothing() -> None:
    result = DisabledPhiDetector().detect(RAW)
    assert not result.contains_phi and result.redacted_text == RAW


class NameFinder:
    """Finds "Jane Kowalczyk" as plain text, as a recognizer does: a stand-in for Presidio's PERSON."""

    def detect(self, text: str) -> PhiResult:
        at = text.find("Jane Kowalczyk")
        entities = [] if at < 0 else [PhiEntity(entity_type="PERSON", start=at, end=at + 14)]
        return PhiResult(contains_phi=bool(entities), entities=entities, redacted_text=redact(text, entities))


@pytest.mark.parametrize("hidden", [
    "J\u200bane K\u200bowalczyk",  # zero-width spaces
    "Ja\u00adne Kowal\u00adczyk",  # soft hyphens
    "Jane\u2060 Kowalczyk\u200d",  # word joiner, zero-width joiner
    "\u202eJane Kowalczyk\u202c",  # a bidirectional override
    "\uff2a\uff41\uff4e\uff45 \uff2b\uff4f\uff57\uff41\uff4c\uff43\uff5a\uff59\uff4b",  # full-width letters
    "Jane\x1fKowalczyk",  # a control character between the names
    "J\u0430ne K\u043ew\u0430lczyk",  # Cyrillic look-alike letters inside Latin words (UTS #39 confusables)
    "\u0408\u0430\u0578\u0435 Kowalczyk",  # a word of look-alikes alone, in a text of Latin letters
])
def test_a_name_hidden_by_how_it_is_typed_is_still_phi_and_redacted_whole(hidden: str) -> None:
    text = f"Mrs {hidden}, 71, has CKD: what dose of metformin?"

    result = FailClosedDetector(NameFinder(), timeout_s=5).detect(text)

    assert result.contains_phi and result.entity_types == ["PERSON"]
    as_stored = readable_form(result.redacted_text)[0].split("\n")[0]  # (an override's text is also read as shown)
    assert as_stored == "Mrs <PERSON>, 71, has CKD: what dose of metformin?"
    entity = result.entities[0]
    assert readable_form(text[entity.start:entity.end])[0] == "Jane Kowalczyk"  # offsets into the text as given


def test_a_name_stored_backwards_inside_a_right_to_left_override_is_read_as_shown() -> None:
    """U+202E shows the characters after it in reverse until U+202C (or the line's end): "kyzclawoK enaJ" is shown,
    and read by a model that reverses it, as "Jane Kowalczyk"; the detector reads it as shown, and the whole name is
    redacted in the text as given."""
    text = "Mrs \u202ekyzclawoK enaJ\u202c, 71, has CKD: what dose of metformin?"

    shown = "Mrs Jane Kowalczyk, 71, has CKD: what dose of metformin?"
    assert readable_form(text)[0] == "Mrs kyzclawoK enaJ, 71, has CKD: what dose of metformin?\n" + shown
    result = FailClosedDetector(NameFinder(), timeout_s=5).detect(text)
    assert result.contains_phi
    assert result.redacted_text == "Mrs \u202e<PERSON>\u202c, 71, has CKD: what dose of metformin?"
    assert readable_form("\u202eolleh")[0] == "olleh\nhello"  # an override left open runs to the end of the line


def test_a_question_in_another_script_keeps_its_letters() -> None:
    """Look-alikes are read as Latin only inside a word that mixes them with Latin letters or in a text whose letters
    are mostly Latin: a Russian or Greek question is detected as written."""
    russian = "Какая доза метформина при ХБП?"

    assert readable_form(russian)[0] == russian


def test_a_text_typed_plainly_is_detected_as_it_is() -> None:
    seen: list[str] = []

    class Recording(NameFinder):
        def detect(self, text: str) -> PhiResult:
            seen.append(text)
            return super().detect(text)

    result = FailClosedDetector(Recording(), timeout_s=5).detect("Mrs Jane Kowalczyk:\tdose of metformin?\n")

    assert seen == ["Mrs Jane Kowalczyk:\tdose of metformin?\n"] and result.redacted_text.startswith("Mrs <PERSON>:")


def test_build_detector_honours_the_mode() -> None:
    assert isinstance(build_detector(Settings(phi_mode=PhiMode.OFF)), DisabledPhiDetector)
    assert isinstance(build_detector(Settings(phi_mode=PhiMode.STRICT)), FailClosedDetector)


def test_the_detection_time_limit_comes_from_the_environment_and_stays_below_the_states() -> None:
    assert build_detector(Settings()).timeout_s == 2.0  # type: ignore[attr-defined]
    configured = settings_from_env({"VOICEASSIST_PHI_TIMEOUT_S": "8"})
    assert build_detector(configured).timeout_s == 8.0  # type: ignore[attr-defined]
    with pytest.raises(InvalidInput, match="VOICEASSIST_PHI_TIMEOUT_S"):  # the Detect PHI state gives up at 10 s
        settings_from_env({"VOICEASSIST_PHI_TIMEOUT_S": "12"})


def test_fail_closed_counts_detector_errors_for_the_alarm(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observability, "_metric_lines_to_stderr", False)  # as on Lambda: EMF lines on stdout
    result = FailClosedDetector(ExplodingDetector()).detect("Jane Roe, MRN 123456")
    out = capsys.readouterr().out
    assert result.contains_phi and "PhiDetectorErrors" in out and "Jane Roe" not in out


def test_the_local_runtime_keeps_metric_lines_off_stdout(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """stdout is a CLI's JSON answer (`ask --json`) or the MCP stdio channel: a detector error counted there
    would corrupt it. The local runtime's factory sends the EMF line to stderr."""
    from voiceassist.composition import Dependencies

    monkeypatch.setattr(observability, "_metric_lines_to_stderr", False)
    Dependencies(Settings(data_dir=tmp_path))
    result = FailClosedDetector(ExplodingDetector()).detect("Jane Roe, MRN 123456")
    out, err = capsys.readouterr()
    assert result.contains_phi and out == "" and "PhiDetectorErrors" in err


@pytest.mark.parametrize(("typed", "read"), [
    ("SSN 123\u201345\u20136789", "SSN 123-45-6789"),  # en dashes (a word processor's autocorrect)
    ("call 617\u2011555\u20110199", "call 617-555-0199"),  # non-breaking hyphens
    ("SSN 123\u221245\u22126789", "SSN 123-45-6789"),  # minus signs
    ("DOB 03\u204414\u20441961", "DOB 03/14/1961"),  # fraction slashes
    ("DOB 03\u221514\u22151961", "DOB 03/14/1961"),  # division slashes
    ("MRN \u096a\u096e\u0968\u0967\u0969\u0969\u096d\u096d", "MRN 48213377"),  # Devanagari digits
    ("MRN \u0e54\u0e58\u0e52\u0e51\u0e53\u0e53\u0e57\u0e57", "MRN 48213377"),  # Thai digits
])
def test_numbers_typed_with_other_dashes_slashes_or_digits_read_as_ascii(typed: str, read: str) -> None:
    """Unicode's dash punctuation (category Pd) and the minus sign read as '-', the fraction and division slashes as
    '/', and every decimal digit (category Nd) as its ASCII digit: the recognizers' patterns are ASCII, and
    '617–555–0199' (en dashes) or an MRN in Devanagari digits was not found."""
    text, origins = readable_form(typed)
    assert text == read and len(origins) == len(text)


# The real detector's reading, not its time limit (tested above with detectors that hang): a loaded 2-core machine
# took 1.6-1.8 s for a process's first detection, against production's 2 s (tests/conftest.py waits 15 s too)
READING_TIMEOUT_S = 15.0


def test_a_number_typed_with_en_dashes_is_detected_by_the_real_detector() -> None:
    detector = build_detector(Settings(phi_mode=PhiMode.STRICT), timeout_s=READING_TIMEOUT_S)
    for typed in ("SSN 123\u201345\u20136789, what is the metformin dose?",
                  "call 617\u2013555\u20130199 about the metformin dose",
                  "MRN \u096a\u096e\u0968\u0967\u0969\u0969\u096d\u096d, what is the metformin dose?"):
        result = detector.detect(typed)
        assert result.contains_phi and "6789" not in result.redacted_text and "0199" not in result.redacted_text
        assert "\u096d\u096d" not in result.redacted_text



@pytest.mark.parametrize(("typed", "read"), [
    ("born on the fourteenth of March 1961", "born on the 14th of March 1961"),
    ("DOB fourteenth March nineteen sixty-one", "DOB 14th March 1961"),
    ("DOB March twenty-first, nineteen oh five", "DOB March 21st, 1905"),
    ("seen on the thirty-first of may two thousand and twelve", "seen on the 31st of may 2012"),
    ("born 3 March twenty twenty three", "born 3 March 2023"),
    ("DOB JUNE TWELFTH NINETEEN FORTY", "DOB JUNE 12th 1940"),
])
def test_a_date_written_in_words_reads_as_digits(typed: str, read: str) -> None:
    """Number words beside a month's name (its day before or after it, a year after both) read as digits: a birth
    date dictated or typed in words ("the fourteenth of March 1961") was not found. Each digit maps back into the
    words it comes from, so an entity found on the digits covers those words."""
    text, origins = readable_form(typed)
    assert text == read and len(origins) == len(text)
    assert origins[-1] == len(typed) - 1 and origins == sorted(origins)


@pytest.mark.parametrize("text", [
    "Is one May dose of the vaccine enough?",  # a day before its month is an ordinal ("the first of May")
    "Is the second dose due in March or April?",
    "We may first check the INR: twenty four hours later?",
    "Give three doses over the first two weeks.",
])
def test_number_words_outside_a_date_stay_words(text: str) -> None:
    assert readable_form(text)[0] == text


def test_a_birth_date_written_in_words_is_detected_by_the_real_detector() -> None:
    detector = build_detector(Settings(phi_mode=PhiMode.STRICT), timeout_s=READING_TIMEOUT_S)
    for typed, hidden in (("born on the fourteenth of March 1961, what is the metformin dose?", "fourteenth"),
                          ("DOB fourteenth March nineteen sixty-one, on warfarin", "sixty-one"),
                          ("DOB March the 3rd, '61, on warfarin", "'61")):
        result = detector.detect(typed)
        assert result.contains_phi and "DATE" in result.entity_types, typed
        assert hidden not in result.redacted_text and "March" not in result.redacted_text
