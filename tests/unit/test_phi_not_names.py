"""Words the name recognizers took for names and are not (phi/not_names.py): an organism's species after its
abbreviated genus, English words and clinical shorthand in a text without capitals, an amount after "max", and a
patient's state after a bed number. Beside each, the real names that must still be found in the same place."""

from __future__ import annotations

import pytest

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.phi.not_names import caseless_english
from voiceassist.settings import PhiMode


@pytest.fixture(scope="module")
def strict() -> PresidioPhiDetector:
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    return detector


@pytest.mark.parametrize(
    "text",
    [
        "E. Coli UTI in pregnancy: which antibiotic?",
        "what is the first line for e. coli uti",
        "H. Pylori eradication after two failed courses?",
        "c. trachomatis in a pregnant woman: azithromycin dose?",
        "E.Coli bacteraemia: how long IV?",
    ],
)
def test_an_organism_after_its_abbreviated_genus_is_not_a_name(strict: PresidioPhiDetector, text: str) -> None:
    assert not strict.detect(text).contains_phi


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("E. Rossi reviewed her yesterday", "Rossi"),
        ("e. rossi has chest pain", "rossi"),
        ("D. Barbara has a fever", "Barbara"),  # a species (Decumaria barbara) that is a Census name
        ("Mr Coli, 71, new AF: anticoagulate?", "Coli"),
    ],
)
def test_a_surname_after_an_initial_or_a_title_is_still_a_name(
    strict: PresidioPhiDetector, text: str, name: str
) -> None:
    result = strict.detect(text)

    assert result.contains_phi and name not in result.redacted_text


@pytest.mark.parametrize(
    "text",
    [
        "after uptitrating bp meds how soon do i recheck",
        "took two tablets then vomited what now",
        "she took her metformin twice by mistake",
        "when to recheck potassium after starting spironolactone",
        "paracetamol max eight a day",
        "max eight tablets a day of paracetamol?",
        "whats the max 4 puffs a day for salbutamol",
        "pt admitted with pneumonia",  # "admitted": admit, the consonant doubled before -ed
        "pt omitted her evening dose of ramipril",
        "gp referring him for a cough",
    ],
)
def test_english_words_without_capitals_are_not_names(strict: PresidioPhiDetector, text: str) -> None:
    result = strict.detect(text)

    assert not result.contains_phi and result.redacted_text == text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Dr Took reviewed her", "Took"),
        ("mr took 71 new af", "took"),
        ("seen by took yesterday", "took"),
        ("Max Eight attended with chest pain", "Max Eight"),
        ("pt max eight years old with fever", "max"),
        ("john smith has chest pain", "smith"),
        ("upton has chest pain", "upton"),  # up + ton, but a Census surname
        ("rehill has chest pain since yesterday", "rehill"),
        ("avi has a fever", "avi"),  # a clinical abbreviation too, but a noun before a verb
        ("paracetamol for amir khan", "amir khan"),
        ("canning has chest pain", "canning"),  # can + n + ing, but a Census surname
        ("seen by dunning yesterday", "dunning"),
        ("bed 4 fanning, 71, new AF", "fanning"),
    ],
)
def test_names_in_a_name_slot_are_still_found(strict: PresidioPhiDetector, text: str, name: str) -> None:
    result = strict.detect(text)

    assert result.contains_phi and name not in result.redacted_text


def test_a_prefixed_english_word_is_english_unless_it_is_a_census_name() -> None:
    def known(word: str) -> bool:
        return word in {"titrate", "check", "ton"}

    assert caseless_english("uptitrate", known)
    assert caseless_english("recheck", known)
    assert not caseless_english("upton", known)  # a Census surname
    assert not caseless_english("kowalczyk", known)


@pytest.mark.parametrize(
    "text",
    [
        "Bed 7, post-op day 2, pain score 8: what next?",
        "bed 7 post op day 2 drain output 300 ml when to remove",
        "bay 3 young man with chest pain: aspirin now?",
        "Handover - bay 3, day 2 of IV co-amoxiclav, CRP falling, can we step down to oral?",
    ],
)
def test_a_patients_state_after_a_bed_number_is_not_a_name(strict: PresidioPhiDetector, text: str) -> None:
    assert not strict.detect(text).contains_phi


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("bed 12 baker needs a review", "baker"),
        ("bed 3 white, 71, new AF", "white"),
        ("Bed 7, Baker, post-op day 2", "Baker"),
        ("bed 12 kowalczyk post op", "kowalczyk"),
        ("bed 4 post", "post"),
        ("bed 4 june, 71, new AF", "june"),
    ],
)
def test_a_name_after_a_bed_number_is_still_found(strict: PresidioPhiDetector, text: str, name: str) -> None:
    result = strict.detect(text)

    assert result.contains_phi and name not in result.redacted_text
