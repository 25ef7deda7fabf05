"""Transcript repair: the recognizer's spellings of the knowledge base's terms are put back, and nothing else
changes."""

from __future__ import annotations

import logging
import re

import pytest

from voiceassist.speech.repair import Vocabulary, corrections, double_sound, repaired, sound
from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary, english_words, followers

TERMS = ["metformin", "eGFR", "ACE", "amoxicillin", "chronic kidney disease", "epinephrine", "B12", "lisinopril",
         "amlodipine", "doxycycline", "antibiotic", "diuretic", "diuretics", "antihistamines"]
VOCABULARY = Vocabulary.of(TERMS)


@pytest.mark.parametrize(("heard", "meant"), [
    ("What is the maximum daily dose of met for min?", "What is the maximum daily dose of metformin?"),
    ("Is lycinopril safe in pregnancy?", "Is lisinopril safe in pregnancy?"),
    ("What is the maximum daily dose of metfromin?", "What is the maximum daily dose of metformin?"),
    ("How is the Metform Indos titrated?", "How is the metformin Indos titrated?"),
    ("What is the metformin dose for EGFR-40?", "What is the metformin dose for eGFR 40?"),
    ("Is the dose of a moxicillin weight based?", "Is the dose of amoxicillin weight based?"),
])
def test_repair_puts_back_a_term_the_recognizer_split_or_misspelled(heard: str, meant: str) -> None:
    assert repaired(heard, VOCABULARY) == meant


@pytest.mark.parametrize("said", [
    "Metformin and vitamin B12: is there an interaction?",  # a term opening a sentence keeps its capital
    "Chronic kidney disease stage 3b: which dose?",
    "How long should community-acquired pneumonia be treated?",  # no term, nothing to do
    "What is the maximum dose for a patient born 03/04/1961, MRN 4411823?",  # numbers stay as heard
    "Can I see the inhibitors, and they are being combined?",  # short words never become a term by sound
    "Which antibiotics after starting diuretics?",  # a term's plural, said right, stays plural
    "How long should antibiotics be given for pneumonia?",  # a word beside a term is not part of it
    "Which thiazide-like diuretic dose is used first?",
    "Are antihistamines first-line for anaphylaxis?",
])
def test_repair_leaves_a_transcript_without_a_misheard_term_unchanged(said: str) -> None:
    assert repaired(said, VOCABULARY) == said


@pytest.mark.parametrize(("heard", "term"), [
    ("Is metformin contraindicated in severe renal impairment?", "severity"),  # an English word, heard right
    ("Should metformin be withheld before contrast?", "withhold"),
    ("Which antibiotic for a patient allergic to penicillin?", "allergy"),  # the term with another ending
    ("How often should blood pressure be reassessed?", "reassess"),
])
def test_repair_never_bends_an_english_word_or_another_form_of_the_term(heard: str, term: str) -> None:

    vocabulary = Vocabulary.of([*TERMS, term], known=english_words().keys())

    assert repaired(heard, vocabulary) == heard


def test_repair_puts_back_a_misheard_condition_that_is_no_english_word() -> None:

    vocabulary = Vocabulary.of([*TERMS, "anaphylaxis", "acidosis"], known=english_words().keys())

    assert repaired("How is Arminophilaxis recognised?", vocabulary) == "How is anaphylaxis recognised?"


def test_repair_writes_only_vocabulary_terms() -> None:
    heard = "Patient Jon Smyth asks if met for min is safe at an EGFR of 40 with amlodipine."

    out = repaired(heard, VOCABULARY)

    assert out == "Patient Jon Smyth asks if metformin is safe at an eGFR of 40 with amlodipine."
    added = set(out.split()) - set(heard.split())
    assert added <= {"metformin", "eGFR"}


def test_repair_leaves_the_words_the_phi_detector_found_as_heard() -> None:
    vocabulary = Vocabulary.of(["losartan", "Cozaar", "pneumonia"], known=english_words().keys())
    heard = "Is Mr Casarez still on his losartan?"
    name = (heard.index("Casarez"), heard.index("Casarez") + len("Casarez"))

    assert repaired(heard, vocabulary) == "Is Mr Cozaar still on his losartan?"  # the surname sounds like the brand
    assert repaired(heard, vocabulary, keep=[name]) == heard
    assert repaired("Is Mr Casarez on lozartan?", vocabulary, keep=[(6, 13)]) == "Is Mr Casarez on losartan?"


