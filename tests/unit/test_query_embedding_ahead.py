"""The question's vectors embedded ahead (query/embedding_ahead.py): the input screen's text and the search's
expanded text are each embedded once, before their steps ask, with the vectors each step's own call gives; never
with an embedder outside the boundary or on AWS; and what is kept holds no question text and serves no other one."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tests.stubs.query_stack import OutsideEmbedder, index_passages
from voiceassist.adapters.onnx.embedder import OnnxEmbedder
from voiceassist.composition import Dependencies
from voiceassist.models import AnswerStatus, PhiResult, QueryRequest
from voiceassist.query import embedding_ahead, planning, read_ahead, retrieval
from voiceassist.query.expansion import expand_query
from voiceassist.query.state import QueryState
from voiceassist.settings import Runtime

PASSAGES = {
    "dose": "Metformin: the usual maximum dose is 2,000 mg per day in divided doses with meals.",
    "renal": "Reduce the metformin dose when eGFR is 30-45; stop it below 30.",
}


def new_question(shape: str = "Patient {n}: what is the maximum daily dose of metformin for eGFR 40?") -> str:
    """A question no test embedded before (the embedder is shared by the test process)."""
    return shape.format(n=f"MRN {uuid.uuid4().int % 10**9}")


class Recording:
    """The texts the embedder's encoder runs (not those its recent vectors answer)."""

    def __init__(self, embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        real = embedder._embed
        monkeypatch.setattr(embedder, "_embed", lambda texts: self.texts.extend(texts) or real(texts))


@pytest.fixture
def deps(local_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dependencies]:
    # a loaded CI machine can take seconds to embed: the steps wait for the embedding ahead as long as it takes here
    # (past the production limit they embed themselves, which would count texts twice)
    monkeypatch.setattr(read_ahead, "COLLECT_TIMEOUT_S", 600.0)
    index_passages(local_deps, "metformin-guide", "Metformin guideline", PASSAGES)
    yield local_deps


def embedding_started(deps: Dependencies, question: str) -> Any:
    """The embedding ahead kept for `question` (its future), or None."""
    kept = read_ahead._embeddings.get(read_ahead.embedding_key(deps.query, question))
    return None if kept is None else kept[1]


def checked(question: str) -> QueryState:
    state = QueryState(user_id="clinician-1", request=QueryRequest(query=question))
    state.phi = PhiResult(contains_phi=True, entities=[], redacted_text="<MRN>")
    return state


def test_embedding_ahead_embeds_the_screen_and_search_texts_once_each(deps: Dependencies,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    question = new_question()
    encoder = Recording(deps.embedder, monkeypatch)  # type: ignore[arg-type]
    state = checked(question)

    planning.classify(deps.query, state)  # the input screen embeds the question
    hits = retrieval.search_knowledge_base(deps.query, state)  # the search embeds the expanded text

    assert sorted(encoder.texts) == sorted([question, expand_query(question)])  # the two texts, each once
    assert expand_query(question) != question
    assert hits[0].chunk.chunk_id in PASSAGES


def test_embedding_ahead_gives_the_vectors_each_step_would_embed_itself(deps: Dependencies) -> None:
    question = new_question()
    alone = OnnxEmbedder(precision=deps.embedder.precision)  # type: ignore[attr-defined]  # no recent vectors

    embedding_ahead.embed_question_ahead(deps.query, checked(question))

    for text in (question, expand_query(question)):
        np.testing.assert_allclose(deps.embedder.embed([text])[0], alone.embed([text])[0], atol=1e-6)


def test_embedding_ahead_started_on_arrival_is_collected_by_classify(deps: Dependencies,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    question = new_question()
    encoder = Recording(deps.embedder, monkeypatch)  # type: ignore[arg-type]
    state = checked(question)

    embedding_ahead.embed_ahead(deps.query, question)  # the local runner, when the question arrives
    planning.classify(deps.query, state)
    retrieval.search_knowledge_base(deps.query, state)

    assert sorted(encoder.texts) == sorted([question, expand_query(question)])
    assert not read_ahead.wait_for_embedding(read_ahead.embedding_key(deps.query, question))  # collected once


def test_embedding_ahead_of_one_question_serves_no_other(deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    # two clinicians' questions about two patients: the second is embedded for itself, nothing of the first's reused
    first, second = new_question(), new_question()
    encoder = Recording(deps.embedder, monkeypatch)  # type: ignore[arg-type]

    embedding_ahead.embed_ahead(deps.query, first)
    planning.classify(deps.query, checked(second))
    ahead = embedding_started(deps, first)

    assert ahead is not None  # still the first's alone: the second question did not collect it
    ahead.result(timeout=600)
    assert sorted(encoder.texts) == sorted([first, expand_query(first), second, expand_query(second)])


def test_embedding_ahead_keeps_no_question_text(deps: Dependencies) -> None:
    question = new_question()
    embedding_ahead.embed_ahead(deps.query, question)
    embedding_started(deps, question).result(timeout=600)  # its vectors kept by the embedder
    kept = repr(list(read_ahead._embeddings)) + repr(list(deps.embedder._recent))  # type: ignore[attr-defined]

    for text in (question, expand_query(question)):
        assert text not in kept
        assert text.encode() not in kept.encode()
    assert "MRN" not in kept


def test_embedding_ahead_never_reaches_an_embedder_outside_the_boundary(deps: Dependencies) -> None:
    deps.embedder = outside = OutsideEmbedder(deps.embedder)  # type: ignore[misc]
    question = new_question()

    embedding_ahead.embed_ahead(deps.query, question)
    embedding_ahead.embed_question_ahead(deps.query, checked(question))

    assert outside.texts == []
    assert not read_ahead.wait_for_embedding(read_ahead.embedding_key(deps.query, question))


def test_embedding_ahead_does_nothing_on_aws(deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    # on AWS each step is its own Lambda: a vector embedded in Classify's would never reach the search's
    deps.settings = deps.settings.model_copy(update={"runtime": Runtime.AWS})  # type: ignore[misc]
    vars(deps).pop("query", None)
    encoder = Recording(deps.embedder, monkeypatch)  # type: ignore[arg-type]
    question = new_question()

    embedding_ahead.embed_ahead(deps.query, question)
    embedding_ahead.embed_question_ahead(deps.query, checked(question))

    assert encoder.texts == []


def test_embedding_ahead_leaves_a_question_without_expansion_to_the_screen(deps: Dependencies,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    question = new_question("What is the maximum daily dose of metformin ({n})?")
    encoder = Recording(deps.embedder, monkeypatch)  # type: ignore[arg-type]
    state = checked(question)

    planning.classify(deps.query, state)
    retrieval.search_knowledge_base(deps.query, state)

    assert expand_query(question) == question
    assert encoder.texts == [question]  # the screen's call; the search's found it


def test_embedding_ahead_still_queued_is_done_by_classify_itself(deps: Dependencies,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # other questions' work holds both reading-ahead threads: Classify does not wait behind them
    release = threading.Event()
    busy = [read_ahead._threads.submit(release.wait, 30) for _ in range(2)]
    question = new_question()
    encoder = Recording(deps.embedder, monkeypatch)  # type: ignore[arg-type]
    try:
        embedding_ahead.embed_ahead(deps.query, question)
        planning.classify(deps.query, checked(question))
    finally:
        release.set()
        for future in busy:
            future.result(timeout=30)

    assert sorted(encoder.texts) == sorted([question, expand_query(question)])  # once each, by Classify
    assert not read_ahead.wait_for_embedding(read_ahead.embedding_key(deps.query, question))


def test_embedding_ahead_that_fails_leaves_the_steps_to_embed(deps: Dependencies,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(texts: list[str]) -> Any:
        raise RuntimeError("the encoder is gone")

    monkeypatch.setattr(deps.embedder, "_embed", broken)
    question = new_question()
    state = checked(question)

    embedding_ahead.embed_ahead(deps.query, question)
    planning.classify(deps.query, state)  # no error: the screen reads words only, the search is planned

    assert state.search_plan
    assert state.answer_status is not AnswerStatus.REFUSED
