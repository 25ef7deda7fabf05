"""Cleaning: page furniture goes, broken encodings are repaired, and no dose, unit or number changes."""

from __future__ import annotations

import pytest

from voiceassist.ingest.cleaning import clean_pages, normalize_text
from voiceassist.models import Page

DOSING_TEXT = [
    "Amoxicillin 500 mg PO q8h",
    "0.5 mg/kg",
    "1,000 units",
    "2.5–5 mg",
    "<140/90 mmHg",
    "10⁹/L",
    "≥ 7.0%",
    "1:1000 epinephrine",
    "1½ tablets",
    "1.73 m² body surface",
    "37.5 °C",
    "Hb 12–16 g/dL; K⁺ 3.5–5.0 mmol/L",
    "H₂O₂ 3%",
    "−5 °C",
    "INR 2.0–3.0 (target 2.5)",
    "q.i.d. × 7 d",
]


def paged(*texts: str) -> list[Page]:
    return [Page(number=number, text=text) for number, text in enumerate(texts, start=1)]


# --------------------------------------------------------------------------- doses and units


@pytest.mark.parametrize("text", DOSING_TEXT)
def test_normalize_text_never_changes_a_dose_or_unit(text: str) -> None:
    assert normalize_text(text) == text


@pytest.mark.parametrize("text", DOSING_TEXT)
def test_clean_pages_never_changes_a_dose_or_unit_on_any_page(text: str) -> None:
    pages = paged(f"Intro.\n{text}\nMore.", f"Second.\n{text}\nEnd.", f"Third.\n{text}\nLast.")

    assert all(text in page.text for page in clean_pages(pages))


def test_normalize_text_keeps_the_micro_prefix_as_a_mu() -> None:
    assert normalize_text("50 \u00b5g") == "50 \u03bcg"  # NFKC's micro sign -> Greek mu, never dropped


# --------------------------------------------------------------------------- encodings


@pytest.mark.parametrize(
    ("broken", "repaired"),
    [
        ("It\u00e2\u20ac\u2122s 5\u00c2\u00a0mg", "It\u2019s 5 mg"),  # â€™ and Â-nbsp
        ("2.5\u00e2\u20ac\u201c5 mg", "2.5\u20135 mg"),  # an en dash range
        ("50 \u00c2\u00b5g", "50 \u03bcg"),
        ("caf\u00c3\u00a9", "caf\u00e9"),
    ],
)
def test_normalize_text_repairs_utf8_read_as_windows_1252(broken: str, repaired: str) -> None:
    assert normalize_text(broken) == repaired


def test_normalize_text_leaves_real_accented_text_that_resembles_mojibake() -> None:
    assert normalize_text("Straße\u201c") == "Straße\u201c"


def test_normalize_text_expands_ligatures_and_drops_invisible_characters() -> None:
    assert normalize_text("\ufb01brosis \ufb02ow zero\u200bwidth") == "fibrosis flow zerowidth"


def test_normalize_text_joins_a_word_split_at_a_soft_hyphen() -> None:
    assert normalize_text("thera\u00adpy and thera\u00ad\npy") == "therapy and therapy"


def test_normalize_text_collapses_spaces_but_keeps_paragraphs() -> None:
    assert normalize_text("a  \t b\r\n\n\n\nc\u2003d ") == "a b\n\nc d"


def test_normalize_text_replaces_control_glyphs_with_spaces() -> None:
    assert normalize_text("Abbildung\r: [0; 1]\x12X") == "Abbildung : [0; 1] X"


# --------------------------------------------------------------------------- page furniture


def test_clean_pages_removes_running_headers_and_footers() -> None:
    pages = paged(
        "Hypertension Guideline, Draft\nAdults need a target.\nMeasure twice.\nCONFIDENTIAL",
        "Hypertension Guideline, Draft\nStart with lifestyle change.\nThen add a thiazide.\nCONFIDENTIAL",
        "Hypertension Guideline, Draft\nReview after four weeks.\nAdjust the dose.\nCONFIDENTIAL",
    )

    cleaned = [page.text for page in clean_pages(pages)]

    assert cleaned == [
        "Adults need a target.\nMeasure twice.",
        "Start with lifestyle change.\nThen add a thiazide.",
        "Review after four weeks.\nAdjust the dose.",
    ]