def test_repair_leaves_a_hyphenated_name_the_phi_detector_found_as_heard() -> None:
    vocabulary = Vocabulary.of(["losartan"], known=english_words().keys())
    heard = "Is Mrs Lozar-Tan still on lo-sartan?"
    name = (heard.index("Lozar-Tan"), heard.index("Lozar-Tan") + len("Lozar-Tan"))

    assert repaired(heard, vocabulary) == "Is Mrs losartan still on losartan?"  # pieces that sound like the drug
    assert repaired(heard, vocabulary, keep=[name]) == "Is Mrs Lozar-Tan still on losartan?"


def test_knowledge_base_vocabulary_repairs_nothing_the_phi_detector_found_or_failed_on() -> None:
    passages = ["Losartan 50 mg daily.", "Pneumonia is treated for five days."]
    heard = "Casarez is on lozartan for pneumonia."
    found: list[str] = []

    def spans(text: str) -> list[tuple[int, int]]:
        found.append(text)  # the transcript as heard, before any repair
        return [(0, 7)]

    def failing(text: str) -> None:
        return None

    assert KnowledgeBaseVocabulary(lambda: passages).repair(heard) == "Cozaar is on losartan for pneumonia."
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=spans).repair(heard) == \
        "Casarez is on losartan for pneumonia."
    assert found == [heard]
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=failing).repair(heard) == heard


def test_repair_with_no_vocabulary_returns_the_transcript() -> None:
    assert repaired("is met for min safe?", Vocabulary.of(())) == "is met for min safe?"


def test_knowledge_base_vocabulary_repairs_with_terms_beyond_the_prompt() -> None:
    passages = ["Metformin is contraindicated below an eGFR of 30.", "Amoxicillin 500 mg three times daily."]
    vocabulary = KnowledgeBaseVocabulary(lambda: passages, max_terms=0)

    assert vocabulary.prompt() is None  # no prompt by default
    assert vocabulary.repair("is met for min safe at an EGFR of 25?") == "is metformin safe at an eGFR of 25?"
    assert KnowledgeBaseVocabulary(lambda: passages, repair_terms=0).repair("met for min") == "met for min"


@pytest.mark.parametrize(("heard", "meant"), [
    ("What's the first choice and to biotic for pneumonia?", "What's the first choice antibiotic for pneumonia?"),
    ("Is lactocacidosis a worry with metformin?", "Is lactic acidosis a worry with metformin?"),
    ("Islactic acidosis a worry with metformin?", "Is lactic acidosis a worry with metformin?"),
    ("I just started my patient on last-arton, what do I check?", "I just started my patient on losartan, what do "
     "I check?"),  # a term written in hyphenated pieces
])
def test_repair_puts_back_a_term_heard_as_pieces_that_are_no_english_word(heard: str, meant: str) -> None:

    vocabulary = Vocabulary.of([*TERMS, "lactic", "acidosis", "losartan"], known=english_words().keys())

    assert repaired(heard, vocabulary) == meant


@pytest.mark.parametrize("said", [
    "Are antihistamines first-line for anaphylaxis?",  # English words beside a term stay
    "Which antibiotic to give at home?",
    "Is acidosis common, and how is lactate measured?",
    "Is long-term metformin a first-line choice after a follow-up x-ray?",  # hyphenated English words stay
    "Is the thigh-side injection less painful?",  # though "thighside" sounds like "thiazide"
])
def test_repair_never_joins_english_words_said_right_into_a_term(said: str) -> None:

    vocabulary = Vocabulary.of([*TERMS, "lactic", "acidosis", "losartan", "thiazide"], known=english_words().keys())

    assert repaired(said, vocabulary) == said


@pytest.mark.parametrize("said", [
    "can I just give an antihistamine instead of the adrenaline",  # the term with another ending, after "an"
    "resp rate cutoff in curb",  # an abbreviation before an English word
    "abx for cap outpt no comorbidities",
])
def test_repair_never_takes_a_typed_abbreviation_or_another_form_for_a_split_term(said: str) -> None:

    vocabulary = Vocabulary.of([*TERMS, "respiratory", "outpatient"], known=english_words().keys())

    assert repaired(said, vocabulary) == said


