"""PDF chunks carry the section they are in: headings found by their typography, across page breaks, and
never a running head, a caption, a table row or the title block (a wrong section is worse than none)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.support.pdfgen import Line, build_pdf
from voiceassist.ingest.chunking import chunk_document
from voiceassist.ingest.cleaning import clean_pages
from voiceassist.ingest.extraction import PDF, extract
from voiceassist.models import Chunk, DocumentMetadata

PDF_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "pdf"
METADATA = DocumentMetadata(title="Community-acquired pneumonia", doc_key="cap-guide")
DOSING = ("Amoxicillin 1 g orally three times daily is first line for adults without comorbidities. "
          "Doxycycline 100 mg twice daily is an alternative for patients allergic to penicillin. ") * 3
FOLLOW_UP = ("Review the patient within 48 hours. Repeat the chest radiograph at six weeks in smokers "
             "and in patients over 50 years of age. ") * 3


def pdf_chunks(data: bytes, *, max_tokens: int = 60) -> list[Chunk]:
    pages = clean_pages(extract(data, PDF, max_bytes=10 * 1024 * 1024).pages)
    return chunk_document(pages, doc_id="doc", doc_key="cap-guide", version=1, metadata=METADATA,
                          max_tokens=max_tokens, overlap_tokens=10)


def sections_by_page(chunks: list[Chunk]) -> list[tuple[int | None, str | None]]:
    return list(dict.fromkeys((chunk.page, chunk.section) for chunk in chunks))


def test_pdf_chunks_keep_the_section_heading_they_fall_under() -> None:
    data = build_pdf([
        (None, [Line("Community-acquired pneumonia in adults", size=20, bold=True),
                "A summary of outpatient management for primary care clinicians, 2024 edition.",
                Line("Treatment", size=14, bold=True), DOSING,
                Line("Follow-up", size=14, bold=True), FOLLOW_UP]),
    ])

    chunks = pdf_chunks(data)

    assert {chunk.section for chunk in chunks if "Amoxicillin" in chunk.text} == {"Treatment"}
    assert {chunk.section for chunk in chunks if "radiograph" in chunk.text} == {"Follow-up"}
    assert chunks[0].section is None, "the title block is the document's metadata, not a section"
    assert chunks[0].metadata == METADATA and chunks[0].page == 1


def test_pdf_section_continues_across_a_page_break_until_the_next_heading() -> None:
    data = build_pdf([
        ("1 Treatment", [DOSING]),
        (None, ["Continue treatment for at least five days and until the patient is afebrile for 48 hours. " * 4]),
        (None, ["Switch to oral therapy once the patient can swallow. " * 2,
                Line("2 Follow-up", size=14, bold=True), FOLLOW_UP]),
    ])

    chunks = pdf_chunks(data)

    assert sections_by_page(chunks) == [
        (1, "1 Treatment"), (2, "1 Treatment"), (3, "1 Treatment"), (3, "2 Follow-up")]
    assert all(chunk.section == "2 Follow-up" for chunk in chunks if "radiograph" in chunk.text)
    assert all(chunk.section == "1 Treatment" for chunk in chunks if "oral therapy" in chunk.text)


def test_pdf_running_head_in_heading_type_does_not_become_a_section() -> None:
    running_head = Line("Pneumonia guideline", size=14, bold=True)
    data = build_pdf([("Treatment", [DOSING]), (None, [DOSING]), ("Follow-up", [FOLLOW_UP]), (None, [FOLLOW_UP])],
                     header=running_head)

    chunks = pdf_chunks(data)

    assert {chunk.section for chunk in chunks} == {"Treatment", "Follow-up"}
    assert not any("Pneumonia guideline" in chunk.text for chunk in chunks), "cleaning drops the running head"


def test_pdf_bold_lines_at_body_size_are_sections_only_when_numbered_or_a_standard_name() -> None:
    data = build_pdf([
        ("Dosing", [
            "Doses for adults with normal renal function are listed below. " * 2,
            Line("Drug Dose Route Frequency", bold=True),
            "Amoxicillin 1 g oral three times daily. Doxycycline 100 mg oral twice daily.",
            Line("Table 2 Doses in renal impairment", size=14, bold=True),
            "Halve the dose when the creatinine clearance is below 30 mL/min. " * 2,
            Line("2.1 Monitoring", bold=True), FOLLOW_UP,
            Line("Contraindications", bold=True),
            "Do not give amoxicillin to patients with a history of anaphylaxis to penicillin. " * 2,
        ]),
    ])

    chunks = pdf_chunks(data, max_tokens=200)

    assert [chunk.section for chunk in chunks] == ["Dosing", "2.1 Monitoring", "Contraindications"]
    assert "Drug Dose Route Frequency" in chunks[0].text and "Table 2" in chunks[0].text


def test_pdf_heading_line_is_not_glued_to_the_next_sentence() -> None:
    data = build_pdf([(None, [DOSING, Line("Duration of antibiotic treatment in adults", size=14, bold=True),
                              "treat for five days in total. " + FOLLOW_UP])])

    chunks = pdf_chunks(data, max_tokens=200)

    duration = [chunk for chunk in chunks if chunk.section == "Duration of antibiotic treatment in adults"]
    assert duration and duration[0].text.startswith("Duration of antibiotic treatment in adults\ntreat for five")


needs_eval_pdfs = pytest.mark.skipif(not PDF_DIR.is_dir(), reason=f"{PDF_DIR} is not present")


@needs_eval_pdfs
def test_real_pdf_sections_follow_the_latex_headings(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    data = (PDF_DIR / "006-pdflatex-outline" / "pdflatex-outline.pdf").read_bytes()

    chunks = pdf_chunks(data, max_tokens=200)

    assert list(dict.fromkeys(chunk.section for chunk in chunks)) == [
        "Contents", "1 Foo", "2 Bar", "3 Baz", "4 Foo", "5 Bar", "6 Baz", "7 Foo", "8 Bar", "9 Baz"]
    assert sections_by_page(chunks)[:3] == [(1, "Contents"), (2, "1 Foo"), (2, "2 Bar")]


@needs_eval_pdfs
def test_real_two_column_pdf_labels_its_abstract_but_not_its_title_block(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    data = (PDF_DIR / "026-latex-multicolumn" / "multicolumn.pdf").read_bytes()

    chunks = pdf_chunks(data, max_tokens=200)

    assert chunks[0].section is None and chunks[0].text.startswith("Two-Column Document with Lorem Ipsum")
    assert {chunk.section for chunk in chunks[1:]} == {"Abstract"}
    assert all(chunk.section is None for chunk in chunks if "Your Name" in chunk.text)
