"""The way a question is typed or dictated (decision 0024, session 18): dictation's spoken punctuation left as words,
a unit said in words, text speak ("wht", "chk"), a short word of a pidgin or another language typed as a particle or
a term of address, and an oral or clinical examination named at the head of an item (query/wording.py,
query/question_concepts.py). Sentences written for these tests, none from a question set."""

from __future__ import annotations

import zipfile
from pathlib import Path

from voiceassist_local.evaluation import plain_word_data, text_speak_data

from voiceassist.query import terminology, wording
from voiceassist.query.question_concepts import phone_typo, question_concepts, unit_symbols, unknown_particles


def labels(question: str) -> set[str]:
    return {c.label.lower() for c in question_concepts(question)}


def topics(question: str) -> set[str]:
    return {c.label.lower() for c in question_concepts(question) if c.topic}


# (1) dictation's spoken punctuation


def test_a_spoken_mark_standing_where_a_mark_stands_is_that_mark() -> None:
    assert wording.dictated("she is better now, period. Can she go home, question mark") == (
        "she is better now, " + "." + " " * 5 + ". Can she go home, " + "?" + " " * 12)
    assert "comma" not in labels("Warfarin held since Monday, comma, when do I restart it")
    assert not {"new", "paragraph", "full", "stop"} & labels("New paragraph. Bisoprolol target heart rate, full stop.")


def test_a_spoken_mark_inside_a_phrase_is_the_word() -> None:
    # the clinical "period" and "colon", and a "comma" that is no command, stay words
    assert "period" in labels("heavy bleeding every period, is tranexamic acid ok?")
    assert wording.dictated("a period of 3 days") == "a period of 3 days"
    assert wording.dictated("CT colon, any prep needed?") == "CT colon, any prep needed?"


def test_the_marks_keep_the_positions_of_the_rest() -> None:
    text = "Started on amlodipine, comma, ankles swollen, full stop"
    assert len(wording.dictated(text)) == len(text)


def alternatives(question: str, label: str) -> set[frozenset[str]]:
    return next(set(c.alternatives) for c in question_concepts(question) if c.label.lower() == label)


def test_a_unit_said_in_words_is_covered_by_its_symbol() -> None:
    assert frozenset({"kg"}) in alternatives("gentamicin, how many milligrams per kilogram?", "kilogram")
    assert frozenset({"mg"}) in alternatives("gentamicin, how many milligrams per kilogram?", "milligrams")
    assert unit_symbols("millilitres") == ("ml",) and unit_symbols("milliliter") == ("ml",)
    assert unit_symbols("micrograms") == ("ug", "mcg")
    assert unit_symbols("millimoles") == ("mmol",)


def test_a_number_with_a_unit_in_words_is_a_quantity() -> None:
    # as "25 kg" typed: no topic
    assert not {"kilos", "twenty", "five"} & labels("toddler about twenty five kilos, ibuprofen dose?")
    assert "kilograms" not in labels("she weighs 52 kilograms, gentamicin dose?")
    assert "kilo" in labels("ibuprofen dose per kilo?")  # no number: the unit asked, covered by "kg"


def test_a_word_that_only_begins_like_a_unit_is_none() -> None:
    assert unit_symbols("gram") == ()  # one letter: no term
    assert unit_symbols("milligrammatic") == ()
    assert unit_symbols("microscope") == ()
    assert unit_symbols("kilometric") == ()


# (2) text speak


def test_text_speak_is_read_as_the_words_it_spells() -> None:
    assert wording.untexted("wht dose of colchicine shd i give b4 bed") == (
        "what dose of colchicine should i give before bed")
    assert not {"wht", "chk", "shd"} & labels("gave furosemide yest, wht electrolytes shd I chk")
    assert wording.untexted("Plz confirm") == "Please confirm"


