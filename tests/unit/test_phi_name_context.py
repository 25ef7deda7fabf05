"""Names that are also English words (phi/name_context.py): a given name and a surname, or a name followed
by what a patient does; eponyms, drugs, places and terms that open exam questions stay unflagged."""

from __future__ import annotations

import pytest

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.phi.word_lists import GIVEN_NAMES, SURNAMES, word_list
from voiceassist.settings import PhiMode


@pytest.fixture(scope="module")
def strict() -> PresidioPhiDetector:
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    return detector


def _person_texts(detector: PresidioPhiDetector, text: str) -> list[str]:
    result = detector.detect(text)
    return [text[e.start:e.end] for e in result.entities if e.entity_type == "PERSON"]


@pytest.mark.parametrize(("text", "name"), [
    # a known given name and a surname mid-sentence, both English words
    ("can Reuben Dale have ibuprofen with an eGFR of 35?", "Reuben Dale"),
    ("is it safe for Grace Short to fly after a PE?", "Grace Short"),
    # typed in lower case, with a patient's verb after
    ("michale olsen is 64 and has hypertension, target BP?", "michale olsen"),
    # typed in lower case after a word that puts a person next, both words English (the fault matrix's near-miss)
    ("patient john smith has an eGFR of 40: what is the metformin dose?", "john smith"),
    ("seen mary brown today, CURB-65 is 2", "mary brown"),
    ("what is the metformin dose for john smith with eGFR 40?", "john smith"),
    # a surname that is an English word, then a patient's verb
    ("Hines has pneumonia, CURB-65 is 2, treat where?", "Hines"),
    ("Short has pneumonia, CURB-65 is 2, treat where?", "Short"),
    ("Bishop complains of chest pain since last night", "Bishop"),
    ("Mr Khan said Hines presented with syncope", "Hines"),
    ("Dale is on warfarin, INR 4.2, what now?", "Dale"),
    # asked about: "can/does X have/need ..."
    ("can Short have ibuprofen after a GI bleed?", "Short"),
    ("does Hines need a repeat troponin?", "Hines"),
    # a possessive with what only a patient owns
    ("is Short's potassium of 6.1 an emergency?", "Short"),
])
def test_names_that_are_english_words_are_found(strict: PresidioPhiDetector, text: str, name: str) -> None:
    result = strict.detect(text)
    assert result.contains_phi
    assert any(name in found for found in _person_texts(strict, text))
    assert all(part not in result.redacted_text for part in name.split())


@pytest.mark.parametrize("text", [
    # eponyms named after people, with the word that makes them a disease, sign or structure
    "Graves disease has a female predominance",
    "Bell palsy has a good prognosis in most adults",
    "May Thurner syndrome presents with left leg swelling",
    "Charles Bonnet syndrome is common in macular degeneration",
    "Parkinson has been linked to pesticide exposure",
    "is Bell's palsy more common in pregnancy?",
    "describe Little's area and its blood supply",
    # drug names and substances that are surnames or given names
    "Lithium has a narrow therapeutic index",
    "Warfarin has many interactions",
    "can Heparin be given in pregnancy?",
    "Rose Bengal staining of the cornea",
    "the Will Rogers phenomenon in staging",
    "Paul Bunnell test was positive",
    # places and departments named after people
    "the Dale Hospital has a stroke unit",
    "transfer to the Grace Short ward?",
    # clinical sentences with English words that are also names
    "Pain has been present for three days",
    "Blood has a pH of 7.4",
    "A young man was on a high protein diet for 3 days",
    "Which drug has the longest half-life?",
    # a given name and a surname in lower case after "for", but a noun follows: not a person
    "in this cross the allele for violet flower colour (W) is dominant",
])
def test_eponyms_drugs_and_terms_are_not_names(strict: PresidioPhiDetector, text: str) -> None:
    assert _person_texts(strict, text) == []


def test_the_census_lists_are_installed_with_the_package() -> None:
    given, surnames = word_list(GIVEN_NAMES), word_list(SURNAMES)
    assert {"reuben", "dale", "grace"} <= given and len(given) > 5000
    assert {"hines", "short", "smith"} <= surnames and len(surnames) == 15_000
    assert all(word == word.lower() and " " not in word for word in given | surnames)
