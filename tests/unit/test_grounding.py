"""The grounding check: every answer sentence must be supported by the excerpt it cites."""

from __future__ import annotations

from types import SimpleNamespace

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import grounding
from voiceassist.query.generation import number_excerpts
from voiceassist.settings import Settings

METFORMIN = ("Start with 500 mg once or twice daily with meals. The usual maximum is 2,000 mg per day in divided "
             "doses.")
CAP = "For adults treated as outpatients without comorbidities, first-line treatment is amoxicillin 1 g orally."


def excerpts(*texts: str):  # type: ignore[no-untyped-def]
    meta = DocumentMetadata(doc_key="ref", title="Reference", source_type=SourceType.GUIDELINE)
    return number_excerpts([
        SearchHit(chunk=Chunk(chunk_id=f"c{i}", doc_id="d", doc_key="ref", version=1, ordinal=i, text=t,
                              token_count=len(t.split()), metadata=meta), score=1.0) for i, t in enumerate(texts)])


def test_a_faithful_answer_is_kept_whole_and_fully_grounded() -> None:
    answer = "The usual maximum is 2,000 mg per day [1]. Amoxicillin is first-line for outpatients [2]."

    checked = grounding.check(answer, excerpts(METFORMIN, CAP))

    assert (checked.text, checked.share, checked.removed_citations) == (answer, 1.0, ())


def test_a_changed_dose_is_not_supported_and_its_sentence_is_removed() -> None:
    answer = "The usual maximum is 2,000 mg per day [1]. Start with 5,000 mg daily [1]."

    checked = grounding.check(answer, excerpts(METFORMIN))

    assert checked.text == "The usual maximum is 2,000 mg per day [1]."
    assert (checked.share, checked.removed_sentences) == (0.5, 1)


def test_a_citation_to_an_excerpt_that_does_not_support_the_sentence_is_removed() -> None:
    checked = grounding.check("First-line treatment is amoxicillin 1 g orally [1, 2].", excerpts(METFORMIN, CAP))

    assert checked.text == "First-line treatment is amoxicillin 1 g orally [2]."
    assert checked.removed_citations == (1,)


def test_a_sentence_that_only_talks_about_the_sources_or_repeats_the_case_is_not_a_claim() -> None:
    answer = "Per the reference, Smith's case (4417823) fits the cited excerpt [1]."

    checked = grounding.check(answer, excerpts(METFORMIN), given=frozenset({"smith", "4417823"}))

    assert (checked.text, checked.sentences) == (answer, ())


def test_an_uncited_sentence_without_numbers_stays_but_counts_as_unsupported() -> None:
    answer = "The excerpts do not cover pregnancy. The usual maximum is 2,000 mg per day [1]."

    checked = grounding.check(answer, excerpts(METFORMIN))

    assert checked.text == answer and checked.share == 0.5


def test_an_answer_with_no_supported_sentence_is_emptied() -> None:
    checked = grounding.check("Give 10 mg of digoxin intravenously [1].", excerpts(METFORMIN))

    assert checked.text == "" and checked.share == 0.0


def assembled(answer: str, *texts: str, query: str = "What is the maximum dose of metformin?"):  # type: ignore[no-untyped-def]
    from voiceassist.models import PhiResult, QueryRequest
    from voiceassist.query import answering
    from voiceassist.query.state import QueryState, response_of

    hits = [SearchHit(chunk=e.chunk, score=1.0) for e in excerpts(*texts)]
    state = QueryState(user_id="u", request=QueryRequest(query=query), hits=hits, answer=answer,
                       model="gpt-4o-mini", phi=PhiResult(contains_phi=False, redacted_text=query))
    ctx = SimpleNamespace(settings=Settings())  # no session: only the critic's settings are read
    return response_of(answering.assemble(ctx, state))  # type: ignore[arg-type]


def test_assemble_reports_grounding_and_warns_about_what_it_removed() -> None:
    response = assembled("The usual maximum is 2,000 mg per day [1]. Start with 5,000 mg daily [1].", METFORMIN)

    assert response.answer == "The usual maximum is 2,000 mg per day [1]."
    assert response.metadata.grounding == 0.5 and response.metadata.answer_status.value == "answered"
    assert "removed 1 sentence(s) that no cited excerpt supports" in response.metadata.warnings


def test_assemble_withholds_an_answer_no_excerpt_supports() -> None:
    from voiceassist.query.answering import UNGROUNDED_REPLY

    response = assembled("Give 10 mg of digoxin intravenously [1].", METFORMIN)

    assert (response.answer, response.citations) == (UNGROUNDED_REPLY, [])
    assert response.metadata.answer_status.value == "no_evidence" and response.metadata.grounding == 0.0


def test_a_partly_answered_question_names_the_part_without_evidence() -> None:
    response = assembled("The usual maximum is 2,000 mg per day [1].",
                         "The usual maximum dose of metformin is 2,000 mg per day.",
                         query="What is the maximum dose of metformin in pregnancy?")

    assert ('no cited passage mentions "pregnancy": that part of the question has no evidence'
            in response.metadata.warnings)


