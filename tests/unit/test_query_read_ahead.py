"""Reading ahead (query/read_ahead.py): the knowledge-base search started beside the PHI detection is the one the
search step runs, collected once; nothing runs ahead without a detector working beside this process, and nothing
ahead ever reaches an embedder or a reranker outside the boundary."""

from __future__ import annotations

from typing import Any

import pytest

from tests.stubs.query_stack import OutsideEmbedder, index_passages
from voiceassist.composition import Dependencies
from voiceassist.models import PhiResult, QueryRequest, SearchFilters, SourceType
from voiceassist.phi import FailClosedDetector
from voiceassist.query import read_ahead, retrieval
from voiceassist.query.retrieval import search_ahead as start_reading_ahead
from voiceassist.query.state import QueryState

QUESTION = "Patient John Smith, MRN 4417823: what is the maximum daily dose of metformin?"
PASSAGES = {
    "dose": "Metformin: the usual maximum dose is 2,000 mg per day in divided doses with meals.",
    "renal": "Reduce the metformin dose when eGFR is 30-45; stop it below 30.",
    "asthma": "Inhaled corticosteroids are the mainstay of persistent asthma treatment.",
}


class WorkerDetector:
    """A detector that detects beside this process (it has `begin`), as the worker process detector does."""

    def __init__(self, *, begin_fails: bool = False) -> None:
        self.begun: list[str] = []
        self.begin_fails = begin_fails

    def begin(self, text: str) -> None:
        if self.begin_fails:
            raise RuntimeError("the worker could not start")
        self.begun.append(text)

    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=True, entities=[], redacted_text="<PERSON>")


class InProcessDetector:
    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=True, entities=[], redacted_text="<PERSON>")


class CountingIndex:
    def __init__(self, inner: Any) -> None:
        self.inner, self.searches = inner, 0

    def search(self, query: Any) -> Any:
        self.searches += 1
        return self.inner.search(query)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def deps(local_deps: Dependencies) -> Dependencies:
    index_passages(local_deps, "metformin-guide", "Metformin guideline", PASSAGES)
    local_deps.index = CountingIndex(local_deps.index)  # type: ignore[misc]
    return local_deps


def question(**request: Any) -> QueryState:
    return QueryState(user_id="clinician-1", request=QueryRequest(query=QUESTION, **request))


def test_read_ahead_search_is_collected_by_the_search_step_once(deps: Dependencies) -> None:
    detector = WorkerDetector()
    deps.phi_detector = FailClosedDetector(detector)  # type: ignore[misc]
    state = question()

    start_reading_ahead(deps.query, state)
    ahead = retrieval.search_knowledge_base(deps.query, state)
    searched = retrieval.search_knowledge_base(deps.query, state)  # nothing left ahead: searched again

    assert detector.begun == [QUESTION]
    assert [hit.chunk.chunk_id for hit in ahead] == [hit.chunk.chunk_id for hit in searched]
    assert ahead[0].chunk.chunk_id == "dose"
    assert deps.index.searches == 2  # type: ignore[attr-defined]


def test_read_ahead_starts_nothing_when_the_detector_runs_in_this_process(deps: Dependencies) -> None:
    deps.phi_detector = FailClosedDetector(InProcessDetector())  # type: ignore[misc]

    start_reading_ahead(deps.query, question())

    assert deps.index.searches == 0  # type: ignore[attr-defined]


def test_read_ahead_a_detector_that_cannot_begin_starts_nothing(deps: Dependencies) -> None:
    deps.phi_detector = FailClosedDetector(WorkerDetector(begin_fails=True))  # type: ignore[misc]

    start_reading_ahead(deps.query, question())  # no error: Detect PHI detects, or fails closed, as always

    assert deps.index.searches == 0  # type: ignore[attr-defined]


def test_read_ahead_never_embeds_with_an_embedder_outside_the_boundary(deps: Dependencies) -> None:
    detector = WorkerDetector()
    deps.phi_detector = FailClosedDetector(detector)  # type: ignore[misc]
    deps.embedder = outside = OutsideEmbedder(deps.embedder)  # type: ignore[misc]

    start_reading_ahead(deps.query, question())

    assert detector.begun == [QUESTION]  # the detection still starts: it stays inside the boundary
    assert outside.texts == []
    assert deps.index.searches == 0  # type: ignore[attr-defined]


def test_read_ahead_hits_are_not_used_for_another_search(deps: Dependencies) -> None:
    deps.phi_detector = FailClosedDetector(WorkerDetector())  # type: ignore[misc]
    state = question()
    start_reading_ahead(deps.query, state)
    read_ahead_key = read_ahead.search_key(deps.query, QUESTION, filters=SearchFilters(), top_k=10,
                                           mode=retrieval.SearchMode.HYBRID)

    # a branch filtered to one source type is another search: it searches itself, the search ahead stays
    retrieval.search_knowledge_base(deps.query, state, source_types=[SourceType.JOURNAL])

    assert read_ahead.collect(read_ahead_key) is not None  # (waits for the search ahead, if still running)
    assert deps.index.searches == 2  # type: ignore[attr-defined]
