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
from voiceassist.adapters.local.read_write_lock import ReadWriteLock
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
    # Given a batch indexed, and an activation whose UPDATE fails half-way (after 40 of its 80 rows)
    first, _ = corpus()
    index.index(first, vectors_for(first))
    failing = index_tables.ACTIVATE.replace(
        "RETURNING chunks.rowid", "RETURNING json(CASE WHEN chunks.rowid > 40 THEN 'x' ELSE '1' END), chunks.rowid")
    assert failing != index_tables.ACTIVATE
    monkeypatch.setattr(index_tables, "ACTIVATE", failing)

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


def test_local_index_written_from_empty_answers_from_its_writes_as_the_file_read_back(tmp_path: Path) -> None:
    # Given an index built from empty (batches, activations, a chunk replaced, a document deleted, and another
    # connection's write in between), its statements traced
    first, second = corpus()
    built = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    statements: list[str] = []
    built._db.set_trace_callback(statements.append)
    for batch in (first[:50], first[50:]):
        built.index(batch, vectors_for(batch))
        built.activate_many([(c.doc_key, c.version) for c in batch])
    other = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    other.index(second[:4], vectors_for(second[:4]))
    other.activate_many([(c.doc_key, c.version) for c in second[:4]])
    built.index(second[4:], vectors_for(second[4:]))
    built.activate_many([(c.doc_key, c.version) for c in second[4:]])
    replaced = first[7].model_copy(update={"text": "zanubrutinib hypersensitivity reactions"})
    built.index([replaced], vectors_for([first[3]]))
    built.activate(replaced.doc_key, replaced.version)
    built.delete_document("doc-9")

    # When it answers every query in every mode, and the same file is opened afresh (its rows read back)
    answers = rankings(built)
    reopened = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)

    # Then the answers are the file's, with the same scores; its own rows were never read back (only the rows
    # the other connection wrote), and the replaced chunk answers with its new text
    assert answers == rankings(reopened)
    read_back = [sql for sql in statements if sql.startswith(index_tables.LOAD_ROWS)]
    assert read_back == [index_tables.LOAD_ROWS + " WHERE c.rowid > 80 ORDER BY c.rowid"]
    hits = built.search(SearchQuery(text="zanubrutinib", mode=SearchMode.BM25, top_k=5))
    assert [hit.chunk.text for hit in hits] == [replaced.text]
    for index in (built, other, reopened):
        index.close()