def test_the_critic_withholds_an_answer_mostly_unsupported_when_no_ladder_step_is_left() -> None:
    from voiceassist.query import critic

    # one supported sentence of four: the uncited ones without numbers stay, but count as unsupported
    response = assembled("The usual maximum is 2,000 mg per day [1]. Metformin cures gout. It also cures "
                         "migraine. It treats asthma.", METFORMIN)

    assert (response.answer, response.citations) == (critic.WITHHELD_REPLY, [])
    assert response.metadata.answer_status.value == "no_evidence" and response.metadata.grounding == 0.25
    plan = response.metadata.plan
    assert plan is not None and [c.action for c in plan.critiques] == ["abstained"]
    assert [(a.step, a.evidence) for a in plan.retrieval.tried] == [("dense", None), ("pubmed", None)]


AMOXICILLIN = "Amoxicillin 500 mg orally twice daily for 5 days."


def test_a_dose_in_another_unit_than_the_excerpts_is_removed_and_the_warning_names_it() -> None:
    checked = grounding.check("Give amoxicillin 5 g orally twice daily for 5 days [1].", excerpts(AMOXICILLIN))

    assert checked.text == "" and checked.dose_warnings == [
        "removed a sentence whose 5 g is not in the excerpt it cites ([1])"]


def test_a_changed_frequency_or_route_is_removed() -> None:
    frequency = grounding.check("Amoxicillin 500 mg orally four times daily for 5 days [1].", excerpts(AMOXICILLIN))
    route = grounding.check("Amoxicillin 500 mg IV twice daily for 5 days [1].", excerpts(AMOXICILLIN))

    assert frequency.text == "" and "four times daily" in frequency.dose_warnings[0]
    assert route.text == "" and "IV" in route.dose_warnings[0]


def test_the_same_dose_written_another_way_is_supported() -> None:
    answer = "Amoxicillin 0.5 g by mouth every 12 hours for 5 days [1]."

    checked = grounding.check(answer, excerpts(AMOXICILLIN))

    assert (checked.text, checked.share, checked.dose_warnings) == (answer, 1.0, [])


def test_assemble_warns_why_a_dose_sentence_was_removed() -> None:
    response = assembled("Amoxicillin is first-line [1]. Give amoxicillin 1 g orally four times daily [1].",
                         "Amoxicillin is first-line for outpatients: amoxicillin 1 g orally twice daily.",
                         query="First-line antibiotic for community-acquired pneumonia?")

    assert "four times daily" not in response.answer
    assert any("four times daily is not in the excerpt it cites" in w for w in response.metadata.warnings)


def test_with_no_ladder_step_left_a_changed_dose_is_removed_and_the_rest_stands() -> None:
    response = assembled("Amoxicillin is first-line for outpatients [1]. Give amoxicillin 500 mg orally twice "
                         "daily [1]. Take amoxicillin 5 g orally twice daily [1].",
                         "Amoxicillin is first-line for outpatients: amoxicillin 500 mg orally twice daily.",
                         query="First-line antibiotic for community-acquired pneumonia?")

    assert response.answer == ("Amoxicillin is first-line for outpatients [1]. Give amoxicillin 500 mg orally "
                               "twice daily [1].")
    assert "removed a sentence whose 5 g is not in the excerpt it cites ([1])" in response.metadata.warnings


def test_an_amount_per_day_kilogram_or_hour_keeps_what_it_is_per() -> None:
    """A dose that differs by a unit is never supported, written as a rate too: 2 g/day is not 2 mg/day, and an
    infusion of 10 mL/h is not 10 mL/kg/h."""
    per_day = grounding.check("Give 2 g/day in divided doses [1].", excerpts("Give 2 mg/day in divided doses."))
    per_kg = grounding.check("Infuse at 10 mL/h [1].", excerpts("Infuse at 10 mL/kg/h."))
    same = grounding.check("Amoxicillin 90 mg/kg per day in two doses [1].",
                           excerpts("Amoxicillin 90 mg/kg/day in two doses."))

    assert per_day.text == "" and per_day.dose_warnings == [
        "removed a sentence whose 2 g/day is not in the excerpt it cites ([1])"]
    assert per_kg.text == "" and "10 mL/h" in per_kg.dose_warnings[0]
    assert same.share == 1.0 and same.dose_warnings == []


def test_a_changed_weekly_or_hourly_frequency_is_removed() -> None:
    weekly = grounding.check("Methotrexate 15 mg twice weekly [1].", excerpts(
        "Methotrexate 15 mg once weekly by mouth; never twice in a week."))
    hourly = grounding.check("Amoxicillin 500 mg 6-hourly [1].", excerpts("Amoxicillin 500 mg 8-hourly for 6 days."))

    assert weekly.text == "" and "twice weekly" in weekly.dose_warnings[0]
    assert hourly.text == "" and "6-hourly" in hourly.dose_warnings[0]


def test_a_frequency_or_daily_amount_written_another_way_is_supported() -> None:
    hourly = grounding.check("Amoxicillin 500 mg three times a day [1].", excerpts("Amoxicillin 500 mg 8-hourly."))
    daily = grounding.check("The maximum is 2 g daily [1].", excerpts("The maximum is 2 g/day."))
    a_day = grounding.check("At most 2,000 mg a day [1].", excerpts(METFORMIN))
    unsaid = grounding.check("The usual maximum is 2,000 mg [1].", excerpts(METFORMIN))

    for checked in (hourly, daily, a_day, unsaid):
        assert (checked.share, checked.dose_warnings) == (1.0, [])
