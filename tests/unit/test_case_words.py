"""Words of the case a question tells (decision 0024, session 19): a health professional or a place of care named only
in the description weighs nothing missing, and an adjective of a sign is covered by the sign it is formed from
(WordNet 3.0's derivationally related forms). Sentences written for these tests, none from a question set."""

from __future__ import annotations

from pathlib import Path

import pytest
from voiceassist_local.evaluation import derived_adjective_data, plain_word_data

from voiceassist.query import described_case, plain_words
from voiceassist.query import question_concepts as qc
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.terms import content_terms


def concept(question: str, label: str) -> qc.Concept:
    return next(c for c in question_concepts(question) if c.label.lower() == label)


@pytest.mark.parametrize(("question", "label"), [
    ("Houseman saw her this morning, now itchy. Does the hydroxyzine dose change in old age?", "houseman"),
    ("Midwife rang about a mum on labetalol: does labetalol reach breast milk?", "midwife"),
    ("Paramedic crew gave salbutamol, sats 91. Is ipratropium worth adding?", "paramedic"),
])
def test_a_carer_told_in_the_story_weighs_nothing_missing_whatever_the_ask_names(question: str, label: str) -> None:
    # the asks refer back or change a course, so session 18's story-apart reading does not reach them
    told = concept(question, label)
    assert (told.weight, told.covered_weight) == (0.0, 1.0)


def test_a_carer_in_the_asking_clause_keeps_its_weight() -> None:
    asked = concept("Hip pain on naproxen. Should the midwife stop it?", "midwife")
    assert asked.weight > 0.0


def test_a_place_the_case_came_from_weighs_nothing_missing() -> None:
    came = concept("Two scripts for warfarin and aspirin, both from the same clinic - is that combination safe?",
                   "clinic")
    assert (came.weight, came.covered_weight) == (0.0, 1.0)
    sent = concept("Rash after amoxicillin, should I refer to the dermatology clinic or not, and how soon?", "clinic")
    assert sent.weight > 0.0  # "to": where the case is sent


def test_a_service_the_case_is_sent_to_keeps_its_weight() -> None:
    # neither framing, acting nor opening its clause: "refer dermatology clinic" names the service asked about
    sent = concept("Rash after amoxicillin, should I refer dermatology clinic or not, and how soon?", "clinic")
    assert sent.weight > 0.0


def test_switched_off_the_carer_weighs_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    question = "Houseman saw her this morning, now itchy. Does the hydroxyzine dose change in old age?"
    monkeypatch.setattr(described_case, "CARERS_TOLD", False)
    assert concept(question, "houseman").weight > 0.0


def test_an_adjective_is_covered_by_the_sign_it_is_formed_from() -> None:
    assert "wheeze" in plain_words.derived_from("wheezy")
    assert "nausea" in plain_words.derived_from("Nauseous")
    assert plain_words.derived_from("wheeze") == ()  # nouns are not listed
    assert "asthma" not in plain_words.derived_from("wheezy")  # a synonym's noun, no derivation
    wheezy = concept("Still wheezy after two nebs, next step with magnesium?", "wheezy")
    assert content_terms("wheeze") in wheezy.alternatives
    # the adjective itself is still what a passage must hold when it names neither
    assert frozenset({"wheezy"}) in wheezy.alternatives
    # an adjective the ask names says which patients are asked about: no sign's noun covers it
    asked = concept("Is sitagliptin licensed in adults who are not diabetic?", "diabetic")
    assert content_terms("diabetes") not in asked.alternatives


def _wordnet(tmp_path: Path) -> Path:
    # wndb(5WN): data.<pos> offset lex_filenum ss_type w_cnt(hex) word lex_id ... p_cnt ptr(symbol offset pos
    # source/target) ...; lex_filenum 26 noun.state, 04 noun.act, 18 noun.person, 00 adj.all
    data = {
        "noun": ["00000001 04 n 01 wheeze 0 000 | breathing with a whistle",
                 "00000002 26 n 01 asthma 0 000 | a condition",
                 "00000003 18 n 01 wheezer 0 000 | a person"],
        "adj": ["00000010 00 s 02 asthmatic 0 wheezy 0 003 + 00000001 n 0201 + 00000002 n 0101 + 00000002 n 0201 "
                "| breathing with a whistle",
                "00000011 00 a 01 wheezish 0 001 + 00000003 n 0101 | like a person who wheezes"],
        "verb": [], "adv": []}
    for part, lines in data.items():
        (tmp_path / f"data.{part}").write_text("\n".join(lines) + "\n", encoding="latin-1")
        (tmp_path / f"index.{part}").write_text("", encoding="latin-1")
        (tmp_path / f"{part}.exc").write_text("", encoding="latin-1")
    return tmp_path


def test_the_pairs_are_derivations_to_a_clinical_sense(tmp_path: Path) -> None:
    for cached in (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions):
        cached.cache_clear()
    try:
        pairs = derived_adjective_data.derived_pairs(_wordnet(tmp_path))
    finally:
        for cached in (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions):
            cached.cache_clear()
    # "asthmatic" -> "asthma" (a state, same first letters), "wheezy" -> "wheeze" (an act); not "wheezy" -> "asthma"
    # (no shared start) nor "wheezish" -> "wheezer" (a person is no clinical sense)
    assert pairs == [("asthmatic", "asthma"), ("wheezy", "wheeze")]
