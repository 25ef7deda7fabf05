"""The ask's words in the forms a reference writes them (query/ask_words.py, read by question_concepts): a
pertainym's noun or adjective, another name of the same dose form, a compound written with or without its hyphen.
Test questions and passages written for these tests."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.query import ask_words, evidence
from voiceassist.query.evidence import covers
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.terms import content_terms

RENAL = "Check renal function before the first dose and yearly after; halve the dose below 45."
SLOW = "Take the extended-release tablet once a day with the evening meal; swallow it whole."
OXYGEN = "Give high-flow oxygen by face mask to every patient with airway or breathing problems."


def concept(question: str, label: str):  # noqa: ANN201 - a Concept
    return next(c for c in question_concepts(question) if c.label.lower() == label.lower())


def test_the_noun_asked_is_covered_by_its_relational_adjective_one_way_only() -> None:
    kidney = concept("how often do I check kidney function on this drug", "kidney function")
    assert covers(kidney, content_terms(RENAL))
    liver = concept("is a dose change needed for the liver", "liver")
    assert covers(liver, content_terms("Reduce the dose in hepatic impairment."))
    assert not covers(liver, content_terms(RENAL))
    # the adjective asked is not covered by the noun: "renal dose" by a list's "kidney disease"
    hepatic = concept("is a hepatic dose change needed", "hepatic")
    assert not covers(hepatic, content_terms("Reduce the dose in liver disease."))
    assert not covers(concept("metformin in patients who are not diabetic", "diabetic"),
                      content_terms("Metformin is first-line for type 2 diabetes."))


def test_a_prefixed_adjective_is_not_its_noun() -> None:
    # "adrenal" (beside the kidney) and "afebrile" (without fever) are WordNet pertainyms of the noun, not the noun
    table = ask_words._equivalents()
    assert "adren" not in table.get("kidney", frozenset()) and "afebril" not in table.get("fever", frozenset())
    assert "renal" in table["kidney"]


def test_another_name_of_the_same_release_form_covers_it() -> None:
    for asked in ("when is the slow release one taken", "prolonged-release tablets: when in the day?",
                  "which time for the SR tablets", "modified release form, morning or evening?"):
        forms = [c for c in question_concepts(asked) if "releas" in " ".join(" ".join(a) for a in c.alternatives)]
        assert forms and all(covers(c, content_terms(SLOW)) for c in forms), asked
    # a release that starts late is another form: "delayed-release" is not in the group
    delayed = concept("is there a delayed-release form", "delayed-release")
    assert not covers(delayed, content_terms(SLOW))


def test_two_words_are_covered_by_their_hyphenated_compound_and_the_reverse() -> None:
    flow = concept("should the oxygen be high flow", "flow")
    assert covers(flow, content_terms(OXYGEN))
    assert not covers(flow, content_terms("Give oxygen at a low rate."))
    apart = concept("is a cross-reaction likely here", "cross-reaction")
    assert covers(apart, content_terms("A crossreaction with the other drug is rare."))
    assert covers(apart, content_terms("A cross reaction with the other drug is rare."))


def test_no_compound_across_punctuation_or_with_an_abbreviation() -> None:
    compounds = ask_words.compound_alternatives("the tablets (Glucophage) or metformin ER?")
    assert not any("glucophag" in term for alternatives in compounds.values() for a in alternatives for term in a)
    assert not any(term.startswith("metformin") for alternatives in compounds.values() for a in alternatives
                   for term in a)


def test_the_evidence_score_reads_the_reference_form() -> None:
    asked = "is high flow oxygen needed in anaphylaxis"
    before = "Give oxygen by face mask to every patient with airway or breathing problems."
    high = evidence.assess(asked, [passage_hit(OXYGEN, "Anaphylaxis")]).passages[0].score
    plain = evidence.assess(asked, [passage_hit(before, "Anaphylaxis")]).passages[0].score
    assert high > plain


def test_a_compound_covers_but_does_not_join_two_concepts() -> None:
    # "stop metformin": the compound "stop-metformin" covers each word, but the two stay two concepts (their own
    # alternatives, which tell concepts apart, share nothing)
    found = {c.label: c for c in question_concepts("at what level do we stop metformin altogether")}
    stop, metformin = found["stop"], found["metformin"]
    assert not set(stop.alternatives) & set(metformin.alternatives)
    assert set(stop.forms) & set(metformin.forms)
    assert covers(stop, content_terms("Stop-metformin rules are strict."))
