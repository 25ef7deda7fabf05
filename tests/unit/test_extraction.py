"""Extraction: content-type detection, text per page, and one specific reason for each way a file fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from voiceassist.errors import ExtractionError, UnsupportedMediaType
from voiceassist.ingest.extraction import HTML, MARKDOWN, PDF, PLAIN_TEXT, detect_content_type, extract
from voiceassist.ingest.ocr import pages_needing_ocr

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
MB = 1024 * 1024


def fixture_bytes(name: str) -> bytes:
    return (DOCUMENTS / name).read_bytes()


def extraction_reason(data: bytes, content_type: str, **limits: float) -> str:
    with pytest.raises(ExtractionError) as caught:
        extract(data, content_type, max_bytes=int(limits.pop("max_bytes", MB)), **limits)  # type: ignore[arg-type]
    return caught.value.reason


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("filename", "data", "expected"),
    [
        ("guide.pdf", b"%PDF-1.7\n...", PDF),
        ("upload.bin", b"%PDF-1.4\n...", PDF),  # magic bytes win over the name
        ("notes.md", b"# Title", MARKDOWN),
        ("page.HTM", b"<p>x</p>", HTML),
        ("readme.txt", b"plain", PLAIN_TEXT),
        ("export", b"  <!DOCTYPE html><html></html>", HTML),
        ("notes", b"no extension, plain words", PLAIN_TEXT),
    ],
)
def test_detect_content_type_uses_magic_bytes_then_the_name(
    filename: str, data: bytes, expected: str
) -> None:
    assert detect_content_type(filename, data) == expected


@pytest.mark.parametrize(
    ("filename", "data", "named"),
    [
        ("sheet.xlsx", b"PK\x03\x04rest-of-zip", "ZIP container"),
        ("scan.png", b"\x89PNG\r\n\x1a\n....", "PNG image"),
        ("photo.jpg", b"\xff\xd8\xff\xe0....", "JPEG image"),
        ("sheet.csv", b"a,b\n1,2\n", ".csv"),
        ("fake.pdf", b"this is not a pdf", "no PDF header"),
    ],
)
def test_detect_content_type_refuses_unsupported_uploads_and_says_what_they_are(
    filename: str, data: bytes, named: str
) -> None:
    with pytest.raises(UnsupportedMediaType) as caught:
        detect_content_type(filename, data)
    assert named in str(caught.value)
    assert "upload a PDF" in str(caught.value)


def test_extract_refuses_an_unsupported_content_type() -> None:
    with pytest.raises(UnsupportedMediaType):
        extract(b"data", "application/msword", max_bytes=MB)


# --------------------------------------------------------------------------- PDF


def test_extract_pdf_keeps_one_based_page_numbers_and_the_dosing_text() -> None:
    document = extract(fixture_bytes("two_pages.pdf"), PDF, max_bytes=MB)

    assert [page.number for page in document.pages] == [1, 2]
    assert "Amoxicillin 500 mg PO q8h" in document.pages[0].text
    assert "Epinephrine 1:1000, 0.5 mg IM." in document.pages[1].text
    assert document.content_type == PDF


def test_extract_pdf_opens_a_file_encrypted_with_an_empty_user_password() -> None:
    document = extract(fixture_bytes("empty_user_password.pdf"), PDF, max_bytes=MB)

    assert "Amoxicillin 500 mg" in document.pages[0].text


def test_extract_pdf_with_a_password_fails_as_encrypted() -> None:
    reason = extraction_reason(fixture_bytes("password_protected.pdf"), PDF)

    assert reason == "encrypted: password-protected PDFs are not supported"


def test_extract_pdf_without_a_text_layer_names_its_pages_for_ocr() -> None:
    document = extract(fixture_bytes("image_only.pdf"), PDF, max_bytes=MB)

    assert [(page.number, page.text) for page in document.pages] == [(1, "")]
    assert pages_needing_ocr(document.pages) == [1]


def test_extract_mixed_pdf_sends_only_the_scanned_page_to_ocr() -> None:
    document = extract(fixture_bytes("mixed_text_and_scan.pdf"), PDF, max_bytes=MB)

    assert document.pages[0].text.startswith("Amoxicillin 500 mg")
    assert pages_needing_ocr(document.pages) == [2]


def test_extract_pdf_with_a_cut_off_structure_fails_as_broken() -> None:
    reason = extraction_reason(fixture_bytes("truncated.pdf"), PDF)

    assert reason.startswith("broken PDF:")


def test_extract_pdf_whose_fonts_map_to_control_codes_sends_every_page_to_ocr() -> None:
    document = extract(fixture_bytes("unreadable_font.pdf"), PDF, max_bytes=MB)

    assert pages_needing_ocr(document.pages) == [1]


def test_extract_pdf_over_the_page_limit_fails_as_too_many_pages() -> None:
    reason = extraction_reason(fixture_bytes("two_pages.pdf"), PDF, max_pages=1)

    assert reason == "too many pages: the PDF has 2 pages, the limit is 1"


def test_extract_pdf_over_its_time_budget_stops_with_the_page_it_reached() -> None:
    reason = extraction_reason(fixture_bytes("two_pages.pdf"), PDF, max_seconds=0.0)

    assert reason.startswith("too slow: reading stopped after page 1 of 2")


# --------------------------------------------------------------------------- any format


def test_extract_empty_file_fails_as_empty() -> None:
    assert extraction_reason(b"", PLAIN_TEXT) == "empty file: the upload has 0 bytes"


def test_extract_file_over_the_byte_limit_fails_as_too_large() -> None:
    reason = extraction_reason(fixture_bytes("two_pages.pdf"), PDF, max_bytes=100)

    assert reason.startswith("too large: the file has 1,")
    assert reason.endswith("the limit is 100 bytes")


def test_extract_binary_data_sent_as_text_fails_as_unreadable_encoding() -> None:
    reason = extraction_reason(fixture_bytes("binary.txt"), PLAIN_TEXT)

    assert reason.startswith("unreadable encoding:")


def test_extract_text_full_of_control_codes_fails_as_unreadable_encoding() -> None:
    reason = extraction_reason(bytes(range(1, 9)) * 20 + b" word", PLAIN_TEXT)

    assert reason.startswith("unreadable encoding:")


def test_extract_white_space_only_fails_as_no_text() -> None:
    assert extraction_reason(b" \n\t\n", PLAIN_TEXT).startswith("no text:")


# --------------------------------------------------------------------------- text formats


def test_extract_plain_text_falls_back_to_windows_1252() -> None:
    document = extract(fixture_bytes("windows_1252.txt"), PLAIN_TEXT, max_bytes=MB)

    assert document.pages[0].text == "Give 5\u00a0mg \u2013 not 50 \u00b5g \u2018twice\u2019 daily."
    assert document.pages[0].number is None


def test_extract_plain_text_drops_a_utf8_byte_order_mark() -> None:
    document = extract("\ufeffDose: 2.5–5 mg".encode(), PLAIN_TEXT, max_bytes=MB)

    assert document.pages[0].text == "Dose: 2.5–5 mg"


def test_extract_plain_text_with_form_feeds_numbers_its_pages() -> None:
    document = extract(b"first page\fsecond page", PLAIN_TEXT, max_bytes=MB)

    assert [(page.number, page.text) for page in document.pages] == [(1, "first page"), (2, "second page")]


def test_extract_markdown_gives_one_page_per_section_under_its_heading() -> None:
    document = extract(fixture_bytes("guideline.md"), MARKDOWN, max_bytes=MB)

    assert [(page.number, page.heading) for page in document.pages] == [
        (None, None),
        (None, "Hypertension"),
        (None, "Dosing"),
    ]
    assert document.pages[1].text == "Target <140/90 mmHg in adults."  # emphasis gone, value intact
    assert "See the table." in document.pages[2].text  # link text kept, URL dropped
    assert "# not a heading inside code" in document.pages[2].text


def test_extract_markdown_understands_underlined_headings() -> None:
    document = extract(b"Dosing\n======\nGive 5 mg.\n\nRisks\n-----\nRash.", MARKDOWN, max_bytes=MB)

    sections = [(page.heading, page.text) for page in document.pages]
    assert sections == [("Dosing", "Give 5 mg."), ("Risks", "Rash.")]


def test_extract_html_drops_navigation_scripts_styles_and_footers() -> None:
    document = extract(fixture_bytes("guideline.html"), HTML, max_bytes=MB)
    everything = " ".join(page.text for page in document.pages)

    for boilerplate in ("Home", "trackVisitor", "color:red", "2024 Hospital", "Guide"):
        assert boilerplate not in everything


def test_extract_html_splits_sections_at_headings_and_decodes_entities() -> None:
    document = extract(fixture_bytes("guideline.html"), HTML, max_bytes=MB)

    assert [page.heading for page in document.pages] == ["Anaphylaxis", "Anaphylaxis", "Follow-up"]
    assert "epinephrine 1:1000, 0.5 mg IM & call for help." in document.pages[0].text
    assert document.pages[1].text == "Child | 0.15 mg"  # the table, its own section; cells stay apart
    assert document.pages[2].text == "Observe for ≥ 4 hours."


def test_extract_html_honours_a_declared_charset() -> None:
    html = '<meta charset="windows-1252"><p>50 \u00b5g</p>'.encode("cp1252")

    assert extract(html, HTML, max_bytes=MB).pages[0].text == "50 \u00b5g"