GLUED = Vocabulary.of([*TERMS, "lactic", "acidosis"], known=english_words().keys())


@pytest.mark.parametrize(("heard", "meant"), [
    # espeak-ng's "What's metformin actually used for", blind12_spoken: a term and the English word after it glued
    ("What's metforminactually used for, is it still first line?",
     "What's metformin actually used for, is it still first line?"),
    ("Is amoxicillinsafe in pregnancy?", "Is amoxicillin safe in pregnancy?"),
    ("Does lactic acidosisoccur often?", "Does lactic acidosis occur often?"),
])
def test_repair_splits_a_term_glued_to_the_english_word_after_it(heard: str, meant: str) -> None:
    assert repaired(heard, GLUED) == meant


@pytest.mark.parametrize("said", [
    "Are metformins all alike?",  # the term and an ending: shorter than MIN_GLUED_FOLLOWING
    "Is amoxicillinical a word?",  # an ending, however long
    "Is metforminxyzzy a brand?",  # the rest is no English word
    "Are antihistamines first-line?",  # a term as written
])
def test_repair_never_splits_a_term_and_an_ending_or_a_fragment(said: str) -> None:
    assert repaired(said, GLUED) == said


def test_repair_leaves_a_glued_term_the_phi_detector_found_as_heard() -> None:
    heard = "Is Mr Metforminsafe on metforminsafe doses?"
    kept = heard.index("Metforminsafe")
    assert repaired(heard, GLUED) == "Is Mr metformin safe on metformin safe doses?"
    assert repaired(heard, GLUED, keep=[(kept, kept + len("Metforminsafe"))]) == \
        "Is Mr Metforminsafe on metformin safe doses?"


DOUBTING = Vocabulary.of(["losartan", "epinephrine", "thiazide", "anaphylaxis", "metformin"],
                         known=english_words().keys())


def doubted(text: str, *words: str) -> list[tuple[int, int]]:
    """The spans of `words` in `text`, as the recognizer's word confidences mark them doubted."""
    return [(text.index(word), text.index(word) + len(word)) for word in words]


def test_repair_bends_english_words_the_recognizer_doubted_to_a_term_that_sounds_like_them() -> None:
    # Given a transcript whose English words sound like a term ("lows are tan": losartan, Metaphone LSRTN)
    heard = "Can I start lows are tan in a patient with gout?"
    # When the recognizer was sure of every word, they are English words heard right and stay
    assert repaired(heard, DOUBTING) == heard
    # When it doubted all three, they are its guess at a word it did not know: the term is written, and the change
    # is reported as heard -> written
    text, changes = corrections(heard, DOUBTING, doubted=doubted(heard, "lows", "are", "tan"))
    assert text == "Can I start losartan in a patient with gout?"
    assert changes == [("lows are tan", "losartan")]


def test_repair_takes_a_word_the_recognizer_was_sure_of_as_heard() -> None:
    heard = "Can I start lows are tan in a patient with gout?"
    # one of the words heard with confidence: the span is not the recognizer's guess
    assert repaired(heard, DOUBTING, doubted=doubted(heard, "lows", "are")) == heard


@pytest.mark.parametrize("heard", [
    "Which antibiotics after starting the metformin?",  # a term heard as a term, doubted or not, stays
    "Is it safe in pregnancy?",  # doubted words that sound like no term
    "How often should the dose be reviewed?",
])
def test_repair_leaves_doubted_words_that_are_terms_or_sound_like_none(heard: str) -> None:
    every = [(token.start(), token.end()) for token in re.finditer(r"\S+", heard)]
    assert repaired(heard, DOUBTING, doubted=every) == heard


def test_repair_never_bends_a_doubted_name_the_phi_detector_found() -> None:
    # Given a surname the recognizer doubted that sounds like a term ("Lowes Artan" and losartan)
    heard = "Is Mr Lowes Artan still taking his tablets?"
    name = doubted(heard, "Lowes Artan")
    assert repaired(heard, DOUBTING, doubted=doubted(heard, "Lowes", "Artan")) == \
        "Is Mr losartan still taking his tablets?"  # without the PHI check the name would become the drug
    # When the PHI detector found it, it stays as heard, doubted or not
    assert corrections(heard, DOUBTING, keep=name, doubted=doubted(heard, "Lowes", "Artan")) == (heard, [])


