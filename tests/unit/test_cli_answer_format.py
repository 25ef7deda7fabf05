"""`voiceassist ask` prints the answer, its numbered sources and a status line (cli/remote.format_answer)."""

from __future__ import annotations

from typing import Any

from voiceassist_local.cli.remote import format_answer


def _response(*citations: dict[str, Any]) -> dict[str, Any]:
    return {"answer": "Colchicine 1.2 mg, then 0.6 mg one hour later [1].", "citations": list(citations),
            "metadata": {"answer_status": "answered", "evidence_score": 0.95, "model": "extractive",
                         "extractive": True, "intent": "drug_info", "phi_detected": False}}


def test_format_answer_names_a_source_once_when_its_section_is_its_title() -> None:
    # Given a Markdown note whose only heading is its title (ingest names the document by its first heading)
    printed = format_answer(_response({"number": 1, "title": "Acute gout flare", "section": "Acute gout flare"}))
    # Then the source line names it once
    assert "[1] Acute gout flare\n" in printed + "\n"
    assert "Acute gout flare, Acute gout flare" not in printed


def test_format_answer_keeps_a_section_or_page_that_says_where() -> None:
    printed = format_answer(_response(
        {"number": 1, "title": "Hypertension in Primary Care", "section": "First-line drug treatment"},
        {"number": 2, "title": "GeoTopo", "section": "Intro", "page": 12},
    ))
    assert "[1] Hypertension in Primary Care, First-line drug treatment" in printed
    assert "[2] GeoTopo, page 12" in printed