def test_clinical_shorthand_and_acronyms_are_not_text_speak() -> None:
    table = terminology.text_speak()
    for clinical in ("po", "im", "pt", "bd", "tds", "prn", "od", "bc"):
        assert clinical not in table
    assert wording.untexted("PLZ") == "PLZ"  # capitals: an acronym, as typed
    assert wording.untexted("mg/wk") == "mg/wk"  # a unit's part
    # another language's function word is not the chat spelling it resembles ("hai": Hindi's "is", chat's "hello")
    assert "hai" not in table


def test_the_list_keeps_respellings_not_initialisms() -> None:
    meanings = terminology.text_speak()
    assert meanings["chk"] == "check" and meanings["b4"] == "before"
    assert all(key != "".join(w[0] for w in value.split()) for key, value in meanings.items())


def test_the_writer_keeps_only_respellings_of_english_words(tmp_path: Path) -> None:
    assert all(p.exists() for p in (*text_speak_data.ENGLISH_LISTS, plain_word_data.WORDNET)), (
        "tests/setup.sh installs Debian's wamerican-large, wbritish-large and wordnet")
    source = "\n".join([
        "slangdict = {",
        '    "wht": "What",',  # kept, lower case
        '    "b4": "before",',
        '    "tbh": "to be honest",',  # initials, three words
        '    "po": "piss off",',  # per os
        '    "hai": "hello",',  # Hindi's "is"
        '    "fine": "fine",',  # an English word
        '    "nyc": "New York City",',  # a name's initials
        '    # "2": "too",',
        "}",
    ])
    wheel = tmp_path / "ekphrasis-0.5.4-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(text_speak_data.SLANG_MEMBER, source)
    assert text_speak_data.spellings(wheel) == [("b4", "before"), ("wht", "what")]


def test_a_phone_typo_of_an_asking_word_is_that_word() -> None:
    assert phone_typo("strated") == "started" and phone_typo("chnage") == "change"
    assert "strting" not in labels("gliclazide strting dose pls")


def test_a_clinical_word_the_vocabulary_lacks_is_no_typo() -> None:
    # one edit from a frequent English word that is no asking word: left as typed
    assert phone_typo("articular") is None and phone_typo("costal") is None
    assert phone_typo("Strated") is None  # capitalised: a name
    assert phone_typo("abpm") is None


# (3) a pidgin's or another language's short word typed as a particle or a term of address


def test_an_unknown_short_word_typed_as_a_particle_is_no_topic() -> None:
    assert unknown_particles("Oga, what is the starting dose of bisoprolol?") == {"oga"}
    assert "abeg" not in labels("Wat is the paracetamol max for a day abeg?")
    assert "doba" not in labels("Ile mg prednisolone per doba? asthma flare")
    assert unknown_particles("wheeze still there leh, give salbutamol again?") == {"leh"}


def test_an_unknown_brand_or_abbreviation_stays_a_topic() -> None:
    # a longer unknown word is no particle (an unknown brand), nor a lower-case abbreviation without a vowel, nor a
    # word inside a clause, nor a clinical abbreviation ("po")
    assert "piriton" in topics("how much piriton?")
    assert unknown_particles("raised jvp?") == frozenset()
    assert unknown_particles("give the abeg tablets twice daily") == frozenset()
    assert unknown_particles("then switch to po?") == frozenset()
    assert "piriton" in topics("Piriton, how much for a 10 year old?")


# (4) an examination named at the head of the item


def test_an_examination_named_at_the_head_frames_the_item() -> None:
    assert "viva" not in labels("Viva: how does spironolactone cause hyperkalaemia?")
    assert not {"osce", "station"} & labels("OSCE station - counsel on inhaler technique")
    assert "viva" not in labels("For my viva, name two causes of raised troponin")
    assert wording.exam_item("Viva question, list the signs of digoxin toxicity")


def test_an_examination_named_inside_the_question_is_a_word() -> None:
    assert "viva" in labels("how do I prepare for a viva on renal medicine")
    assert not wording.exam_item("how do I prepare for a viva on renal medicine")
