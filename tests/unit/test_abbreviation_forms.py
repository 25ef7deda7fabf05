"""Abbreviations as clinicians type them: a meaning that names a synonym group whole is covered by any of the group's
forms ("DM" by "diabetes"), and an abbreviation typed with its type or stage after it is that abbreviation ("DM2",
"CKD3"); query/question_concepts.py. Sentences written for these tests, none from a question set."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import evidence
from voiceassist.query.question_concepts import numbered_meanings, question_concepts

STATIN = ("Offer a statin to adults with diabetes aged 40 or over, whatever their cholesterol, and review the dose at "
          "three months.")


def hit(text: str, title: str) -> SearchHit:
    return passage_hit(text, title, vector_score=0.78)


def test_an_abbreviation_is_covered_by_any_form_of_the_group_its_meaning_names() -> None:
    found = evidence.assess("should every pt with DM get a statin", [hit(STATIN, "Lipids")])

    assert "DM" not in found.passages[0].missing  # "diabetes mellitus" is the group of "diabetes"


def test_an_abbreviation_typed_with_its_type_or_stage_is_that_abbreviation() -> None:
    assert numbered_meanings("DM1") == ("diabetes mellitus",)
    assert numbered_meanings("CKD3") == ("chronic kidney disease",)
    found = evidence.assess("statin for DM1 over forty?", [hit(STATIN, "Lipids")])
    assert "DM1" not in found.passages[0].missing


def test_a_numbered_form_of_no_dominant_abbreviation_stays_as_typed() -> None:
    # "MAP" (mean arterial pressure, and more in the formal list) has no one dominant clinical meaning listed; "B12"
    # is one letter and a number
    assert numbered_meanings("MAP2") == ()
    assert numbered_meanings("B12") == ()
    assert numbered_meanings("dm2") == ()  # lower case: the list separates meanings by case
    labels = {c.label: c for c in question_concepts("is the MAP2 reading ok")}
    assert len(labels["MAP2"].alternatives) == 1
