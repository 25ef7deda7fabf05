"""Which missing words may block an answer: plain English words (WordNet's lexicographer files), numbers said in
words and contractions typed with their apostrophe weigh as ordinary words, never as missing topics."""

from __future__ import annotations

from pathlib import Path

from voiceassist_local.evaluation import plain_word_data

from tests.support.passages import passage_hit
from voiceassist.query import evidence, plain_words
from voiceassist.query.siblings import qualified_terms

TIMING = ("Measure blood pressure after the patient has rested seated for 5 minutes; average two or more readings "
          "taken a minute apart.")
LEVOFLOXACIN = "For outpatients with comorbidities, levofloxacin 750 mg once daily is an alternative for pneumonia."


hit = passage_hit


def weights(question: str) -> dict[str, float]:
    return {c.label: c.weight for c in evidence.question_concepts(question)}


def test_plain_words_lists_people_time_and_manner_words_not_clinical_ones() -> None:
    # every WordNet sense of these names a person, a feeling or a manner
    assert {"ladies", "lad", "sir", "panicking", "quietly"} <= plain_words.plain_words()
    # a sense of each is a state, a body part, a substance or an act: it may be the clinical topic
    assert not {"sick", "fever", "heart", "infusion", "dose", "rules", "ceiling"} & plain_words.plain_words()
    # population terms stay topics although WordNet files them under people
    assert not {"infant", "infants", "child", "adult", "elderly"} & plain_words.plain_words()


def test_a_plain_word_is_not_a_missing_topic_but_counts_when_the_passage_holds_it() -> None:
    question = "one of my ladies wants to know how long to sit quietly before the bp reading"

    found = evidence.assess(question, [hit(TIMING, "Hypertension")])

    assert weights(question)["ladies"] == weights(question)["quietly"] == evidence.GENERIC_WEIGHT
    assert "ladies" not in found.passages[0].missing and "quietly" not in found.passages[0].missing
    held = evidence.assess(question, [hit("Some ladies sit quietly for five minutes before a reading.", "Clinic")])
    assert held.passages[0].coverage > found.passages[0].coverage  # held, it counts fully


def test_an_unknown_word_stays_a_topic() -> None:
    # WordNet does not know a brand the drug dictionary lacks: it is the thing asked about
    assert weights("dose of zorbazol for pneumonia")["zorbazol"] == 1.0


def test_a_number_said_in_words_is_no_topic_and_no_condition_modifier() -> None:
    question = "home readings or the twenty-four hour monitor to confirm it?"

    assert "twenty-four" not in weights(question)
    assert weights(question)["hour"] == evidence.GENERIC_WEIGHT
    assert qualified_terms("the twenty-four hour monitor") == ()
    assert weights("adrenaline for im use, is it the one in a thousand?")["thousand"] == evidence.GENERIC_WEIGHT
    assert [q.written for q in qualified_terms("hospital-acquired pneumonia")] == ["hospital-acquired pneumonia"]


def test_a_contraction_typed_with_its_apostrophe_is_a_function_word() -> None:
    # (session 18) the missing topic in the asking clause: a word only the story names ("he won't go to hospital,
    # levofloxacin dose ...?") weighs nothing missing since the story is read apart from the ask (story18)
    question = "he won't take tablets, levofloxacin dose for his pneumonia in hospital?"

    found = evidence.assess(question, [hit(LEVOFLOXACIN, "Community-acquired pneumonia")])

    assert not any("won" in label or label == "wo" for label in weights(question))
    assert found.passages[0].missing == ("hospital",)


def test_a_filled_pause_is_never_a_topic_but_an_abbreviation_typed_in_capitals_is() -> None:
    # spoken questions as transcribed: "um", "er", "uh", "erm", "hmm" (and held longer) are pauses, not topics
    for question, pause in (("Um, what does a CURB score of two actually mean for admitting them?", "Um"),
                            ("Which thiazide-type diuretic, er, and what dose, for first line?", "er"),
                            ("uh what dose of levofloxacin for pneumonia", "uh"),
                            ("erm levofloxacin dose for pneumonia", "erm"),
                            ("hmm, levofloxacin dose for pneumonia, ummm, with comorbidities", "hmm")):
        assert pause not in weights(question), question
        found = evidence.assess(question, [hit(LEVOFLOXACIN, "Community-acquired pneumonia")])
        assert pause.lower() not in (m.lower() for m in found.passages[0].missing), question
    assert "ummm" not in weights("hmm, levofloxacin dose for pneumonia, ummm, with comorbidities")
    # "ER" in capitals is the extended-release form (or the emergency room), "err" an English verb
    assert weights("Metformin ER - max dose?")["ER"] == 1.0


def test_plain_word_data_reads_every_sense_of_every_part_of_speech(tmp_path: Path) -> None:
    # WordNet's files in their format (wndb(5WN)): index.<pos> lemma pos synset_cnt p_cnt [ptr...] sense_cnt
    # tagsense_cnt offsets; data.<pos> offset lex_filenum ...; <pos>.exc inflected base
    index = {"noun": ["lady n 1 0 1 0 00000001", "bump n 1 0 1 0 00000002"],
             "verb": ["bump v 1 0 1 0 00000003", "wander v 1 0 1 0 00000004"],
             "adj": [], "adv": ["quietly r 1 0 1 0 00000005"]}
    data = {"noun": ["00000001 18 n 01 lady 0 000 | a woman", "00000002 07 n 01 bump 0 000 | a swelling"],
            "verb": ["00000003 38 v 01 bump 0 000 | knock", "00000004 38 v 01 wander 0 000 | roam"],
            "adj": [], "adv": ["00000005 02 r 01 quietly 0 000 | with little noise"]}
    for part in ("noun", "verb", "adj", "adv"):
        (tmp_path / f"index.{part}").write_text("\n".join(index[part]) + "\n", encoding="latin-1")
        (tmp_path / f"data.{part}").write_text("\n".join(data[part]) + "\n", encoding="latin-1")
        (tmp_path / f"{part}.exc").write_text("", encoding="latin-1")
    (tmp_path / "noun.exc").write_text("ladies lady\n", encoding="latin-1")
    for cached in (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions):
        cached.cache_clear()
    try:
        # 18 noun.person, 38 verb.motion, 02 adv.all: plain; "bumped" can only be the verb (no noun rule strips
        # "-ed"), while "bump" is also the noun, a swelling (07 noun.attribute)
        assert plain_word_data.is_plain("ladies", tmp_path)
        assert plain_word_data.is_plain("wandering", tmp_path)
        assert plain_word_data.is_plain("bumped", tmp_path)
        assert plain_word_data.is_plain("quietly", tmp_path)
        assert not plain_word_data.is_plain("bump", tmp_path)  # the noun is a swelling (noun.attribute)
        assert not plain_word_data.is_plain("zorbazol", tmp_path)  # WordNet lacks it
    finally:
        for cached in (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions):
            cached.cache_clear()
