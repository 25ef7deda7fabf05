"""The embedded index keeps each document version's opening vector once and gives each hit its cosine with the
question (SearchHit.opening_cosine); the contract test holds it to OpenSearch's hits."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.errors import InvalidInput
from voiceassist.models import Chunk, DocumentMetadata, SearchMode, SearchQuery

QUESTION = [1.0, 0.0, 0.0, 0.0]


def chunk(version: int, ordinal: int, doc_key: str = "metformin") -> Chunk:
    return Chunk(chunk_id=f"{doc_key}-{version}-{ordinal}", doc_id=f"{doc_key}_v{version}", doc_key=doc_key,
                 version=version, ordinal=ordinal, token_count=8, text=f"Metformin dosing passage {ordinal}.",
                 metadata=DocumentMetadata(doc_key=doc_key, title="Metformin"))


def search(index: LocalHybridIndex, mode: SearchMode = SearchMode.HYBRID) -> dict[str, float | None]:
    hits = index.search(SearchQuery(text="metformin dosing", vector=QUESTION, mode=mode, top_k=10))
    return {hit.chunk.chunk_id: hit.opening_cosine for hit in hits}


def index_version(index: LocalHybridIndex, version: int, opening: list[float] | None) -> None:
    chunks = [chunk(version, 0), chunk(version, 1)]
    index.index(chunks, np.ones((2, 4), dtype=np.float32),
                None if opening is None else np.asarray([opening], dtype=np.float32))
    index.activate("metformin", version)


def test_every_chunk_of_a_version_gets_its_documents_opening_and_reopening_keeps_it(tmp_path: Path) -> None:
    index = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=4)
    index_version(index, 1, [3.0, 4.0, 0.0, 0.0])  # stored as a unit vector: cosine 0.6
    assert search(index) == {"metformin-1-0": 0.6, "metformin-1-1": 0.6}
    index.close()

    reopened = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=4)
    assert search(reopened) == {"metformin-1-0": 0.6, "metformin-1-1": 0.6}
    assert search(reopened, SearchMode.BM25) == {"metformin-1-0": None, "metformin-1-1": None}  # no question vector
    reopened.close()


def test_a_new_version_has_its_own_opening_and_deleting_a_version_deletes_its_opening(tmp_path: Path) -> None:
    index = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=4)
    index_version(index, 1, [1.0, 0.0, 0.0, 0.0])
    index_version(index, 2, [0.0, 1.0, 0.0, 0.0])
    assert search(index) == {"metformin-2-0": 0.0, "metformin-2-1": 0.0}

    index.delete_document("metformin", 2)
    index_version(index, 2, None)  # indexed again without an opening (an Embed artefact from before openings)
    assert search(index) == {"metformin-2-0": None, "metformin-2-1": None}
    index.delete_document("metformin")
    stored = sqlite3.connect(tmp_path / "index.sqlite3").execute("SELECT COUNT(*) FROM document_openings")
    assert stored.fetchone()[0] == 0
    index.close()


def test_an_index_file_from_before_openings_still_searches_without_them(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    old = LocalHybridIndex(path, dimension=4)
    index_version(old, 1, None)
    old.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE document_openings")  # the file as the code before openings left it

    index = LocalHybridIndex(path, dimension=4)
    assert search(index) == {"metformin-1-0": None, "metformin-1-1": None}
    index.close()


def test_an_opening_is_one_finite_row_of_one_document_version() -> None:
    index = LocalHybridIndex(None, dimension=4)
    with pytest.raises(InvalidInput, match="expected vectors"):
        index.index([chunk(1, 0)], np.ones((1, 4), dtype=np.float32), np.ones((2, 4), dtype=np.float32))
    with pytest.raises(InvalidInput, match="finite and non-zero"):
        index.index([chunk(1, 0)], np.ones((1, 4), dtype=np.float32), np.zeros((1, 4), dtype=np.float32))
    with pytest.raises(InvalidInput, match="one document version"):
        index.index([chunk(1, 0), chunk(2, 0)], np.ones((2, 4), dtype=np.float32), np.ones((1, 4), dtype=np.float32))
    index.close()
