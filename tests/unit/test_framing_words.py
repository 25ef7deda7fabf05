"""Words that are not what is asked (decision 0024, session 17): a drug's other name that is an English word with no
drug sense (query/concepts.py), a particle or interjection typed into an English question and a letter's or an exam
item's framing (query/question_concepts.py, query/wording.py), a phrasal verb of the course told with the case
(query/asked_action.py). Sentences written for these tests, none from a question set."""

from __future__ import annotations

from pathlib import Path

import pytest
from voiceassist_local.evaluation import drug_sense_data

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import concepts, evidence, terminology, wording
from voiceassist.query.asked_action import asked_actions, told_phrasal_verbs
from voiceassist.query.question_concepts import question_concepts, typed_particles

THRESHOLD = 0.55


def topics(question: str) -> set[str]:
    return {c.label.lower() for c in question_concepts(question) if c.topic}


def labels(question: str) -> set[str]:
    return {c.label.lower() for c in question_concepts(question)}


def drugs(question: str) -> list[str]:
    return [m.label for m in concepts.mentions(question) if m.kind == "drug"]


def hit(text: str, title: str) -> SearchHit:
    return passage_hit(text, title, vector_score=0.8)


# (1) the dictionary's other names that are English words


def test_an_english_word_the_dictionary_names_a_drug_is_english_in_lower_case() -> None:
    # "sits" (a stilbene disulfonic acid), "caps" (a sulfonic acid buffer), "armour" (desiccated thyroid)
    assert drugs("she sits up and still can't breathe, lie her down?") == []
    assert drugs("bottle caps left off the insulin vials, still ok?") == ["insulin"]
    assert drugs("is body armour a problem for the defib pads") == []
    assert not any(c.label.startswith("4-acetamido") for c in question_concepts("he sits forward with chest pain"))


def test_the_same_word_written_as_a_brand_is_the_drug() -> None:
    assert drugs("switching from Armour to levothyroxine, what dose?") == ["thyroid", "levothyroxine"]
    assert drugs("Armour Thyroid 60 mg equals how much levothyroxine?")[0].startswith("thyroid")
    assert drugs("CAPS buffer for the assay")  # capitals: the chemical's name


def test_a_name_with_a_drug_sense_stays_the_drug() -> None:
    # WordNet files these under drug, medicine or hormone: the dictionary's reading is kept in lower case
    assert drugs("adrenaline dose for a wasp sting") == ["epinephrine"]
    assert drugs("can i give xanax with this") == ["alprazolam"]
    assert drugs("cortisol level at 9am") == ["hydrocortisone"]


def test_the_shipped_list_holds_english_names_without_a_drug_sense_only() -> None:
    listed = concepts._english_drug_names()
    assert {"sits", "caps", "armour", "diamonds"} <= listed
    assert not {"adrenaline", "xanax", "antibiotic", "marijuana", "cortisol"} & listed
    generics = set(terminology.drug_names().values())
    assert not listed & generics  # "oxygen", "iron": what a reference writes


def test_drug_sense_data_follows_hypernyms_to_a_drug(tmp_path: Path) -> None:
    (tmp_path / "data.noun").write_text(
        "  1 licence line\n"
        "03247620 06 n 01 drug 0 000 | a substance used as a medicine\n"
        "00000010 06 n 01 pill 0 001 @ 03247620 n 0000 | a dose of medicine\n"
        "00000011 06 n 01 tablet 0 001 @ 00000010 n 0000 | a pill\n"
        "00000020 06 n 01 cap 0 000 | a headdress\n", encoding="latin-1")
    (tmp_path / "index.noun").write_text(
        "  1 licence line\n"
        "tablet n 1 1 @ 1 0 00000011\n"
        "cap n 1 0 1 0 00000020\n", encoding="latin-1")
    for part in ("verb", "adj", "adv"):
        (tmp_path / f"index.{part}").write_text("  1 licence line\n", encoding="latin-1")
    for part in ("noun", "verb", "adj", "adv"):
        (tmp_path / f"{part}.exc").write_text("", encoding="latin-1")

    assert drug_sense_data.has_drug_sense("tablets", tmp_path)  # two hypernyms up, through the plural's lemma
    assert not drug_sense_data.has_drug_sense("caps", tmp_path)
    assert drug_sense_data.known("caps", tmp_path) and not drug_sense_data.known("opioid", tmp_path)


