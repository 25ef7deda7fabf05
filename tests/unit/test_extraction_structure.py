"""Document structure: DOCX sections and tables, tables from HTML kept as rows and together in chunks, the
references section out of the chunks and into the document, figure captions kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pdfgen import build_pdf
from voiceassist.errors import ExtractionError, UnsupportedMediaType
from voiceassist.ingest.chunking import chunk_document
from voiceassist.ingest.extraction import DOCX, HTML, MARKDOWN, PDF, detect_content_type, extract
from voiceassist.ingest.references import split_references
from voiceassist.ingest.tables import table_text
from voiceassist.models import DocumentMetadata, Page

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
MB = 1024 * 1024
HTML_TABLE = (
    b"<h1>Doses</h1><p>Before the table.</p><table><caption>Table 2. Adult doses</caption>"
    b"<thead><tr><th>Drug</th><th>Dose</th><th>Route</th></tr></thead><tbody>"
    b"<tr><td>Epinephrine</td><td>0.5 mg</td><td>IM</td></tr>"
    b"<tr><td>Hydrocortisone</td><td>200 mg</td><td>IV</td></tr></tbody></table><p>After the table.</p>"
    b"<figure><img src='a.png'><figcaption>Figure 1. Anaphylaxis algorithm.</figcaption></figure>"
    b"<h2>References</h2><ol><li>Smith J. Anaphylaxis in adults. BMJ 2020;1:2.</li>"
    b"<li>Doe A. Shock. N Engl J Med 2019;3:4.</li></ol>"
)


def _docx() -> bytes:
    return (DOCUMENTS / "guideline.docx").read_bytes()


def test_docx_is_recognised_by_its_main_part_whatever_its_name() -> None:
    assert detect_content_type("guideline.docx", _docx()) == DOCX
    assert detect_content_type("upload.bin", _docx()) == DOCX


def test_other_zip_containers_are_still_refused() -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")

    with pytest.raises(UnsupportedMediaType, match="ZIP container"):
        detect_content_type("sheet.xlsx", buffer.getvalue())


def test_docx_headings_become_sections_and_the_table_keeps_its_rows() -> None:
    document = extract(_docx(), DOCX, max_bytes=MB)

    assert [(page.heading, page.text.split("\n\n")[0]) for page in document.pages] == [
        ("Hypertension guideline", "Scope: adults in primary care."),
        ("Treatment", "Start with a thiazide or a calcium channel blocker."),
        ("Treatment", "Drug | Starting dose | Maximum dose"),
        ("Treatment", "Figure 1. Blood pressure targets by age group."),
    ]
    assert document.pages[1].text.endswith("- Check electrolytes after two weeks.")
    assert document.pages[2].text.split("\n\n")[1:] == [
        "Amlodipine | Starting dose: 5 mg daily | Maximum dose: 10 mg daily",
        "Indapamide | Starting dose: 1.5 mg daily | Maximum dose: 1.5 mg daily",
    ]


def test_docx_references_are_kept_in_the_document_not_in_its_text() -> None:
    document = extract(_docx(), DOCX, max_bytes=MB)

    assert document.references == [
        "1. Whelton PK, et al. 2017 ACC/AHA guideline. Hypertension. 2018;71:e13-e115.",
        "2. Williams B, et al. 2018 ESC/ESH guidelines. Eur Heart J. 2018;39:3021-3104.",
    ]
    assert "Whelton" not in " ".join(page.text for page in document.pages)


def test_docx_cut_off_fails_as_broken() -> None:
    with pytest.raises(ExtractionError) as caught:
        extract((DOCUMENTS / "truncated.docx").read_bytes(), DOCX, max_bytes=MB)

    assert caught.value.reason.startswith("broken DOCX:")


def test_html_table_is_a_section_of_rows_with_its_caption_and_figure_captions_stay() -> None:
    document = extract(HTML_TABLE, HTML, max_bytes=MB)

    assert [(page.heading, page.text) for page in document.pages] == [
        ("Doses", "Before the table."),
        ("Doses", "Table 2. Adult doses\n\nDrug | Dose | Route\n\nEpinephrine | Dose: 0.5 mg | Route: IM\n\n"
                  "Hydrocortisone | Dose: 200 mg | Route: IV"),
        ("Doses", "After the table.\n\nFigure 1. Anaphylaxis algorithm."),
    ]
    assert document.references == ["Smith J. Anaphylaxis in adults. BMJ 2020;1:2.",
                                   "Doe A. Shock. N Engl J Med 2019;3:4."]


def test_a_long_table_is_chunked_between_rows_never_inside_one_or_with_the_prose() -> None:
    rows = [["Drug", "Adult dose", "Child dose"]] + [[f"Drug{n}", f"{n} mg daily", f"{n / 10:g} mg/kg"]
                                                       for n in range(1, 61)]
    pages = [Page(number=None, text="Prose before the table.", heading="Doses"),
             Page(number=None, text=table_text(rows), heading="Doses")]

    chunks = chunk_document(pages, doc_id="d", doc_key="k", version=1, max_tokens=120, overlap_tokens=0,
                            metadata=DocumentMetadata(doc_key="k", title="Doses"))

    assert chunks[0].text == "Prose before the table."
    table_chunks = [chunk.text for chunk in chunks[1:]]
    assert len(table_chunks) > 1
    lines = [line for text in table_chunks for line in text.split("\n")]
    assert lines == table_text(rows).split("\n\n")  # every row whole, in order, each once


def test_markdown_references_section_is_dropped_from_the_text() -> None:
    text = b"# Sepsis\n\nGive antibiotics within one hour.\n\n## References\n\n1. Evans L. Surviving sepsis. 2021.\n"

    document = extract(text, MARKDOWN, max_bytes=MB)

    assert [page.heading for page in document.pages] == ["Sepsis"]
    assert document.references == ["1. Evans L. Surviving sepsis. 2021."]


def test_pdf_references_run_from_their_heading_to_the_next_heading() -> None:
    pdf = build_pdf([
        ("Dosing", ["Give amoxicillin 500 mg three times daily for seven days."]),
        ("References", ["[1] Smith J. Antibiotics in primary care. BMJ. 2020;1:2.",
                        "[2] Doe A. Penicillin allergy. Lancet. 2019;3:4."]),
        ("Appendix", ["Dose table for children by weight band."]),
    ])

    document = extract(pdf, PDF, max_bytes=MB)

    text = "\n".join(page.text for page in document.pages)
    assert "Smith J" not in text and "Appendix" in text and "amoxicillin 500 mg" in text
    assert document.references == ["[1] Smith J. Antibiotics in primary care. BMJ. 2020;1:2.",
                                   "[2] Doe A. Penicillin allergy. Lancet. 2019;3:4."]


def test_a_document_that_is_only_a_reference_list_is_kept_as_it_is() -> None:
    pages = [Page(number=None, text="1. Smith J. A paper. 2020.", heading="References")]

    assert split_references(pages) == (pages, [])


def test_password_protected_word_document_is_refused_saying_so() -> None:
    # The first bytes of an OLE compound file and the directory entry name MS-OFFCRYPTO gives the ZIP stream
    encrypted = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + "EncryptedPackage".encode("utf-16-le")

    with pytest.raises(UnsupportedMediaType) as caught:
        detect_content_type("protocol.docx", encrypted)

    assert str(caught.value) == ("'protocol.docx' is an encrypted (password-protected) Office document; "
                                   "remove the password in Word and upload it again")


def test_page_and_ocr_limits_are_read_from_the_environment() -> None:
    from voiceassist.settings import settings_from_env

    settings = settings_from_env({"VOICEASSIST_MAX_PAGES": "300", "VOICEASSIST_OCR_PAGE_SECONDS": "20",
                                  "VOICEASSIST_OCR_LOW_CONFIDENCE": "80", "VOICEASSIST_OCR_POLL_SECONDS": "5",
                                  "VOICEASSIST_OCR_MAX_WAIT_SECONDS": "600"})

    assert (settings.max_pages, settings.ocr_page_seconds, settings.ocr_low_confidence, settings.ocr_poll_seconds,
            settings.ocr_max_wait_seconds) == (300, 20.0, 80.0, 5, 600)
