"""The ask's words by lemma, derivation and phrasal verb (query/ask_lemmas.py, query/phrasal_verbs.py, read by
question_concepts): an acid's anion by its acid, a drug joined to a participle by the drug, a verb with its particle
as an ordinary word. Test questions and passages written for these tests."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.query import ask_lemmas, evidence, phrasal_verbs
from voiceassist.query.evidence import covers
from voiceassist.query.question_concepts import GENERIC_WEIGHT, question_concepts
from voiceassist.query.terms import content_terms

ACIDOSIS = "Lactic acidosis is rare; it occurs mainly with severe kidney impairment or shock."
COUGH = "The cough often lasts three weeks after the infection has been treated."


def concept(question: str, label: str):  # noqa: ANN201 - a Concept
    return next(c for c in question_concepts(question) if c.label.lower() == label.lower())


def test_an_anion_is_not_covered_by_its_acid() -> None:
    # measured and not adopted (decision 0024, session 20, ans20b): "what lactate level means dialysis" was answered
    # from a passage naming lactic acidosis, which states no level
    anion = next(c for c in question_concepts("serum lactate is 4, is this the acidosis of the drug?")
                 if "lactat" in c.alternatives[-1])
    assert not covers(anion, content_terms(ACIDOSIS))
    assert ask_lemmas.named_forms("citrate") == ()


def test_a_drug_joined_to_a_participle_is_covered_by_the_drug() -> None:
    joined = concept("how common is metformin-associated lactic acidosis", "metformin-associated")
    assert covers(joined, content_terms("Metformin: lactic acidosis is rare.") | {"\u2295drug:metformin"})
    assert not covers(joined, content_terms(ACIDOSIS))
    # a word that is no drug or disease before the participle keeps its reading
    assert not any("\u2295" in t for f in concept("is the rash drug-induced or viral", "drug-induced").forms
                   for t in f)


def test_a_verb_with_its_particle_is_an_ordinary_word() -> None:
    assert phrasal_verbs.typed_with_particle("how long will the cough hang around after") == {"hang"}
    hang = concept("how long will the cough hang around after pneumonia", "hang")
    assert hang.weight == GENERIC_WEIGHT and hang.covered_weight == 1.0
    # alone, or with a particle WordNet does not join to it, the verb keeps its weight
    assert concept("when can he hang the washing", "hang").weight == 1.0
    # a verb and particle of the body or of change are no ordinary words: "throw up", "pass out", "go up"
    assert not phrasal_verbs.typed_with_particle("she threw up and passed out, can we go up on the dose")
    # a verb that leads to a clinical word keeps its weight with its particle: "depend on" ("dependence")
    assert not phrasal_verbs.typed_with_particle("what does the interval depend on")


def test_the_evidence_score_reads_the_phrasal_verb_as_ordinary() -> None:
    asked = "how long will the cough hang around after pneumonia"
    score = evidence.assess(asked, [passage_hit(COUGH, "Pneumonia")]).passages[0].score
    literal = evidence.assess("how long will the cough hang after pneumonia",
                              [passage_hit(COUGH, "Pneumonia")]).passages[0].score
    assert score > literal


def test_a_near_paraphrase_the_passage_does_not_answer_still_misses_its_topic() -> None:
    # the particle makes the verb ordinary, not the question's topic: a passage without the asked thing still lacks it
    asked = "how long will the rash hang around after the amoxicillin"
    rash = concept(asked, "rash")
    assert rash.weight == 1.0 and not covers(rash, content_terms(COUGH))


def test_an_adverb_apart_from_its_adjective_is_an_ordinary_word_a_route_is_not() -> None:
    normally = concept("what dose of the drug would I normally start on", "normally")
    assert normally.weight == GENERIC_WEIGHT and normally.covered_weight == 1.0
    assert concept("can the drug be given orally", "orally").weight == 1.0
    # the adjective itself stays a topic: "is a normal kidney test needed first"
    assert concept("is a normal kidney test needed first", "normal").weight == 1.0
