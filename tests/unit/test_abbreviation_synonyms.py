"""A word WordNet puts with a listed abbreviation (terminology.abbreviation_synonyms, made by
voiceassist_local.evaluation.abbreviation_synonyms): "per kilo" is covered by a passage writing "mL/kg"."""

from __future__ import annotations

from voiceassist_local.evaluation.abbreviation_synonyms import abbreviation_synonyms

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import evidence, terminology
from voiceassist.query.question_concepts import question_concepts


def hit(text: str) -> SearchHit:
    meta = DocumentMetadata(doc_key="sepsis", title="Sepsis", source_type=SourceType.GUIDELINE)
    chunk = Chunk(chunk_id="c", doc_id="d", doc_key="sepsis", version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=meta)
    return SearchHit(chunk=chunk, score=1.0)


def test_a_word_is_kept_when_wordnet_and_the_abbreviation_list_agree_on_one_sense() -> None:
    synsets = {
        "1": (["kilogram", "kg", "kilo"], []),
        "2": (["thousand", "one_thousand", "K", "chiliad", "thou"], []),  # one letter: never read
        "3": (["millilitre", "mL", "cc"], []),
        "4": (["cubic_centimetre", "cc"], []),  # "cc" has two senses: left out
        "5": (["heart_rate", "HR", "pulse_rate"], []),
    }
    listed = {"kg": ("kilogram",), "K": ("thousand",), "mL": ("millilitre",), "HR": ("hour",)}
    assert abbreviation_synonyms(synsets, listed) == {"kilo": "kg"}  # HR's listed meaning is not in the synset


def test_the_shipped_table_reads_kilo_as_kg() -> None:
    assert terminology.abbreviation_synonyms()["kilo"] == "kg"
    assert "thou" not in terminology.abbreviation_synonyms()


def test_a_dose_per_kilo_is_covered_by_a_passage_per_kg() -> None:
    question = "bolus volume of crystalloid per kilo in septic shock"
    kilo = next(c for c in question_concepts(question) if c.label == "kilo")
    assert frozenset({"kg"}) in kilo.alternatives and frozenset({"kilogram"}) in kilo.alternatives
    found = evidence.assess(question, [hit("In septic shock give a crystalloid bolus of 30 mL/kg.")]).passages[0]
    assert "kilo" not in found.missing
