"""The embedded index's in-memory BM25: the same ranking and scores as SQLite FTS5's bm25(), kept current."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from voiceassist.adapters.local.bm25 import TermPostings, TermScores, best_positions, fts5_bm25
from voiceassist.adapters.local.fts5_tokens import FTS5_TOKENIZE, Fts5Tokenizer
from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.models import Chunk, DocumentMetadata, SearchFilters, SearchMode, SearchQuery, SourceType
from voiceassist.query.search import fts5_match_expression, query_terms

DIMENSION = 4
WORDS = ["aspirin", "warfarin", "metformin", "insulin", "asthma", "sepsis", "stroke", "dose", "renal", "trial",
         "risk", "patients", "cohort", "therapy", "mortality", "bleeding", "glucose", "cells", "cell", "increased",
         "increases", "naïve", "β-blocker", "covid-19", "il_6", "IL", "6", "the", "of", "and", "with", "children",
         "adults"]
QUERIES = ["aspirin dose after stroke", "cells cell increased increases", "patients", "naive beta blocker",
           "COVID-19 mortality in children", "warfarin bleeding risk warfarin", "insulin glucose renal",
           "the of and", "zzz unknown words", "therapy trial cohort sepsis mortality asthma", "il_6 sepsis risk"]


def make_chunk(number: int, text: str, *, version: int = 1, year: int = 2020) -> Chunk:
    key = f"doc-{number}"
    metadata = DocumentMetadata(doc_key=key, title=f"{WORDS[number % len(WORDS)]} review", year=year,
                                source_type=list(SourceType)[number % 3], specialty=f"s{number % 4}")
    return Chunk(chunk_id=f"{key}-v{version}", doc_id=f"{key}#v{version}", doc_key=key, version=version,
                 ordinal=0, text=text, token_count=len(text.split()), metadata=metadata)


def random_text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(3, 40)))


def add(index: LocalHybridIndex, chunks: list[Chunk], *, activate: bool = True) -> None:
    vectors = np.random.default_rng(len(chunks)).standard_normal((len(chunks), DIMENSION)).astype(np.float32)
    index.index(chunks, vectors)
    if activate:
        for chunk in chunks:
            index.activate(chunk.doc_key, chunk.version)


def fts5_ranking(path: Path, text: str, depth: int, year_min: int | None = None) -> list[tuple[str, float]]:
    """FTS5's own answer, from a separate connection: (chunk_id, -bm25) best first, from a fresh FTS5 table of
    the searchable chunks only (what the index's BM25 promises to equal), equal scores by document, version and
    ordinal (as the index breaks ties: never by rowid, the order chunks were inserted)."""
    expression = fts5_match_expression(text)
    if expression is None:
        return []
    year = "" if year_min is None else f" AND c.year >= {year_min}"
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE VIRTUAL TABLE temp.oracle USING fts5(text, title, tokenize = '{FTS5_TOKENIZE}')")
        db.execute("INSERT INTO temp.oracle (rowid, text, title) SELECT c.rowid, json_extract(b.chunk_json,"
                   " '$.text'), json_extract(b.chunk_json, '$.metadata.title') FROM chunks AS c JOIN chunk_bodies"
                   " AS b ON b.chunk_rowid = c.rowid WHERE c.searchable = 1")
        return db.execute(
            f"SELECT c.chunk_id, -bm25(oracle, 1.0, 0.5) AS score FROM oracle AS f JOIN chunks AS c"
            f" ON c.rowid = f.rowid AND c.searchable = 1{year} WHERE oracle MATCH ?"
            " ORDER BY score DESC, c.doc_key, c.version, f.rowid LIMIT ?", (expression, depth)).fetchall()


def bm25_ranking(index: LocalHybridIndex, text: str, depth: int, year_min: int | None = None
                 ) -> list[tuple[str, float]]:
    hits = index.search(SearchQuery(text=text, mode=SearchMode.BM25, top_k=depth,
                                    filters=SearchFilters(year_min=year_min)))
    return [(hit.chunk.chunk_id, hit.score) for hit in hits]


@pytest.fixture
def index_path(tmp_path: Path) -> Path:
    return tmp_path / "index.sqlite3"


@pytest.fixture
def index(index_path: Path) -> Iterator[LocalHybridIndex]:
    opened = LocalHybridIndex(index_path, dimension=DIMENSION)
    yield opened
    opened.close()


def assert_same_ranking(mine: list[tuple[str, float]], theirs: list[tuple[str, float]]) -> None:
    assert [chunk_id for chunk_id, _ in mine] == [chunk_id for chunk_id, _ in theirs]
    assert [score for _, score in mine] == pytest.approx([score for _, score in theirs], rel=1e-9)


def test_local_index_bm25_ranks_and_scores_as_fts5(index: LocalHybridIndex, index_path: Path) -> None:
    # Given documents with hidden older versions, replaced chunks and deletions between searches
    rng = random.Random(5)
    add(index, [make_chunk(n, random_text(rng), year=2000 + n % 25) for n in range(120)])
    index.search(SearchQuery(text="warm", mode=SearchMode.BM25))  # loads the in-memory copy
    add(index, [make_chunk(n, random_text(rng), version=2) for n in range(0, 120, 9)], activate=False)
    add(index, [make_chunk(n, random_text(rng), version=2) for n in range(0, 60, 9)])
    add(index, [make_chunk(n, random_text(rng), year=2000 + n % 25) for n in range(120, 140)])
    index.delete_document("doc-7")
    tokenizer = Fts5Tokenizer()
    assert any(len(tokens) > 1 for text in QUERIES for tokens in tokenizer.word_tokens(query_terms(text)))
    tokenizer.close()
    # Then every query, with and without a filter, ranks and scores exactly as FTS5 over the searchable chunks
    # does, a query holding a word FTS5 reads as a phrase ("covid-19" is one word to FTS5 but "il_6" two) too,
    # and none returns a chunk waiting for activation
    for text in QUERIES:
        for year_min in (None, 2012):
            assert_same_ranking(bm25_ranking(index, text, 50, year_min),
                                fts5_ranking(index_path, text, 50, year_min))
    # And once nothing waits for activation, the same
    for n in range(63, 120, 9):
        index.activate(f"doc-{n}", 2)
    for text in QUERIES:
        assert_same_ranking(bm25_ranking(index, text, 50), fts5_ranking(index_path, text, 50))


def test_local_index_bm25_scores_a_term_in_most_chunks_with_fts5s_floor(index: LocalHybridIndex,
                                                                        index_path: Path) -> None:
    # "patients" is in every chunk: FTS5's idf would be negative and is clamped to 1e-6
    add(index, [make_chunk(n, f"patients {WORDS[n]}") for n in range(10)])
    hits = bm25_ranking(index, "patients", 10)
    assert len(hits) == 10
    assert all(0 < score < 1e-5 for _, score in hits)
    assert_same_ranking(hits, fts5_ranking(index_path, "patients", 10))


def test_local_index_bm25_matches_a_phrase_word_as_fts5(index: LocalHybridIndex, index_path: Path) -> None:
    # FTS5 splits "il_6" into the phrase "il 6": only adjacent words in one column match it, every occurrence
    # counts (overlapping ones too: "6 6" twice in "6 6 6"), in the text and in the title
    add(index, [make_chunk(0, "raised IL 6 in sepsis, IL 6 again"), make_chunk(1, "IL receptors and 6 other"),
                make_chunk(2, "il"), make_chunk(3, "6 6 6 il 6 6"), make_chunk(4, "cells 6")])
    hits = bm25_ranking(index, "il_6", 10)
    assert [chunk_id for chunk_id, _ in hits] == ["doc-0-v1", "doc-3-v1"]
    assert_same_ranking(hits, fts5_ranking(index_path, "il_6", 10))
    for text in ("6_6", "6_6_6 sepsis", "il_6_6", "il_6 il", "review_il"):
        assert_same_ranking(bm25_ranking(index, text, 10), fts5_ranking(index_path, text, 10))
    assert bm25_ranking(index, "il_zzz", 10) == []


def test_local_index_version_activated_again_is_found_again_by_a_phrase(index: LocalHybridIndex,
                                                                      index_path: Path) -> None:
    # Given version 2 activated over version 1, then version 1 activated again (a failed update's rollback)
    add(index, [make_chunk(0, "raised IL 6 in sepsis")])
    add(index, [make_chunk(0, "stroke trial cohort", version=2)])
    index.activate("doc-0", 1)
    # Then a phrase word finds version 1 again, and only it, as a single word does
    assert [chunk_id for chunk_id, _ in bm25_ranking(index, "il_6", 10)] == ["doc-0-v1"]
    assert bm25_ranking(index, "stroke", 10) == []
    assert_same_ranking(bm25_ranking(index, "il_6 sepsis", 10), fts5_ranking(index_path, "il_6 sepsis", 10))


def test_local_index_sees_writes_made_through_another_connection(index_path: Path) -> None:
    server = LocalHybridIndex(index_path, dimension=DIMENSION)
    cli = LocalHybridIndex(index_path, dimension=DIMENSION)
    add(server, [make_chunk(1, "aspirin after stroke")])
    assert [c for c, _ in bm25_ranking(server, "aspirin warfarin", 10)] == ["doc-1-v1"]  # loaded

    add(cli, [make_chunk(2, "warfarin bleeding"), make_chunk(1, "aspirin dose review", version=2)])
    assert {c for c, _ in bm25_ranking(server, "aspirin warfarin", 10)} == {"doc-2-v1", "doc-1-v2"}

    add(server, [make_chunk(3, "warfarin and aspirin together")])  # after the other writer's rows
    cli.delete_document("doc-2")
    assert {c for c, _ in bm25_ranking(server, "aspirin warfarin", 10)} == {"doc-1-v2", "doc-3-v1"}
    assert_same_ranking(bm25_ranking(server, "aspirin warfarin", 10),
                        fts5_ranking(index_path, "aspirin warfarin", 10))
    hybrid = server.search(SearchQuery(text="aspirin", vector=[1.0, 0.0, 0.0, 0.0], top_k=10))
    assert {hit.chunk.chunk_id for hit in hybrid} == {"doc-1-v2", "doc-3-v1"}
    server.close()
    cli.close()


def test_local_index_rebuilds_postings_missing_from_an_older_index_file(index_path: Path) -> None:
    first = LocalHybridIndex(index_path, dimension=DIMENSION)
    rng = random.Random(8)
    add(first, [make_chunk(n, random_text(rng)) for n in range(30)])
    first.close()
    with sqlite3.connect(index_path) as db:  # an index file written before postings were stored
        db.execute("DELETE FROM chunk_terms")
        db.execute("DELETE FROM terms")

    reopened = LocalHybridIndex(index_path, dimension=DIMENSION)
    for text in QUERIES:
        assert_same_ranking(bm25_ranking(reopened, text, 30), fts5_ranking(index_path, text, 30))
    reopened.close()


def test_local_index_opens_a_file_with_the_former_fts5_table_and_answers_the_same(index_path: Path) -> None:
    # Given an index file in the format before decision 0032: every indexed chunk also in an FTS5 table
    first = LocalHybridIndex(index_path, dimension=DIMENSION)
    rng = random.Random(9)
    add(first, [make_chunk(n, random_text(rng)) for n in range(40)])
    first.close()
    with sqlite3.connect(index_path) as db:
        db.execute(f"CREATE VIRTUAL TABLE chunk_fts USING fts5(text, title, tokenize = '{FTS5_TOKENIZE}')")
        db.execute("INSERT INTO chunk_fts (rowid, text, title) SELECT chunk_rowid, json_extract(chunk_json,"
                   " '$.text'), json_extract(chunk_json, '$.metadata.title') FROM chunk_bodies")

    # When it is opened, then written to and searched
    reopened = LocalHybridIndex(index_path, dimension=DIMENSION)
    add(reopened, [make_chunk(n, random_text(rng), version=2) for n in range(0, 40, 4)])
    reopened.delete_document("doc-1")

    # Then the FTS5 table is gone, nothing else is, and every query answers as FTS5 over the searchable chunks
    with sqlite3.connect(index_path) as db:
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'chunk_fts%'").fetchone()[0] == 0
    assert reopened.count() == 39 and reopened.count(searchable_only=False) == 49
    for text in QUERIES:
        assert_same_ranking(bm25_ranking(reopened, text, 40), fts5_ranking(index_path, text, 40))
    reopened.close()


def test_local_index_opens_a_file_with_payloads_in_the_chunk_rows_and_answers_the_same(index_path: Path) -> None:
    # Given an index file in the layout before chunk_bodies: each chunk's JSON and vector in its chunks row
    first = LocalHybridIndex(index_path, dimension=DIMENSION)
    rng = random.Random(10)
    add(first, [make_chunk(n, random_text(rng)) for n in range(40)])
    add(first, [make_chunk(n, random_text(rng), version=2) for n in range(0, 40, 5)], activate=False)
    hybrid = SearchQuery(text=QUERIES[0], vector=[0.3, -0.2, 0.9, 0.1], mode=SearchMode.HYBRID, top_k=40)
    before = [(hit.chunk, hit.score, hit.vector_score) for hit in first.search(hybrid)]
    first.close()
    with sqlite3.connect(index_path) as db:
        db.execute("ALTER TABLE chunks ADD COLUMN chunk_json TEXT")
        db.execute("ALTER TABLE chunks ADD COLUMN vector BLOB")
        db.execute("UPDATE chunks SET chunk_json = b.chunk_json, vector = b.vector FROM chunk_bodies AS b"
                   " WHERE b.chunk_rowid = chunks.rowid")
        db.execute("DROP TABLE chunk_bodies")

    # When it is opened
    reopened = LocalHybridIndex(index_path, dimension=DIMENSION)

    # Then the payloads have moved out of the rows, every search answers as before, and writes work
    with sqlite3.connect(index_path) as db:
        assert {column[1] for column in db.execute("PRAGMA table_info(chunks)")}.isdisjoint({"chunk_json", "vector"})
    assert [(hit.chunk, hit.score, hit.vector_score) for hit in reopened.search(hybrid)] == before
    assert reopened.chunk("doc-5-v2").version == 2 and reopened.count(searchable_only=False) == 48
    for n in range(0, 40, 5):
        reopened.activate(f"doc-{n}", 2)
    reopened.delete_document("doc-1")
    assert reopened.count() == 39
    for text in QUERIES:
        assert_same_ranking(bm25_ranking(reopened, text, 40), fts5_ranking(index_path, text, 40))
    reopened.close()


def test_fts5_tokenizer_gives_fts5s_stemmed_folded_tokens() -> None:
    tokenizer = Fts5Tokenizer()
    assert tokenizer.word_tokens(["Cells", "running", "naïve"]) == [("cell",), ("run",), ("naiv",)]
    assert tokenizer.word_tokens(["cells", "il_6", "_"]) == [("cell",), ("il", "6"), ()]  # "il_6": two tokens
    counted = tokenizer.count_terms([("Cells and cell", "Cell review"), ("", ""), ("Naïve cells", "")])
    assert counted.as_dicts(3) == [{"cell": (2, 1), "and": (1, 0), "review": (0, 1)}, {},
                                   {"naiv": (1, 0), "cell": (1, 0)}]
    tokenizer.close()


def test_term_postings_returns_every_row_of_a_term_merged_or_not() -> None:
    postings = TermPostings()

    def add_rows(first: int, last: int) -> None:  # terms 0 and 1 in every row, f = row (+ 0.5 for term 1)
        rows = np.arange(first, last)
        postings.add(np.repeat([0, 1], rows.size), np.concatenate([rows, rows]),
                     np.concatenate([rows, rows + 0.5]).astype(np.float32))

    add_rows(0, 3000)  # 6000 postings: merged at once
    for first in range(3000, 3500, 20):  # 25 small appends: blocks, combined when there are too many
        add_rows(first, first + 20)
    rows_of_term, frequencies = postings.column(1)
    assert rows_of_term.tolist() == list(range(3500))
    assert frequencies.tolist() == [row + 0.5 for row in range(3500)]
    add_rows(3500, 6000)  # the blocks reach a quarter of the main matrix: merged
    assert postings.column(0)[0].tolist() == list(range(6000))
    assert postings.column(0)[1].tolist() == [float(row) for row in range(6000)]
    assert postings.column(7)[0].size == 0


def test_term_postings_added_unsettled_answers_the_same_before_and_after_settling() -> None:
    # Given 30 blocks of postings added without merging (a bulk build's writes), terms 0-2 in rows 0-2999
    postings = TermPostings()
    for first in range(0, 3000, 100):
        rows = np.arange(first, first + 100)
        postings.add(rows % 3, rows, (rows * 0.5).astype(np.float32), settle=False)
    assert not postings.settled

    # Then every term's rows are all there, in order, before and after the merge
    def column(term: int) -> list[tuple[int, float]]:
        rows_of_term, frequencies = postings.column(term)
        return list(zip(rows_of_term.tolist(), frequencies.tolist(), strict=True))

    expected = [[(row, row * 0.5) for row in range(term, 3000, 3)] for term in range(3)]
    assert [column(term) for term in range(3)] == expected
    postings.settle()
    assert postings.settled
    assert [column(term) for term in range(3)] == expected


def test_best_positions_breaks_ties_by_position_and_skips_unmatched_rows() -> None:
    scores = np.array([0.0, 2.0, 1.0, 2.0, 3.0, 1.0])
    allowed = np.array([True, True, True, True, True, False])
    assert best_positions(scores, allowed, 3).tolist() == [4, 1, 3]
    assert best_positions(scores, allowed, 10).tolist() == [4, 1, 3, 2]


def test_local_index_bm25_parts_kept_between_searches_follow_every_change(index: LocalHybridIndex,
                                                                          index_path: Path) -> None:
    # Given searches that keep each word's BM25 part (and N, avgdl) from one search to the next
    rng = random.Random(11)
    add(index, [make_chunk(n, random_text(rng)) for n in range(60)])
    text = "aspirin warfarin patients the il_6"

    def same_as_fts5() -> None:
        assert_same_ranking(bm25_ranking(index, text, 40), fts5_ranking(index_path, text, 40))

    same_as_fts5()
    same_as_fts5()
    assert index._rows is not None and len(index._rows.term_scores) >= 3  # the single tokens kept
    # Then after each kind of change the scores are FTS5's over the searchable chunks again
    add(index, [make_chunk(n, random_text(rng), version=2) for n in range(0, 30, 3)], activate=False)
    same_as_fts5()  # new rows, not searchable yet
    index.activate("doc-3", 2)
    same_as_fts5()  # an activation (a version replaced)
    index.activate_many([("doc-6", 2), ("doc-9", 2)])
    same_as_fts5()
    index.retire("doc-12", 1)
    same_as_fts5()  # a retirement
    index.delete_document("doc-5")
    same_as_fts5()  # a deletion
    other = LocalHybridIndex(index_path, dimension=DIMENSION)
    add(other, [make_chunk(70, "aspirin aspirin warfarin the"), make_chunk(71, "patients with aspirin")])
    other.delete_document("doc-8")
    other.close()
    same_as_fts5()  # another connection's writes and deletion


def test_term_scores_keep_parts_up_to_their_limit_then_start_again() -> None:
    postings = TermPostings()
    rows = np.arange(100)
    postings.add(np.concatenate([np.zeros(100, dtype=np.int64), np.ones(50, dtype=np.int64)]),
                 np.concatenate([rows, rows[:50]]), np.ones(150, dtype=np.float32))
    searchable, lengths = np.ones(100, dtype=bool), np.full(100, 5)
    known = TermScores()
    plain = fts5_bm25(postings, [0, 1], searchable, lengths)
    assert np.array_equal(fts5_bm25(postings, [0, 1], searchable, lengths, known, limit=150), plain)
    assert len(known) == 2 and known.statistics == (100, 5.0)
    assert np.array_equal(fts5_bm25(postings, [1, 0, 1], searchable, lengths, known, limit=150),
                          fts5_bm25(postings, [1, 0, 1], searchable, lengths))
    # A part that would pass the limit drops the others first; one larger than the limit is not kept
    known.clear()
    fts5_bm25(postings, [0], searchable, lengths, known, limit=120)
    fts5_bm25(postings, [1], searchable, lengths, known, limit=120)
    assert len(known) == 1 and known.get(1) is not None
    fts5_bm25(postings, [0], searchable, lengths, known, limit=80)
    assert len(known) == 0
    # Cleared, the statistics are computed again from the flags given
    searchable[:10] = False
    known.clear()
    fts5_bm25(postings, [0], searchable, lengths, known, limit=150)
    assert known.statistics == (90, 5.0)


@pytest.mark.parametrize(("term_scale", "row_scale"), [(1, 1), (7000, 2**22)])  # keys with positions, or without
def test_term_postings_orders_a_shuffled_batch_by_term_then_row(term_scale: int, row_scale: int) -> None:
    rng = np.random.default_rng(term_scale)
    drawn = zip(rng.integers(0, 300, 4000), rng.integers(0, 500, 4000), strict=True)
    pairs = {(int(term), int(row)) for term, row in drawn}
    terms, rows = (np.array(column, dtype=np.int64) for column in zip(*pairs, strict=True))
    terms, rows = terms * term_scale, rows * row_scale  # row positions up to 2**31, as stored (int32)
    frequencies = (rng.random(len(rows)) * 10).astype(np.float32)
    postings = TermPostings()
    postings.add(terms, rows, frequencies)
    expected: dict[int, list[tuple[int, float]]] = {}
    for term, row, frequency in sorted(zip(terms.tolist(), rows.tolist(), frequencies.tolist(), strict=True)):
        expected.setdefault(term, []).append((row, frequency))
    for term in [*expected, 1, 301 * term_scale]:
        found_rows, found_frequencies = postings.column(term)
        assert list(zip(found_rows.astype(np.int64).tolist(), found_frequencies.tolist(), strict=True)) == \
            expected.get(term, [])
