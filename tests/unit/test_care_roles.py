"""Who is involved and where (decision 0024, session 18, roles18): a licensing examination named at an item's head,
and the recipient of care named as nursing names them (query/wording.py, query/question_concepts.py). Sentences
written for these tests, none from a question set."""

from __future__ import annotations

from voiceassist.query import setting, wording
from voiceassist.query.question_concepts import GENERIC_WEIGHT, question_concepts


def labels(question: str) -> set[str]:
    return {c.label.lower() for c in question_concepts(question)}


def weight(question: str, label: str) -> tuple[float, float | None]:
    concept = next(c for c in question_concepts(question) if c.label.lower() == label)
    return concept.weight, concept.covered_weight


def test_a_licensing_examination_at_an_items_head_frames_it() -> None:
    for question in ("NCLEX: which electrolyte does furosemide lower?",
                     "NCLEX-PN question, priority action for a fall?", "NCLEX practice: target INR on warfarin for AF?",
                     "USMLE Step 2 CK q: first-line drug for gout flare?",
                     "PLAB 2 - what is the adult dose of amoxicillin for otitis?",
                     "MRCP Part 1: which statin is least affected by grapefruit?",
                     "For my NCLEX, how long is a tuberculin test read after placement?"):
        assert not {"nclex", "usmle", "plab", "mrcp", "step", "ck", "pn", "part"} & labels(question), question
        assert wording.exam_item(question), question


def test_an_examinations_name_inside_a_sentence_stays_a_word() -> None:
    assert "nclex" in labels("how many hours should I study pharmacology for the NCLEX")
    assert not wording.exam_item("how many hours should I study pharmacology for the NCLEX")
    assert not wording.exam_item("Plab results are out: what next for foundation jobs")


def test_a_licensing_examinations_item_asks_with_a_command_word() -> None:
    # framed as an item, an exam's command word asks as an interrogative does
    assert wording.exam_item("USMLE: state the antidote to heparin")


def test_the_client_is_the_recipient_of_care() -> None:
    # weighed as an ordinary word: little when a passage lacks it, fully when one holds it
    assert weight("which foods should a client on warfarin limit?", "client") == (GENERIC_WEIGHT, 1.0)
    assert weight("how often do clients on lithium need a level?", "clients") == (GENERIC_WEIGHT, 1.0)
    assert weight("which foods should a client on warfarin limit?", "warfarin") == (1.0, None)
    assert weight("which foods should a service user on warfarin limit?", "service") == (GENERIC_WEIGHT, 1.0)
    assert weight("is the out of hours service open for a warfarin INR check?", "service") == (1.0, None)


def test_a_carer_who_acts_in_the_case_is_no_topic() -> None:
    # the agent of a passive, and a definite subject of a modal or auxiliary verb
    assert "np" in setting.context_words("Started on bisoprolol by the NP last month, what heart rate target?")
    assert "gp" in setting.context_words("her GP should review the lithium level how often?")
    assert "nurse" in setting.context_words("Anticoagulated with apixaban by the district nurse: missed dose advice?")
    assert weight("how soon is potassium rechecked when the GP has raised spironolactone?", "gp") == (
        GENERIC_WEIGHT, 1.0)


def test_a_carer_asked_about_stays_a_topic() -> None:
    # a modal before the person asks about them; an indefinite subject introduces them; a compound is another word
    assert "gp" not in setting.context_words("should the GP refer a raised PSA?")
    assert "dentist" not in setting.context_words("A dentist is told to stop warfarin?")
    assert "nurse" not in setting.context_words("by the nurse-led clinic's protocol, which INR range?")


def test_a_carer_told_in_the_story_weighs_nothing_where_the_ask_stands_apart() -> None:
    question = "Digoxin given by the nurse on the ward at noon. What is the adult loading dose of digoxin?"
    assert weight(question, "nurse") == (0.0, 1.0)
