"""The question's vectors embedded before its steps ask for them (the local runtime).

The input screen (Classify Intent) embeds the question; the search (Search One Source) embeds its expanded text
("eGFR" -> "eGFR (estimated glomerular filtration rate)"), the same text when expansion leaves it alone (the
embedder's recent vectors then serve the second call) and otherwise another text with another vector, embedded
after the screen's, in series. Here both are embedded earlier and beside other work: when the question arrives,
on a reading-ahead thread beside the PHI detection (the ONNX run releases the GIL), or at Classify Intent both at
once on the embedder's threads; each step's own embedder call then finds its vector among the recent ones.

The vectors are the ones each step's own call gives (each text embedded alone), so every answer is the same. The
embedder is in-boundary (a question with PHI may reach it, as it does at the screen); the embedder keeps vectors
under a hash of each text, never the text, and only a call with that exact text gets one back. On AWS each step
is its own Lambda and nothing here runs.
"""

from __future__ import annotations

import time

from voiceassist.observability import log_failure, stage_span
from voiceassist.query import read_ahead
from voiceassist.query.expansion import expand_query
from voiceassist.query.state import QueryContext, QueryState, run_detector
from voiceassist.safety.input_screen import meaning_model
from voiceassist.settings import Runtime


def embeds_ahead(ctx: QueryContext) -> bool:
    """Whether embedding a question's texts before their steps ask can pay: where one process runs both steps (the
    local runtime: on AWS each step is its own Lambda), with an in-boundary embedder that embeds apart (the vectors
    each step's own call gives, kept among its recent vectors) and whose vectors the input screen reads."""
    embedder = ctx.embedder
    return (ctx.settings.runtime is Runtime.LOCAL and callable(getattr(embedder, "embed_apart", None))
            and embedder.in_boundary and embedder.model_id == meaning_model().embedding)


def screen_and_search_texts(question: str) -> list[str]:
    """The question (the input screen's text) and its expanded search text, once each."""
    return list(dict.fromkeys([question, expand_query(question)]))


def embed_ahead(ctx: QueryContext, question: str) -> None:
    """When the question arrives (the local runtime, a detector in this process): embed the screen's and the
    search's texts on a reading-ahead thread, one after the other, beside the PHI detection (the ONNX run
    releases the GIL), for Classify Intent to collect (embed_question_ahead)."""
    try:
        if embeds_ahead(ctx):
            texts = screen_and_search_texts(question)
            read_ahead.start_embedding(read_ahead.embedding_key(ctx, question), lambda: _embed_each(ctx, texts))
    except Exception as exc:  # noqa: BLE001 - the steps embed (and report failures) themselves
        log_failure("the question's embedding could not start ahead", exc)


def embed_screen_text_ahead(ctx: QueryContext, state: QueryState) -> None:
    """Beside a search ahead (a detector in its worker process), which embeds the search's text: embed the screen's
    on the other reading-ahead thread when it is another text, for Classify Intent to collect."""
    try:
        if embeds_ahead(ctx) and len(texts := screen_and_search_texts(state.request.query)) > 1:
            read_ahead.start_embedding(read_ahead.embedding_key(ctx, state.request.query),
                                       lambda: _embed_each(ctx, texts[:1]))
    except Exception as exc:  # noqa: BLE001 - the steps embed (and report failures) themselves
        log_failure("the screen's embedding could not start ahead", exc)


def _embed_each(ctx: QueryContext, texts: list[str]) -> None:
    started = time.perf_counter()
    for text in texts:
        ctx.embedder.embed([text])
    stage_span("embed_ahead", started, time.perf_counter())


def embed_question_ahead(ctx: QueryContext, state: QueryState) -> None:
    """Before the input screen (Classify Intent): wait for the embedding started when the question arrived, or
    else embed the screen's and the search's texts together (the embedder runs them at once on its threads), so
    that the screen and Search One Source each find theirs instead of the search embedding a second text after
    the screen, in series. Nothing when a search runs ahead (it embeds the search's text itself) or the texts
    are one (the screen's own call embeds it). Never raises: the steps embed (and report failures) themselves."""
    started = time.perf_counter()
    try:
        if (read_ahead.wait_for_embedding(read_ahead.embedding_key(ctx, state.request.query))
                or not embeds_ahead(ctx) or callable(getattr(run_detector(ctx, state), "begin", None))
                or len(texts := screen_and_search_texts(state.request.query)) < 2):
            return
        ctx.embedder.embed_apart(texts)  # type: ignore[attr-defined]  # embeds_ahead checked it
        stage_span("embed_ahead", started, time.perf_counter())
    except Exception as exc:  # noqa: BLE001 - the screen and the search each embed (and report failures) themselves
        log_failure("the question could not be embedded ahead", exc)