REGROUPED = Vocabulary.of(["metformin", "losartan", "anaphylaxis"], known=english_words())


@pytest.mark.parametrize(("heard", "meant"), [
    # espeak-ng's "can they stay on metformin?", blind10_spoken: the term's first letters heard with the word before
    ("The patient's kidney function has dropped below 30, can they stay unmet formin?",
     "The patient's kidney function has dropped below 30, can they stay un metformin?"),
    ("Unmet formin, is it safe in pregnancy?", "Un metformin, is it safe in pregnancy?"),  # the capital stays first
])
def test_repair_regroups_words_said_apart_at_the_wrong_place_into_a_short_word_and_a_term(heard: str,
                                                                                          meant: str) -> None:
    assert repaired(heard, REGROUPED) == meant


@pytest.mark.parametrize("said", [
    "Can they stay on metformin?",  # the short word and the term as written
    "Is the unmet need for losartan high?",  # English words throughout: no fragment
    "Is it a losartan tablet?",  # a short word before the term, both as written
])
def test_repair_never_regroups_words_said_right(said: str) -> None:
    assert repaired(said, REGROUPED) == said


def test_repair_leaves_regrouped_words_the_phi_detector_found_as_heard() -> None:
    """A name written as pieces that regroup into a short word and a term ("Unmet Formin", a surname) stays as heard
    when the PHI detector found it."""
    heard = "Is Mr Unmet Formin on unmet formin?"
    kept = heard.index("Unmet Formin")
    assert repaired(heard, REGROUPED) == "Is Mr Un metformin on un metformin?"
    name = [(kept, kept + len("Unmet Formin"))]
    assert repaired(heard, REGROUPED, keep=name) == "Is Mr Unmet Formin on un metformin?"


FOLLOWED = Vocabulary.of(["CURB-65", "metformin"], known=english_words(),
                         followers=followers(["The CURB-65 score counts confusion, urea, breathing rate and age.",
                                              "A CURB-65 of 2 or more: consider hospital care.",
                                              "Start metformin at 500 mg; metformin can cause lactic acidosis."]))


@pytest.mark.parametrize(("heard", "meant"), [
    # espeak-ng's "CURB sixty-five score" (blind7, blind10, blind11, blind12): the "s" heard with the number
    ("Sorry, what are the five things in the CURB-65 core again?",
     "Sorry, what are the five things in the CURB-65 score again?"),
    ("Once the age cut off in the CURB-65 core,", "Once the age cut off in the CURB-65 score,"),
])
def test_repair_writes_the_word_the_passages_write_after_a_term_heard_without_its_first_letter(heard: str,
                                                                                                meant: str) -> None:
    assert repaired(heard, FOLLOWED) == meant


@pytest.mark.parametrize("said", [
    "What is a CURB-65 of 3?",  # a word the passages write after the term
    "Is the CURB-65 score 2?",
    "Does metformin an hour before food help?",  # "can" less its first letter, but "an" is not three letters
    "Is the core temperature raised?",  # no term before the word
    "In the CURB-65, core temperature is not scored.",  # punctuation between: not the word after the term
    "Is metformin tart?",  # "start" is not written after metformin in the passages ("at", "can" are)
])
def test_repair_leaves_a_word_after_a_term_that_is_no_follower_less_its_first_letter(said: str) -> None:
    assert repaired(said, FOLLOWED) == said


def test_repair_leaves_a_word_after_a_term_the_phi_detector_found_as_heard() -> None:
    """A word after a term that the PHI detector found ("Core", a surname said after the score) stays as heard,
    and so does a word after a term the detector found."""
    heard = "is the CURB-65 core for Mr Core"
    kept = heard.index("core")
    assert repaired(heard, FOLLOWED) == "is the CURB-65 score for Mr Core"
    assert repaired(heard, FOLLOWED, keep=[(kept, kept + len("core"))]) == heard
    term = heard.index("CURB-65")
    assert repaired(heard, FOLLOWED, keep=[(term, term + len("CURB-65"))]) == heard


