"""Structure through the real pipeline: a Word document ingests with its sections and its table kept whole in
a chunk, and its references land on the document, not in the index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from voiceassist.composition import Dependencies
from voiceassist.models import JobState, SearchMode, SearchQuery

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"


def test_ingest_docx_keeps_sections_tables_and_references(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    job = ingest("hypertension.docx", (DOCUMENTS / "guideline.docx").read_bytes())

    assert (job.state, job.reason) == (JobState.COMPLETED, None)
    hits = ingest_deps.index.search(SearchQuery(text="amlodipine maximum dose", mode=SearchMode.BM25, top_k=5))
    table = hits[0].chunk
    assert table.section == "Treatment"
    assert table.text == ("Drug | Starting dose | Maximum dose\n"
                          "Amlodipine | Starting dose: 5 mg daily | Maximum dose: 10 mg daily\n"
                          "Indapamide | Starting dose: 1.5 mg daily | Maximum dose: 1.5 mg daily")
    document = ingest_deps.documents.get(job.doc_id)
    assert [entry[:13] for entry in document.references] == ["1. Whelton PK", "2. Williams B"]
    assert ingest_deps.index.search(SearchQuery(text="Whelton Williams", mode=SearchMode.BM25, top_k=5)) == []
