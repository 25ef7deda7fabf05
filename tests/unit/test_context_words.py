"""A time of day is no concept; where a question describes its case, words that tell the story weigh nothing when a
passage lacks them: the session-14 readings measured (WordNet 3.0's lexicographer files, ordinary English words:
voiceassist_local.evaluation.gate_scenario.described_reading), and the session-15 one shipped, an ordinary word no
WordNet sense of which may be a clinical point (decision 0024)."""

from __future__ import annotations

from pathlib import Path

import pytest
from voiceassist_local.evaluation import gate_scenario, plain_word_data

from tests.support.passages import passage_hit
from voiceassist.query import described_case, evidence, plain_words, population
from voiceassist.query import question_concepts as qc

W = plain_word_data.CONTEXT_VARIANTS["files W (who, where, when, food, animals, plants)"]
WAC = plain_word_data.CONTEXT_VARIANTS["files W+A+C (and cognition, quantities, verbs of contact, consumption)"]


hit = passage_hit


def labels(question: str) -> set[str]:
    return {c.label.lower() for c in evidence.question_concepts(question)}


def test_a_time_of_day_is_no_concept() -> None:
    found = labels("Called at 3am, then again 10.45 pm and 11:30p.m. - repeat IM adrenaline dose?")

    assert not {"3am", "am", "45", "pm", "30p", "p.m"} & found
    assert "repeat" in found
    assert "13am" in labels("what is 13am")  # no hour of a twelve-hour clock


def test_the_measured_reading_weighs_story_words_nothing_only_in_the_description() -> None:
    story = gate_scenario.context_variants()["ordinary words"]
    reading = gate_scenario.described_reading(story)
    question = "Her cousin drove her in after lunch, quite worried. What is the IM adrenaline dose for an adult?"
    own = qc._concepts(question)

    read = {c.label.lower(): c for c in reading(own, question)}
    before = {c.label.lower(): c for c in gate_scenario.described_reading(lambda c: False)(own, question)}

    # "quite", an ordinary word: a quarter of its weight missing before, nothing in the reading measured
    assert before["quite"].weight == evidence.GENERIC_WEIGHT and read["quite"].weight == 0.0
    assert read["worried"].weight == before["worried"].weight  # a topic of the story: not an ordinary word
    assert read["epinephrine"].weight == before["epinephrine"].weight == 1.0


def test_an_ordinary_word_of_the_story_weighs_nothing_missing_and_is_never_named() -> None:
    # session 15: an ordinary word only the description names, none of whose senses can be a clinical point
    question = "Otherwise healthy, sorry to bother you, his family are asking. Which antibiotic for outpatient CAP?"
    alone = "Which antibiotic for outpatient CAP?"
    passage = ("For adults treated as outpatients without comorbidities, first-line treatment is amoxicillin 1 g "
               "orally three times daily.")

    found = {c.label.lower(): c for c in evidence.question_concepts(question)}
    told = evidence.assess(question, [hit(passage, "Pneumonia")]).passages[0]

    for word in ("otherwise", "healthy", "sorry", "bother", "family", "asking"):
        assert found[word].weight == 0.0 and not found[word].topic, word
        assert word not in [m.lower() for m in told.missing], word
    assert told.coverage == evidence.assess(alone, [hit(passage, "Pneumonia")]).passages[0].coverage
    # a passage holding a story word still counts it
    holding = evidence.assess(question, [hit(passage + " Ask about family contacts.", "Pneumonia")]).passages[0]
    assert holding.coverage >= told.coverage


def test_an_ordinary_word_that_may_be_the_clinical_point_keeps_its_weight() -> None:
    # "drinks": a verb of consumption (what the patient takes in is an exposure); "fit": a state
    found = {c.label.lower(): c for c in evidence.question_concepts(
        "He drinks most evenings and had a fit last year, family worried. Is metformin still the right choice?")}

    assert found["drinks"].weight == evidence.GENERIC_WEIGHT
    assert found["family"].weight == 0.0
    assert not plain_words.is_story("drinks") and not plain_words.is_story("back")
    assert plain_words.is_story("otherwise") and plain_words.is_story("cousin")
    assert not plain_words.is_story("zorbazol")  # neither English list holds it: not taken for the story