@pytest.mark.parametrize(("heard", "meant"), [
    # espeak-ng's "CURB sixty-five score" (blind7, blind15): the "s" of "score" written as the score's clitic
    ("Blood pressure gets appointments on the CURB-65's core.",
     "Blood pressure gets appointments on the CURB-65 score."),
    ("what is the CURB-65’s core cutoff for age", "what is the CURB-65 score cutoff for age"),
])
def test_repair_writes_the_follower_when_its_first_letter_was_heard_as_the_terms_clitic(heard: str,
                                                                                      meant: str) -> None:
    assert repaired(heard, FOLLOWED) == meant


@pytest.mark.parametrize("said", [
    "Is the CURB-65's score reliable?",  # the follower as written
    "What is metformin's tart taste from?",  # "start" is not written after metformin in the passages
    "Is the CURB-65's use in children valid?",  # "suse" is no follower
    "Is the CURB-65's co valid?",  # shorter than three letters
    "Is the CURB-65's, core or not?",  # punctuation between
    "Is the patient's core temperature high?",  # no term before the clitic
])
def test_repair_leaves_a_terms_clitic_before_a_word_that_is_no_follower_less_its_s(said: str) -> None:
    assert repaired(said, FOLLOWED) == said


def test_repair_leaves_a_terms_clitic_and_follower_the_phi_detector_found_as_heard() -> None:
    """The word after the clitic, or the term itself, found by the PHI detector ("Core", a surname) stays as heard."""
    heard = "is the CURB-65's core for Mr Core"
    assert repaired(heard, FOLLOWED) == "is the CURB-65 score for Mr Core"
    kept = heard.index("core")
    assert repaired(heard, FOLLOWED, keep=[(kept, kept + len("core"))]) == heard
    term = heard.index("CURB-65's")
    assert repaired(heard, FOLLOWED, keep=[(term, term + len("CURB-65's"))]) == heard
    number = heard.index("65's")
    assert repaired(heard, FOLLOWED, keep=[(number, number + len("65's"))]) == heard


def test_followers_are_the_lower_case_words_after_each_passage_word() -> None:
    found = followers(["The CURB-65 score counts. A CURB-65 of 2, Metformin Glucophage."])
    assert found["curb65"] == frozenset({"score", "of"})
    assert "metformin" not in found  # "Glucophage" is capitalized: a name or a heading, not the word after it


NUMBERED = Vocabulary.of(["CURB-65", "metformin", "eGFR"], known=english_words())


@pytest.mark.parametrize(("heard", "meant"), [
    ("Okay so what's the curved 65 cutoff for the breathing rate?",
     "Okay so what's the CURB-65 cutoff for the breathing rate?"),  # Piper's "CURB sixty-five", blind13_spoken
    ("What age gets you the point on the curve-65?", "What age gets you the point on the CURB-65?"),
    # the word in capitals (Piper's blind7_spoken and blind10_spoken): the recognizer writing a score's name
    ("What respiratory rate scores a point in CARB-65?", "What respiratory rate scores a point in CURB-65?"),
    ("I'm if the CURD-65 is zero, can they just go home?", "I'm if the CURB-65 is zero, can they just go home?"),
])
def test_repair_puts_back_a_numbered_term_heard_as_a_word_and_its_number(heard: str, meant: str) -> None:
    assert repaired(heard, NUMBERED) == meant


@pytest.mark.parametrize("said", [
    "Is the CURB 65 score 2 or more?",  # the term's letters as written: heard right
    "Does an age over 65 score a point?",  # another first sound
    "Is a patient aged 65 given a point?",
    "What does a curved 40 mean?",  # not the term's number
    "Was Kirby 65 admitted?",  # a capitalized word is a name, never a term's letters
    "Was KIRBY 65 admitted?",  # capitals that share the key (KRB) but not the letters (0.44)
    "Is the CURB-65 score 2 or more?",  # the term as written
    "Does a 65 year old with an HR 65 score?",  # an abbreviation in capitals that sounds like no term
    "Is the A 65 right?",  # one capital letter is a letter, not a word
    "Is the curve steeper after 65?",  # no number right after the word
])
def test_repair_leaves_a_word_before_a_number_that_is_not_the_term(said: str) -> None:
    assert repaired(said, NUMBERED) == said


@pytest.mark.parametrize(("heard", "meant"), [
    # Piper's "so curb sixty-five comes out at three" (blind15_spoken): a short English word glued to the term's letters
    ("SoCURB-65 comes out at 3. What does that mean?", "So CURB-65 comes out at 3. What does that mean?"),
    ("is the socurb 65 high", "is the so CURB-65 high"),
])
def test_repair_splits_a_short_word_glued_before_a_numbered_term(heard: str, meant: str) -> None:
    assert repaired(heard, NUMBERED) == meant


