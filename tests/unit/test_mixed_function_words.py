"""Another language's function words mixed into an English question are no topic (query/question_concepts.py,
mixed_function_words; the lists: _data/concepts/mixed_stop_words.tsv, voiceassist_local.evaluation.mixed_stop_words).
Sentences written for these tests, none from a question set."""

from __future__ import annotations

from pathlib import Path

from voiceassist_local.evaluation.mixed_stop_words import english_words, mixed_stop_words

from voiceassist.query import terminology
from voiceassist.query.question_concepts import mixed_function_words, question_concepts


def topics(question: str) -> set[str]:
    return {c.label.lower() for c in question_concepts(question) if c.topic}


def test_hindi_function_words_typed_in_latin_letters_are_no_topic() -> None:
    question = "amlodipine ki dose kya hai, subah lena hai ya raat ko?"

    assert {"kya", "hai", "lena"} <= mixed_function_words(question.replace(",", " ").replace("?", " ").split())
    assert not {"kya", "hai", "lena"} & topics(question)
    assert "amlodipine" in topics(question)  # the drug stays the topic
    assert {"subah", "raat"} <= topics(question)  # content words of Hindi (morning, night): no function word list


def test_malay_function_words_mixed_in_are_no_topic() -> None:
    question = "saya nak tahu boleh bagi ceftriaxone untuk budak ini"

    assert not {"saya", "boleh", "untuk", "ini"} & topics(question)
    assert "ceftriaxone" in topics(question)


def test_one_stray_word_of_another_language_is_shorthand_and_stays() -> None:
    # "pred" is a Czech and Slovak preposition, "od" a Polish one: alone, each is a clinician's shorthand
    assert mixed_function_words(["cetirizine", "and", "pred", "enough"]) == frozenset()
    assert "pred" in topics("is cetirizine and pred enough for hives")


def test_a_word_the_concept_layer_knows_is_never_another_languages() -> None:
    # "aur" is Hindi for "and", and the abbreviation list's AUR (acute urinary retention) typed in lower case: kept
    assert "aur" in terminology.mixed_stop_words()["hi-Latn"]
    assert "aur" not in mixed_function_words(["tamsulosin", "aur", "kya", "hai"])
    # typed in capitals it is an acronym, whatever another language writes alike
    assert "KYA" not in {w.upper() for w in mixed_function_words(["KYA", "hai", "dose"])}


def test_the_list_leaves_out_english_words_and_other_scripts(tmp_path: Path) -> None:
    american = tmp_path / "american"
    american.write_text("air\nthe\nDena\nmain\n", encoding="utf-8")

    english = english_words((american,))
    kept = mixed_stop_words({"ms": frozenset({"air", "untuk", "yang"}), "hi-Latn": frozenset({"the", "dena", "hai"}),
                             "hi": frozenset({"\u0939\u0948"})}, english)

    assert english == frozenset({"air", "the", "main"})  # a name ("Dena") is no common English word
    assert kept == {"hi-Latn": ["dena", "hai"], "ms": ["untuk", "yang"]}