def test_the_same_ordinary_word_asked_about_stays_and_an_age_said_is_the_population_readers() -> None:
    # asked, "family" is what the question is about
    asked = {c.label.lower(): c for c in evidence.question_concepts(
        "On metformin for years. Should his family be screened for diabetes?")}
    # an age said in words in the story: no topic, and the population reader still reads it
    said = "She is eighty and otherwise well. What is the metformin starting dose?"
    aged = {c.label.lower(): c for c in evidence.question_concepts(said)}

    assert asked["family"].weight == evidence.GENERIC_WEIGHT
    assert aged["eighty"].weight == 0.0 and aged["otherwise"].weight == 0.0
    assert population.asked(said) == {"older adults"}


def test_the_shipped_reading_is_the_one_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    # session 15's reading; session 18's story apart from the ask (described_case.STORY_APART) measured on top
    monkeypatch.setattr(described_case, "STORY_APART", False)
    # session 19's carers and places told and adjectives derived, measured on top (test_case_words)
    monkeypatch.setattr(described_case, "CARERS_TOLD", False)
    monkeypatch.setattr(described_case, "DERIVED_TOLD", False)
    chosen = gate_scenario.described_reading(
        gate_scenario.context_variants()["ordinary words with no clinical sense +numbers"], any_ask=True)
    for question in ("Otherwise healthy, sorry to bother you, his family keep asking. Which antibiotic for CAP?",
                     "He drinks most evenings, family worried. Is that safe with metformin?",
                     "B12 came back low in an older man on long term metformin. what level needs treating",
                     "A lad of about thirty kilos, anaphylaxis to peanut. How much adrenaline per kilo?"):
        own = qc._concepts(question)
        assert qc._described(own, question) == chosen(own, question), question


def test_context_files_read_every_sense_of_every_part_of_speech(tmp_path: Path) -> None:
    # WordNet's files in their format (wndb(5WN)): index.<pos> lemma pos synset_cnt p_cnt [ptr...] sense_cnt
    # tagsense_cnt offsets; data.<pos> offset lex_filenum ...
    index = {"noun": ["prawn n 1 0 1 0 00000001", "cousin n 1 0 1 0 00000002", "wheal n 1 0 1 0 00000003"],
             "verb": ["prawn v 1 0 1 0 00000004"], "adj": [], "adv": []}
    data = {"noun": ["00000001 13 n 01 prawn 0 000 | a shellfish as food", "00000002 18 n 01 cousin 0 000 | kin",
                     "00000003 26 n 01 wheal 0 000 | a raised itchy swelling"],
            "verb": ["00000004 35 v 01 prawn 0 000 | fish for prawns"], "adj": [], "adv": []}
    for part in ("noun", "verb", "adj", "adv"):
        (tmp_path / f"index.{part}").write_text("\n".join(index[part]) + "\n", encoding="latin-1")
        (tmp_path / f"data.{part}").write_text("\n".join(data[part]) + "\n", encoding="latin-1")
        (tmp_path / f"{part}.exc").write_text("", encoding="latin-1")
    for cached in (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions):
        cached.cache_clear()
    try:
        # 13 noun.food, 18 noun.person: the story; 26 noun.state: may be the clinical point; 35 verb.contact
        assert plain_word_data.is_context("cousin", W, tmp_path)
        assert plain_word_data.is_context("prawns", WAC, tmp_path)
        assert not plain_word_data.is_context("prawns", W, tmp_path)  # the verb is one of contact
        assert not plain_word_data.is_context("wheal", WAC, tmp_path)
        assert not plain_word_data.is_context("zorbazol", WAC, tmp_path)  # WordNet lacks it
    finally:
        for cached in (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions):
            cached.cache_clear()