@pytest.mark.parametrize("said", [
    "Is XqCURB-65 a thing?",  # no English word before the term's letters
    "Was SoCurb 65 admitted?",  # the term's letters capitalized: a name
    "Is the SoCURB 40 high?",  # not the term's number
    "Was the socurbs 65 high?",  # not the term's letters
])
def test_repair_leaves_a_word_glued_before_letters_that_are_not_a_numbered_term(said: str) -> None:
    assert repaired(said, NUMBERED) == said


def test_repair_leaves_a_glued_numbered_term_the_phi_detector_found_as_heard() -> None:
    heard = "Is SoCURB 65 the patient?"
    assert repaired(heard, NUMBERED, keep=[(3, 9)]) == heard
    assert repaired(heard, NUMBERED, keep=[(10, 12)]) == heard


def test_repair_leaves_a_word_before_a_number_the_phi_detector_found_as_heard() -> None:
    """A name said in lower case before a number ("kirby 65", a patient's name and age) that the PHI detector found
    stays as heard; only what it did not find may be a term's spelling."""
    heard = "is kirby 65 at curved 65 high risk"
    kept = heard.index("kirby")
    assert repaired(heard, NUMBERED, keep=[(kept, kept + len("kirby"))]) == "is kirby 65 at CURB-65 high risk"


def test_repair_leaves_a_word_in_capitals_before_a_number_the_phi_detector_found_as_heard() -> None:
    """A surname the recognizer wrote in capitals before a number ("CORB 65": a name and an age, and a word that
    sounds like CURB) stays as heard when the detector found it; the score's name heard as "CARB-65" is repaired."""
    heard = "is CORB 65 at CARB-65 high risk"
    kept = heard.index("CORB")
    assert repaired(heard, NUMBERED) == "is CURB-65 at CURB-65 high risk"  # without the detector's span
    assert repaired(heard, NUMBERED, keep=[(kept, kept + len("CORB"))]) == "is CORB 65 at CURB-65 high risk"


INITIALISMS = Vocabulary.of([*TERMS, "CAP", "pneumonia"], known=english_words().keys())


@pytest.mark.parametrize(("heard", "meant"), [
    # espeak-ng's "Her e G F R came back at thirty-eight" (blind11_spoken) and "their e G F R is about fifty"
    # (blind10_spoken): the letter "e" said alone heard as something else before the rest of the capitals
    ("3GFR came back at 38, should I start it?", "eGFR came back at 38, should I start it?"),
    ("Do I stop it before the scan? The ReggaeFR is about 50.", "Do I stop it before the scan? The eGFR is about 50."),
])
def test_repair_puts_back_an_initialism_whose_first_letter_was_heard_as_something_else(heard: str,
                                                                                       meant: str) -> None:
    assert repaired(heard, INITIALISMS) == meant


@pytest.mark.parametrize("said", [
    "If the GFR drops under 45, what then?",  # said so: nothing before the capitals
    "Her estimated GFRs 52",  # ends in lower case
    "What does the RECAP say about CAP?",  # capitals throughout, and the term as written
    "Is MyCAP the right app?",  # the capitals end the term but the sound is not the term's
    "Is the ReggaeFM station on?",  # capitals that do not end a term
    "Is the eGFR 40 and the CAP mild?",
])
def test_repair_leaves_capitals_that_are_no_initialism_heard_with_another_first_letter(said: str) -> None:
    assert repaired(said, INITIALISMS) == said


def test_repair_leaves_an_initialism_spelling_the_phi_detector_found_as_heard() -> None:
    """A word the PHI detector found ("ReggaeFR" taken for a name) stays as heard; the same word outside its span is
    repaired, and a failed detection repairs nothing."""
    heard = "ReggaeFR has an ReggaeFR of 50"
    assert repaired(heard, INITIALISMS, keep=[(0, 8)]) == "ReggaeFR has an eGFR of 50"
    passages = ["Check the eGFR before starting metformin."]

    def failing(text: str) -> None:
        return None

    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=lambda text: [(0, 8)]).repair(heard) == \
        "ReggaeFR has an eGFR of 50"
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=failing).repair(heard) == heard


