"""The embedded index remembers which embedding model built it and refuses vectors of another."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.errors import InvalidInput
from voiceassist.models import Chunk, DocumentMetadata

INT8 = "sentence-transformers/all-MiniLM-L6-v2+int8"
FP32 = "sentence-transformers/all-MiniLM-L6-v2"


def chunk() -> Chunk:
    return Chunk(chunk_id="c1", doc_id="d1", doc_key="metformin", version=1, ordinal=0, token_count=8,
                 text="Metformin is first-line for type 2 diabetes.",
                 metadata=DocumentMetadata(doc_key="metformin", title="Metformin"))


def test_an_index_built_with_one_model_refuses_an_embedder_of_another(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    LocalHybridIndex(path, dimension=4, model_id=INT8).close()

    LocalHybridIndex(path, dimension=4, model_id=INT8).close()  # the same model opens it again
    with pytest.raises(InvalidInput, match="VOICEASSIST_EMBEDDING_PRECISION"):
        LocalHybridIndex(path, dimension=4, model_id=FP32)


def test_an_index_from_before_models_were_recorded_counts_as_the_published_fp32_model(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    old = LocalHybridIndex(path, dimension=4)  # as the code before the record: no model id
    old.index([chunk()], np.ones((1, 4), dtype=np.float32))
    old.close()

    with pytest.raises(InvalidInput, match="holds vectors of sentence-transformers/all-MiniLM-L6-v2,"):
        LocalHybridIndex(path, dimension=4, model_id=INT8)
    LocalHybridIndex(path, dimension=4, model_id=FP32).close()


def test_the_cli_refuses_an_index_of_another_model_at_start_with_the_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from voiceassist_local.cli import main

    old = LocalHybridIndex(tmp_path / "data" / "index.sqlite3", dimension=4)  # built before models were recorded
    old.index([chunk()], np.ones((1, 4), dtype=np.float32))
    old.close()

    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))
    assert main(["jobs"]) != 0
    assert "set VOICEASSIST_EMBEDDING_PRECISION to match the index" in capsys.readouterr().err


def _page_size(path: Path) -> int:
    import sqlite3

    db = sqlite3.connect(str(path))
    try:
        return int(db.execute("PRAGMA page_size").fetchone()[0])
    finally:
        db.close()


def _found(index: LocalHybridIndex) -> list[str]:
    from voiceassist.models import SearchMode, SearchQuery

    query = SearchQuery(text="metformin diabetes", vector=[1.0, 0.0, 0.0, 0.0], mode=SearchMode.HYBRID, top_k=5)
    return [hit.chunk.chunk_id for hit in index.search(query)]


def test_a_new_index_file_gets_large_pages_and_an_existing_one_keeps_its_own(tmp_path: Path) -> None:
    import sqlite3

    from voiceassist.adapters.local.index_tables import PAGE_SIZE

    new = tmp_path / "new.sqlite3"
    index = LocalHybridIndex(new, dimension=4, model_id=INT8)
    index.index([chunk()], np.ones((1, 4), dtype=np.float32))
    index.activate("metformin", 1)
    assert _found(index) == ["c1"]
    index.close()
    assert PAGE_SIZE != 4096 and _page_size(new) == PAGE_SIZE
    reopened = LocalHybridIndex(new, dimension=4, model_id=INT8)
    assert _found(reopened) == ["c1"]
    reopened.close()

    # A file written before (SQLite's default 4 KB pages, in WAL mode): opened, written and searched as it is.
    old = tmp_path / "old.sqlite3"
    db = sqlite3.connect(str(old))
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE other (x)")
    db.close()
    assert _page_size(old) == 4096
    index = LocalHybridIndex(old, dimension=4, model_id=INT8)
    index.index([chunk()], np.ones((1, 4), dtype=np.float32))
    index.activate("metformin", 1)
    assert _found(index) == ["c1"]
    index.close()
    assert _page_size(old) == 4096


def test_searches_read_through_a_mapped_file_and_see_another_connections_growth(tmp_path: Path) -> None:
    from voiceassist.adapters.local.index_tables import READER_MMAP_BYTES

    # Given an index file searched once (its pooled reader maps the file) and a second writer on the same file
    path = tmp_path / "index.sqlite3"
    server = LocalHybridIndex(path, dimension=4, model_id=INT8)
    server.index([chunk()], np.ones((1, 4), dtype=np.float32))
    server.activate("metformin", 1)
    assert _found(server) == ["c1"]
    with server._readers.connection(server._db) as reader:
        assert reader.execute("PRAGMA mmap_size").fetchone()[0] == READER_MMAP_BYTES > 0

    # When the other writer grows the file well past its size at the mapping (another 300 chunks, ~1 MB)
    cli = LocalHybridIndex(path, dimension=4, model_id=INT8)
    more = [chunk().model_copy(update={"chunk_id": f"m{i}", "doc_id": f"more{i}#v1", "doc_key": f"more{i}",
                                       "text": f"Metformin note {i} " + "x" * 3000}) for i in range(300)]
    cli.index(more, np.tile(np.asarray([[0.0, 1.0, 0.0, 0.0]], dtype=np.float32), (300, 1)))
    cli.activate_many([(c.doc_key, 1) for c in more])
    cli._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the pages move from the WAL into the mapped file
    cli.close()

    # Then the server's searches read the new chunks whole, through the same mapped reader
    from voiceassist.models import SearchMode, SearchQuery

    hits = server.search(SearchQuery(text="metformin note", vector=[0.0, 1.0, 0.0, 0.0], mode=SearchMode.DENSE,
                                     top_k=400))
    assert len(hits) == 301
    assert {hit.chunk.chunk_id: hit.chunk.text for hit in hits}["m299"] == "Metformin note 299 " + "x" * 3000
    server.close()