def test_local_index_whose_first_write_fails_keeps_no_rows_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an empty index whose first batch cannot be written (its postings fail after its rows were written)
    first, _ = corpus()
    index = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    store = index_tables.store_postings

    def broken(*args: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(index_tables, "store_postings", broken)
    with pytest.raises(sqlite3.OperationalError):
        index.index(first[:40], vectors_for(first[:40]))
    monkeypatch.setattr(index_tables, "store_postings", store)

    # When the next batch is written and activated
    index.index(first[40:], vectors_for(first[40:]))
    index.activate_many([(c.doc_key, c.version) for c in first])

    # Then the index holds and answers with the second batch only, as the file read back does
    assert index.count() == 40
    reopened = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    assert rankings(index) == rankings(reopened)
    assert {hit.chunk.doc_key for hit in index.search(SearchQuery(text=first[0].text, mode=SearchMode.BM25))} \
        .isdisjoint(c.doc_key for c in first[:40])
    index.close()
    reopened.close()


def test_local_index_activations_arriving_during_a_write_share_one_transaction(index: LocalHybridIndex) -> None:
    # Given 12 documents indexed, and a write under way (the index's write lock held, as by a long transaction)
    first, _ = corpus()
    index.index(first[:12], vectors_for(first[:12]))
    commits: list[str] = []
    index._db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    groups: list[int] = []
    write = index._activating._write

    def counted(items: Sequence[tuple[str, int]]) -> None:
        groups.append(len(items))
        write(items)

    index._activating._write = counted
    threads = [threading.Thread(target=index.activate, args=(c.doc_key, 1)) for c in first[:12]]
    with index._lock.write():
        # When 12 pipeline executions' Finalize steps activate their documents meanwhile
        for thread in threads:
            thread.start()
        # the first to arrive writes what was queued by then (and waits for the lock); the others queue
        wait_until(lambda: len(groups) == 1 and groups[0] + index._activating.queued == 12)
    for thread in threads:
        thread.join(WAIT_SECONDS)

    # Then two transactions, the first writer's and one for everything queued behind it, made all 12 searchable
    assert index.count() == 12
    assert len(commits) == 2 and sum(groups) == 12


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


def test_read_write_lock_lets_readers_in_side_by_side_and_a_writer_alone() -> None:
    lock = ReadWriteLock()
    first_reading, second_read, writer_in = threading.Event(), threading.Event(), threading.Event()
    release_first = threading.Event()

    def first_reader() -> None:
        with lock.read():
            first_reading.set()
            release_first.wait(WAIT_SECONDS)

    def second_reader() -> None:
        with lock.read():
            second_read.set()

    def writer() -> None:
        with lock.write():
            writer_in.set()

    reader = threading.Thread(target=first_reader)
    reader.start()
    assert first_reading.wait(WAIT_SECONDS)
    # A second reader gets in while the first still reads
    other = threading.Thread(target=second_reader)
    other.start()
    assert second_read.wait(WAIT_SECONDS)
    # A writer waits for the first reader to leave
    writing = threading.Thread(target=writer)
    writing.start()
    wait_until(lambda: lock._writers_waiting == 1)
    assert not writer_in.is_set()
    release_first.set()
    assert writer_in.wait(WAIT_SECONDS)
    for thread in (reader, other, writing):
        thread.join(WAIT_SECONDS)


def test_read_write_lock_holds_new_readers_back_while_a_writer_waits() -> None:
    lock = ReadWriteLock()
    order: list[str] = []
    reading, release = threading.Event(), threading.Event()

    def first_reader() -> None:
        with lock.read():
            reading.set()
            release.wait(WAIT_SECONDS)

    def writer() -> None:
        with lock.write():
            order.append("writer")

    def late_reader() -> None:
        with lock.read():
            order.append("late reader")

    threads = [threading.Thread(target=first_reader)]
    threads[0].start()
    assert reading.wait(WAIT_SECONDS)
    threads.append(threading.Thread(target=writer))
    threads[1].start()
    wait_until(lambda: lock._writers_waiting == 1)
    threads.append(threading.Thread(target=late_reader))
    threads[2].start()
    wait_until(lambda: len(lock._changed._waiters) == 2)  # type: ignore[attr-defined]
    release.set()
    for thread in threads:
        thread.join(WAIT_SECONDS)

    assert order == ["writer", "late reader"]


def test_local_index_searches_during_ingestion_see_whole_documents_only(index: LocalHybridIndex) -> None:
    # Given documents of two chunks each, sharing a word no other document has
    def document(number: int) -> list[Chunk]:
        word = f"marker{number:03d}"
        return [make_chunk(number, f"{word} aspirin dose").model_copy(update={"chunk_id": f"doc-{number}-{part}"})
                for part in (0, 1)]

    index.index(document(0), vectors_for(document(0)))
    index.activate("doc-0", 1)
    found: list[int] = []
    stop = threading.Event()

    def search() -> None:
        rng = random.Random(threading.get_ident())
        while True:  # at least one search each, however late the thread starts
            number = rng.randrange(40)
            hits = index.search(SearchQuery(text=f"marker{number:03d}", mode=SearchMode.BM25, top_k=10))
            found.append(len(hits))
            if stop.is_set():
                return

    # When 4 threads search while a writer indexes and activates 39 more, one document at a time
    readers = [threading.Thread(target=search) for _ in range(4)]
    for reader in readers:
        reader.start()
    for number in range(1, 40):
        index.index(document(number), vectors_for(document(number)))
        index.activate(f"doc-{number}", 1)
    stop.set()
    for reader in readers:
        reader.join(WAIT_SECONDS)

    # Then every search found a document whole (both chunks) or not at all, and all 40 are searchable now
    assert found and set(found) <= {0, 2}
    assert index.count() == 80


def test_local_index_searches_from_one_thread_after_another_reuse_one_connection(index: LocalHybridIndex) -> None:
    # Given a document, searched by 30 short-lived threads in turn (a server's thread per request)
    first, _ = corpus()
    index.index(first[:1], vectors_for(first[:1]))
    index.activate("doc-0", 1)
    for _ in range(30):
        thread = threading.Thread(target=index.search, args=(SearchQuery(text=first[0].text, mode=SearchMode.BM25),))
        thread.start()
        thread.join(WAIT_SECONDS)

    # Then one read connection served them all: none is left open per thread
    assert len(index._readers._idle) == 1