@pytest.mark.parametrize(("heard", "meant"), [
    # Piper's "curb sixty five of three" (blind16_spoken) and espeak-ng's "curb sixty five of zero or one" (blind14):
    # the score's value glued to its name by a hyphen, where the question's value is not read
    ("CURB-65-03, what does that mean for where the patient goes?",
     "CURB-65 03, what does that mean for where the patient goes?"),
    ("CURB-65-041, can they go home and...", "CURB-65 041, can they go home and..."),
    ("is a curb 65-2 low risk", "is a CURB-65 2 low risk"),
])
def test_repair_parts_a_number_glued_to_a_numbered_term(heard: str, meant: str) -> None:
    assert repaired(heard, NUMBERED) == meant


@pytest.mark.parametrize("said", [
    "Is a CURB-651-3 a thing?",  # not the term's number
    "Is the CURB-65-based rule right?",  # a word glued, not a number
    "Was Kirby-65-03 admitted?",  # not the term's letters
    "Is the CURB-65 3 or more?",  # a space: the term and its value as written
    "Is a CURB-65, 3 points?",
])
def test_repair_leaves_a_numbered_term_without_a_number_glued_to_it(said: str) -> None:
    assert repaired(said, NUMBERED) == said


def test_repair_leaves_a_glued_number_the_phi_detector_found_as_heard() -> None:
    """A number the PHI detector found after a numbered term (an age, a bed, a record number glued by a hyphen) stays
    as heard, and so does the term: no repaired span reaches into what the detector found."""
    heard = "CURB-65-03 and CURB-65-041"
    assert repaired(heard, NUMBERED) == "CURB-65 03 and CURB-65 041"
    assert repaired(heard, NUMBERED, keep=[(8, 10)]) == "CURB-65-03 and CURB-65 041"
    assert repaired(heard, NUMBERED, keep=[(0, 4)]) == "CURB-65-03 and CURB-65 041"


HYPHENS = Vocabulary.of(["azithromycin", "adrenaline", "pneumonia", "ACE", "CURB-65"], known=english_words())


@pytest.mark.parametrize(("heard", "meant"), [
    # Piper's "azithromycin dose in" (holdout2) and espeak-ng's "adrenaline dose per" (blind16_spoken): the word after
    # the term begun with a hyphen, a fragment
    ("What is the azithromycin-dosen community acquired pneumonia?",
     "What is the azithromycin dosen community acquired pneumonia?"),
    ("Um, what's the adrenaline-noster kilo for anaphylaxis?",
     "Um, what's the adrenaline noster kilo for anaphylaxis?"),
])
def test_repair_parts_a_fragment_hyphenated_to_a_term(heard: str, meant: str) -> None:
    assert repaired(heard, HYPHENS) == meant


@pytest.mark.parametrize("said", [
    "Is an ACE-inhibitor first-line in pneumonia-related sepsis?",  # English words after the hyphen
    "Is the CURB-65 score high?",
    "Is a pneumonia-ish cough enough?",  # an English ending
    "Is Pneumonia-Drowing a name?",  # capitalized: not a fragment in lower case
    "What is pneumonia-xyz-abc?",  # more pieces joined after it
    "Is xyzzy-dosen a word?",  # no term before the hyphen
])
def test_repair_leaves_a_hyphenated_term_said_as_a_compound(said: str) -> None:
    assert repaired(said, HYPHENS) == said


def test_repair_leaves_a_hyphenated_fragment_the_phi_detector_found_as_heard() -> None:
    """A term and the fragment after its hyphen stay as heard when the detector found either (a name written in
    pieces)."""
    heard = "Is pneumonia-drowing right for pneumonia-drowing?"
    first = heard.index("drowing")
    assert repaired(heard, HYPHENS) == "Is pneumonia drowing right for pneumonia drowing?"
    assert repaired(heard, HYPHENS, keep=[(first, first + 7)]) == "Is pneumonia-drowing right for pneumonia drowing?"
    assert repaired(heard, HYPHENS, keep=[(3, 12)]) == "Is pneumonia-drowing right for pneumonia drowing?"