def test_clean_pages_removes_a_header_whose_number_follows_the_page() -> None:
    pages = paged(*(f"Cardiology Handbook — {n + 40}\nBody of page {'abc'[n - 1]}." for n in (1, 2, 3)))

    assert [page.text for page in clean_pages(pages)] == [f"Body of page {x}." for x in "abc"]


@pytest.mark.parametrize("label", ["Page {n} of 3", "page {n}", "- {n} -", "— {n} —", "{n} / 3", "{n}"])
def test_clean_pages_removes_page_number_lines(label: str) -> None:
    pages = paged(*(f"Text on page {'abc'[n - 1]}.\n{label.format(n=n)}" for n in (1, 2, 3)))

    assert [page.text for page in clean_pages(pages)] == [f"Text on page {x}." for x in "abc"]


def test_clean_pages_keeps_numbers_that_do_not_follow_the_pages() -> None:
    # Table cells at the foot of pages: bare numbers, but not a page sequence.
    texts = ["Tablets per dose\n2", "Doses per day\n2", "Days\n14"]

    assert [page.text for page in clean_pages(paged(*texts))] == texts


def test_clean_pages_keeps_a_dose_line_repeated_at_the_top_of_pages() -> None:
    pages = paged(*(f"Amoxicillin 500 mg PO q8h\nRow {n} of the table." for n in "abcd"))

    assert all(page.text.startswith("Amoxicillin 500 mg PO q8h") for page in clean_pages(pages))


def test_clean_pages_keeps_a_repeated_line_that_is_all_a_page_says() -> None:
    pages = paged("Background", "Background", "Background")

    assert [page.text for page in clean_pages(pages)] == ["Background"] * 3


def test_clean_pages_keeps_page_count_numbers_and_headings() -> None:
    pages = [Page(number=None, text="Body.", heading="  Dosing \ufb01rst "), Page(number=None, text="")]

    cleaned = clean_pages(pages)

    assert [(page.number, page.heading, page.text) for page in cleaned] == [
        (None, "Dosing first", "Body."),
        (None, None, ""),
    ]


def test_clean_pages_cleans_each_heading_a_pdf_page_lists() -> None:
    pages = [Page(number=1, text="\ufb01rst line\nDosing\nWarnings", heading=" \ufb01rst  line\n\nWarnings ")]

    assert clean_pages(pages)[0].heading == "first line\nWarnings"


# --------------------------------------------------------------------------- hyphenation


@pytest.mark.parametrize(
    ("broken", "joined"),
    [
        ("The thera-\npy works.", "The therapy works."),
        ("Untreated hyper-\ntension is common.", "Untreated hypertension is common."),
        ("Give a beta-\nblocker now.", "Give a beta-blocker now."),
        ("A dose-\ndependent effect.", "A dose-dependent effect."),
        ("Arrange follow-\nup visits.", "Arrange follow-up visits."),
        ("Since COVID-\n19 began.", "Since COVID-19 began."),
        ("Give 2.5-\n5 mg daily.", "Give 2.5-5 mg daily."),
        ("Non-\nHodgkin lymphoma.", "Non-Hodgkin lymphoma."),
        ("IL-\n6 levels rose.", "IL-6 levels rose."),
    ],
)
def test_clean_pages_joins_line_break_hyphenation_but_keeps_real_hyphens(broken: str, joined: str) -> None:
    assert clean_pages([Page(number=None, text=broken)])[0].text == joined


def test_clean_pages_uses_the_documents_own_spelling_to_decide() -> None:
    text = "Use a loop-\ndiuretic. A loop-diuretic is cheap. Treat-\nment helps the treatment."

    cleaned = clean_pages([Page(number=None, text=text)])[0].text

    assert cleaned == "Use a loop-diuretic. A loop-diuretic is cheap. Treatment helps the treatment."


def test_clean_pages_completes_a_word_hyphenated_across_pages() -> None:
    cleaned = clean_pages(paged("The first-line thera-", "py is a thiazide."))

    assert [page.text for page in cleaned] == ["The first-line therapy", "is a thiazide."]
