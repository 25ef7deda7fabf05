"""The embedded index's batch writes: a batch of documents indexed and activated in one transaction each, and
concurrent writers' calls written together (group commit), with the search a document at a time would give."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.unit.test_local_index_bm25 import DIMENSION, QUERIES, make_chunk, random_text
from voiceassist.adapters.local import index_tables
from voiceassist.adapters.local.group_commit import GroupCommit
from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.models import Chunk, SearchFilters, SearchMode, SearchQuery

WAIT_SECONDS = 60.0  # generous: a loaded CI machine may take long to start a thread, never this long


def vectors_for(chunks: Sequence[Chunk]) -> np.ndarray:
    """A fixed vector per chunk id, so both builds get the same vectors whatever their batches."""
    return np.stack([np.random.default_rng(zlib.crc32(c.chunk_id.encode())).standard_normal(DIMENSION)
                     for c in chunks]).astype(np.float32)


def corpus() -> tuple[list[Chunk], list[Chunk]]:
    """80 documents, then a second version of every fifth one (re-ingested)."""
    rng = random.Random(11)
    first = [make_chunk(n, random_text(rng), year=2000 + n % 25) for n in range(80)]
    second = [make_chunk(n, random_text(rng), version=2) for n in range(0, 80, 5)]
    return first, second


def rankings(index: LocalHybridIndex) -> list[list[tuple[str, float]]]:
    found = []
    for number, text in enumerate(QUERIES):
        vector = np.random.default_rng(number).standard_normal(DIMENSION).tolist()
        for mode in SearchMode:
            hits = index.search(SearchQuery(text=text, vector=vector, mode=mode, top_k=30))
            found.append([(hit.chunk.chunk_id, round(hit.score, 9)) for hit in hits])
    return found


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "the other threads never queued their calls"
        time.sleep(0.01)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[LocalHybridIndex]:
    opened = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    yield opened
    opened.close()


def test_local_index_batch_of_documents_searches_as_one_document_at_a_time(tmp_path: Path) -> None:
    # Given the same documents, one index built as the pipeline does a document at a time (an index call and an
    # activation each), the other a batch at a time (one index call and one activate_many per batch)
    first, second = corpus()
    one_by_one = LocalHybridIndex(tmp_path / "one.sqlite3", dimension=DIMENSION)
    for chunk in [*first, *second]:
        one_by_one.index([chunk], vectors_for([chunk]))
        one_by_one.activate(chunk.doc_key, chunk.version)
    batched = LocalHybridIndex(tmp_path / "batched.sqlite3", dimension=DIMENSION)
    for batch in (first[:50], first[50:], second):
        batched.index(batch, vectors_for(batch))
        batched.activate_many([(c.doc_key, c.version) for c in batch])

    # Then every query in every mode (a phrase word too: FTS5 scores it) finds the same chunks with the same
    # scores, and the re-ingested documents' first versions are hidden in both
    assert rankings(batched) == rankings(one_by_one)
    assert batched.count() == one_by_one.count() == 80
    for built in (batched, one_by_one):
        hits = built.search(SearchQuery(text="x", vector=[1.0] * DIMENSION, mode=SearchMode.DENSE,
                                        filters=SearchFilters(doc_keys=["doc-5"])))
        assert [hit.chunk.chunk_id for hit in hits] == ["doc-5-v2"]
    one_by_one.close()
    batched.close()


def test_local_index_activate_many_gives_a_document_named_twice_its_last_version(index: LocalHybridIndex) -> None:
    first, second = corpus()
    index.index([first[0], second[0]], vectors_for([first[0], second[0]]))

    index.activate_many([("doc-0", 2), ("doc-0", 1)])

    hits = index.search(SearchQuery(text=first[0].text, mode=SearchMode.BM25, top_k=5))
    assert [hit.chunk.chunk_id for hit in hits] == [first[0].chunk_id]


def test_local_index_batch_whose_activation_fails_leaves_none_of_its_documents_searchable(
        index: LocalHybridIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a batch indexed, and an activation that fails after its UPDATE ran (FTS5's step breaks)
    first, _ = corpus()
    index.index(first, vectors_for(first))
    monkeypatch.setattr(index_tables, "SHOW_IN_FTS", "INSERT INTO no_such_table SELECT ?")

    # When the batch is activated
    with pytest.raises(sqlite3.OperationalError):
        index.activate_many([(c.doc_key, c.version) for c in first])

    # Then no document of it is searchable, here or through another connection
    assert index.count() == 0
    assert index.search(SearchQuery(text=QUERIES[0], mode=SearchMode.BM25)) == []
    other = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    assert other.count() == 0 and other.count(searchable_only=False) == 80
    other.close()


def test_local_index_batch_whose_write_fails_stores_none_of_its_chunks(
        index: LocalHybridIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an index holding one document, and a batch whose postings cannot be written (after its rows were)
    first, _ = corpus()
    index.index(first[:1], vectors_for(first[:1]))
    index.activate("doc-0", 1)

    def broken(*args: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(index_tables, "store_postings", broken)
    with pytest.raises(sqlite3.OperationalError):
        index.index(first[1:], vectors_for(first[1:]))

    # Then none of the batch's chunks is stored, and the document before it still answers
    assert index.count(searchable_only=False) == 1
    assert [hit.chunk.doc_key for hit in index.search(SearchQuery(text=first[0].text, mode=SearchMode.BM25))] \
        == ["doc-0"]


def test_local_index_activations_arriving_during_a_write_share_one_transaction(index: LocalHybridIndex) -> None:
    # Given 12 documents indexed, and a write under way (the index's lock held, as by a long transaction)
    first, _ = corpus()
    index.index(first[:12], vectors_for(first[:12]))
    commits: list[str] = []
    index._db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    index._lock.acquire()
    # When 12 pipeline executions' Finalize steps activate their documents meanwhile
    threads = [threading.Thread(target=index.activate, args=(c.doc_key, 1)) for c in first[:12]]
    for thread in threads:
        thread.start()
    wait_until(lambda: index._activating.queued == 11)  # one is writing (waiting for the lock), 11 queued
    index._lock.release()
    for thread in threads:
        thread.join(WAIT_SECONDS)

    # Then the first one's transaction and one more for the other 11 made all 12 searchable
    assert index.count() == 12
    assert len(commits) == 2


def test_group_commit_writes_the_calls_that_arrive_during_a_write_as_one_batch() -> None:
    writes: list[list[str]] = []
    writing, release = threading.Event(), threading.Event()

    def write(items: Sequence[str]) -> None:
        writes.append(list(items))
        writing.set()
        release.wait(WAIT_SECONDS)

    group = GroupCommit(write)
    first = threading.Thread(target=group.submit, args=("a",))
    first.start()
    assert writing.wait(WAIT_SECONDS)
    others = [threading.Thread(target=group.submit, args=(item,)) for item in "bcd"]
    for thread in others:
        thread.start()
    wait_until(lambda: group.queued == 3)
    release.set()
    for thread in [first, *others]:
        thread.join(WAIT_SECONDS)

    assert writes[0] == ["a"] and sorted(writes[1]) == ["b", "c", "d"] and len(writes) == 2


def test_group_commit_fails_only_the_caller_whose_item_cannot_be_written() -> None:
    writing, release = threading.Event(), threading.Event()
    outcomes: dict[str, str] = {}

    def write(items: Sequence[str]) -> None:
        writing.set()
        release.wait(WAIT_SECONDS)
        if "bad" in items:
            raise ValueError("cannot write bad")

    group = GroupCommit(write)

    def submit(item: str) -> None:
        try:
            group.submit(item)
            outcomes[item] = "written"
        except ValueError as error:
            outcomes[item] = str(error)

    threads = [threading.Thread(target=submit, args=("first",))]
    threads[0].start()
    assert writing.wait(WAIT_SECONDS)
    threads += [threading.Thread(target=submit, args=(item,)) for item in ("good", "bad", "also good")]
    for thread in threads[1:]:
        thread.start()
    wait_until(lambda: group.queued == 3)
    release.set()
    for thread in threads:
        thread.join(WAIT_SECONDS)

    assert outcomes == {"first": "written", "good": "written", "bad": "cannot write bad", "also good": "written"}