# (3) particles and interjections


def test_a_particle_typed_where_one_stands_is_no_topic() -> None:
    assert "ah" not in labels("max ceftriaxone dose in meningitis ah, 2 g or 4 g?")
    assert "wah" not in labels("BP 180/110, wah, start two drugs?")
    assert "nah" not in labels("yeah nah, is 5 mg amlodipine enough to start")
    assert "ja" not in labels("ja, and the dose for a child of 20 kg")
    assert "ceftriaxone" in topics("max ceftriaxone dose in meningitis ah, 2 g or 4 g?")


def test_shorthand_and_english_words_are_no_particles() -> None:
    # "pred" begins prednisolone; "since" is an English function word (weighed as one already)
    assert typed_particles("switched to pred, how long?") == frozenset()
    assert typed_particles("worse since, why?") == frozenset()
    # inside a clause, not where a particle stands: a word of the case
    assert typed_particles("the ah protocol for sepsis") == frozenset()


# (2) a letter's and an exam item's framing


def test_an_exam_items_number_and_marks_are_no_topic_and_its_command_asks() -> None:
    question = "Q7. List two contraindications to metformin. (2 marks)"

    assert not {"q7", "marks", "mark"} & labels(question)
    assert wording.asked_clauses("Q3 (4 marks). A man has gout. Describe the first-line treatment.") == (
        "Describe the first-line treatment",)
    # without the exam's framing a clause opened by the same verb tells the case
    assert wording.asked_clauses("List of his drugs is long. Which one raises urate?") == ("Which one raises urate",)


def test_a_letters_salutation_is_no_topic() -> None:
    question = "Dear Dr Achebe, my patient with gout asks what dose of colchicine to take."
    assert not {"dear", "dr", "achebe"} & labels(question)
    assert "colchicine" in topics(question)
    assert wording.unframed("Dear colleague, the dose?") == " " * len("Dear colleague,") + " the dose?"


# (4) a phrasal verb of the course told with the case

AMLODIPINE_REVIEW = "Review monthly after any increase in the dose of amlodipine until the target is reached."


@pytest.mark.parametrize("question", [
    "After bumping up the amlodipine, how often should we review?",
    "Having ramped the amlodipine up last week, how often do we review?",
])
def test_a_phrasal_verb_told_with_the_case_is_covered_by_its_kind(question: str) -> None:
    (told,) = told_phrasal_verbs(question, question_concepts(question))
    assert frozenset({"increas"}) in told.alternatives

    found = evidence.assess(question, [hit(AMLODIPINE_REVIEW, "Hypertension")])
    assert not {"bumping", "ramped"} & set(found.passages[0].missing)


def test_a_verb_of_the_course_inflected_with_its_consonant_doubled_is_that_verb() -> None:
    # the stemmer leaves "upping" as "upp"; its inflection names WordNet's "up" (raise, increase)
    question = "allopurinol for gout: how often can I be upping the dose?"
    (upping,) = asked_actions(question, question_concepts(question))
    assert frozenset({"increas"}) in upping.alternatives

    found = evidence.assess(question, [hit(ALLOPURINOL_STEPS, "Gout")])
    assert "upping" not in set(found.passages[0].missing)


ALLOPURINOL_STEPS = "Allopurinol: start 100 mg daily and increase by 100 mg every 2 to 4 weeks until the urate target."


def test_a_term_of_address_with_its_apostrophe_is_read_whole_and_plain() -> None:
    # the letters after the apostrophe are no abbreviation (AM, ante meridiem), and WordNet's "ma'am" is a person
    question = "usual starting dose of cefalexin for cellulitis ma'am?"
    assert "am" not in labels(question)
    assert "ma'am" not in topics(question)
    assert "cefalexin" in topics(question)
