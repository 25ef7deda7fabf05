"""A time of day is no concept; and the session-14 reading measured, not adopted (decision 0024): where a question
describes its case, words that tell the story (WordNet 3.0's lexicographer files, ordinary English words) weighing
nothing when a passage lacks them (voiceassist_local.evaluation.gate_scenario.described_reading)."""

from __future__ import annotations

from pathlib import Path

from voiceassist_local.evaluation import gate_scenario, plain_word_data

from voiceassist.query import evidence
from voiceassist.query import question_concepts as qc

W = plain_word_data.CONTEXT_VARIANTS["files W (who, where, when, food, animals, plants)"]
WAC = plain_word_data.CONTEXT_VARIANTS["files W+A+C (and cognition, quantities, verbs of contact, consumption)"]


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
    shipped = {c.label.lower(): c for c in qc._described(own, question)}

    # "quite", an ordinary word: a quarter of its weight missing as shipped, nothing in the reading measured
    assert shipped["quite"].weight == evidence.GENERIC_WEIGHT and read["quite"].weight == 0.0
    assert read["worried"].weight == shipped["worried"].weight  # a topic of the story: not an ordinary word
    assert read["epinephrine"].weight == shipped["epinephrine"].weight == 1.0
    # an ask naming no drug, class, disease or abbreviation asks about the case: its description is kept
    bare = "B12 came back low in an older man on long term metformin. what level needs treating and which regimen"
    assert gate_scenario.described_reading(story)(qc._concepts(bare), bare) == qc._described(qc._concepts(bare), bare)


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
