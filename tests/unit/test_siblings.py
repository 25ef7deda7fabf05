"""A passage about a sibling condition ("community-acquired pneumonia") does not answer a question about
another one ("hospital-acquired pneumonia")."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.query import evidence
from voiceassist.query.siblings import qualified_terms, sibling_terms

CAP = ("Community-acquired pneumonia (CAP) is an acute infection of the lung parenchyma acquired outside "
       "hospital. For outpatients, first-line treatment is amoxicillin 1 g orally three times daily.")


hit = passage_hit


def test_qualified_conditions_are_a_modifier_before_a_head_word() -> None:
    found = {(q.modifier, q.head, q.kind) for q in qualified_terms(
        "Ventilator-associated pneumonia in type 2 diabetes with acute gout and chronic cough")}
    assert found == {("ventilator-associated", "pneumonia", "hyphen"), ("type 2", "diabet", "type"),
                     ("acute", "gout", "contrast"), ("chronic", "cough", "contrast")}


def test_a_passage_naming_the_head_only_with_another_modifier_is_about_a_sibling() -> None:
    asked = qualified_terms("How is hospital-acquired pneumonia treated?")
    assert sibling_terms(asked, CAP) == {"hospital-acquir", "pneumonia"}
    assert sibling_terms(asked, "Hospital-acquired pneumonia needs broader cover than community-acquired "
                                "pneumonia.") == frozenset()  # it names the question's own condition too
    assert sibling_terms(asked, "Pneumonia is an infection of the lung.") == frozenset()  # no sibling named
    assert sibling_terms(qualified_terms("insulin in type 1 diabetes"), "Metformin is first-line for type 2 "
                         "diabetes.") == {"typ", "diabet"}


def test_a_sibling_passage_does_not_reach_the_evidence_threshold_but_its_own_question_does() -> None:
    passage = hit(CAP, "Community-Acquired Pneumonia in Adults")
    sibling = evidence.assess("How is hospital-acquired pneumonia treated?", [passage])
    own = evidence.assess("How is community-acquired pneumonia treated?", [passage])
    # the named disease (MeSH "Healthcare-Associated Pneumonia") is the missing topic, whole
    assert sibling.score < 0.3 and sibling.passages[0].missing == ("hospital-acquired pneumonia",)
    assert own.score >= 0.8


def test_a_generic_head_is_not_a_condition() -> None:
    # "first-line treatment" vs "second-line treatment" is not a sibling condition: "treatment" is generic.
    found = evidence.assess("What is the first-line treatment of anaphylaxis?",
                            [hit("Antihistamines are second-line treatment of anaphylaxis.", "Anaphylaxis")])
    assert found.passages[0].missing == ()
