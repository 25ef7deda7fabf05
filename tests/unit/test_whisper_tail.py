"""Whisper's doubted tail: a few words after the question's end that begin with a word the recognizer itself doubts
(the trailing silence read as words) are dropped from the transcript; anything it is sure of stays."""

from __future__ import annotations

from voiceassist.adapters.local.whisper_stt import without_doubted_tail, without_echoed_tail, without_repeated_tail
from voiceassist.speech import TranscribedWord


def heard(*pairs: tuple[str, float]) -> list[TranscribedWord]:
    return [TranscribedWord(word=w, start=n, end=n + 0.5, confidence=c) for n, (w, c) in enumerate(pairs)]


def test_a_doubted_word_after_the_question_mark_is_dropped() -> None:
    words = heard(("How", 0.9), ("long", 0.9), ("be", 0.99), ("treated?", 0.98), ("it.", 0.08))

    text, kept = without_doubted_tail("How long be treated? it.", words)

    assert text == "How long be treated?"
    assert [w.word for w in kept] == ["How", "long", "be", "treated?"]


def test_a_second_sentence_the_recognizer_is_sure_of_stays() -> None:
    words = heard(("Patient", 0.9), ("Smith.", 0.6), ("What", 0.95), ("dose?", 0.9))

    assert without_doubted_tail("Patient Smith. What dose?", words) == ("Patient Smith. What dose?", words)


def test_a_doubted_word_inside_the_question_stays() -> None:
    words = heard(("metformin", 0.28), ("dose", 0.09), ("saturated?", 0.3))

    assert without_doubted_tail("metformin dose saturated?", words)[0] == "metformin dose saturated?"


def test_a_sentence_begun_on_silence_is_dropped_though_its_later_words_are_sure() -> None:
    words = heard(("lower", 0.98), ("blood", 0.99), ("pressure?", 0.99), ("Thank", 0.016), ("you", 0.97),
                  ("very", 0.05), ("much.", 0.99))

    text, kept = without_doubted_tail("lower blood pressure? Thank you very much.", words)

    assert text == "lower blood pressure?"
    assert [w.word for w in kept] == ["lower", "blood", "pressure?"]


def test_a_tail_of_two_sentences_begun_on_a_doubted_word_is_dropped() -> None:
    # blind7 read by Piper: "Bye." begun on the silence, then "Thank you." (whose "Thank" is doubted too); and a
    # score's name said again as letters before the goodbyes
    words = heard(("a", 1.0), ("day?", 1.0), ("Bye.", 0.008), ("Thank", 0.015), ("you.", 0.964))
    assert without_doubted_tail("a day? Bye. Thank you.", words)[0] == "a day?"
    words = heard(("in", 0.97), ("CARB", 0.51), ("-65?", 0.64), ("C5.", 0.18), ("Bye.", 0.28), ("Bye.", 0.16))
    text, kept = without_doubted_tail("in CARB -65? C5. Bye. Bye.", words)
    assert text == "in CARB -65?" and [w.word for w in kept] == ["in", "CARB", "-65?"]


def test_a_second_sentence_begun_with_confidence_stays_whole() -> None:
    words = heard(("dose?", 0.9), ("Patient", 0.9), ("Smith.", 0.95), ("Thanks.", 0.05))
    text, kept = without_doubted_tail("dose? Patient Smith. Thanks.", words)
    assert text == "dose? Patient Smith."  # only what follows the doubted word's own sentence end goes
    assert [w.word for w in kept] == ["dose?", "Patient", "Smith."]


def test_a_tail_whose_first_word_is_sure_stays() -> None:
    words = heard(("hypertension?", 0.85), ("And", 0.6), ("hypotension?", 0.1))

    assert without_doubted_tail("hypertension? And hypotension?", words)[0] == "hypertension? And hypotension?"


def test_a_longer_doubted_tail_is_kept_as_said() -> None:
    words = heard(("dose?", 0.9), ("and", 0.1), ("then", 0.1), ("what", 0.1), ("about", 0.1), ("pregnancy", 0.1))

    assert without_doubted_tail("dose? and then what about pregnancy", words)[0] == \
        "dose? and then what about pregnancy"


def test_a_phrase_looped_after_the_question_is_dropped() -> None:
    words = heard(("CURB-65", 0.9), ("score?", 0.9), *[(w, 0.9) for w in ["I'm", "sorry,"] * 6], ("I'm", 0.9))

    text, kept = without_repeated_tail("CURB-65 score? " + "I'm sorry, " * 6 + "I'm", words)

    assert text == "CURB-65 score?"
    assert [w.word for w in kept] == ["CURB-65", "score?"]


def test_a_loop_cut_inside_its_last_word_is_dropped() -> None:
    said = "Heart and anaphylaxis, rare contraindicated. " + "I'm sorry, " * 4 + "I"
    words = heard(*[(w, 0.9) for w in said.split()])

    text, kept = without_repeated_tail(said, words)

    assert text == "Heart and anaphylaxis, rare contraindicated."
    assert kept[-1].word == "contraindicated."


def test_words_repeated_inside_the_question_stay() -> None:
    said = "Is it safe, safe, safe to double the dose?"
    words = heard(("Is", 0.9), ("it", 0.9), ("safe,", 0.9), ("safe,", 0.9), ("safe", 0.9), ("to", 0.9),
                  ("double", 0.9), ("the", 0.9), ("dose?", 0.9))

    assert without_repeated_tail(said, words) == (said, words)


def test_a_phrase_said_twice_after_the_question_stays() -> None:
    words = heard(("dose?", 0.9), ("Thank", 0.9), ("you.", 0.9), ("Thank", 0.9), ("you.", 0.9))

    assert without_repeated_tail("dose? Thank you. Thank you.", words)[0] == "dose? Thank you. Thank you."


def test_the_end_of_the_question_said_again_after_it_is_dropped() -> None:
    said = "Can you tell me the normal starting dose of losartan for hypertension? tension."
    words = heard(*[(w, 0.9) for w in said.split()])

    text, kept = without_echoed_tail(said, words)

    assert text == "Can you tell me the normal starting dose of losartan for hypertension?"
    assert kept[-1].word == "hypertension?"


def test_a_second_question_after_the_first_stays() -> None:
    for said in ("Which dose for hypertension? And for hypotension?", "What dose? so.",
                 "Is amlodipine first line? What about losartan?"):
        words = heard(*[(w, 0.9) for w in said.split()])

        assert without_echoed_tail(said, words) == (said, words)
