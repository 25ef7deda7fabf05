"""A question as speech is written down (query/spoken.py, terms.hyphenate, question_concepts): a run-on question's
unmarked clause breaks, "like" as a discourse word, "every single" and "am" as the speaker's words, not topics.
Test questions written for these tests."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import evidence
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.spoken import breaks, filled_pause
from voiceassist.query.terms import content_terms, hyphenate
from voiceassist.query.wording import asked_clauses

CHEST_FILM = ("Confirm the diagnosis with a chest radiograph (X-ray) when it is uncertain; a follow-up film is not "
              "needed for patients whose symptoms resolve.")


def hit(text: str, title: str) -> SearchHit:
    return passage_hit(text, title, vector_score=0.78)


def labels(question: str) -> dict[str, float]:
    return {c.label: c.weight for c in question_concepts(question)}


def test_a_run_on_question_asks_after_its_story_as_the_punctuated_one_does() -> None:
    for run_on, asked in (
            ("my patient has been on it for years and her eGFR just fell to 38 what should I do now",
             "what should I do now"),
            ("he takes lisinopril for his blood pressure should I stop it before the operation",
             "should I stop it before the operation"),
            ("we have an older man with a swollen face after the wasp sting how much adrenaline do we give",
             "how much adrenaline do we give"),
            ("the nurse rang about a lady on amlodipine with ankle swelling what's the usual next step",
             "what's the usual next step"),
            ("she's very itchy can she have another antihistamine", "can she have another antihistamine")):
        assert asked_clauses(run_on) == (asked,), run_on
        punctuated = run_on.replace(" " + asked, ", " + asked) + "?"
        assert asked_clauses(punctuated) == (asked,), punctuated


def test_no_break_inside_one_question_an_indirect_question_or_a_relative_clause() -> None:
    for text in ("how many millilitres per kilo of saline do we run in",  # the operator of the wh-question
                 "which blood tests after starting a thiazide should I send",
                 "I would like to know what dose I should give",  # indirect: no inversion
                 "the regimen which is usual for adults with a chest infection",  # relative: no subject
                 "after the first dose of adrenaline can we give a second",  # an adverbial put first
                 "if the score is two should they come in",
                 "she is allergic to penicillin and at what point do I switch",  # pied-piped "at what"
                 "one clinic reading enough for a diagnosis or do I need home readings",  # one alternative question
                 "new gout diagnosis should I stop the diuretic",  # a short heading before the question
                 "okay so um should I repeat it"):  # discourse words only
        assert breaks(text) == [], text


def test_a_filled_pause_before_a_question_leaves_it_a_question() -> None:
    # "Um should he ..." asks as "Should he ..." does
    assert asked_clauses("Um should we give oxygen first, she is very short of breath") == (
        "Um should we give oxygen first",)
    assert filled_pause("Um") and not filled_pause("ER")


def test_like_after_or_before_a_function_word_is_a_word_of_its_own_not_a_compound() -> None:
    assert hyphenate("a thiazide like diuretic") == "a thiazide-like diuretic"
    assert hyphenate("flu like symptoms") == "flu-like symptoms"
    for spoken in ("where does the injection go like which muscle", "what does a score like that mean",
                   "the kids like it", "something like a rash"):
        assert "-like" not in hyphenate(spoken), spoken
    assert "go-like" not in content_terms("the adrenaline go like which muscle")
    assert not any(label.endswith("-like") for label in labels("what does a score like that mean for admission"))


def test_a_contraction_before_like_is_no_compound_and_no_topic() -> None:
    # "her pressure's like": the contraction's "'s" (is) ends the word; "like" is the discourse word, not "-like"
    for said in ("her pressure's like eighty over fifty", "his sat\u2019s like 88 on air"):
        assert "-like" not in hyphenate(said), said
        assert not any("like" in label for label in labels(said + ", what next?")), said
    assert content_terms("her pressure's like eighty over fifty") >= {"pressur"}
    assert hyphenate("a drug's like effect") == "a drug's like effect"


def test_every_single_is_emphasis_and_am_is_the_verb() -> None:
    question = "do we need a chest x-ray to diagnose pneumonia every single time, or only in some cases?"
    assert "single" not in labels(question)
    found = evidence.assess(question, [hit(CHEST_FILM, "Community-acquired pneumonia")])
    assert "single" not in found.passages[0].missing
    assert labels("is a single dose of steroid enough")["single"] == 1.0  # "a single dose": the word counts
    assert "am" not in labels("what blood pressure am I aiming for in most adults")
