"""An adjacent question on the right drug is not answered by what the reference states: a route other than the one
asked of the drug (query/routes.py), or another action on it than the one asked (query/asked_action.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from voiceassist_local.evaluation import course_verb_data

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import evidence, routes
from voiceassist.query.asked_action import asked_actions, course_verbs
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.terms import stem

THRESHOLD = 0.55
ADRENAL = ("Adrenal crisis is an emergency: give hydrocortisone 100 mg intramuscularly at once, then 50 mg every "
           "6 hours, with fluids for hypotension.")
CROUP = "In croup give dexamethasone 0.15 mg/kg orally as a single dose; most children improve within hours."
WARFARIN = ("Before elective surgery, withhold warfarin for 5 days and check the INR the day before the "
            "operation.")
WARFARIN_RESUMED = ("Before elective surgery, withhold warfarin for 5 days; resume warfarin the evening after "
                    "surgery when haemostasis is secure.")
CELLULITIS = ("Cellulitis needing admission is treated with flucloxacillin 2 g intravenously four times daily; "
              "mark the edge of the erythema and review daily.")


def hit(text: str, title: str) -> SearchHit:
    return passage_hit(text, title, vector_score=0.8)


@pytest.mark.parametrize(("question", "asked"), [
    ("adrenal crisis after 2 IM doses - what rate for an IV hydrocortisone infusion?",
     {"hydrocortisone": {"INTRAVENOUS", "INTRAVENOUS DRIP"}}),
    ("Still barking after oral dexamethasone, can we give nebulised dexamethasone?",
     {"dexamethasone": {"RESPIRATORY (INHALATION)"}}),  # the route the asking clause writes, not the case's
    ("dexamethasone PO or IM in croup", {"dexamethasone": {"ORAL"}}),
    ("what dose of dexamethasone in croup", {}),
    ("is it ok to give dexamethasone in croup", {}),  # "it" is the pronoun, not intrathecal
])
def test_the_route_asked_is_the_one_written_beside_the_drug(question: str, asked: dict[str, set[str]]) -> None:
    assert routes.asked_routes(question) == {k: frozenset(v) for k, v in asked.items()}


@pytest.mark.parametrize(("question", "passage"), [
    ("adrenal crisis, hydrocortisone IV infusion - what rate?", hit(ADRENAL, "Adrenal crisis")),
    ("croup in a 3 year old - nebulised dexamethasone dose?", hit(CROUP, "Croup")),
])
def test_a_drug_stated_by_another_route_does_not_answer(question: str, passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score < THRESHOLD


@pytest.mark.parametrize(("question", "passage"), [
    ("adrenal crisis, IM hydrocortisone dose?", hit(ADRENAL, "Adrenal crisis")),
    ("croup in a 3 year old - oral dexamethasone dose?", hit(CROUP, "Croup")),
    # an infusion asked of a drug the reference states intravenously: the wider route
    ("admitted cellulitis - IV flucloxacillin infusion, what dose?", hit(CELLULITIS, "Cellulitis")),
])
def test_a_drug_stated_by_the_asked_route_still_answers(question: str, passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score >= THRESHOLD


@pytest.mark.parametrize(("question", "actions"), [
    ("after elective surgery, when do I restart warfarin?", ["restart"]),
    ("admitted cellulitis on IV flucloxacillin - when can I switch to oral?", ["switch"]),
    ("how many days before elective surgery do I withhold warfarin?", []),
    ("when should I start warfarin", []),  # a generic verb: asked of any topic
    ("Restarted warfarin yesterday. What INR should I aim for?", []),  # the case's verb, not the asked one
])
def test_the_action_asked_is_a_course_verb_of_the_asking_clause(question: str, actions: list[str]) -> None:
    assert [c.label for c in asked_actions(question, question_concepts(question))] == actions


@pytest.mark.parametrize(("question", "passage"), [
    ("after elective surgery, when do I restart warfarin?", hit(WARFARIN, "Warfarin")),
    ("admitted cellulitis on IV flucloxacillin - when can I switch to oral?", hit(CELLULITIS, "Cellulitis")),
])
def test_another_action_on_the_drug_does_not_answer(question: str, passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score < THRESHOLD


@pytest.mark.parametrize(("question", "passage"), [
    ("how many days before elective surgery do I withhold warfarin?", hit(WARFARIN, "Warfarin")),
    # "resume" is "restart" in WordNet's sense of taking up anew
    ("after elective surgery, when do I restart warfarin?", hit(WARFARIN_RESUMED, "Warfarin")),
])
def test_the_action_stated_still_answers(question: str, passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score >= THRESHOLD


def test_course_verb_data_reads_each_roots_kind_from_wordnet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a data.verb in WordNet's format (wndb(5WN)): offset lex_filenum ss_type w_cnt word lex_id ... p_cnt
    # pointer_symbol offset pos source/target ... | gloss; "~" points to a troponym
    data = (
        "  1 This software and database is being provided to you ...\n"
        "00000001 30 v 02 continue 0 uphold 0 001 ~ 00000002 v 0000 | keep or maintain\n"
        "00000002 30 v 02 resume 0 restart 0 002 @ 00000001 v 0000 ~ 00000003 v 0000 | take up anew\n"
        "00000003 30 v 01 resurrect 0 001 @ 00000002 v 0000 | two levels down\n"
        "00000004 30 v 01 taper 0 000 | another root's verb\n"
    )
    (tmp_path / "data.verb").write_text(data, encoding="latin-1")
    monkeypatch.setattr(course_verb_data, "ROOTS", (("00000001", "continue"),))

    verbs = course_verb_data.course_verbs(tmp_path)

    # the root and its direct troponyms, each with the whole kind; not a troponym's troponym, nor other verbs
    assert verbs == {word: {"continue", "uphold", "resume", "restart"}
                     for word in ("continue", "uphold", "resume", "restart")}


def test_course_verb_data_refuses_a_wordnet_whose_offsets_name_other_synsets(tmp_path: Path) -> None:
    (tmp_path / "data.verb").write_text("00348746 30 v 01 brew 0 000 | not WordNet 3.0\n", encoding="latin-1")

    with pytest.raises(ValueError, match="not WordNet 3.0"):
        course_verb_data.course_verbs(tmp_path)


def test_the_shipped_course_verbs_hold_the_kinds_asked_and_no_generic_sense() -> None:
    verbs = course_verbs()
    # "restart" is a way to continue, "minimise" a way to decrease (WordNet 3.0); "withhold" is no course verb there
    assert {"resum", "continu"} <= verbs["restart"]
    assert "reduc" in verbs[stem("minimise")]
    assert stem("withhold") not in verbs and "hold" not in verbs  # intransitive "continue a state": not kept


GOUT_DOSES = "For gout prophylaxis start allopurinol 100 mg once daily and increase by 100 mg every 2 to 4 weeks."


@pytest.mark.parametrize("question", [
    "If I use febuxostat instead of allopurinol for gout prophylaxis, what's the dose?",
    "febuxostat rather than allopurinol for gout prophylaxis - starting dose?",
])
def test_a_dose_asked_of_the_replacing_drug_is_not_the_replaced_drugs(question: str) -> None:
    assert evidence.assess(question, [hit(GOUT_DOSES, "Gout")]).score < THRESHOLD


def test_a_dose_asked_of_the_drug_the_reference_doses_instead_of_another_still_answers() -> None:
    question = "Want to start allopurinol instead of febuxostat for gout prophylaxis, what dose?"
    assert evidence.assess(question, [hit(GOUT_DOSES, "Gout")]).score >= THRESHOLD


# session 16: a dose divided, and a phrasal verb written around its object ("bump the dose up": WordNet's "bump up",
# a way to raise, a way to increase)
ALLOPURINOL_DIVIDED = ("Allopurinol: start 100 mg daily and increase by 100 mg every 2 to 4 weeks; doses above 300 mg "
                       "are given in divided doses.")


@pytest.mark.parametrize("question", [
    "gout, on allopurinol 200 mg - how often can I bump the dose up?",
    "allopurinol for gout prophylaxis: how often do we bump up the dose",
    "allopurinol 400 mg a day for gout - once daily or split?",
])
def test_an_asked_change_of_dose_is_covered_by_the_verbs_of_its_kind(question: str) -> None:
    found = evidence.assess(question, [hit(ALLOPURINOL_DIVIDED, "Allopurinol")])

    assert not {"bump", "split"} & set(found.passages[0].missing)
    assert found.score >= THRESHOLD


def test_a_phrasal_verb_is_read_with_its_particle_only() -> None:
    question = "gout, allopurinol - how often can I bump the dose up?"
    (bump,) = asked_actions(question, question_concepts(question))
    assert bump.label == "bump" and any(a == frozenset({"increas"}) for a in bump.alternatives)
    # "bump" without its particle is another verb (to knock): no kind of increase
    alone = "gout, allopurinol - did he bump his head?"
    assert all(c.label != "bump" for c in asked_actions(alone, question_concepts(alone)))
    # the particle more than three words after the verb belongs to something else
    far = "gout, allopurinol - can I bump the morning and evening doses up?"
    assert all(c.label != "bump" for c in asked_actions(far, question_concepts(far)))


def test_the_shipped_course_verbs_hold_the_divided_dose_and_the_phrasal_verbs() -> None:
    verbs = course_verbs()
    assert stem("divide") in verbs[stem("split")]
    text = course_verbs_text()
    assert "\nbump up\t" in text and "\nscale down\t" in text


def course_verbs_text() -> str:
    from voiceassist.query import terminology

    return terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8")


def test_course_verb_data_reads_the_phrasal_verbs_one_level_further(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    data = (
        "00000001 30 v 01 increase 0 001 ~ 00000002 v 0000 | make bigger\n"
        "00000002 30 v 01 raise 0 003 @ 00000001 v 0000 ~ 00000003 v 0000 ~ 00000004 v 0000 | raise the level\n"
        "00000003 30 v 01 bump_up 0 001 @ 00000002 v 0000 | increase or raise\n"
        "00000004 30 v 01 double 0 001 @ 00000002 v 0000 | a one-word verb two levels down: not kept\n"
    )
    (tmp_path / "data.verb").write_text(data, encoding="latin-1")
    monkeypatch.setattr(course_verb_data, "ROOTS", (("00000001", "increase"),))

    verbs = course_verb_data.course_verbs(tmp_path)

    kind = {"increase", "raise"}
    assert verbs == {"increase": kind, "raise": kind, "bump up": kind}
