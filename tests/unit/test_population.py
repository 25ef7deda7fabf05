"""Who a question and its evidence are about (query/population.py)."""

from __future__ import annotations

from voiceassist.query import population


def test_population_ages_fall_in_their_mesh_group_and_durations_are_not_ages() -> None:
    assert population.asked("CAP abx dose in a 4 year old") == {"children"}
    assert population.asked("doxycycline for pneumonia in an 8 yo") == {"children"}
    assert population.asked("a 15-year-old with anaphylaxis") == {"adolescents"}
    assert population.asked("a 3 month old") == {"infants"}
    assert population.asked("metformin for 2 years") == frozenset()
    assert population.asked("bp goal for most adults") == frozenset()  # adults: no special group


def test_population_adult_evidence_does_not_cover_a_child_but_a_childrens_dose_does() -> None:
    adult = ["Community-Acquired Pneumonia in Adults\nFor adults treated as outpatients, amoxicillin 1 g."]
    both = ["Give 0.01 mg/kg, to a maximum single dose of 0.5 mg in adults and 0.3 mg in children."]
    assert population.uncovered("amoxicillin dose for pneumonia in kids", adult) == ({"children"}, {"adults"})
    assert population.uncovered("epinephrine dose for a 6 yo", both)[0] == frozenset()
    assert population.uncovered("metformin dose in pregnancy", ["Start with 500 mg once daily."])[0] == {
        "pregnancy"}


def test_population_a_follow_up_carries_the_childs_age_forward() -> None:
    from voiceassist.conversation.context import Turn, resolve

    earlier = [Turn("user", "amoxicillin dose for pneumonia in a 4 year old"),
               Turn("assistant", "Amoxicillin 1 g orally three times daily [1].")]
    carried = resolve("And the max dose?", earlier)
    asked_now = resolve("And in a child?", [Turn("user", "amoxicillin dose for community-acquired pneumonia"),
                                            Turn("assistant", "Amoxicillin 1 g orally three times daily [1].")])

    assert population.asked(carried.query) == {"children"}
    assert population.asked(asked_now.query) == {"children"} and "pneumonia" in asked_now.query


def test_population_a_gestational_condition_is_a_pregnancy() -> None:
    assert population.asked("metformin for gestational diabetes dose") == {"pregnancy"}


def test_population_a_child_question_quoting_only_an_adult_reference_states_the_conflict() -> None:
    """An uncited passage about children (a distractor abstract) kept beside an adult drug reference must not
    make an answer quoted from the adult reference read as one for a child."""
    from voiceassist.models import Chunk, DocumentMetadata, QueryRequest, SearchHit, SourceType
    from voiceassist.query import abstention
    from voiceassist.query.citations import number_excerpts
    from voiceassist.query.state import QueryState

    def hit(doc_key: str, title: str, text: str) -> SearchHit:
        meta = DocumentMetadata(doc_key=doc_key, title=title, source_type=SourceType.DRUG_REFERENCE)
        return SearchHit(chunk=Chunk(chunk_id=doc_key, doc_id=doc_key, doc_key=doc_key, version=1, ordinal=0,
                                     text=text, token_count=len(text.split()), metadata=meta), score=1.0)

    adult = hit("sample-metformin", "Metformin (sample drug reference)",
                "Start with 500 mg once or twice daily with meals; the usual maximum is 2,000 mg per day.")
    abstract = hit("MED-1993", "MED-1993", "type num diabetes mellitus children adolescents emerging clinical problem")
    question = "metformin dose for a 12 year old with T2DM"
    state = QueryState(user_id="u", request=QueryRequest(query=question), hits=[adult, abstract])
    state.population_conflict = abstention.population_conflict(question, state.hits)
    quoted_adult, quoted_both = number_excerpts([adult]), number_excerpts([adult, abstract])

    assert state.population_conflict is None  # the kept hits, together, name children
    conflict = abstention.cited_population_conflict(state, quoted_adult)
    assert conflict is not None and conflict.startswith("Caution: the question is about children")
    assert abstention.cited_population_conflict(state, quoted_both) is None