@pytest.mark.parametrize(("heard", "found", "meant"), [
    ("The ReggaeFR is about 50.", "ReggaeFR", "The eGFR is about 50."),
    ("CURB-65-041, can they go home?", "CURB-65-041", "CURB-65 041, can they go home?"),
    ("What is the azithromycin-dosen for pneumonia?", "azithromycin-dosen",
     "What is the azithromycin dosen for pneumonia?"),
])
def test_glued_term_repairs_run_after_phi_detection_and_log_nothing(heard: str, found: str, meant: str,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """Through the route's vocabulary: repaired without a finding; left as heard when the detector found the words
    (the real detector takes "CURB-65-041" for an identifier) or failed; and no transcript reaches a log."""
    caplog.set_level(logging.DEBUG)
    passages = ["Check the eGFR before metformin.", "A CURB-65 of 2 or more needs hospital care.",
                "Azithromycin 500 mg on day 1 for pneumonia."]
    start = heard.index(found)

    def failing(text: str) -> None:
        return None

    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=lambda text: []).repair(heard) == meant
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=lambda text: [(start, start + len(found))]).repair(
        heard) == heard
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=failing).repair(heard) == heard
    assert not any(found in record.getMessage() or meant in record.getMessage() for record in caplog.records)


GREEK = Vocabulary.of(["chlorthalidone", "aerobic", "hypertension", "outpatients", "metformin"],
                      known=english_words().keys())


def test_double_metaphone_reads_an_opening_ch_before_a_consonant_as_k() -> None:
    assert sound("chlorthalidone")[0] == "X"  # Metaphone: the "ch" of "church"
    assert double_sound("chlorthalidone") == "KLR0LTN"
    assert double_sound("corthalidone") == "KR0LTN"


def test_repair_puts_back_a_term_whose_opening_metaphone_reads_another_way() -> None:
    """Piper's "chlorthalidone" heard "corthalidone" (blind17_spoken, session 18): Metaphone opens the term with X,
    the word with K; Double Metaphone opens both with K, and the keys are near (KLR0LTN, KR0LTN)."""
    assert repaired("What is the dose of corthalidone to begin for the hypertension?", GREEK) == \
        "What is the dose of chlorthalidone to begin for the hypertension?"


def test_double_metaphone_never_takes_a_word_opening_with_a_vowel_for_a_term() -> None:
    """Double Metaphone opens every vowel with A: "anaerobic" ANRPK and "aerobic" ARPK would match (0.89); Metaphone
    keeps the vowels apart (ANRBK, ERBK)."""
    assert GREEK.closest("anaerobic") is None
    assert GREEK.closest("corthalidone") == ("chlorthalidone", pytest.approx(12 / 13))


@pytest.mark.parametrize("said", [
    "Are inpatients treated the same?",  # another first letter
    "Is he hypertensive?",  # the same opening sound: Metaphone's keys decide, as before
    "Is korthalidone a word?",  # another first letter: left to Metaphone (X and K)
])
def test_repair_leaves_words_that_open_differently_from_the_term(said: str) -> None:
    assert repaired(said, GREEK) == said


def test_repair_leaves_a_word_read_by_double_metaphone_the_phi_detector_found_as_heard() -> None:
    """A surname that Double Metaphone keys like a term stays as heard when the detector found it, and the term
    after it is still repaired."""
    heard = "Is Mr Corthalidone on corthalidone?"
    assert repaired(heard, GREEK) == "Is Mr chlorthalidone on chlorthalidone?"
    assert repaired(heard, GREEK, keep=[(6, 18)]) == "Is Mr Corthalidone on chlorthalidone?"


def test_double_metaphone_repair_runs_after_phi_detection_and_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """Through the route's vocabulary: "corthalidone" repaired without a finding; left as heard when the detector
    found it (a surname) or failed; and no transcript reaches a log."""
    caplog.set_level(logging.DEBUG)
    passages = ["Start chlorthalidone 12.5 to 25 mg once daily for hypertension."]
    heard = "What is the dose of corthalidone to begin?"
    start = heard.index("corthalidone")

    def failing(text: str) -> None:
        return None

    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=lambda text: []).repair(heard) == \
        "What is the dose of chlorthalidone to begin?"
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=lambda text: [(start, start + 12)]).repair(
        heard) == heard
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=failing).repair(heard) == heard
    assert not any("corthalidone" in record.getMessage() for record in caplog.records)
